package dev.sandbox4j.docker;

import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.Sandbox;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The timeout contract against a real engine: TIMEOUT within timeout + 2 s even when the agent cannot act on the kill
 * (the container is paused), and no process of the command survives once it can again. Only the contract's own bound is timed; everything else polls with generous limits.
 */
class DockerTimeoutTest {
    /** The documented bound past a command's timeout. */
    private static final Duration BOUND = Duration.ofSeconds(2);
    private static final Duration TIMEOUT = Duration.ofSeconds(3);

    @Test
    void run_timeoutReturnsInBoundWhileTheEngineCannotKill_andTheKillFinishesLater() throws Exception {
        try (Sandbox s = DockerTestSupport.open()) {
            ContainerHost d = ContainerHost.of(s);
            Paused p = underPause(s, "sleep 31", () -> s.shell().run(ExecRequest.shell("sleep 31").withTimeout(TIMEOUT)));
            try {
                assertThat(p.result.status()).isEqualTo(ExecStatus.TIMEOUT);
                assertThat(p.tookNanos).as("time to return (ns)").isLessThan(TIMEOUT.plus(BOUND).toNanos());
                assertThat(p.result.detail()).isEqualTo("timed out after 3000 ms; killing the process tree is still in progress");
            } finally {
                unpause(d);
            }
            assertNoneLeft(s, "^sleep 31");
            assertThat(s.shell().run("echo alive").stdout()).isEqualTo("alive\n");
            // Confirmed kills keep their detail.
            ExecResult quick = s.shell().run(ExecRequest.shell("sleep 32").withTimeout(Duration.ofMillis(500)));
            assertThat(quick.status()).isEqualTo(ExecStatus.TIMEOUT);
            assertThat(quick.detail()).isEqualTo("timed out after 500 ms; the command's processes were killed");
        }
    }

    @Test
    void timeoutBeforeTheProcessStarted_theLateProcessIsKilledToo() throws Exception {
        // With a 1 ms timeout the first kill usually runs before the exec's process exists (it starts asynchronously):
        // the kill must look again until the process is found and its stream ends.
        Duration tiny = Duration.ofMillis(1);
        try (Sandbox s = DockerTestSupport.open()) {
            ContainerHost d = ContainerHost.of(s);
            for (int i = 0; i < 5; i++) {
                long t0 = System.nanoTime();
                ExecResult r = s.shell().run(ExecRequest.shell("sleep 35").withTimeout(tiny));
                long took = System.nanoTime() - t0;
                assertThat(r.status()).isEqualTo(ExecStatus.TIMEOUT);
                assertThat(took).as("time to return (ns)").isLessThan(tiny.plus(BOUND).toNanos());
                System.out.printf("1 ms timeout: back after %d ms: %s%n", took / 1_000_000, r.detail());
            }
            assertNoneLeft(s, "^sleep 35");
        }
    }

    @Test
    void background_timeoutReturnsInBoundWhileTheEngineCannotKill_andTheKillFinishesLater() throws Exception {
        try (Sandbox s = DockerTestSupport.open()) {
            ContainerHost d = ContainerHost.of(s);
            java.util.concurrent.atomic.AtomicLong started = new java.util.concurrent.atomic.AtomicLong();
            Paused p = underPause(s, "sleep 33", () -> {
                ExecHandle h = s.shell().start(ExecRequest.shell("sleep 33").withTimeout(TIMEOUT), null);
                // The timeout counts from inside start(), after its working-directory check exec.
                started.set(System.nanoTime());
                Optional<ExecResult> r = h.await(Duration.ofSeconds(60));
                assertThat(r).as("await came back before its own limit").isPresent();
                return r.get();
            });
            try {
                assertThat(p.result.status()).isEqualTo(ExecStatus.TIMEOUT);
                assertThat(p.endNanos - started.get()).as("time to return after start() (ns)")
                        .isLessThan(TIMEOUT.plus(BOUND).toNanos());
                assertThat(p.result.detail()).isEqualTo("timed out after 3000 ms; killing the process tree is still in progress");
            } finally {
                unpause(d);
            }
            assertNoneLeft(s, "^sleep 33|^sleep 2147483647");
            assertThat(s.shell().run("echo alive").stdout()).isEqualTo("alive\n");
        }
    }

    @Test
    void close_removesAPausedSandbox() throws Exception {
        Sandbox s = DockerTestSupport.open();
        ContainerHost d = ContainerHost.of(s);
        try {
            Paused p = underPause(s, "sleep 34", () -> s.shell().run(ExecRequest.shell("sleep 34").withTimeout(TIMEOUT)));
            assertThat(p.result.detail()).contains("still in progress");
        } finally {
            s.close(); // removes the paused container
        }
        assertThat(DockerTestSupport.ownedResources()).noneMatch(r -> r.contains(d.id));
    }

    @Test
    void storm_32TimeoutsInOneSandboxAllReturnInBound() throws Exception {
        int n = 32;
        Duration timeout = Duration.ofSeconds(1);
        try (Sandbox s = DockerTestSupport.open()) {
            ContainerHost d = ContainerHost.of(s);
            java.util.concurrent.atomic.AtomicLong maxNanos = new java.util.concurrent.atomic.AtomicLong();
            java.util.concurrent.atomic.AtomicInteger unconfirmed = new java.util.concurrent.atomic.AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(n);
            try {
                CountDownLatch go = new CountDownLatch(1);
                List<Future<String>> fs = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    fs.add(pool.submit(() -> {
                        go.await();
                        long t0 = System.nanoTime();
                        ExecResult r = s.shell().run(ExecRequest.shell("sleep 10.3").withTimeout(timeout));
                        long took = System.nanoTime() - t0;
                        if (r.status() != ExecStatus.TIMEOUT) {
                            return "status " + r.status() + " " + r.exitCode() + " " + r.stderr();
                        }
                        maxNanos.accumulateAndGet(took, Math::max);
                        if (r.detail().contains("still in progress")) {
                            unconfirmed.incrementAndGet();
                        }
                        if (took >= timeout.plus(BOUND).toNanos()) {
                            return "returned after " + took / 1_000_000 + " ms: " + r.detail();
                        }
                        return "";
                    }));
                }
                go.countDown();
                List<String> wrong = new ArrayList<>();
                for (Future<String> f : fs) {
                    String w = f.get(2, TimeUnit.MINUTES);
                    if (!w.isEmpty()) {
                        wrong.add(w);
                    }
                }
                assertThat(wrong).isEmpty();
            } finally {
                pool.shutdownNow();
            }
            long none = System.nanoTime();
            assertNoneLeft(s, "^sleep 10\\.3");
            System.out.printf("storm: %d timeouts, slowest return %d ms, %d still killing on return, none left after %d ms"
                    + " more%n", n, maxNanos.get() / 1_000_000, unconfirmed.get(), (System.nanoTime() - none) / 1_000_000);
        }
    }

    // ------------------------------------------------------------------ helpers

    private record Paused(ExecResult result, long tookNanos, long endNanos) {
    }

    private interface Call {
        ExecResult call() throws Exception;
    }

    /**
     * Runs {@code call} (a command with {@link #TIMEOUT} that runs {@code process}) and pauses the container as soon
     * as the process shows up on the host, so that the kill at the deadline cannot run. Tries again in a fresh
     * attempt when the process showed up only after its deadline (a very busy engine), so the pause always comes first.
     */
    private static Paused underPause(Sandbox s, String process, Call call) throws Exception {
        ContainerHost d = ContainerHost.of(s);
        for (int attempt = 1; ; attempt++) {
            ExecutorService one = Executors.newSingleThreadExecutor();
            try {
                long t0 = System.nanoTime();
                Future<ExecResult> running = one.submit(call::call);
                boolean paused = false;
                while (!running.isDone()) {
                    if (top(d).contains(process)) {
                        // The deadline is at least TIMEOUT after t0: pausing before that means the kill cannot run.
                        if (System.nanoTime() - t0 < TIMEOUT.toNanos() - TimeUnit.MILLISECONDS.toNanos(500)) {
                            d.engine.control.pauseContainerCmd(d.containerId).exec();
                            paused = true;
                        }
                        break;
                    }
                    Thread.sleep(20);
                }
                ExecResult r = running.get(2, TimeUnit.MINUTES);
                long end = System.nanoTime();
                long took = end - t0;
                if (paused) {
                    System.out.printf("paused: '%s' came back %s after %d ms: %s%n", process, r.status(),
                            took / 1_000_000, r.detail());
                    return new Paused(r, took, end);
                }
                unpause(d);
                assertThat(attempt).as("the container could be paused before the deadline in 3 attempts").isLessThan(3);
                assertNoneLeft(s, "^" + process);
            } finally {
                one.shutdownNow();
            }
        }
    }

    private static String top(ContainerHost d) {
        StringBuilder b = new StringBuilder();
        String[][] ps = d.engine.control.topContainerCmd(d.containerId).exec().getProcesses();
        if (ps != null) {
            for (String[] row : ps) {
                b.append(row[row.length - 1]).append('\n');
            }
        }
        return b.toString();
    }

    private static void unpause(ContainerHost d) {
        try {
            d.engine.control.unpauseContainerCmd(d.containerId).exec();
        } catch (RuntimeException notPaused) {
            // was not paused
        }
    }

    /** Polls (up to 30 s) until no process matching the regex runs in the sandbox. */
    private static void assertNoneLeft(Sandbox s, String regex) throws InterruptedException {
        String left = "";
        long t0 = System.nanoTime();
        for (long end = t0 + TimeUnit.SECONDS.toNanos(30); System.nanoTime() < end; ) {
            left = s.shell().run(ExecRequest.argv("/bin/sh", "-c", "ps -eo args | grep -E \"$1\" || true", "sh", regex)
                    .withTimeout(Duration.ofSeconds(20))).stdout().trim();
            if (left.isEmpty()) {
                System.out.printf("none left matching %s after %d ms%n", regex, (System.nanoTime() - t0) / 1_000_000);
                return;
            }
            Thread.sleep(250);
        }
        assertThat(left).as("processes left running").isEmpty();
    }

    private static long threadsNamed(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().equals(name)).count();
    }
}
