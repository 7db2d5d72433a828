package dev.sandbox4j.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Sandbox;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Measurements for docs/benchmarks.md (not a pass/fail test of speed): open + {@code true} + close, the resident
 * memory of one idle sandbox's processes, and N sandboxes open at once. Runs only with
 * {@code -Dsandbox4j.measure=true}; prints its figures to stdout.
 */
@EnabledIfSystemProperty(named = "sandbox4j.measure", matches = "true")
class FootprintMeasure {

    /** Host pids whose cgroup path names the sandbox (launcher, bwrap, the jail's init, the agent, commands). */
    static List<Long> processesOf(String sandboxId) {
        BwrapHost open = BwrapHost.openSandbox(sandboxId);
        if (open != null && !open.cgroups.perCommand()) {
            // no cgroups on this host: the sandbox's processes are its launcher and what runs below it
            List<Long> pids = new ArrayList<>();
            ProcessHandle.of(open.launcherPid()).ifPresent(h -> {
                pids.add(h.pid());
                h.descendants().forEach(d -> pids.add(d.pid()));
            });
            return pids;
        }
        List<Long> pids = new ArrayList<>();
        try (Stream<Path> s = Files.list(Path.of("/proc"))) {
            for (Path p : s.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                try {
                    if (Files.readString(p.resolve("cgroup")).contains("/" + sandboxId)) {
                        pids.add(Long.parseLong(p.getFileName().toString()));
                    }
                } catch (IOException | RuntimeException ignored) {
                    // exited
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return pids;
    }

    /** VmRSS of a process in KiB; 0 when it is gone. */
    static long rssKib(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.substring(6).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // gone
        }
        return 0;
    }

    static String cmdline(long pid) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).replace('\0', ' ').trim();
        } catch (IOException e) {
            return "?";
        }
    }

    static long memAvailableKib() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
            if (line.startsWith("MemAvailable:")) {
                return Long.parseLong(line.substring(13).trim().split("\\s+")[0]);
            }
        }
        return -1;
    }

    static double median(long[] nanos) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        return s[s.length / 2] / 1e6;
    }

    @Test
    void openTrueClose() {
        int n = Integer.getInteger("sandbox4j.measure.n", 50);
        for (int i = 0; i < 5; i++) {
            try (Sandbox s = Jail.open()) {
                s.shell().run(ExecRequest.argv("true"));
            }
        }
        long[] t = new long[n];
        long[] open = new long[n];
        long[] run = new long[n];
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            Sandbox s = Jail.open();
            long t1 = System.nanoTime();
            try {
                assertThat(s.shell().run(ExecRequest.argv("true")).exitCode()).isZero();
            } finally {
                open[i] = t1 - t0;
                run[i] = System.nanoTime() - t1;
                s.close();
            }
            t[i] = System.nanoTime() - t0;
        }
        long[] sorted = t.clone();
        Arrays.sort(sorted);
        System.out.printf("MEASURE open+true+close n=%d median %.1f ms p10 %.1f ms p90 %.1f ms (medians: open %.1f ms,"
                + " true %.1f ms)%n", n, median(t), sorted[n / 10] / 1e6, sorted[n * 9 / 10] / 1e6, median(open),
                median(run));
    }

    /** The hardened bwrap of benchmarks' Host.bwrap (setpriv to 65534, the library's flags minus seccomp). */
    static List<String> handBwrap(Path ws) {
        return List.of("setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "--inh-caps=-all",
                "--bounding-set=-all", "--",
                "bwrap", "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
                "--cap-drop", "ALL", "--clearenv",
                "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "HOME", "/workspace",
                "--setenv", "TMPDIR", "/tmp", "--setenv", "LANG", "C.UTF-8",
                "--hostname", "sandbox",
                "--ro-bind", "/usr", "/usr",
                "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin", "--symlink", "usr/lib", "/lib",
                "--symlink", "usr/lib64", "/lib64",
                "--perms", "0755", "--dir", "/etc",
                "--ro-bind-try", "/etc/alternatives", "/etc/alternatives",
                "--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
                "--proc", "/proc", "--dev", "/dev",
                "--perms", "1777", "--size", "67108864", "--tmpfs", "/dev/shm",
                "--perms", "1777", "--size", "268435456", "--tmpfs", "/tmp",
                "--bind", ws.toString(), "/workspace", "--chdir", "/workspace",
                "--remount-ro", "/",
                "--", "/bin/sh", "-c", "true");
    }

    static double median(List<Double> ms) {
        return ms.stream().mapToDouble(Double::doubleValue).sorted().toArray()[ms.size() / 2];
    }

    static String stats(List<Double> ms) {
        double[] s = ms.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return String.format("median %6.2f p10 %6.2f p90 %6.2f", s[s.length / 2], s[s.length / 10],
                s[s.length * 9 / 10]);
    }

    /**
     * Interleaved: a fresh hardened {@code bwrap … sh -c true}, then open + {@code true} + a second {@code true} +
     * close with the steps {@link Phases} marks (run with {@code -Dsandbox4j.local.phases=true}); medians per step.
     */
    @Test
    void phases() throws Exception {
        int n = Integer.getInteger("sandbox4j.measure.n", 50);
        Path ws = Files.createTempDirectory("sbx-measure-ws");
        new ProcessBuilder("chown", "65534:65534", ws.toString()).inheritIO().start().waitFor();
        java.util.Map<String, List<Double>> steps = new java.util.LinkedHashMap<>();
        List<Double> bwrap = new ArrayList<>();
        List<Double> total = new ArrayList<>();
        List<Double> oneCommand = new ArrayList<>();
        String load0 = Files.readString(Path.of("/proc/loadavg")).trim();
        for (int i = -5; i < n; i++) {
            long b0 = System.nanoTime();
            Process p = new ProcessBuilder(handBwrap(ws)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            assertThat(p.waitFor()).isZero();
            long b1 = System.nanoTime();
            Phases.drain();
            long t0 = System.nanoTime();
            Sandbox s = Jail.open();
            Phases.mark("after open");
            try {
                assertThat(s.shell().run(ExecRequest.argv("true")).exitCode()).isZero();
                Phases.mark("first true");
                assertThat(s.shell().run(ExecRequest.argv("true")).exitCode()).isZero();
                Phases.mark("second true");
            } finally {
                s.close();
            }
            long t1 = System.nanoTime();
            List<Object[]> marks = Phases.drain();
            if (i < 0) {
                continue;
            }
            bwrap.add((b1 - b0) / 1e6);
            total.add((t1 - t0) / 1e6);
            long first = marks.stream().filter(m -> m[0].equals("first true")).mapToLong(m -> (long) m[1]).sum();
            long second = marks.stream().filter(m -> m[0].equals("second true")).mapToLong(m -> (long) m[1]).sum();
            oneCommand.add((t1 - t0 - (second - first)) / 1e6);
            long prev = t0;
            java.util.Map<String, Integer> seen = new java.util.HashMap<>();
            for (Object[] m : marks) {
                String name = (String) m[0];
                int k = seen.merge(name, 1, Integer::sum);
                String key = k == 1 ? name : name + " #" + k;
                steps.computeIfAbsent(key, x -> new ArrayList<>()).add(((long) m[1] - prev) / 1e6);
                prev = (long) m[1];
            }
        }
        new ProcessBuilder("rm", "-rf", ws.toString()).start().waitFor();
        System.out.printf("MEASURE phases n=%d load before %s after %s%n", n, load0,
                Files.readString(Path.of("/proc/loadavg")).trim());
        System.out.printf("MEASURE %-45s %s%n", "bwrap ... sh -c true", stats(bwrap));
        System.out.printf("MEASURE %-45s %s%n", "open+true+true+close", stats(total));
        System.out.printf("MEASURE %-45s %s (ratio of medians %.2fx)%n", "open+true+close (the second true left out)",
                stats(oneCommand), median(oneCommand) / median(bwrap));
        for (java.util.Map.Entry<String, List<Double>> e : steps.entrySet()) {
            if (e.getValue().size() == n) {
                System.out.printf("MEASURE   %-43s %s%n", e.getKey(), stats(e.getValue()));
            } else {
                System.out.printf("MEASURE   %-43s %s (%d of %d)%n", e.getKey(), stats(e.getValue()),
                        e.getValue().size(), n);
            }
        }
    }

    @Test
    void idleRss() throws Exception {
        try (Sandbox s = Jail.open()) {
            s.shell().run(ExecRequest.argv("true"));
            Thread.sleep(500);
            long total = 0;
            for (long pid : processesOf(s.id())) {
                long kib = rssKib(pid);
                total += kib;
                System.out.printf("MEASURE idle process %d %d KiB %s%n", pid, kib, cmdline(pid));
            }
            System.out.printf("MEASURE idle sandbox RSS total %d KiB (%.1f MiB)%n", total, total / 1024.0);
        }
    }

    @Test
    void manyAtOnce() throws Exception {
        int n = Integer.getInteger("sandbox4j.measure.many", 100);
        long availBefore = memAvailableKib();
        ExecutorService pool = Executors.newFixedThreadPool(16);
        List<Future<Sandbox>> opening = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            opening.add(pool.submit(() -> Jail.open()));
        }
        List<Sandbox> open = new ArrayList<>();
        int failedOpen = 0;
        for (Future<Sandbox> f : opening) {
            try {
                open.add(f.get(300, TimeUnit.SECONDS));
            } catch (Exception e) {
                failedOpen++;
                System.out.println("MEASURE open failed: " + e);
            }
        }
        long openMs = (System.nanoTime() - t0) / 1_000_000;
        try {
            List<Future<Boolean>> answers = new ArrayList<>();
            for (int i = 0; i < open.size(); i++) {
                Sandbox s = open.get(i);
                String expect = i + "\n";
                answers.add(pool.submit(() -> {
                    ExecResult r = s.shell().run(ExecRequest.argv("echo", expect.trim()));
                    return r.exitCode() == 0 && r.stdout().equals(expect);
                }));
            }
            int answered = 0;
            for (Future<Boolean> f : answers) {
                if (f.get(300, TimeUnit.SECONDS)) {
                    answered++;
                }
            }
            long rss = 0;
            int procs = 0;
            for (Sandbox s : open) {
                for (long pid : processesOf(s.id())) {
                    rss += rssKib(pid);
                    procs++;
                }
            }
            long availAfter = memAvailableKib();
            System.out.printf("MEASURE %d sandboxes: %d opened (%d failed) in %d ms, %d answered a command; "
                            + "%d processes, RSS sum %.1f MiB (%.2f MiB each); MemAvailable dropped %.1f MiB%n", n,
                    open.size(), failedOpen, openMs, answered, procs, rss / 1024.0, rss / 1024.0 / Math.max(1,
                            open.size()), (availBefore - availAfter) / 1024.0);
        } finally {
            List<Future<?>> closing = new ArrayList<>();
            for (Sandbox s : open) {
                closing.add(pool.submit(s::close));
            }
            for (Future<?> f : closing) {
                f.get(300, TimeUnit.SECONDS);
            }
            pool.shutdown();
        }
    }
}
