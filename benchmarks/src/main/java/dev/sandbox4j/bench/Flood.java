package dev.sandbox4j.bench;

import dev.sandbox4j.ExecResult;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/** A command printing 1 GiB with the default output cap, and the same command to /dev/null by hand. */
public class Flood {
    /**
     * Heap retained while the last result is held: used heap after a full GC minus used heap after a full GC
     * before the first flood (sandbox already open). Written to the file named by -Dbench.aux.
     */
    @State(Scope.Benchmark)
    public static class Heap {
        ExecResult last;
        long base;
        final java.util.List<Long> growth = new java.util.ArrayList<>();

        @Setup(Level.Trial)
        public void baseline() {
            base = usedAfterGc();
        }

        /**
         * After each iteration, with the last result still referenced: used heap after full GCs minus used heap
         * after full GCs right after the sandbox opened (the result, plus client buffers, caches, leaks).
         */
        @TearDown(Level.Iteration)
        public void measure() {
            if (last != null) {
                growth.add(usedAfterGc() - base);
            }
        }

        @TearDown(Level.Trial)
        public void report(org.openjdk.jmh.infra.BenchmarkParams params) {
            String file = System.getProperty("bench.aux");
            if (file == null || last == null) {
                return;
            }
            StringBuilder g = new StringBuilder();
            for (long x : growth) {
                g.append(g.length() == 0 ? "" : "/").append(x);
            }
            String line = params.getBenchmark() + " growth=" + g + " stdoutChars="
                    + last.stdout().length() + " totalBytes=" + last.stdoutTruncation().totalBytes() + "\n";
            try {
                Files.writeString(Path.of(file), line, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        static long usedAfterGc() {
            for (int i = 0; i < 3; i++) {
                System.gc();
            }
            return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        }
    }

    static ExecResult check(ExecResult r) {
        Host.ok(r);
        if (!r.stdoutTruncation().truncated()) {
            throw new IllegalStateException("1 GiB of output was not cut: " + r.stdoutTruncation());
        }
        return r;
    }

    @Benchmark
    public ExecResult local(Boxes.Local b, Heap h) {
        h.last = null;
        h.last = check(b.sandbox.shell().run(Host.FLOOD));
        return h.last;
    }

    /**
     * Profile, not a baseline a user would run: the same pipeline in the same kind of sandbox, with one more pipe to
     * {@code cat > /dev/null} in place of the agent. The agent's share is what {@link #local} costs beyond it.
     */
    @Benchmark
    public ExecResult localThroughCat(Boxes.Local b) {
        ExecResult r = b.sandbox.shell().run(Host.FLOOD + " | cat > /dev/null");
        Host.ok(r);
        return r;
    }

    /** The default spec but its CPU limit: what the one-core quota costs a pipeline of three processes. */
    @Benchmark
    public ExecResult localNoCpuLimit(Boxes.LocalNoCpuLimit b) {
        return check(b.sandbox.shell().run(Host.FLOOD));
    }

    @Benchmark
    public ExecResult docker(Boxes.Docker b, Heap h) {
        h.last = null;
        h.last = check(b.sandbox.shell().run(Host.FLOOD));
        return h.last;
    }

    /** Baseline: the same pipeline on the host, stdout to /dev/null. */
    @Benchmark
    public int hostDevNull() {
        int exit = Host.runDiscard(List.of("/bin/sh", "-c", Host.FLOOD));
        Host.ok(exit);
        return exit;
    }

    /**
     * Baseline: what a user would do by hand to capture the output: the same pipeline from {@code ProcessBuilder},
     * stdout read by the JVM (and dropped); one pipe more than /dev/null, as in the sandbox.
     */
    @Benchmark
    public long hostRead() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("/bin/sh", "-c", Host.FLOOD)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        long n;
        try (java.io.InputStream in = p.getInputStream()) {
            n = in.transferTo(java.io.OutputStream.nullOutputStream());
        }
        Host.ok(p.waitFor());
        if (n != 1L << 30) {
            throw new IllegalStateException("read " + n + " bytes");
        }
        return n;
    }

    /** Baseline: the same pipeline with {@code docker exec} in the sandbox's container, the CLI's stdout to /dev/null. */
    @Benchmark
    public int dockerCliDevNull(Boxes.Docker b) {
        int exit = Host.runDiscard(List.of("docker", "exec", "-u", Host.DOCKER_USER, b.containerId, "/bin/sh", "-c",
                Host.FLOOD));
        Host.ok(exit);
        return exit;
    }
}
