package dev.sandbox4j.testing;

import static dev.sandbox4j.testing.Checks.expectError;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Feature;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.Language;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxInfo;
import dev.sandbox4j.SandboxSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The conformance contract for a {@link Sandbox}'s life: identity, info, spec, close, expiry, threads. */
public interface LifecycleContract extends ConformanceSupport {

    @Test
    default void id_twoSandboxes_areDistinct(Sandbox sandbox) {
        try (Sandbox other = fixture().open(SandboxSpec.defaults())) {
            assertThat(sandbox.id()).isNotBlank();
            assertThat(other.id()).isNotBlank().isNotEqualTo(sandbox.id());
            other.files().write("only-in-other.txt", "x");
            assertThat(sandbox.files().exists("only-in-other.txt")).as("workspaces are separate").isFalse();
        }
    }

    @Test
    default void info_fresh_describesBackend(Sandbox sandbox) {
        SandboxInfo info = sandbox.info();
        assertThat(info.id()).isEqualTo(sandbox.id());
        assertThat(info.backend()).isNotBlank().matches("[a-z0-9-]+");
        assertThat(info.features()).as("info().features() matches what the fixture declares")
                .isEqualTo(fixture().features());
        assertThat(info.limits()).isNotNull();
        for (Feature f : Feature.values()) {
            assertThat(info.supports(f)).isEqualTo(fixture().features().contains(f));
        }
    }

    @Test
    default void isOpen_beforeAndAfterClose_tellsState(Sandbox sandbox) {
        assertThat(sandbox.isOpen()).isTrue();
        sandbox.close();
        assertThat(sandbox.isOpen()).isFalse();
    }

    @Test
    default void close_twice_isIdempotent(Sandbox sandbox) {
        sandbox.close();
        sandbox.close();
        assertThat(sandbox.isOpen()).isFalse();
    }

    @Test
    default void anyCall_afterClose_failsClosed(Sandbox sandbox) {
        var shell = sandbox.shell();
        var code = sandbox.code();
        FileSystem files = sandbox.files();
        sandbox.close();
        expectError(ErrorKind.CLOSED, () -> shell.run("echo x"));
        expectError(ErrorKind.CLOSED, () -> code.run(Language.BASH, "echo x"));
        expectError(ErrorKind.CLOSED, () -> files.write("f.txt", "x"));
        expectError(ErrorKind.CLOSED, () -> files.readText("f.txt"));
        expectError(ErrorKind.CLOSED, () -> sandbox.shell().run("echo x"));
        expectError(ErrorKind.CLOSED, () -> sandbox.files().exists("f.txt"));
        expectError(ErrorKind.CLOSED, () -> sandbox.code().languages().forEach(l -> { }));
        // the same on every backend: nothing answers after close, not even what the sandbox was
        expectError(ErrorKind.CLOSED, sandbox::info);
        expectError(ErrorKind.CLOSED, () -> code.languages().forEach(l -> { }));
    }

    @Test
    default void open_specFiles_arePresent() {
        byte[] bytes = Checks.allByteValues();
        SandboxSpec spec = SandboxSpec.builder().file("main.py", "print('hi')\n").file("data/raw.bin", bytes)
                .file("deep/a/b/c.txt", "").build();
        try (Sandbox sandbox = fixture().open(spec)) {
            FileSystem fs = sandbox.files();
            assertThat(fs.readText("main.py")).isEqualTo("print('hi')\n");
            assertThat(fs.readBytes("data/raw.bin")).isEqualTo(bytes);
            assertThat(fs.readText("deep/a/b/c.txt")).isEmpty();
            assertThat(Checks.paths(fs.list(""))).containsExactly("data", "deep", "main.py");
        }
    }

    @Test
    default void open_specFileWithBadPath_failsInvalidPath() {
        SandboxSpec spec = SandboxSpec.builder().file("../escape.txt", "x").build();
        expectError(ErrorKind.INVALID_PATH, () -> fixture().open(spec).close());
    }

    @Test
    @Requires(Feature.SHELL)
    default void open_specEnvAndFiles_visibleToCommands() {
        SandboxSpec spec = SandboxSpec.builder().env("GREETING", "hi there").file("in.txt", "content\n").build();
        try (Sandbox sandbox = fixture().open(spec)) {
            ExecResult r = sandbox.shell().run("printf '%s|' \"$GREETING\"; cat in.txt");
            assertThat(r.stdout()).isEqualTo("hi there|content\n");
        }
    }

    @Test
    default void lifetime_expired_closesSandbox() throws InterruptedException {
        SandboxSpec spec = SandboxSpec.builder().lifetime(Duration.ofSeconds(2)).build();
        try (Sandbox sandbox = fixture().open(spec)) {
            assertThat(sandbox.isOpen()).isTrue();
            sandbox.files().write("f.txt", "x");
            assertThat(Checks.await(() -> !sandbox.isOpen(), Duration.ofSeconds(8)))
                    .as("closed itself after its 2 s lifetime").isTrue();
            expectError(ErrorKind.CLOSED, () -> sandbox.files().readText("f.txt"));
            expectError(ErrorKind.CLOSED, () -> sandbox.shell().run("true"));
        }
    }

    @Test
    default void files_eightThreads_allWritesLand(Sandbox sandbox) throws Exception {
        // Correctness under concurrency, not throughput: an engine-backed file system does ~8 operations a second
        // on two cores, so 8 threads x 6 rounds x 5 operations keeps this well inside the wait below.
        final int rounds = 6;
        FileSystem fs = sandbox.files();
        List<Callable<Void>> tasks = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            int id = t;
            tasks.add(() -> {
                for (int i = 0; i < rounds; i++) {
                    String path = "t" + id + "/f" + i + ".txt";
                    fs.write(path, "thread " + id + " file " + i);
                    assertThat(fs.readText(path)).isEqualTo("thread " + id + " file " + i);
                    fs.write("shared.txt", "writer " + id + " round " + i);
                }
                return null;
            });
        }
        runTogether(tasks);
        for (int t = 0; t < 8; t++) {
            assertThat(fs.list("t" + t)).hasSize(rounds);
        }
        assertThat(fs.readText("shared.txt")).as("atomic writes: one whole version wins")
                .matches("writer \\d round \\d+");
    }

    @Test
    @Requires(Feature.SHELL)
    default void shell_eightThreads_resultsStayApart(Sandbox sandbox) throws Exception {
        List<Callable<Void>> tasks = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            int id = t;
            tasks.add(() -> {
                for (int i = 0; i < 3; i++) {
                    ExecResult r = sandbox.shell().run("echo out-" + id + "-" + i + "; echo err-" + id + " >&2");
                    assertThat(r.stdout()).isEqualTo("out-" + id + "-" + i + "\n");
                    assertThat(r.stderr()).isEqualTo("err-" + id + "\n");
                }
                return null;
            });
        }
        runTogether(tasks);
    }

    /** Every kind has a test in the kit or a reason here why no backend can be made to produce it on demand. */
    @Test
    default void errorKinds_everyKind_isCoveredOrExplained() {
        EnumSet<ErrorKind> covered = EnumSet.of(
                ErrorKind.NOT_FOUND,           // FileSystemContract.read_missing_failsNotFoundNamingThePath
                ErrorKind.ALREADY_EXISTS,      // move_targetExists_failsAlreadyExistsUnlessOverwrite
                ErrorKind.NOT_A_DIRECTORY,     // list_aFile_failsNotADirectory, mkdirs_overAFile_...
                ErrorKind.IS_A_DIRECTORY,      // read_aDirectory_failsIsADirectory
                ErrorKind.DIRECTORY_NOT_EMPTY, // delete_nonEmptyDirectory_needsRecursive
                ErrorKind.INVALID_PATH,        // anyCall_badPath_failsInvalidPathAndChangesNothing
                ErrorKind.INVALID_ARGUMENT,    // anyCall_badArgument_failsInvalidArgumentAndChangesNothing
                ErrorKind.PERMISSION_DENIED,   // FileSystemSecurityContract (SYMLINKS + SHELL; FIFO with SHELL)
                ErrorKind.TOO_LARGE,           // readText_overMaxReadBytes_failsTooLarge
                ErrorKind.NO_SPACE_LEFT,       // WorkspaceQuotaContract (WORKSPACE_QUOTA)
                ErrorKind.NO_MATCH,            // replace_noMatch_failsNoMatchAndChangesNothing
                ErrorKind.AMBIGUOUS_MATCH,     // replace_threeMatches_failsAmbiguousSayingHowMany
                ErrorKind.UNSUPPORTED_LANGUAGE, // CodeRunnerContract.run_unknownLanguageName_...
                ErrorKind.UNSUPPORTED,         // ShellContract.start_withoutBackgroundProcesses_failsUnsupported
                ErrorKind.CLOSED,              // anyCall_closedSandbox_failsClosed (files, shell, code)
                ErrorKind.PAUSED,              // PauseContract.pause_refusesCalls_resumeGoesOnWithMemoryKept (PAUSE)
                ErrorKind.INTERRUPTED,         // ShellContract.run_callerInterrupted_... (SHELL)
                ErrorKind.IO_ERROR,            // writeStream_sourceFailsHalfway_failsIoErrorAndKeepsOldContent
                ErrorKind.CONFLICT,            // FileSystemContract.readToUnchanged_*WhileStreaming_failsConflict
                ErrorKind.TIMEOUT);            // PortContract.readinessHelpers_andBadArguments_areTyped (PORTS)
        EnumSet<ErrorKind> explained = EnumSet.of(
                // Needs a broken host (no bwrap, daemon down): the fixture could not open a sandbox at all.
                ErrorKind.BACKEND_UNAVAILABLE,
                // A bug: nothing a correct backend does on purpose.
                ErrorKind.INTERNAL);
        EnumSet<ErrorKind> all = EnumSet.copyOf(covered);
        all.addAll(explained);
        assertThat(all).as("a new ErrorKind needs a kit test (or a reason it cannot have one)")
                .isEqualTo(EnumSet.allOf(ErrorKind.class));
    }

    private static void runTogether(List<Callable<Void>> tasks) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Void>> futures = new ArrayList<>();
            for (Callable<Void> task : tasks) {
                futures.add(pool.submit(() -> {
                    go.await();
                    return task.call();
                }));
            }
            go.countDown();
            for (Future<Void> f : futures) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
