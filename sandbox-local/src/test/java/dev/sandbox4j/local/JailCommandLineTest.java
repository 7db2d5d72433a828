package dev.sandbox4j.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The jail's command line for given inputs, exactly (no jail, no process: {@link JailCommandLine} is a pure
 * function). What the security of the jail rests on is asserted by name: every host path but the workspace bound
 * read-only, a new /proc (no host /proc, /sys or /dev), every namespace unshared (the network's included), the uid
 * drop for root and none for others, the cgroup placement before anything else.
 */
class JailCommandLineTest {
    private static final Path CTL = Path.of("/tmp/sandbox4j-local-1-ctl-9");
    private static final Path WS = Path.of("/tmp/sandbox4j-local-1-ws-9");
    private static final Path BIN = Path.of("/tmp/sandbox4j-local-1-bin-9/base");
    private static final JailCommandLine.Paths PATHS = new JailCommandLine.Paths(CTL, WS, BIN);

    /** A merged-/usr host (Debian 12): /bin, /sbin, /lib and /lib64 are links; no lib32. */
    private static JailCommandLine.HostFacts merged(String prlimit) {
        Map<String, String> links = new LinkedHashMap<>();
        links.put("bin", "usr/bin");
        links.put("sbin", "usr/sbin");
        links.put("lib", "usr/lib");
        links.put("lib64", "usr/lib64");
        return new JailCommandLine.HostFacts("/usr/bin/bwrap", "/usr/bin/setpriv", prlimit, 1024, links);
    }

    private static JailCommandLine.Jail root(long maxFile, long tmp) {
        return new JailCommandLine.Jail(true, 1043504, 1043504, maxFile, tmp, 0, 0, false);
    }

    private static final List<String> PREFIX = List.of("--unshare-all", "--unshare-user", "--disable-userns",
            "--as-pid-1", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--clearenv",
            "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "HOME", "/workspace",
            "--setenv", "TMPDIR", "/tmp", "--setenv", "LANG", "C.UTF-8", "--setenv", "USER", "sandbox",
            "--setenv", "LOGNAME", "sandbox", "--hostname", "sandbox", "--ro-bind", "/usr", "/usr");

    private static final List<String> ETC = List.of("--perms", "0755", "--dir", "/etc",
            "--ro-bind-try", "/etc/alternatives", "/etc/alternatives", "--ro-bind-try", "/etc/ssl", "/etc/ssl",
            "--ro-bind-try", "/etc/ca-certificates", "/etc/ca-certificates",
            "--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache", "--ro-bind-try", "/etc/localtime",
            "/etc/localtime", "--ro-bind-data", "5", "/etc/passwd", "--ro-bind-data", "6", "/etc/group",
            "--ro-bind-data", "7", "/etc/hosts", "--ro-bind-data", "8", "/etc/nsswitch.conf",
            "--proc", "/proc", "--dev", "/dev");

    private static final List<String> SUFFIX = List.of("--tmpfs", "/tmp",
            "--bind", WS.toString(), "/workspace", "--ro-bind", BIN.toString(), "/opt/sandbox4j",
            "--chdir", "/workspace", "--remount-ro", "/", "--seccomp", "4");

    private static List<String> concat(List<?>... parts) {
        List<String> all = new ArrayList<>();
        for (List<?> p : parts) {
            p.forEach(o -> all.add(o.toString()));
        }
        return all;
    }

    @Test
    void rootOnAMergedUsrHostWithEveryLimit() {
        JailCommandLine line = JailCommandLine.of(root(1 << 30, 256L << 20), merged("/usr/bin/prlimit"), PATHS,
                "echo $$ > '/sys/fs/cgroup/memory/sandbox4j/sbx-1-a/cgroup.procs' || exit 121\n", List.of());
        assertThat(line.bwrap()).containsExactlyElementsOf(concat(PREFIX,
                List.of("--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin", "--symlink", "usr/lib",
                        "/lib", "--symlink", "usr/lib64", "/lib64"),
                ETC,
                List.of("--perms", "1777", "--size", "67108864", "--tmpfs", "/dev/shm",
                        "--perms", "1777", "--size", "268435456"),
                SUFFIX));
        assertThat(line.agent()).containsExactly("/opt/sandbox4j/sbx-agent");
        String c = CTL.toString();
        assertThat(line.launcher()).containsExactly("/bin/sh", "-c",
                "echo $$ > '/sys/fs/cgroup/memory/sandbox4j/sbx-1-a/cgroup.procs' || exit 121\n"
                        + "exec 3<'" + c + "/args' 4<'" + c + "/seccomp' 5<'" + c + "/passwd' 6<'" + c + "/group' 7<'"
                        + c + "/hosts' 8<'" + c + "/nsswitch' || exit 122\n"
                        + "rm -f '" + c + "/args' '" + c + "/seccomp' '" + c + "/passwd' '" + c + "/group' '" + c
                        + "/hosts' '" + c + "/nsswitch'\n"
                        + "exec '/usr/bin/prlimit' --nofile=1024:1024 --core=0:0 --fsize=1073741824:1073741824 "
                        + "'/usr/bin/setpriv' --reuid=1043504 --regid=1043504 --clear-groups --inh-caps=-all "
                        + "--bounding-set=-all -- '/usr/bin/bwrap' --args 3 -- '/opt/sandbox4j/sbx-agent'\n");
    }

    @Test
    void mounts_comeAfterTheWorkspace_readOnlyOrNot_beforeTheAgentDir() {
        JailCommandLine.Paths paths = new JailCommandLine.Paths(CTL, Path.of("/tmp/ctl/merged"), BIN, List.of(
                new JailCommandLine.Bind(Path.of("/data/set"), "/workspace/data", true),
                new JailCommandLine.Bind(CTL.resolve("scratch-0"), "/cache", false)));
        List<String> a = JailCommandLine.of(root(0, 0), merged(null), paths, "", List.of()).bwrap();
        int ws = a.indexOf("/tmp/ctl/merged");
        assertThat(a.subList(ws - 1, ws + 11)).containsExactly("--bind", "/tmp/ctl/merged", "/workspace",
                "--ro-bind", "/data/set", "/workspace/data", "--bind", CTL + "/scratch-0", "/cache",
                "--ro-bind", BIN.toString(), "/opt/sandbox4j");
        assertThat(JailCommandLine.of(root(0, 0), merged(null), PATHS, "", List.of()).bwrap())
                .as("no mounts: the same line as before").doesNotContain("/workspace/data", "/cache");
    }

    @Test
    void notRootKeepsItsOwnUidMappedByBwrap_andTheRlimitFlagsGoToTheAgent() {
        JailCommandLine.Jail jail = new JailCommandLine.Jail(false, 1000, 1000, 0, 0, 64, 512L << 20, true);
        JailCommandLine line = JailCommandLine.of(jail, merged(null), PATHS, "", List.of("systemd-run", "--user"));
        // no setpriv, no prlimit (absent here), no uid option: bwrap maps the JVM's uid in the jail's user namespace
        assertThat(line.script()).doesNotContain("setpriv").doesNotContain("prlimit").doesNotContain("--reuid");
        assertThat(line.bwrap()).doesNotContain("--uid", "--gid");
        assertThat(line.bwrap().subList(0, 2)).containsExactly("--info-fd", "9");
        assertThat(line.agent()).containsExactly("/opt/sandbox4j/sbx-agent", "--nproc=64", "--data=536870912");
        assertThat(line.launcher().subList(0, 4)).containsExactly("systemd-run", "--user", "/bin/sh", "-c");
        assertThat(line.script()).contains(" 9>'" + CTL + "/info' || exit 122\n")
                .endsWith("exec '/usr/bin/bwrap' --args 3 -- '/opt/sandbox4j/sbx-agent' '--nproc=64' "
                        + "'--data=536870912'\n");
        // no tmp size asked: tmpfs without --size
        assertThat(line.bwrap()).doesNotContain("--size");
    }

    @Test
    void onlyTheWorkspaceIsWritable_andNoHostProcSysOrDevIsBound() {
        Map<String, String> split = Map.of("bin", "", "lib", "", "lib32", "", "libx32", "usr/libx32");
        JailCommandLine.HostFacts host = new JailCommandLine.HostFacts("/opt/bw/bwrap", "/sbin/setpriv",
                "/usr/bin/prlimit", 512, split);
        List<String> a = JailCommandLine.of(root(0, 0), host, PATHS, "", List.of()).bwrap();
        // the host's top-level dirs in ROOT_ENTRIES order: directories read-only, links as links; absent ones not
        assertThat(a.subList(PREFIX.size(), PREFIX.size() + 12)).containsExactly("--ro-bind", "/bin", "/bin",
                "--ro-bind", "/lib", "/lib", "--ro-bind", "/lib32", "/lib32", "--symlink", "usr/libx32", "/libx32");
        List<String> writable = new ArrayList<>();
        List<String> sources = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            switch (a.get(i)) {
                case "--bind", "--bind-try", "--dev-bind", "--dev-bind-try" -> writable.add(a.get(i + 1));
                case "--ro-bind", "--ro-bind-try" -> sources.add(a.get(i + 1));
                default -> { }
            }
        }
        assertThat(writable).containsExactly(WS.toString());
        assertThat(sources).allMatch(s -> s.equals("/usr") || s.startsWith("/etc/") || s.equals(BIN.toString())
                || List.of("/bin", "/lib", "/lib32").contains(s), "read-only sources");
        assertThat(sources).noneMatch(s -> s.startsWith("/proc") || s.startsWith("/sys") || s.startsWith("/dev")
                || s.startsWith("/home") || s.startsWith("/root") || s.startsWith("/run") || s.equals("/"));
        // a new /proc of the jail's own pid namespace, a minimal /dev; the root read-only at the end
        assertThat(String.join(" ", a)).contains("--proc /proc --dev /dev")
                .endsWith("--chdir /workspace --remount-ro / --seccomp 4");
        assertThat(a.indexOf("--remount-ro")).isGreaterThan(a.lastIndexOf("--bind"));
    }

    @Test
    void everyNamespaceIsUnshared_theNetworksToo_andNoCapabilityOrEnvironmentIsKept() {
        List<String> a = JailCommandLine.of(root(0, 0), merged(null), PATHS, "", List.of()).bwrap();
        assertThat(a.subList(0, 9)).containsExactly("--unshare-all", "--unshare-user", "--disable-userns",
                "--as-pid-1", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--clearenv");
        // loopback only: a network policy is served by the agent's relay, never by the host's network namespace
        assertThat(a).doesNotContain("--share-net", "--cap-add", "--userns", "--pidns", "--bind-fd", "--uid");
        List<String> vars = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            if (a.get(i).equals("--setenv")) {
                vars.add(a.get(i + 1));
            }
        }
        assertThat(vars).containsExactly("PATH", "HOME", "TMPDIR", "LANG", "USER", "LOGNAME");
    }

    @Test
    void controlFilesAreTheArgsNulSeparatedTheFilterAndTheJailsOwnUsers() {
        JailCommandLine.Jail jail = root(0, 0);
        JailCommandLine line = JailCommandLine.of(jail, merged(null), PATHS, "", List.of());
        byte[] filter = {1, 2, 3, 4, 5, 6, 7, 8};
        Map<String, byte[]> files = line.controlFiles(jail, filter);
        assertThat(files.keySet()).containsExactlyElementsOf(JailCommandLine.CONTROL_FILES);
        assertThat(new String(files.get("args"), StandardCharsets.UTF_8))
                .isEqualTo(String.join("\0", line.bwrap()) + "\0");
        assertThat(files.get("seccomp")).isEqualTo(filter).isNotSameAs(filter);
        assertThat(new String(files.get("passwd"), StandardCharsets.UTF_8)).isEqualTo(
                "root:x:0:0:root:/root:/usr/sbin/nologin\nsandbox:x:1043504:1043504:sandbox:/workspace:/bin/sh\n"
                        + "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n");
        assertThat(new String(files.get("group"), StandardCharsets.UTF_8))
                .isEqualTo("root:x:0:\nsandbox:x:1043504:\nnogroup:x:65534:\n");
        assertThat(new String(files.get("hosts"), StandardCharsets.UTF_8)).startsWith("127.0.0.1\tlocalhost\n");
        assertThat(new String(files.get("nsswitch"), StandardCharsets.UTF_8))
                .isEqualTo("passwd: files\ngroup: files\nhosts: files\n");
    }

    @Test
    void aPathTheScriptCannotQuoteIsRefused() {
        JailCommandLine.Paths quoted = new JailCommandLine.Paths(Path.of("/tmp/it's"), WS, BIN);
        assertThatThrownBy(() -> JailCommandLine.of(root(0, 0), merged(null), quoted, "", List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("it's");
        JailCommandLine.HostFacts odd = new JailCommandLine.HostFacts("/o'pt/bwrap", "/usr/bin/setpriv", null,
                1024, Map.of());
        assertThatThrownBy(() -> JailCommandLine.of(root(0, 0), odd, PATHS, "", List.of()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JailCommandLine.nulJoin(Arrays.asList("a", "b\0c")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theHostFactsOfThisMachineGiveACommandLineWithEveryRootEntryItHas() {
        JailCommandLine.HostFacts facts = Host.jailFactsOf("/usr/bin/bwrap", "/usr/bin/setpriv", null);
        assertThat(facts.nofile()).isBetween(1L, 1024L);
        for (String d : facts.rootLinks().keySet()) {
            assertThat(JailCommandLine.ROOT_ENTRIES).contains(d);
            assertThat(Path.of("/" + d)).exists();
        }
    }
}
