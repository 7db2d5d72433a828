package dev.sandbox4j.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BackgroundTest {
    @Test
    void serialRunsOneAtATimeInOrder() throws Exception {
        Executor serial = Background.serial();
        List<Integer> seen = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(200);
        for (int i = 0; i < 200; i++) {
            int n = i;
            serial.execute(() -> {
                maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                seen.add(n);
                Thread.onSpinWait();
                inside.decrementAndGet();
                done.countDown();
            });
        }
        assertTrue(done.await(10, TimeUnit.SECONDS));
        assertEquals(1, maxInside.get());
        for (int i = 0; i < 200; i++) {
            assertEquals(i, seen.get(i));
        }
    }

    @Test
    void aThrowingTaskDoesNotStopTheNext() throws Exception {
        Executor serial = Background.serial();
        CountDownLatch done = new CountDownLatch(1);
        serial.execute(() -> {
            throw new IllegalStateException("boom");
        });
        serial.execute(done::countDown);
        assertTrue(done.await(10, TimeUnit.SECONDS));
    }

    @Test
    void workersRunBlockingTasksBesideEachOther() throws Exception {
        CountDownLatch both = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        for (int i = 0; i < 2; i++) {
            Background.execute(() -> {
                both.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        // both blocked tasks started: the pool grew instead of queueing the second behind the first
        assertTrue(both.await(10, TimeUnit.SECONDS));
        release.countDown();
    }

    @Test
    void exitTasksRunTogetherAndAHungOneDoesNotHoldTheExit() {
        AtomicInteger ran = new AtomicInteger();
        CountDownLatch never = new CountDownLatch(1);
        Background.atExit(() -> {
            try {
                never.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Background.atExit(ran::incrementAndGet);
        Background.atExit(() -> {
            throw new IllegalStateException("a failing exit task");
        });
        Background.atExit(ran::incrementAndGet);
        long t0 = System.nanoTime();
        Background.runExitTasks(Duration.ofMillis(500));
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(2, ran.get());
        assertTrue(tookMs < 5_000, "the exit waited " + tookMs + " ms for a hung task");
        never.countDown();
    }
}
