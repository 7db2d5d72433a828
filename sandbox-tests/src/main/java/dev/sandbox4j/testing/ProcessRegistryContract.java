package dev.sandbox4j.testing;

import static dev.sandbox4j.testing.Checks.expectError;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.Feature;
import dev.sandbox4j.ProcessInfo;
import dev.sandbox4j.ProcessOutput;
import dev.sandbox4j.Processes;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Background commands found again by id ({@link dev.sandbox4j.Shell#processes()}, {@link Feature#PROCESS_REGISTRY}):
 * listed while they run, read again from any cursor by any thread, written to and killed by id, kept after they end,
 * killed with the sandbox; without the feature a typed refusal. Part of {@link ShellContract}.
 */
public interface ProcessRegistryContract extends ConformanceSupport {

    @Test
    @Requires({Feature.SHELL, Feature.PROCESS_REGISTRY})
    default void processes_stdinAndOutputById_fromCursors(Sandbox sandbox) {
        Processes p = sandbox.shell().processes();
        ProcessInfo cat = p.start(ExecRequest.argv("cat"));
        assertThat(cat.id()).matches("[0-9]+");
        assertThat(cat.running()).isTrue();
        assertThat(p.list()).extracting(ProcessInfo::id).contains(cat.id());
        p.writeStdin(cat.id(), "one\n");
        ProcessOutput first = readUntil(p, cat.id(), 0, "one\n");
        assertThat(first.text()).isEqualTo("one\n");
        assertThat(first.running()).isTrue();
        p.writeStdin(cat.id(), "two\n");
        ProcessOutput second = readUntil(p, cat.id(), first.next(), "two\n");
        assertThat(second.text()).as("only what came after the cursor").isEqualTo("two\n");
        assertThat(p.read(cat.id(), 0, Duration.ZERO).text()).as("reattached from the start").isEqualTo("one\ntwo\n");
        p.closeStdin(cat.id());
        ProcessOutput end = p.read(cat.id(), second.next(), Duration.ofSeconds(20));
        assertThat(end.running()).isFalse();
        assertThat(end.status()).isEqualTo(ExecStatus.COMPLETED);
        assertThat(end.exitCode()).isZero();
        assertThat(p.info(cat.id()).running()).as("kept after it ended").isFalse();
        expectError(ErrorKind.CLOSED, () -> p.writeStdin(cat.id(), "late\n"));
    }

    @Test
    @Requires({Feature.SHELL, Feature.PROCESS_REGISTRY})
    default void processes_killById_andUnknownIdsAreNotFound(Sandbox sandbox) {
        Processes p = sandbox.shell().processes();
        ProcessInfo sleeper = p.start(ExecRequest.shell("echo up; sleep 60"));
        assertThat(readUntil(p, sleeper.id(), 0, "up\n").text()).isEqualTo("up\n");
        ProcessInfo killed = p.kill(sleeper.id());
        assertThat(killed.running()).isFalse();
        assertThat(killed.status()).isEqualTo(ExecStatus.KILLED);
        assertThat(p.list()).filteredOn(i -> i.id().equals(sleeper.id())).singleElement()
                .extracting(ProcessInfo::running).isEqualTo(false);
        expectError(ErrorKind.NOT_FOUND, () -> p.read("999999999", 0, Duration.ZERO));
        expectError(ErrorKind.NOT_FOUND, () -> p.kill("nope"));
        expectError(ErrorKind.INVALID_ARGUMENT, () -> p.read(sleeper.id(), 1 << 20, Duration.ZERO));
    }

    @Test
    @Requires({Feature.SHELL, Feature.PROCESS_REGISTRY})
    default void processes_reattachedFromManyThreads_seeTheSameOutput(Sandbox sandbox) throws Exception {
        Processes p = sandbox.shell().processes();
        ProcessInfo counter = p.start(ExecRequest.shell("for i in $(seq 1 200); do echo line$i; done"));
        ProcessOutput done = p.read(counter.id(), 0, Duration.ofSeconds(30));
        assertThat(done.running()).isFalse();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<String>> reads = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                reads.add(pool.submit(() -> p.read(counter.id(), 0, Duration.ZERO).text()));
            }
            for (Future<String> f : reads) {
                assertThat(f.get(30, TimeUnit.SECONDS)).isEqualTo(done.text()).startsWith("line1\n")
                        .endsWith("line200\n");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @Requires({Feature.SHELL, Feature.PROCESS_REGISTRY})
    default void processes_closingTheSandbox_killsThem() {
        Sandbox sandbox = fixture().open(SandboxSpec.defaults());
        try {
            Processes p = sandbox.shell().processes();
            ProcessInfo sleeper = p.start(ExecRequest.shell("echo up; sleep 60"));
            readUntil(p, sleeper.id(), 0, "up\n");
            sandbox.close();
            expectError(ErrorKind.NOT_FOUND, () -> p.info(sleeper.id()));
            expectError(ErrorKind.CLOSED, () -> p.start(ExecRequest.shell("true")));
        } finally {
            sandbox.close();
        }
    }

    @Test
    @Requires(absent = Feature.PROCESS_REGISTRY)
    default void processes_withoutTheFeature_failUnsupported(Sandbox sandbox) {
        var before = Checks.snapshot(sandbox.files());
        expectError(ErrorKind.UNSUPPORTED, () -> sandbox.shell().processes().start(ExecRequest.shell("touch x")));
        assertThat(Checks.snapshot(sandbox.files())).as("nothing ran").isEqualTo(before);
    }

    /** Reads from {@code cursor} until the text ends with {@code wanted} (a command's output arrives in pieces). */
    private static ProcessOutput readUntil(Processes p, String id, long cursor, String wanted) {
        StringBuilder text = new StringBuilder();
        long next = cursor;
        ProcessOutput last = null;
        for (int i = 0; i < 100 && !text.toString().endsWith(wanted); i++) {
            last = p.read(id, next, Duration.ofMillis(200));
            text.append(last.text());
            next = last.next();
        }
        assertThat(text.toString()).endsWith(wanted);
        return new ProcessOutput(id, text.toString(), cursor, next, 0, last.running(), last.status(), last.exitCode());
    }
}
