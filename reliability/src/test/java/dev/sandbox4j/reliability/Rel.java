package dev.sandbox4j.reliability;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Sandboxes;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/** Shared support: backends (skip or fail per SANDBOX4J_REQUIRE), short/long sizes, resource snapshots, report. */
final class Rel {
    static final boolean LONG = Boolean.getBoolean("reliability.long");
    static final boolean STRICT = Boolean.getBoolean("reliability.strict");
    static final long PID = ProcessHandle.current().pid();
    static final Path TMP = Path.of(System.getProperty("java.io.tmpdir"));

    private Rel() {
    }

    /** The short-form or the long-form value; a system property {@code reliability.<name>} overrides both. */
    static int size(String name, int shortForm, int longForm) {
        return Integer.getInteger("reliability." + name, LONG ? longForm : shortForm);
    }

    static String form() {
        return LONG ? "long" : "short";
    }

    // ------------------------------------------------------------------------------------------------ backends

    /** Skips (or fails, when SANDBOX4J_REQUIRE names it) unless the backend can run here. */
    static void requireBackend(String backend) {
        Optional<String> why;
        if (backend.equals(KUBERNETES)) {
            // the simulated control plane runs each pod's agent in a Docker container: required with docker
            dev.sandbox4j.testing.Required.orSkip("docker", dev.sandbox4j.kubernetes.SimulatedControlPlane
                    .unavailableReason());
            return;
        }
        try {
            why = Sandboxes.provider(backend).unavailableReason();
        } catch (SandboxException e) {
            why = Optional.of(e.getMessage());
        }
        dev.sandbox4j.testing.Required.orSkip(backend, why);
    }

    /** The Kubernetes backend, on the simulated control plane (no cluster is reachable here). */
    static final String KUBERNETES = "kubernetes";

    static Sandbox open(String backend, SandboxSpec spec) {
        requireBackend(backend);
        return backend.equals(KUBERNETES) ? dev.sandbox4j.kubernetes.SimulatedControlPlane.open(spec)
                : Sandboxes.open(backend, spec);
    }

    static Sandbox open(String backend) {
        return open(backend, SandboxSpec.defaults());
    }

    /** Opens, uses and closes one sandbox so lazily created threads and pools exist before a baseline. */
    static void warmUp(String backend) {
        try (Sandbox s = open(backend)) {
            s.shell().run("true");
            s.files().write("warm.txt", "x");
            s.files().readText("warm.txt");
        }
    }

    static boolean processes(String backend) {
        return !backend.equals("memory");
    }

    // ------------------------------------------------------------------------------------------------ report

    static synchronized void report(String line) {
        String l = "[" + form() + "] " + printable(line);
        System.out.println("RELIABILITY " + l);
        String file = System.getProperty("reliability.report");
        if (file != null) {
            try {
                Files.writeString(Path.of(file), l + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** A known defect of a backend: reported, and failing the build only with -Dreliability.strict=true. */
    static void defect(String id, String what) {
        report("DEFECT " + id + ": " + what);
        if (STRICT) {
            Assertions.fail("defect " + id + ": " + what);
        }
    }

    /** Escapes control characters, lone surrogates and U+FFFE so a line can be written as UTF-8. */
    static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean pair = Character.isHighSurrogate(c) && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1));
            if (pair) {
                b.append(c).append(s.charAt(++i));
            } else if ((c < 0x20 && c != '\n') || Character.isSurrogate(c) || c == 0xFFFE) {
                b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
    }

    /** p50/p99/max of durations in nanoseconds. */
    static String percentiles(List<Long> nanos) {
        long[] a = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
        if (a.length == 0) {
            return "n=0";
        }
        return "n=" + a.length + " p50 " + ms(a[(int) Math.floor(0.50 * (a.length - 1))]) + ", p99 "
                + ms(a[(int) Math.floor(0.99 * (a.length - 1))]) + ", max " + ms(a[a.length - 1]);
    }

    static long p99(List<Long> nanos) {
        long[] a = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
        return a.length == 0 ? 0 : a[(int) Math.floor(0.99 * (a.length - 1))];
    }

    static long max(List<Long> nanos) {
        return nanos.stream().mapToLong(Long::longValue).max().orElse(0);
    }

    // ------------------------------------------------------------------------------------------------ host

    /** Runs a host command, returns its stdout (stderr merged); empty list if it cannot run. */
    static List<String> host(String... argv) {
        try {
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
            byte[] out;
            try (InputStream in = p.getInputStream()) {
                out = in.readAllBytes();
            }
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
            List<String> lines = new ArrayList<>();
            for (String l : new String(out, StandardCharsets.UTF_8).split("\n")) {
                if (!l.isBlank()) {
                    lines.add(l.trim());
                }
            }
            return lines;
        } catch (IOException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    static boolean dockerCli() {
        return !host("sh", "-c", "command -v docker").isEmpty();
    }

    /** Containers (or volumes) carrying the project label whose owner label names the JVM with this pid. */
    static List<String> dockerObjects(String kind, long ownerPid) {
        if (!dockerCli()) {
            return List.of();
        }
        List<String> lines = kind.equals("volume")
                ? host("docker", "volume", "ls", "--filter", "label=dev.sandbox4j",
                        "--format", "{{.Name}} {{.Label \"dev.sandbox4j.owner\"}}")
                : host("docker", "ps", "-a", "--filter", "label=dev.sandbox4j",
                        "--format", "{{.ID}} {{.Label \"dev.sandbox4j.owner\"}}");
        List<String> mine = new ArrayList<>();
        for (String l : lines) {
            if (l.contains(":" + ownerPid + ":")) {
                mine.add(kind + " " + l.split(" ")[0]);
            }
        }
        return mine;
    }

    /** cgroups and temp dirs of the local backend named after the JVM with this pid. */
    static List<String> localLeftovers(long ownerPid) {
        List<String> list = new ArrayList<>();
        String cg = "sbx-" + ownerPid + "-";
        for (String c : List.of("memory", "pids", "cpu", "freezer")) {
            Path d = Path.of("/sys/fs/cgroup", c, "sandbox4j");
            try (Stream<Path> s = Files.list(d)) {
                s.filter(p -> p.getFileName().toString().startsWith(cg)).forEach(p -> list.add("cgroup " + p));
            } catch (IOException ignored) {
                // no such controller
            }
        }
        String tmp = "sandbox4j-local-" + ownerPid + "-";
        try (Stream<Path> s = Files.list(TMP)) {
            s.filter(p -> p.getFileName().toString().startsWith(tmp)).forEach(p -> list.add("tempdir " + p));
        } catch (IOException ignored) {
            // none
        }
        return list;
    }

    /**
     * Host mount-table lines of this JVM's sandboxes: the local backend's temp dirs, and the Docker volumes whose
     * owner label names this JVM (the jails' own mounts live in their mount namespaces). Other JVMs' sandboxes on
     * this machine (other people's builds) mount and unmount at the same time and are not counted.
     */
    static int sandboxMounts() {
        List<String> mine = new ArrayList<>(List.of("sandbox4j-local-" + PID + "-"));
        for (String v : dockerObjects("volume", PID)) {
            mine.add("/volumes/" + v.substring("volume ".length()) + "/");
        }
        try {
            return (int) Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
                    .filter(l -> mine.stream().anyMatch(l::contains)).count();
        } catch (IOException e) {
            return -1;
        }
    }

    static int count(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return (int) s.count();
        } catch (IOException e) {
            return -1;
        }
    }

    static int lines(Path file) {
        try {
            return Files.readAllLines(file).size();
        } catch (IOException e) {
            return -1;
        }
    }

    // ------------------------------------------------------------------------------------------------ snapshots

    /** What a run may leak, measured from this JVM. */
    record Snapshot(int fds, int threads, long heapMiB, List<String> processes, int mounts, List<String> objects,
                    List<String> threadNames) {
        static Snapshot take() {
            MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
            System.gc();
            System.gc();
            long heap = mem.getHeapMemoryUsage().getUsed() >> 20;
            List<String> procs = new ArrayList<>();
            ProcessHandle.current().descendants().forEach(p -> procs.add(p.pid() + " "
                    + p.info().command().orElse("?")));
            List<String> objects = new ArrayList<>(localLeftovers(PID));
            objects.addAll(dockerObjects("container", PID));
            objects.addAll(dockerObjects("volume", PID));
            // descendants() may include the docker CLI just run; drop finished ones by re-checking liveness
            procs.removeIf(s -> ProcessHandle.of(Long.parseLong(s.split(" ")[0])).map(h -> !h.isAlive()
                    || h.info().command().orElse("").endsWith("/docker")).orElse(true));
            // Threads of the suite's own pools (named rel-*) idle for a while after a test; they are not the SDK's.
            List<String> names = Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                    // JDK-internal: the process reaper pool keeps idle threads for 60 s after a process ends
                    .filter(t -> !t.startsWith("rel-") && !t.equals("process reaper")).sorted().collect(java.util.stream.Collectors.toList());
            return new Snapshot(count(Path.of("/proc/self/fd")), names.size(), heap, procs, sandboxMounts(), objects,
                    names);
        }

        String describe() {
            return "fds " + fds + ", threads " + threads + ", heap " + heapMiB + " MiB, jail processes "
                    + processes.size() + ", sandbox4j mounts " + mounts + ", cgroups/tempdirs/containers/volumes "
                    + objects.size();
        }

        List<String> excessOver(Snapshot base) {
            List<String> bad = new ArrayList<>();
            if (fds > base.fds + 8) {
                bad.add("fds " + base.fds + " -> " + fds);
            }
            if (threads > base.threads + 4) {
                List<String> extra = new ArrayList<>(threadNames);
                base.threadNames.forEach(extra::remove);
                bad.add("threads " + base.threads + " -> " + threads + " " + extra);
            }
            if (heapMiB > base.heapMiB + 64) {
                bad.add("heap " + base.heapMiB + " -> " + heapMiB + " MiB");
            }
            List<String> extraProcs = new ArrayList<>(processes);
            extraProcs.removeAll(base.processes);
            if (!extraProcs.isEmpty()) {
                bad.add("processes " + extraProcs);
            }
            if (mounts > base.mounts) {
                bad.add("mounts " + base.mounts + " -> " + mounts);
            }
            List<String> extraObj = new ArrayList<>(objects);
            extraObj.removeAll(base.objects);
            if (!extraObj.isEmpty()) {
                bad.add("objects " + extraObj);
            }
            return bad;
        }
    }

    /** Waits up to {@code settleSeconds} for every counter to come back to the baseline; returns the last state. */
    static Snapshot assertBaseline(String what, Snapshot base, int settleSeconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(settleSeconds);
        long start = System.nanoTime();
        Snapshot now = Snapshot.take();
        // Cached thread pools (the JDK's and the backends') keep idle threads for 60 s: when threads are all that is
        // left, wait up to 75 s for them.
        long threadDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Math.max(settleSeconds, 75));
        while (!now.excessOver(base).isEmpty() && (System.nanoTime() < deadline || (System.nanoTime() < threadDeadline
                && now.excessOver(base).stream().allMatch(x -> x.startsWith("threads "))))) {
            Thread.sleep(250);
            now = Snapshot.take();
        }
        report(what + ": before {" + base.describe() + "} after {" + now.describe() + "} settled in "
                + ms(System.nanoTime() - start));
        Assertions.assertThat(now.excessOver(base)).as(what + ": resources back to baseline").isEmpty();
        return now;
    }

    static String stamp() {
        return Instant.now().toString();
    }
}
