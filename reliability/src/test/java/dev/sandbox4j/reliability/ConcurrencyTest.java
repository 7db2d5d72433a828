package dev.sandbox4j.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** R-4: many sandboxes opened, used and closed at once (64 in the long form) on this 2-core machine. */
class ConcurrencyTest {

    @ParameterizedTest
    @ValueSource(strings = {"memory", "local", "docker"})
    void manySandboxesAtOnce(String backend) throws Exception {
        Rel.requireBackend(backend);
        Rel.warmUp(backend);
        Rel.Snapshot base = Rel.Snapshot.take();
        int n = Rel.size("sandboxes." + backend, backend.equals("memory") ? 64 : 16, 64);
        AtomicInteger count = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(n, r -> new Thread(r, "rel-many-" + count.incrementAndGet()));
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch allOpen = new CountDownLatch(n);
        List<Long> openLat = Collections.synchronizedList(new ArrayList<>());
        List<Long> runLat = Collections.synchronizedList(new ArrayList<>());
        List<Long> closeLat = Collections.synchronizedList(new ArrayList<>());
        Map<String, Integer> errors = Collections.synchronizedMap(new TreeMap<>());
        AtomicInteger concurrentOpen = new AtomicInteger();
        AtomicInteger peakOpen = new AtomicInteger();
        List<Future<?>> fs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int k = i;
            fs.add(pool.submit(() -> {
                go.await();
                Sandbox s = null;
                try {
                    long t0 = System.nanoTime();
                    s = Rel.open(backend);
                    openLat.add(System.nanoTime() - t0);
                    peakOpen.accumulateAndGet(concurrentOpen.incrementAndGet(), Math::max);
                    allOpen.countDown();
                    // hold every sandbox open until all are (or 120 s), so they really exist at once
                    allOpen.await(120, TimeUnit.SECONDS);
                    long t1 = System.nanoTime();
                    ExecResult r = s.shell().run("echo " + k + " > me.txt && cat me.txt");
                    s.files().write("f.txt", "sandbox " + k);
                    String back = s.files().readText("f.txt");
                    runLat.add(System.nanoTime() - t1);
                    if (!r.stdout().equals(k + "\n") && !backend.equals("memory")) {
                        errors.merge("wrong output: expected [" + k + "], got " + r.status() + " exit "
                                + r.exitCode() + " stdout [" + r.stdout() + "] stderr [" + r.stderr() + "] "
                                + r.detail(), 1, Integer::sum);
                    }
                    if (!back.equals("sandbox " + k)) {
                        errors.merge("wrong file: wrote [sandbox " + k + "], read back [" + back + "]", 1,
                                Integer::sum);
                    }
                } catch (SandboxException e) {
                    allOpen.countDown();
                    errors.merge("typed " + e.kind() + ": " + e.getMessage().replaceAll("[0-9a-f]{8,}", "#"), 1,
                            Integer::sum);
                } catch (RuntimeException e) {
                    allOpen.countDown();
                    errors.merge("OTHER " + e, 1, Integer::sum);
                } finally {
                    if (s != null) {
                        long t2 = System.nanoTime();
                        s.close();
                        closeLat.add(System.nanoTime() - t2);
                        concurrentOpen.decrementAndGet();
                    }
                }
                return null;
            }));
        }
        long t0 = System.nanoTime();
        go.countDown();
        for (Future<?> f : fs) {
            f.get(15, TimeUnit.MINUTES);
        }
        long wall = System.nanoTime() - t0;
        pool.shutdown();
        Rel.report("concurrency " + backend + ": " + n + " sandboxes opened/used/closed at once in " + Rel.ms(wall)
                + ", peak open together " + peakOpen.get() + "; open " + Rel.percentiles(openLat) + "; run+write+read "
                + Rel.percentiles(runLat) + "; close " + Rel.percentiles(closeLat) + "; errors " + errors);
        assertThat(errors).isEmpty();
        assertThat(peakOpen.get()).isEqualTo(n);
        Rel.assertBaseline("concurrency " + backend + " x" + n, base, 30);
    }
}
