package dev.sandbox4j.testing;

import static dev.sandbox4j.testing.Checks.expectError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.Feature;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Truncation;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The conformance contract for {@link dev.sandbox4j.Shell}. Real-shell tests need {@link Feature#SHELL}; scripted
 * shells (the in-memory backend) have their own tests, and a few tests hold for both. Background commands are
 * {@link BackgroundCommandContract}, which this contract extends (a backend implementing this one runs them too), as
 * are processes found again by id ({@link ProcessRegistryContract}) and terminals ({@link TerminalContract}).
 */
public interface ShellContract extends BackgroundCommandContract, ProcessRegistryContract, TerminalContract {
    /** How much later than its timeout a timed-out command may come back: the contract's upper bound. */
    Duration TIMEOUT_SLACK = Duration.ofSeconds(2);

    // ---- both real and scripted shells ----------------------------------------------------------------------------

    @Test
    default void run_trueAndFalse_exitZeroAndOne(Sandbox sandbox) {
        ExecResult ok = sandbox.shell().run("true");
        assertThat(ok.status()).isEqualTo(ExecStatus.COMPLETED);
        assertThat(ok.exitCode()).isZero();
        assertThat(ok.isSuccess()).isTrue();
        ExecResult bad = sandbox.shell().run("false");
        assertThat(bad.status()).as("a non-zero exit is data, not an exception").isEqualTo(ExecStatus.COMPLETED);
        assertThat(bad.exitCode()).isEqualTo(1);
        assertThat(bad.isSuccess()).isFalse();
    }

    @Test
    default void run_echo_printsLine(Sandbox sandbox) {
        ExecResult r = sandbox.shell().run("echo hi");
        assertThat(r.stdout()).isEqualTo("hi\n");
        assertThat(r.stderr()).isEmpty();
        assertThat(r.truncated()).isFalse();
        assertThat(r.stdoutTruncation()).isEqualTo(Truncation.none(3));
        assertThat(r.detail()).isEmpty();
    }

    @Test
    default void run_unknownCommand_exits127NotFound(Sandbox sandbox) {
        ExecResult r = sandbox.shell().run("no-such-command-xyz");
        assertThat(r.status()).isEqualTo(ExecStatus.COMPLETED);
        assertThat(r.exitCode()).isEqualTo(127);
        assertThat(r.stderr()).contains("not found");
        assertThat(r.stdout()).isEmpty();
    }

    @Test
    @Requires(absent = Feature.SHELL)
    default void run_scriptedUnknownCommand_saysCommandNotFound(Sandbox sandbox) {
        ExecResult r = sandbox.shell().run("gcc main.c");
        assertThat(r.exitCode()).isEqualTo(127);
        assertThat(r.stderr()).contains("command not found");
    }

    @Test
    @Requires(absent = Feature.SHELL)
    default void run_scriptedCat_readsWorkspaceFile(Sandbox sandbox) {
        sandbox.files().write("notes.txt", "from the workspace\n");
        ExecResult r = sandbox.shell().run("cat notes.txt");
        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout()).isEqualTo("from the workspace\n");
    }

    @Test
    default void shell_closedSandbox_failsClosed(Sandbox sandbox) {
        var shell = sandbox.shell();
        sandbox.close();
        expectError(ErrorKind.CLOSED, () -> shell.run("true"));
        expectError(ErrorKind.CLOSED, () -> shell.run(ExecRequest.argv("true")));
        expectError(ErrorKind.CLOSED, () -> sandbox.shell().run("true"));
        expectError(ErrorKind.CLOSED, () -> shell.start(ExecRequest.shell("true")));
    }

    // ---- real shells: exit codes, streams, cwd, env, stdin, argv ------------------------------------------------

    @Test
    @Requires(Feature.SHELL)
    default void run_exitCodeAndStreams_keptApart(Sandbox sandbox) {
        ExecResult r = sandbox.shell().run("echo out; echo err >&2; printf more; exit 3");
        assertThat(r.status()).isEqualTo(ExecStatus.COMPLETED);
        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(r.stdout()).isEqualTo("out\nmore");
        assertThat(r.stderr()).isEqualTo("err\n");
        assertThat(r.duration()).isPositive();
    }

    @Test
    @Requires(Feature.SHELL)
    default void run_killedBySignal_exitCodeIs128PlusSignal(Sandbox sandbox) {
        ExecResult r = sandbox.shell().run("kill -9 $$");
        assertThat(r.exitCode()).isEqualTo(137);
    }

    @Test
    @Requires(Feature.SHELL)
    default void run_defaultCwd_isWorkspace(Sandbox sandbox) {
        sandbox.files().write("marker.txt", "m");
        ExecResult r = sandbox.shell().run("pwd; cat marker.txt");
        assertThat(r.stdout()).isEqualTo(fixture().workspaceRoot(sandbox) + "\nm");
        sandbox.shell().run("echo made-by-shell > made.txt");
        assertThat(sandbox.files().readText("made.txt")).as("commands and files share the workspace")
                .isEqualTo("made-by-shell\n");
    }

    @Test
    @Requires(Feature.SHELL)
    default void run_relativeCwd_runsThere(Sandbox sandbox) {
        sandbox.files().mkdirs("sub/dir");
        assertThat(sandbox.shell().run(ExecRequest.shell("pwd").withCwd("sub/dir")).stdout())
                .isEqualTo(fixture().workspaceRoot(sandbox) + "/sub/dir\n");
        assertThat(sandbox.shell().run(ExecRequest.argv("pwd").withCwd("/workspace/sub")).stdout())
                .isEqualTo(fixture().workspaceRoot(sandbox) + "/sub\n");
    }

    /** The Javadoc asks for a workspace directory: a missing one is the caller's error, not the command's exit. */
    @Test
    @Requires(Feature.SHELL)
    default void run_missingCwd_failsNotFound(Sandbox sandbox) {
        SandboxException e = expectError(ErrorKind.NOT_FOUND,
                () -> sandbox.shell().run(ExecRequest.shell("touch ran").withCwd("no/such/dir")));
        assertThat(e.getMessage()).contains("no/such/dir");
        assertThat(sandbox.files().list("", 10)).as("the command did not run").isEmpty();
    }

    @Test
    @Requires(Feature.SHELL)
    default void run_cwdIsAFile_failsNotADirectory(Sandbox sandbox) {
        sandbox.files().write("f.txt", "x");
        expectError(ErrorKind.NOT_A_DIRECTORY, () -> sandbox.shell().run(ExecRequest.shell("true").withCwd("f.txt")));
    }

    @Test
    @Requires(Feature.SHELL)
    default void run_cwdOutsideWorkspace_failsInvalidPath(Sandbox sandbox) {
        expectError(ErrorKind.INVALID_PATH, () -> sandbox.shell().run(ExecRequest.shell("true").withCwd("../")));
        expectError(ErrorKind.INVALID_PATH, () -> sandbox.shell().run(ExecRequest.shell("true").withCwd("/etc")));
    }

    @Test
    @Requires(Feature.SHELL)
    default void run_requestEnv_isVisibleToThatCommandOnly(Sandbox sandbox) {
        ExecResult r = sandbox.shell().run(ExecRequest.shell("printf '%s|%s' \"$FOO\" \"$EMPTY\"")
                .withEnv("FOO", "bar baz $HOME 'q'").withEnv("EMPTY", ""));
        assertThat(r.stdout()).isEqualTo("bar baz $HOME 'q'|");
        assertThat(sandbox.shell().run("printf '%s' \"${FOO-unset}\"").stdout()).isEqualTo("unset");
    }

    @Test
    @Requires(Feature.SHELL)
    default void run_specEnv_isVisibleAndRequestOverrides() {
        SandboxSpec spec = SandboxSpec.builder().commandTimeout(Duration.ofSeconds(30))
                .env("SPEC_VAR", "from spec").env("BOTH", "spec").build();
        try (Sandbox sandbox = fixture().open(spec)) {
            assertThat(sandbox.shell().run("printf '%s' \"$SPEC_VAR\"").stdout()).isEqualTo("from spec");
            assertThat(sandbox.shell().run(ExecRequest.shell("printf '%s' \"$BOTH\"").withEnv("BOTH", "request"))
                    .stdout()).isEqualTo("request");
            assertThat(sandbox.shell().run(ExecRequest.argv("printenv", "SPEC_VAR")).stdout())
                    .as("argv commands get the spec env too").isEqualTo("from spec\n");
        }
    }

    @Test
    @Requires(Feature.SHELL)
    default void run_stdinText_reachesCommand(Sandbox sandbox) {
        ExecResult r = sandbox.shell().run(ExecRequest.shell("cat; echo; echo done").withStdin("héllo\nworld"));
        assertThat(r.stdout()).isEqualTo("héllo\nworld\ndone\n");
    }

    @Test
    @Requires(Feature.SHELL)
    default void run_stdinBytes_reachUnchanged(Sandbox sandbox) {
        ExecResult r = sandbox.shell().run(ExecRequest.shell("od -An -tx1 -v | tr -d ' \\n'")
                .withStdin(Checks.allByteValues()));
        assertThat(r.stdout()).isEqualTo(Checks.hex(Checks.allByteValues()));
    }

    @Test
    @Requires(Feature.SHELL)
    default void run_largeStdinEchoed_doesNotDeadlock(Sandbox sandbox) {
        String big = Checks.repeatTo("0123456789abcdef\n", 2_000_000);
        ExecResult r = sandbox.shell().run(ExecRequest.argv("cat").withStdin(big).withTimeout(Duration.ofSeconds(20)));
        assertThat(r.status()).as("stdin is fed while output is drained").isEqualTo(ExecStatus.COMPLETED);
        assertThat(r.stdoutTruncation().totalBytes()).isEqualTo(2_000_000);
    }

    @Test
    @Requires(Feature.SHELL)
    default void run_noStdin_readsEmptyInputAtOnce(Sandbox sandbox) {
        ExecResult r = sandbox.shell().run(ExecRequest.shell("cat; echo eof").withTimeout(Duration.ofSeconds(10)));
        assertThat(r.status()).as("cat must see end of input, not wait for a terminal")
                .isEqualTo(ExecStatus.COMPLETED);
        assertThat(r.stdout()).isEqualTo("eof\n");
    }

    @Test
    @Requires(Feature.SHELL)
    default void run_argvWithSpacesAndQuotes_passedUntouched(Sandbox sandbox) {
        ExecResult r = sandbox.shell().run(ExecRequest.argv("printf", "%s|", "a b", "'q'", "\"d\"", "$HOME", "*",
                "; rm -rf /", "", "tab\there", "é😀"));
        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout()).isEqualTo("a b|'q'|\"d\"|$HOME|*|; rm -rf /||tab\there|é😀|");
    }

    @Test
    @Requires(Feature.SHELL)
    default void run_nonUtf8Output_isDecodedWithReplacement(Sandbox sandbox) {
        ExecResult r = sandbox.shell().run("printf 'ok\\377\\376end'");
        assertThat(r.stdout()).startsWith("ok").endsWith("end").contains("\uFFFD");
        assertThat(r.stdoutTruncation().totalBytes()).isEqualTo(7);
    }

    // ---- timeouts ----------------------------------------------------------------------------------------------

    @Test
    @Requires(Feature.SHELL)
    default void run_pastTimeout_returnsTimeoutWithPartialOutput(Sandbox sandbox) {
        Duration timeout = Duration.ofSeconds(1);
        long start = System.nanoTime();
        ExecResult r = sandbox.shell().run(ExecRequest.shell("echo started; echo warn >&2; sleep 30; echo never")
                .withTimeout(timeout));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(r.status()).isEqualTo(ExecStatus.TIMEOUT);
        assertThat(r.timedOut()).isTrue();
        assertThat(r.stdout()).isEqualTo("started\n");
        assertThat(r.stderr()).isEqualTo("warn\n");
        assertThat(r.detail()).as("detail says why").isNotBlank();
        assertThat(took).as("returns within timeout + 2 s").isLessThan(timeout.plus(TIMEOUT_SLACK));
    }

    @Test
    @Requires(Feature.SHELL)
    default void runWithTimeout_pastIt_returnsTimeoutWithPartialOutput(Sandbox sandbox) {
        long start = System.nanoTime();
        ExecResult r = sandbox.shell().run("echo started; sleep 30; echo never", Duration.ofSeconds(1));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(r.status()).isEqualTo(ExecStatus.TIMEOUT);
        assertThat(r.stdout()).isEqualTo("started\n");
        assertThat(took).as("returns within timeout + 2 s").isLessThan(Duration.ofSeconds(1).plus(TIMEOUT_SLACK));
    }

    @Test
    @Requires(Feature.SHELL)
    default void runWithTimeout_overridesTheSandboxDefault() {
        SandboxSpec spec = SandboxSpec.builder().commandTimeout(Duration.ofSeconds(1)).build();
        try (Sandbox sandbox = fixture().open(spec)) {
            ExecResult r = sandbox.shell().run("sleep 2; echo done", Duration.ofSeconds(20));
            assertThat(r.status()).as("the call's 20 s, not the sandbox's 1 s").isEqualTo(ExecStatus.COMPLETED);
            assertThat(r.stdout()).isEqualTo("done\n");
        }
    }

    @Test
    default void runWithTimeout_notPositive_isRefusedBeforeRunning(Sandbox sandbox) {
        assertThatThrownBy(() -> sandbox.shell().run("echo x > never.txt", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be positive");
        assertThatThrownBy(() -> sandbox.shell().run("echo x > never.txt", Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(sandbox.files().exists("never.txt")).isFalse();
    }

    @Test
    @Requires(Feature.SHELL)
    default void run_specDefaultTimeout_appliesWhenRequestSetsNone() {
        SandboxSpec spec = SandboxSpec.builder().commandTimeout(Duration.ofSeconds(1)).build();
        try (Sandbox sandbox = fixture().open(spec)) {
            long start = System.nanoTime();
            ExecResult r = sandbox.shell().run("sleep 30");
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(r.status()).isEqualTo(ExecStatus.TIMEOUT);
            assertThat(took).isLessThan(Duration.ofSeconds(1).plus(TIMEOUT_SLACK));
        }
    }

    @Test
    @Requires(Feature.SHELL)
    default void run_timeout_killsDetachedChildren(Sandbox sandbox) throws InterruptedException {
        String later = "sleep 2; echo alive > %s";
        String command = "S=$(command -v setsid || true); "
                + "$S sh -c '" + String.format(later, "m_setsid") + "' >/dev/null 2>&1 & "
                + "nohup sh -c '" + String.format(later, "m_nohup") + "' >/dev/null 2>&1 & "
                + "(sh -c '" + String.format(later, "m_fork") + "' >/dev/null 2>&1 &) ; "
                + "sh -c '" + String.format(later, "m_holds_stdout") + "' & "
                + "echo spawned; sleep 30";
        long start = System.nanoTime();
        ExecResult r = sandbox.shell().run(ExecRequest.shell(command).withTimeout(Duration.ofSeconds(1)));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(r.status()).isEqualTo(ExecStatus.TIMEOUT);
        assertThat(r.stdout()).isEqualTo("spawned\n");
        assertThat(took).as("a child holding stdout open must not delay the result")
                .isLessThan(Duration.ofSeconds(1).plus(TIMEOUT_SLACK));
        Thread.sleep(Math.max(0, 3_500 - Duration.ofNanos(System.nanoTime() - start).toMillis()));
        FileSystem fs = sandbox.files();
        for (String marker : new String[] {"m_setsid", "m_nohup", "m_fork", "m_holds_stdout"}) {
            assertThat(fs.exists(marker)).as("%s: the child outlived the timeout", marker).isFalse();
        }
    }

    // ---- output cap ----------------------------------------------------------------------------------------------

    @Test
    @Requires(Feature.SHELL)
    default void run_outputOverLimit_keepsHeadAndTailWithMarker(Sandbox sandbox) {
        int total = 1_000_000;
        ExecResult r = sandbox.shell().run(ExecRequest.shell(
                "printf HEAD; head -c " + (total - 8) + " /dev/zero | tr '\\0' x; printf TAIL; echo small >&2")
                .withOutputLimit(100));
        long omitted = total - 200;
        String expected = "HEAD" + "x".repeat(96) + new Truncation(total, omitted).marker() + "x".repeat(96) + "TAIL";
        assertThat(r.stdout()).isEqualTo(expected);
        assertThat(r.stdoutTruncation()).isEqualTo(new Truncation(total, omitted));
        assertThat(r.stdoutTruncation().truncated()).isTrue();
        assertThat(r.truncated()).isTrue();
        assertThat(r.stderr()).isEqualTo("small\n");
        assertThat(r.stderrTruncation()).isEqualTo(Truncation.none(6));
    }

    @Test
    @Requires(Feature.SHELL)
    default void run_specOutputLimit_appliesWhenRequestSetsNone() {
        SandboxSpec spec = SandboxSpec.builder().commandTimeout(Duration.ofSeconds(30)).outputLimit(10).build();
        try (Sandbox sandbox = fixture().open(spec)) {
            ExecResult r = sandbox.shell().run("seq 1 1000");
            assertThat(r.stdoutTruncation().truncated()).isTrue();
            assertThat(r.stdout()).startsWith("1\n2\n3\n4\n5").endsWith("999\n1000\n");
            assertThat(r.stdout().length()).isLessThan(100);
        }
    }

    /**
     * Lengths on each side of the cap's edges (a backend may cut the middle before the host sees it) in UTF-8 of 1- to
     * 4-byte characters, possibly ending inside one: the result keeps the first and last {@code limit} characters of
     * the whole text, moved to a line boundary when one is near ({@link Checks#outputCap}), and counts the rest, to
     * the character.
     */
    @Test
    @Requires(Feature.SHELL)
    default void run_outputAroundTheCapsEdges_keepsExactCharacters(Sandbox sandbox) {
        int limit = 20;
        java.util.Random random = new java.util.Random(20);
        String[] pieces = {"a", "b\n", "é", "€", "😀"};
        for (int length : new int[] {0, 39, 40, 41, 79, 80, 81, 82, 83, 159, 160, 161, 162, 239, 240, 241, 242, 243,
            5_000, 300_001}) {
            java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
            while (b.size() < length) {
                b.writeBytes(pieces[random.nextInt(pieces.length)].getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            byte[] bytes = java.util.Arrays.copyOf(b.toByteArray(), length);
            String all = new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
            java.util.Map.Entry<String, Long> cap = Checks.outputCap(all, length, limit);
            String expected = cap.getKey();
            Truncation truncation = new Truncation(length, cap.getValue());
            sandbox.files().write("cap.bin", bytes);
            ExecResult r = sandbox.shell().run(ExecRequest.shell("cat cap.bin; cat cap.bin >&2")
                    .withOutputLimit(limit));
            assertThat(r.exitCode()).isZero();
            assertThat(r.stdout()).as("stdout of %d bytes", length).isEqualTo(expected);
            assertThat(r.stdoutTruncation()).as("stdout of %d bytes", length).isEqualTo(truncation);
            assertThat(r.stderr()).as("stderr of %d bytes", length).isEqualTo(expected);
            assertThat(r.stderrTruncation()).as("stderr of %d bytes", length).isEqualTo(truncation);
        }
    }

    @Test
    @Requires(Feature.SHELL)
    default void run_200MbFlood_keepsResultAtDefaultCap(Sandbox sandbox) {
        long total = 200_000_000L;
        ExecResult r = sandbox.shell().run(ExecRequest.shell("yes | head -c " + total)
                .withTimeout(Duration.ofSeconds(25)));
        assertThat(r.status()).isEqualTo(ExecStatus.COMPLETED);
        assertThat(r.stdoutTruncation().totalBytes()).isEqualTo(total);
        assertThat(r.stdout().length()).as("head + tail + marker")
                .isLessThanOrEqualTo(2 * SandboxSpec.DEFAULT_OUTPUT_LIMIT + 100);
        assertThat(r.stdout()).startsWith("y\ny\n").endsWith("y\ny\n");
    }

    // ---- shared process space ---------------------------------------------------------------------------------

    @Test
    @Requires({Feature.SHELL, Feature.SHARED_PROCESS_SPACE})
    default void run_tmpFile_survivesBetweenCommands(Sandbox sandbox) {
        assertThat(sandbox.shell().run("echo kept > /tmp/sandbox4j-kit").exitCode()).isZero();
        assertThat(sandbox.shell().run("cat /tmp/sandbox4j-kit").stdout()).isEqualTo("kept\n");
    }

    @Test
    @Requires({Feature.SHELL, Feature.SHARED_PROCESS_SPACE, Feature.BACKGROUND_PROCESSES})
    default void start_server_answersLaterCommandsOnLocalhost(Sandbox sandbox) throws InterruptedException {
        assumeTrue(sandbox.shell().run("command -v python3").exitCode() == 0, "python3 is not in the sandbox");
        String server = "import socket\n"
                + "s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
                + "s.bind(('127.0.0.1', 0)); s.listen(5)\n"
                + "open('port.tmp', 'w').write(str(s.getsockname()[1])); __import__('os').rename('port.tmp', 'port')\n"
                + "while True:\n"
                + "    c, _ = s.accept(); c.sendall(b'pong\\n'); c.close()\n";
        sandbox.files().write("server.py", server);
        try (ExecHandle handle = sandbox.shell().start(ExecRequest.argv("python3", "server.py"))) {
            assertThat(Checks.await(() -> sandbox.files().exists("port"), Duration.ofSeconds(10)))
                    .as("the server started").isTrue();
            String port = sandbox.files().readText("port");
            ExecResult r = sandbox.shell().run("python3 -c \"import socket; c = socket.create_connection(("
                    + "'127.0.0.1', " + port + ")); print(c.recv(10).decode(), end='')\"");
            assertThat(r.stdout()).as(r.stderr()).isEqualTo("pong\n");
            assertThat(handle.isAlive()).isTrue();
        }
    }

    @Test
    @Requires({Feature.SHELL, Feature.SHARED_PROCESS_SPACE})
    default void run_localhost_resolvesToLoopback(Sandbox sandbox) {
        if (sandbox.shell().run("command -v python3").exitCode() == 0) {
            ExecResult py = sandbox.shell().run("python3 -c \"import socket; print(socket.gethostbyname('localhost'))\"");
            assertThat(py.stdout()).as(py.stderr()).isEqualTo("127.0.0.1\n");
        }
        if (sandbox.shell().run("command -v node").exitCode() == 0) {
            ExecResult js = sandbox.shell().run("node -e \"require('dns').lookup('localhost', 4, (e, a) => "
                    + "console.log(e ? e.code : a))\"");
            assertThat(js.stdout()).as(js.stderr()).isEqualTo("127.0.0.1\n");
        }
    }

    // ---- interrupts --------------------------------------------------------------------------------------------

    /** Commands in the kit use short timeouts, so TIMEOUT as an ErrorKind (for non-command waits) is not forced. */
    @Test
    @Requires(Feature.SHELL)
    default void run_callerInterrupted_failsInterruptedAndSandboxStaysUsable(Sandbox sandbox)
            throws InterruptedException {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<ExecResult> returned = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                returned.set(sandbox.shell().run(ExecRequest.shell("echo go; sleep 30")));
            } catch (Throwable t) {
                thrown.set(t);
            }
        }, "kit-interrupt");
        waiter.start();
        Thread.sleep(500);
        waiter.interrupt();
        waiter.join(5_000);
        assertThat(waiter.isAlive()).as("the interrupted caller came back within 5 s").isFalse();
        assertThat(returned.get()).as("an interrupt is an exception, not a result").isNull();
        assertThat(thrown.get()).isInstanceOf(SandboxException.class);
        assertThat(((SandboxException) thrown.get()).kind()).isEqualTo(ErrorKind.INTERRUPTED);
        assertThat(sandbox.shell().run("echo after").stdout()).isEqualTo("after\n");
    }
}
