package dev.sandbox4j.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.core.seccomp.SeccompPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Issue 33's "within 5 % of before", measured (not a pass/fail test of speed): the jail with the deny-list it had
 * before the allow-list ({@link DenyListSeccomp}, commit ecc5599^) against the allow-list ({@link SeccompPolicy}) and
 * against the allow-list's first, linear program ({@link #V1}),
 * in one JVM, sample by sample alternating A B / B A so that the load of this shared machine falls on both alike. Per
 * round and variant: open + {@code true} + close ({@value #OPENS} times), a command round-trip ({@value #TRIPS} {@code true}
 * on one open sandbox), and the in-jail cost of the filter itself: a C loop of {@code fcntl(F_GETFD)} (an argument
 * rule in both programs, so the filter runs on every call), {@code getppid} (allowed by both without arguments: the
 * kernel's seccomp cache skips the filter) and {@code clone3} (allowed by the old list, ENOSYS in the new: the filter
 * runs to its end), in ns of the thread's CPU time per call. Runs only with {@code -Dsandbox4j.measure=true} (rounds:
 * {@code -Dsandbox4j.measure.rounds}, default 8); prints a table to stdout. docs/security.md has the figures.
 */
@EnabledIfSystemProperty(named = "sandbox4j.measure", matches = "true")
class SeccompCostMeasure {
    static final int OPENS = 20;
    static final int TRIPS = 100;
    static final String LOOP_C = String.join("\n",
            "#define _GNU_SOURCE",
            "#include <fcntl.h>",
            "#include <stdio.h>",
            "#include <stdlib.h>",
            "#include <time.h>",
            "#include <unistd.h>",
            "#include <sys/syscall.h>",
            // the thread's CPU time, not the wall clock: on a loaded machine the loop waits for a core
            "static double now(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);"
                    + " return t.tv_sec * 1e9 + t.tv_nsec; }",
            "int main(int argc, char **argv) {",
            "  long n = atol(argv[1]); double t0 = now();",
            "  for (long i = 0; i < n; i++) fcntl(0, F_GETFD);",
            "  double t1 = now();",
            "  for (long i = 0; i < n; i++) syscall(SYS_getppid);",
            "  double t2 = now();",
            "  for (long i = 0; i < n; i++) syscall(435, NULL, 0);", // clone3 with no args: EFAULT/EINVAL or ENOSYS
            "  double t3 = now();",
            "  printf(\"%.1f %.1f %.1f\\n\", (t1 - t0) / n, (t2 - t1) / n, (t3 - t2) / n);",
            "  return 0;",
            "}");

    enum Variant {
        DENY_LIST, ALLOW_LIST_V1, ALLOW_LIST;

        byte[] program() {
            switch (this) {
                case DENY_LIST:
                    return DenyListSeccomp.program();
                case ALLOW_LIST_V1:
                    return V1;
                default:
                    return null; // the policy's program, as the jail installs it
            }
        }
    }

    /**
     * The allow-list's first program (one JEQ per listed number, 445 instructions), x86_64, as {@code Bpf} wrote it
     * at commit d998fb2^ (dumped by running that commit's {@code Bpf.assemble}); the current one is a binary search.
     */
    static final byte[] V1 = resource("allowlist-v1-x86_64.bpf");

    private static byte[] resource(String name) {
        try (var in = SeccompCostMeasure.class.getResourceAsStream(name)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.MINUTES)
    void denyListAgainstAllowList() throws Exception {
        Jail.assumeAvailable();
        org.junit.jupiter.api.Assumptions.assumeTrue("x86_64".equals(dev.sandbox4j.core.AgentBinary.canonicalArch(
                System.getProperty("os.arch"))), "the programs compared are x86_64's");
        int rounds = Integer.getInteger("sandbox4j.measure.rounds", 8);
        byte[] deny = DenyListSeccomp.program();
        byte[] allow = SeccompPolicy.of(Set.of()).bpf(System.getProperty("os.arch"));
        System.out.printf("[seccomp cost] programs: deny-list %d instructions, allow-list v1 (linear) %d, allow-list"
                + " %d%n", deny.length / 8, V1.length / 8, allow.length / 8);
        Map<Variant, List<double[]>> results = new LinkedHashMap<>();
        round(5, 20); // warm-up: the JVM, the agent binaries, the page cache
        for (int r = 0; r < rounds; r++) {
            double load0 = load();
            Map<Variant, double[]> b = round(OPENS, TRIPS);
            double load1 = load();
            for (Variant v : Variant.values()) {
                double[] x = b.get(v);
                results.computeIfAbsent(v, k -> new ArrayList<>()).add(x);
                System.out.printf("[seccomp cost] round %d %-10s open+true+close %.2f ms, round-trip %.3f ms,"
                                + " fcntl %.1f ns, getppid %.1f ns, clone3 %.1f ns, load %.2f -> %.2f%n", r, v,
                        x[0], x[1], x[2], x[3], x[4], load0, load1);
            }
        }
        String[] names = {"open+true+close (ms)", "round-trip (ms)", "fcntl (ns/call)", "getppid (ns/call)",
                "clone3 (ns/call)"};
        System.out.println("[seccomp cost] medians over " + rounds + " rounds (each value a round's median);"
                + " ratios to the deny-list:");
        for (int i = 0; i < names.length; i++) {
            double a = median(col(results.get(Variant.DENY_LIST), i));
            StringBuilder line = new StringBuilder(String.format("[seccomp cost] %-22s deny-list %9.3f", names[i], a));
            for (Variant v : List.of(Variant.ALLOW_LIST_V1, Variant.ALLOW_LIST)) {
                double b = median(col(results.get(v), i));
                double[] ratios = new double[rounds];
                for (int r = 0; r < rounds; r++) {
                    ratios[r] = results.get(v).get(r)[i] / results.get(Variant.DENY_LIST).get(r)[i];
                }
                line.append(String.format(" | %s %9.3f, ratio of medians %.3f, per-round ratios median %.3f"
                                + " (%.3f-%.3f)", v, b, b / a, median(ratios), Arrays.stream(ratios).min().orElse(0),
                        Arrays.stream(ratios).max().orElse(0)));
            }
            System.out.println(line);
        }
        assertThat(results.get(Variant.DENY_LIST)).hasSize(rounds);
    }

    /** A jail with {@code v}'s filter installed instead of the policy's (a package-private option). */
    private static Sandbox open(Variant v, SandboxSpec spec) {
        Jail.assumeAvailable();
        return new LocalSandboxProvider(LocalOptions.defaults().withSeccompProgram(v.program())).open(spec);
    }

    /**
     * One round, the variants interleaved sample by sample (A B, then B A, ...): per variant {opens' median ms,
     * round-trips' median ms, fcntl ns, getppid ns, clone3 ns}.
     */
    private static Map<Variant, double[]> round(int opens, int trips) {
        Map<Variant, double[]> open = new LinkedHashMap<>();
        Map<Variant, double[]> trip = new LinkedHashMap<>();
        Map<Variant, double[][]> loop = new LinkedHashMap<>();
        for (Variant v : Variant.values()) {
            open.put(v, new double[opens]);
            trip.put(v, new double[trips]);
            loop.put(v, new double[5][]);
        }
        for (int i = 0; i < opens; i++) {
            for (Variant v : order(i)) {
                long t0 = System.nanoTime();
                try (Sandbox s = open(v, SandboxSpec.defaults())) {
                    ExecResult r = s.shell().run("true");
                    assertThat(r.exitCode()).isZero();
                }
                open.get(v)[i] = (System.nanoTime() - t0) / 1e6;
            }
        }
        Map<Variant, Sandbox> boxes = new LinkedHashMap<>();
        try {
            for (Variant v : Variant.values()) {
                Sandbox s = open(v, SandboxSpec.builder().file("loop.c", LOOP_C).build());
                boxes.put(v, s);
                assertThat(s.shell().run("grep Seccomp: /proc/self/status").stdout()).as(v.name()).contains("2");
                ExecResult cc = s.shell().run("gcc -O1 -o loop loop.c");
                assertThat(cc.exitCode()).as(cc.stderr()).isZero();
            }
            for (int i = 0; i < trips; i++) {
                for (Variant v : order(i)) {
                    long t0 = System.nanoTime();
                    ExecResult r = boxes.get(v).shell().run("true");
                    trip.get(v)[i] = (System.nanoTime() - t0) / 1e6;
                    assertThat(r.exitCode()).isZero();
                }
            }
            for (int i = 0; i < 5; i++) {
                for (Variant v : order(i)) {
                    ExecResult r = boxes.get(v).shell().run("./loop 200000");
                    assertThat(r.exitCode()).as(r.stderr()).isZero();
                    loop.get(v)[i] = Arrays.stream(r.stdout().trim().split(" ")).mapToDouble(Double::parseDouble)
                            .toArray();
                }
            }
        } finally {
            boxes.values().forEach(Sandbox::close);
        }
        Map<Variant, double[]> out = new LinkedHashMap<>();
        for (Variant v : Variant.values()) {
            double[][] runs = loop.get(v);
            double[] x = {median(open.get(v)), median(trip.get(v)), 0, 0, 0};
            for (int k = 0; k < 3; k++) {
                int kk = k;
                x[2 + k] = median(Arrays.stream(runs).mapToDouble(run -> run[kk]).toArray());
            }
            out.put(v, x);
        }
        return out;
    }

    /** The variants in an order that turns with {@code i}, reversed every other turn: each precedes each as often. */
    private static Variant[] order(int i) {
        Variant[] v = Variant.values();
        Variant[] o = new Variant[v.length];
        for (int k = 0; k < v.length; k++) {
            o[k] = v[(k + i / 2) % v.length];
        }
        if (i % 2 == 1) {
            java.util.Collections.reverse(Arrays.asList(o));
        }
        return o;
    }

    private static double[] col(List<double[]> rows, int i) {
        return rows.stream().mapToDouble(r -> r[i]).toArray();
    }

    static double median(double[] xs) {
        double[] s = xs.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    private static double load() throws IOException {
        return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    }
}
