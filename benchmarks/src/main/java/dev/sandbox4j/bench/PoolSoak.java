package dev.sandbox4j.bench;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.pool.PoolOptions;
import dev.sandbox4j.pool.SandboxPool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Issue 31's soak: a pool of {@code max} sandboxes under {@code threads} threads acquiring, running {@code true} and
 * closing for {@code seconds}; reports acquisitions, failures by kind, the refill rate, and what this JVM's local
 * sandboxes left behind after the pool closed (temp directories and cgroups named for this JVM).
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar dev.sandbox4j.bench.PoolSoak [backend] [max] [threads] [seconds]</pre>
 */
public final class PoolSoak {
    private PoolSoak() {
    }

    public static void main(String[] args) throws Exception {
        String backend = args.length > 0 ? args[0] : "local";
        int max = args.length > 1 ? Integer.parseInt(args[1]) : 50;
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : 16;
        long seconds = args.length > 3 ? Long.parseLong(args[3]) : 300;
        System.out.printf("load average before: %s%n", Host.check("cat", "/proc/loadavg"));
        AtomicLong done = new AtomicLong();
        Map<String, AtomicLong> failures = new ConcurrentHashMap<>();
        long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        SandboxPool.Stats last;
        try (SandboxPool pool = SandboxPool.open(backend, SandboxSpec.defaults(),
                new PoolOptions(max, max, 4, Duration.ofMinutes(10), Duration.ofMinutes(2)))) {
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread w = new Thread(() -> {
                    while (System.nanoTime() < end) {
                        try (Sandbox s = pool.acquire()) {
                            Host.ok(s.shell().run("true"));
                            done.incrementAndGet();
                        } catch (SandboxException e) {
                            failures.computeIfAbsent(e.code(), k -> new AtomicLong()).incrementAndGet();
                        }
                    }
                }, "soak-" + t);
                w.start();
                workers.add(w);
            }
            for (Thread w : workers) {
                w.join();
            }
            last = pool.stats();
        }
        System.out.printf("%s pool of %d, %d threads, %d s: %d acquire+true+close, %.1f/s; failures %s; opened %d"
                        + " (%.1f/s), failed opens %d%n", backend, max, threads, seconds, done.get(),
                done.get() / (double) seconds, failures, last.opened(), last.opened() / (double) seconds,
                last.failed());
        Thread.sleep(2000);
        String owner = "sandbox4j-local-" + ProcessHandle.current().pid();
        long temp;
        try (Stream<Path> s = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            temp = s.filter(p -> p.getFileName().toString().startsWith(owner)).count();
        }
        System.out.printf("left after close: %d temp entries named %s* (the agent's binaries, once per JVM, are one"
                + " or two of them)%n", temp, owner);
        System.out.printf("load average after: %s%n", Host.check("cat", "/proc/loadavg"));
        System.exit(0);
    }
}
