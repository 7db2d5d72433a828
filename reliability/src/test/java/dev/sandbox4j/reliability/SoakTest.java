package dev.sandbox4j.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ExecResult;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** N short commands mixed with file operations, sequential then 16-way concurrent; zero failures, no leaks. */
class SoakTest {
    private static final int THREADS = 16;

    static int n(String backend) {
        switch (backend) {
            case "docker":
                return Rel.size("soak.docker", 200, 10_000);
            case Rel.KUBERNETES:
                return Rel.size("soak.kubernetes", 200, 10_000);
            case "local":
                return Rel.size("soak.local", 500, 10_000);
            default:
                return Rel.size("soak.memory", 2_000, 10_000);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "local", "docker", Rel.KUBERNETES})
    void soak(String backend) throws Exception {
        Rel.requireBackend(backend);
        Rel.warmUp(backend);
        Rel.Snapshot base = Rel.Snapshot.take();
        int n = n(backend);
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger failed = new AtomicInteger();
        List<Long> seqLat = new ArrayList<>();
        List<Long> conLat = Collections.synchronizedList(new ArrayList<>());
        long seqWall;
        long conWall;
        SandboxSpec spec = SandboxSpec.builder().commandTimeout(Duration.ofSeconds(60)).build();
        try (Sandbox sandbox = Rel.open(backend, spec)) {
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                step(sandbox, 0, i, seqLat, failures, failed);
            }
            seqWall = System.nanoTime() - t0;
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            long t1 = System.nanoTime();
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 1; t <= THREADS; t++) {
                int thread = t;
                int steps = n / THREADS + (t <= n % THREADS ? 1 : 0);
                fs.add(pool.submit(() -> {
                    for (int j = 0; j < steps; j++) {
                        step(sandbox, thread, j, conLat, failures, failed);
                    }
                }));
            }
            for (Future<?> f : fs) {
                f.get(30, TimeUnit.MINUTES);
            }
            conWall = System.nanoTime() - t1;
            pool.shutdown();
            assertThat(pool.awaitTermination(1, TimeUnit.MINUTES)).isTrue();
        }
        Rel.report("soak " + backend + ": " + n + " sequential steps in " + Rel.ms(seqWall) + " ("
                + Rel.percentiles(seqLat) + "), " + n + " steps 16-way concurrent in " + Rel.ms(conWall) + " ("
                + Rel.percentiles(conLat) + "), failures " + failed.get()
                + (failures.isEmpty() ? "" : " first: " + failures.subList(0, Math.min(5, failures.size()))));
        Rel.assertBaseline("soak " + backend, base, 20);
        assertThat(failed.get()).as("failures: " + failures).isZero();
    }

    /** One step of the mix: a command, a write+read, a command reading a file, a list/stat/append/delete. */
    private static void step(Sandbox s, int thread, int i, List<Long> lat, List<String> failures,
                             AtomicInteger failed) {
        String dir = "soak/t" + thread;
        long t0 = System.nanoTime();
        try {
            switch (i % 4) {
                case 0: {
                    ExecResult r = s.shell().run("echo v" + i);
                    check(r.isSuccess() && r.stdout().equals("v" + i + "\n"), "echo " + i + " -> " + r);
                    break;
                }
                case 1: {
                    s.files().write(dir + "/last.txt", "v" + i);
                    String back = s.files().readText(dir + "/last.txt");
                    check(back.equals("v" + i), "write/read " + i + " -> " + back);
                    break;
                }
                case 2: {
                    ExecResult r = s.shell().run("cat " + dir + "/last.txt");
                    check(r.isSuccess() && r.stdout().equals("v" + (i - 1)), "cat " + i + " -> " + r);
                    break;
                }
                default: {
                    s.files().append(dir + "/log.txt", "line " + i + "\n");
                    List<FileInfo> list = s.files().list(dir);
                    check(list.size() == 2, "list " + i + " -> " + list);
                    check(s.files().stat(dir + "/log.txt").size() > 0, "stat " + i);
                    if (i % 40 == 3) {
                        s.files().delete(dir + "/log.txt");
                        check(!s.files().exists(dir + "/log.txt"), "delete " + i);
                    }
                }
            }
        } catch (RuntimeException | AssertionError e) {
            failed.incrementAndGet();
            failures.add("step " + i + " thread " + thread + ": " + e);
        }
        lat.add(System.nanoTime() - t0);
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }
}
