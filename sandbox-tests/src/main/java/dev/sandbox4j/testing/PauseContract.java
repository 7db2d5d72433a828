package dev.sandbox4j.testing;

import static dev.sandbox4j.testing.Checks.expectError;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.Feature;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.Shell;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link Sandbox#pause()} and {@link Sandbox#resume()}: processes stopped with their memory and going on after, every
 * call but the few allowed refused with {@link ErrorKind#PAUSED}, close of a paused sandbox; the refusal without the
 * feature. (That a paused process uses no CPU is measured by each backend's own test, from the host.)
 */
public interface PauseContract extends ConformanceSupport {
    /** The counter the loop last wrote, waiting (bounded) until it is at least {@code atLeast}. */
    private static long counter(Sandbox sandbox, long atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            String text = sandbox.files().exists("count.txt") ? sandbox.files().readText("count.txt").trim() : "";
            long n = text.isEmpty() ? 0 : Long.parseLong(text);
            if (n >= atLeast) {
                return n;
            }
            assertThat(System.nanoTime()).as("the loop's counter reaches " + atLeast).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    @Test
    @Requires({Feature.PAUSE, Feature.SHELL, Feature.BACKGROUND_PROCESSES})
    default void pause_refusesCalls_resumeGoesOnWithMemoryKept(Sandbox sandbox) throws InterruptedException {
        Shell shell = sandbox.shell();
        FileSystem files = sandbox.files();
        try (ExecHandle loop = shell.start(ExecRequest.shell(
                "n=0; while :; do n=$((n+1)); echo $n > count.txt.tmp; mv count.txt.tmp count.txt; sleep 0.02; done"))) {
            long before = counter(sandbox, 3);
            sandbox.pause();
            sandbox.pause();
            assertThat(sandbox.isOpen()).isTrue();
            assertThat(sandbox.id()).isNotBlank();
            assertThat(sandbox.info().supports(Feature.PAUSE)).isTrue();
            expectError(ErrorKind.PAUSED, () -> shell.run("echo no"));
            expectError(ErrorKind.PAUSED, () -> sandbox.shell());
            expectError(ErrorKind.PAUSED, () -> files.readText("count.txt"));
            expectError(ErrorKind.PAUSED, () -> sandbox.files());
            expectError(ErrorKind.PAUSED, () -> sandbox.code());
            sandbox.resume();
            sandbox.resume();
            long after = counter(sandbox, before + 5);
            assertThat(after).as("the loop went on counting from where it was, not from a restart").isGreaterThan(before);
            assertThat(loop.isAlive()).isTrue();
            assertThat(shell.run("echo yes").stdout()).isEqualTo("yes\n");
        }
    }

    @Test
    @Requires({Feature.PAUSE, Feature.SHELL, Feature.BACKGROUND_PROCESSES})
    default void close_ofAPausedSandbox_removesEverything(Sandbox sandbox) throws InterruptedException {
        sandbox.shell().start(ExecRequest.shell("sleep 600"));
        sandbox.files().write("a.txt", "a");
        sandbox.pause();
        sandbox.close();
        assertThat(sandbox.isOpen()).isFalse();
        expectError(ErrorKind.CLOSED, sandbox::resume);
        expectError(ErrorKind.CLOSED, sandbox::pause);
        // the kit's leak check after this test fails if the frozen processes or anything else stayed
    }

    @Test
    @Requires(absent = Feature.PAUSE)
    default void pause_withoutFeature_failsUnsupported_andChangesNothing(Sandbox sandbox) {
        sandbox.files().write("a.txt", "a");
        expectError(ErrorKind.UNSUPPORTED, sandbox::pause);
        expectError(ErrorKind.UNSUPPORTED, sandbox::resume);
        assertThat(sandbox.isOpen()).isTrue();
        assertThat(sandbox.files().readText("a.txt")).isEqualTo("a");
    }
}
