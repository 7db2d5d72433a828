package dev.sandbox4j.testing;

import static dev.sandbox4j.testing.Checks.expectError;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.Feature;
import dev.sandbox4j.OutputListener;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Background commands ({@link dev.sandbox4j.Shell#start}): their handles, streamed output, stdin, waits, kills and the
 * scripted shell's refusal. Part of {@link ShellContract}, which extends it: every backend that runs the shell
 * contract runs these.
 */
public interface BackgroundCommandContract extends ConformanceSupport {

    // ---- background commands ----------------------------------------------------------------------------------

    @Test
    @Requires({Feature.SHELL, Feature.BACKGROUND_PROCESSES})
    default void start_listener_seesOutputInOrder(Sandbox sandbox) {
        StringBuffer out = new StringBuffer();
        StringBuffer err = new StringBuffer();
        OutputListener listener = OutputListener.of(out::append, err::append);
        try (ExecHandle h = sandbox.shell().start(
                ExecRequest.shell("for i in 1 2 3 4 5; do echo $i; echo e$i >&2; done; exit 4"), listener)) {
            Optional<ExecResult> result = h.await(Duration.ofSeconds(10));
            assertThat(result).isPresent();
            assertThat(result.get().status()).isEqualTo(ExecStatus.COMPLETED);
            assertThat(result.get().exitCode()).isEqualTo(4);
            assertThat(result.get().stdout()).isEqualTo("1\n2\n3\n4\n5\n");
            assertThat(out.toString()).as("the listener saw every byte, in order").isEqualTo("1\n2\n3\n4\n5\n");
            assertThat(err.toString()).isEqualTo("e1\ne2\ne3\ne4\ne5\n");
            assertThat(h.isAlive()).isFalse();
            assertThat(h.command()).contains("for i in");
        }
    }

    @Test
    @Requires({Feature.SHELL, Feature.BACKGROUND_PROCESSES})
    default void start_writeStdin_reachesCommandAsItRuns(Sandbox sandbox) throws InterruptedException {
        StringBuffer out = new StringBuffer();
        try (ExecHandle h = sandbox.shell().start(ExecRequest.argv("cat"), OutputListener.of(out::append, out::append))) {
            h.writeStdin("ping\n");
            assertThat(Checks.await(() -> out.toString().contains("ping"), Duration.ofSeconds(10)))
                    .as("output streams while the command runs").isTrue();
            assertThat(h.isAlive()).isTrue();
            h.writeStdin("pong\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            h.closeStdin();
            h.closeStdin();
            Optional<ExecResult> result = h.await(Duration.ofSeconds(10));
            assertThat(result).as("cat ends at end of input").isPresent();
            assertThat(result.get().stdout()).isEqualTo("ping\npong\n");
            expectError(ErrorKind.CLOSED, () -> h.writeStdin("late\n"));
        }
    }

    @Test
    @Requires({Feature.SHELL, Feature.BACKGROUND_PROCESSES})
    default void start_awaitWhileRunning_isEmptyThenKillReturnsKilled(Sandbox sandbox) {
        try (ExecHandle h = sandbox.shell().start(ExecRequest.shell("echo up; sleep 30"))) {
            assertThat(h.await(Duration.ofMillis(300))).isEmpty();
            assertThat(h.isAlive()).isTrue();
            ExecResult killed = h.kill();
            assertThat(killed.status()).isEqualTo(ExecStatus.KILLED);
            assertThat(killed.stdout()).isEqualTo("up\n");
            assertThat(h.isAlive()).isFalse();
            assertThat(h.await(Duration.ofSeconds(1))).as("await after kill gives the result").isPresent()
                    .get().extracting(ExecResult::status).isEqualTo(ExecStatus.KILLED);
        }
    }

    @Test
    @Requires({Feature.SHELL, Feature.BACKGROUND_PROCESSES})
    default void start_writeAfterCloseStdin_failsClosed(Sandbox sandbox) {
        try (ExecHandle h = sandbox.shell().start(ExecRequest.shell("sleep 30"))) {
            h.closeStdin();
            expectError(ErrorKind.CLOSED, () -> h.writeStdin("too late\n"));
            assertThat(h.isAlive()).as("closing stdin does not kill the command").isTrue();
            assertThat(h.kill().status()).isEqualTo(ExecStatus.KILLED);
        }
    }

    @Test
    @Requires({Feature.SHELL, Feature.BACKGROUND_PROCESSES})
    default void start_handleClosed_killsCommand(Sandbox sandbox) throws InterruptedException {
        ExecHandle h = sandbox.shell().start(ExecRequest.shell("sleep 2; echo late > late.txt"));
        assertThat(h.isAlive()).isTrue();
        h.close();
        h.close();
        assertThat(h.isAlive()).isFalse();
        Thread.sleep(2_500);
        assertThat(sandbox.files().exists("late.txt")).as("the command was killed by close()").isFalse();
    }

    @Test
    @Requires({Feature.SHELL, Feature.BACKGROUND_PROCESSES})
    default void start_listenerThrows_commandStillCompletes(Sandbox sandbox) {
        OutputListener failing = OutputListener.of(text -> {
            throw new IllegalStateException("listener bug (on purpose)");
        }, text -> {
            throw new IllegalStateException("listener bug (on purpose)");
        });
        try (ExecHandle h = sandbox.shell().start(ExecRequest.shell("echo a; echo b; echo done > done.txt"),
                failing)) {
            Optional<ExecResult> r = h.await(Duration.ofSeconds(10));
            assertThat(r).isPresent();
            assertThat(r.get().exitCode()).isZero();
            assertThat(r.get().stdout()).isEqualTo("a\nb\n");
        }
        assertThat(sandbox.files().readText("done.txt")).isEqualTo("done\n");
    }

    @Test
    @Requires({Feature.SHELL, Feature.BACKGROUND_PROCESSES})
    default void start_withTimeout_endsTimedOut(Sandbox sandbox) {
        try (ExecHandle h = sandbox.shell().start(ExecRequest.shell("sleep 30").withTimeout(Duration.ofSeconds(1)))) {
            Optional<ExecResult> r = h.await(Duration.ofSeconds(1).plus(ShellContract.TIMEOUT_SLACK));
            assertThat(r).as("timed out within timeout + 2 s").isPresent();
            assertThat(r.get().status()).isEqualTo(ExecStatus.TIMEOUT);
        }
    }

    @Test
    @Requires({Feature.SHELL, Feature.BACKGROUND_PROCESSES})
    default void start_noTimeout_outlivesSandboxDefault() throws InterruptedException {
        SandboxSpec spec = SandboxSpec.builder().commandTimeout(Duration.ofSeconds(1)).build();
        try (Sandbox sandbox = fixture().open(spec);
             ExecHandle h = sandbox.shell().start(ExecRequest.shell("sleep 30"))) {
            assertThat(h.await(Duration.ofMillis(2500))).as("the default timeout is not for background commands")
                    .isEmpty();
            assertThat(h.isAlive()).isTrue();
        }
    }

    @Test
    @Requires({Feature.SHELL, Feature.BACKGROUND_PROCESSES})
    default void close_sandbox_killsBackgroundCommands() throws InterruptedException {
        ExecHandle h;
        try (Sandbox sandbox = fixture().open(SandboxSpec.defaults())) {
            h = sandbox.shell().start(ExecRequest.shell("sleep 30"));
            assertThat(h.isAlive()).isTrue();
        }
        assertThat(Checks.await(() -> !h.isAlive(), Duration.ofSeconds(5))).as("killed by the sandbox's close")
                .isTrue();
    }

    /**
     * A sandbox is closed from several threads at once in real apps (the user's, a pool's, the lifetime timer's): each
     * {@code close()} returns only once the sandbox is closed, never while another thread's close is still underway.
     */
    @Test
    @Requires({Feature.SHELL, Feature.BACKGROUND_PROCESSES})
    default void close_fromSeveralThreadsAtOnce_eachReturnsOnceClosed() throws Exception {
        int threads = 4;
        for (int round = 0; round < 3; round++) {
            Sandbox sandbox = fixture().open(SandboxSpec.defaults());
            ExecHandle h = sandbox.shell().start(ExecRequest.shell("sleep 30"));
            CyclicBarrier go = new CyclicBarrier(threads);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<String>> seen = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    seen.add(pool.submit(() -> {
                        go.await();
                        sandbox.close();
                        return "open " + sandbox.isOpen() + ", command alive " + h.isAlive() + ", result "
                                + h.await(Duration.ZERO).map(r -> r.status().toString()).orElse("none");
                    }));
                }
                for (var f : seen) {
                    assertThat(f.get(60, TimeUnit.SECONDS)).as("round " + round)
                            .startsWith("open false, command alive false, result ")
                            .doesNotEndWith("result none");
                }
            } finally {
                pool.shutdownNow();
                sandbox.close();
            }
        }
    }

    @Test
    @Requires(absent = Feature.BACKGROUND_PROCESSES)
    default void start_withoutBackgroundProcesses_failsUnsupported(Sandbox sandbox) {
        var before = Checks.snapshot(sandbox.files());
        SandboxException e = expectError(ErrorKind.UNSUPPORTED,
                () -> sandbox.shell().start(ExecRequest.shell("echo x > started.txt")));
        assertThat(e.getMessage()).isNotBlank();
        expectError(ErrorKind.UNSUPPORTED,
                () -> sandbox.shell().start(ExecRequest.argv("cat"), OutputListener.NONE));
        assertThat(Checks.snapshot(sandbox.files())).as("nothing ran").isEqualTo(before);
        assertThat(sandbox.shell().run("echo still works").exitCode()).isZero();
    }
}
