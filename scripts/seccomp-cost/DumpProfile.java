/** Prints sandbox4j's generated Docker/Podman seccomp profile for an architecture (args: arch [opt-in sets...]). */
public class DumpProfile {
    public static void main(String[] args) {
        java.util.Set<String> sets = new java.util.TreeSet<>(java.util.Arrays.asList(args).subList(1, args.length));
        System.out.print(dev.sandbox4j.core.seccomp.SeccompPolicy.of(sets).ociProfile(args[0]));
    }
}
