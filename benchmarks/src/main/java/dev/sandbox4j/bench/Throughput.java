package dev.sandbox4j.bench;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.Sandboxes;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** N sandboxes at once, each running 100 short commands ({@code true}), and N raw processes doing the same. */
public class Throughput {
    static final int COMMANDS = Integer.getInteger("bench.commands", 100);

    @State(Scope.Benchmark)
    public static class Fleet {
        @Param({"local", "docker"})
        public String backend;
        @Param({"16", "64"})
        public int sandboxes;
        List<Sandbox> open;
        ExecutorService pool;

        @Setup(Level.Trial)
        public void open() throws Exception {
            pool = Executors.newFixedThreadPool(sandboxes);
            // Open a few at a time: opening is CPU-bound on this machine.
            ExecutorService opener = Executors.newFixedThreadPool(4);
            List<Future<Sandbox>> fs = new ArrayList<>();
            for (int i = 0; i < sandboxes; i++) {
                fs.add(opener.submit(() -> Sandboxes.open(backend)));
            }
            open = new ArrayList<>();
            try {
                for (Future<Sandbox> f : fs) {
                    open.add(f.get());
                }
            } finally {
                opener.shutdown();
            }
        }

        @TearDown(Level.Trial)
        public void close() throws Exception {
            pool.shutdownNow();
            ExecutorService closer = Executors.newFixedThreadPool(8);
            List<Future<?>> fs = new ArrayList<>();
            for (Sandbox s : open) {
                fs.add(closer.submit(s::close));
            }
            for (Future<?> f : fs) {
                f.get();
            }
            closer.shutdown();
        }
    }

    @State(Scope.Benchmark)
    public static class Workers {
        @Param({"16", "64"})
        public int processes;
        ExecutorService pool;

        @Setup(Level.Trial)
        public void start() {
            pool = Executors.newFixedThreadPool(processes);
        }

        @TearDown(Level.Trial)
        public void stop() {
            pool.shutdownNow();
        }
    }

    @Benchmark
    public int sandboxes(Fleet f) throws Exception {
        List<Future<Integer>> fs = new ArrayList<>();
        for (Sandbox s : f.open) {
            fs.add(f.pool.submit(() -> {
                for (int i = 0; i < COMMANDS; i++) {
                    Host.ok(s.shell().run("true"));
                }
                return COMMANDS;
            }));
        }
        int n = 0;
        for (Future<Integer> x : fs) {
            n += x.get();
        }
        return n;
    }

    /** Baseline: the same number of threads, each running 100 raw {@code /bin/sh -c true} processes. */
    @Benchmark
    public int rawProcesses(Workers w) throws Exception {
        List<Future<Integer>> fs = new ArrayList<>();
        for (int t = 0; t < w.processes; t++) {
            fs.add(w.pool.submit(() -> {
                for (int i = 0; i < COMMANDS; i++) {
                    Host.ok(Host.sh("true"));
                }
                return COMMANDS;
            }));
        }
        int n = 0;
        for (Future<Integer> x : fs) {
            n += x.get();
        }
        return n;
    }
}
