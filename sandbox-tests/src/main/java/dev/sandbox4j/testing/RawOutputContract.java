package dev.sandbox4j.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sandbox4j.CodeRequest;
import dev.sandbox4j.CodeResult;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.Feature;
import dev.sandbox4j.Language;
import dev.sandbox4j.OutputListener;
import dev.sandbox4j.RawOutput;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The raw bytes of a command's output (issue 36): {@link ExecResult#rawStdout()} and {@link ExecResult#rawStderr()}
 * hold what the command wrote, capped head+tail in bytes (the first and last {@code outputLimit} bytes and the
 * count between), while the text is their UTF-8 decoding; a listener's byte chunks are the whole stream. The
 * output comes from {@code cat} of a file written through the file API, which every backend's shell runs (the
 * in-memory one as a builtin).
 */
public interface RawOutputContract extends ConformanceSupport {
    /** Bytes that are not UTF-8: two invalid bytes, a NUL, then text. */
    byte[] NOT_UTF8 = {(byte) 0xFF, (byte) 0xFE, 0, 'o', 'k', '\n'};

    /** The first and last {@code limit} bytes of {@code all} and the count between; {@code all} when it fits. */
    static RawOutput capped(byte[] all, int limit) {
        if (all.length <= 2L * limit) {
            return RawOutput.of(all);
        }
        return RawOutput.of(Arrays.copyOf(all, limit), all.length - 2L * limit,
                Arrays.copyOfRange(all, all.length - limit, all.length));
    }

    /** {@code n} bytes of every value, none of them valid UTF-8 for long. */
    static byte[] binary(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    default void run_nonUtf8Output_bytesExact_textReplaced(Sandbox sandbox) {
        sandbox.files().write("odd.bin", NOT_UTF8);
        ExecResult r = sandbox.shell().run("cat odd.bin");
        assertThat(r.exitCode()).isZero();
        assertThat(r.rawStdout().bytes()).as("the bytes as written").isEqualTo(NOT_UTF8);
        assertThat(r.rawStdout().truncated()).isFalse();
        assertThat(r.rawStdout().totalBytes()).isEqualTo(6);
        assertThat(r.stdout()).as("the text: malformed bytes as U+FFFD").isEqualTo("\uFFFD\uFFFD\0ok\n");
        assertThat(r.stdoutTruncation().totalBytes()).isEqualTo(6);
        assertThat(r.rawStderr()).isEqualTo(RawOutput.empty());
    }

    /** The issue's own command, on both streams. */
    @Test
    @Requires(Feature.SHELL)
    default void run_printfNonUtf8_onBothStreams_bytesExact(Sandbox sandbox) {
        ExecResult r = sandbox.shell().run("printf '\\377\\376\\000ok\\n'; printf '\\377\\376\\000ok\\n' >&2");
        assertThat(r.rawStdout()).isEqualTo(RawOutput.of(NOT_UTF8));
        assertThat(r.rawStderr()).isEqualTo(RawOutput.of(NOT_UTF8));
        assertThat(r.stdout()).isEqualTo("\uFFFD\uFFFD\0ok\n");
        assertThat(r.stderr()).isEqualTo("\uFFFD\uFFFD\0ok\n");
    }

    /**
     * Lengths on each side of the cap's edges: at most {@code 2 × limit} bytes come back whole, more as exactly the
     * first and last {@code limit} bytes with the right count between (a backend may cut the middle before the host
     * sees it: these lengths cross that edge too).
     */
    @Test
    default void run_outputAroundTheByteCapsEdges_keepsFirstAndLastLimitBytes(Sandbox sandbox) {
        int limit = 100;
        for (int n : new int[] {0, 1, 199, 200, 201, 399, 400, 401, 799, 800, 801, 802, 1199, 1200, 1201, 100_000}) {
            byte[] all = binary(n, n);
            sandbox.files().write("flood.bin", all);
            ExecResult r = sandbox.shell().run(ExecRequest.shell("cat flood.bin").withOutputLimit(limit));
            assertThat(r.exitCode()).isZero();
            assertThat(r.rawStdout()).as("%d bytes", n).isEqualTo(capped(all, limit));
            assertThat(r.rawStdout().totalBytes()).as("%d bytes", n).isEqualTo(n);
            assertThat(r.stdoutTruncation().totalBytes()).as("%d bytes", n).isEqualTo(n);
        }
    }

    @Test
    default void run_floodOverTheDefaultCap_keepsFirstAndLastLimitBytes() {
        byte[] all = binary(3_000_000, 36);
        try (Sandbox sandbox = fixture().open(SandboxSpec.builder().commandTimeout(Duration.ofSeconds(30)).build())) {
            sandbox.files().write("flood.bin", all);
            ExecResult r = sandbox.shell().run("cat flood.bin");
            RawOutput raw = r.rawStdout();
            assertThat(raw.truncated()).isTrue();
            assertThat(raw.head()).isEqualTo(Arrays.copyOf(all, SandboxSpec.DEFAULT_OUTPUT_LIMIT));
            assertThat(raw.tail()).isEqualTo(Arrays.copyOfRange(all, all.length - SandboxSpec.DEFAULT_OUTPUT_LIMIT,
                    all.length));
            assertThat(raw.omittedBytes()).isEqualTo(all.length - 2L * SandboxSpec.DEFAULT_OUTPUT_LIMIT);
            assertThat(raw.totalBytes()).isEqualTo(all.length);
        }
    }

    @Test
    @Requires(Feature.SHELL)
    default void run_binaryOnStderr_keepsFirstAndLastLimitBytes(Sandbox sandbox) {
        int limit = 64;
        byte[] all = binary(50_001, 2);
        sandbox.files().write("flood.bin", all);
        ExecResult r = sandbox.shell().run(ExecRequest.shell("cat flood.bin >&2; head -c 10 flood.bin")
                .withOutputLimit(limit));
        assertThat(r.rawStderr()).isEqualTo(capped(all, limit));
        assertThat(r.rawStdout()).isEqualTo(RawOutput.of(Arrays.copyOf(all, 10)));
    }

    /** The listener's chunks are every byte, in order, while the result keeps only the ends. */
    @Test
    @Requires({Feature.SHELL, Feature.BACKGROUND_PROCESSES})
    default void start_listenerBytes_concatenateToTheWholeStream(Sandbox sandbox) {
        byte[] all = binary(300_000, 3);
        sandbox.files().write("flood.bin", all);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        StringBuffer text = new StringBuffer();
        OutputListener listener = new OutputListener() {
            @Override
            public void onStdoutBytes(byte[] chunk) {
                synchronized (out) {
                    out.writeBytes(chunk);
                }
            }

            @Override
            public void onStderrBytes(byte[] chunk) {
                synchronized (err) {
                    err.writeBytes(chunk);
                }
            }

            @Override
            public void onStderr(String chunk) {
                text.append(chunk);
            }
        };
        try (ExecHandle h = sandbox.shell().start(ExecRequest.shell("cat flood.bin; printf '\\377\\376\\000ok\\n' >&2")
                .withOutputLimit(100), listener)) {
            Optional<ExecResult> r = h.await(Duration.ofSeconds(20));
            assertThat(r).isPresent();
            assertThat(r.get().status()).isEqualTo(ExecStatus.COMPLETED);
            synchronized (out) {
                assertThat(out.toByteArray()).as("stdout's chunks, concatenated").isEqualTo(all);
            }
            synchronized (err) {
                assertThat(err.toByteArray()).as("stderr's chunks, concatenated").isEqualTo(NOT_UTF8);
            }
            assertThat(text.toString()).as("the text callbacks still get text").isEqualTo("\uFFFD\uFFFD\0ok\n");
            assertThat(r.get().rawStdout()).isEqualTo(capped(all, 100));
            assertThat(r.get().rawStderr()).isEqualTo(RawOutput.of(NOT_UTF8));
        }
    }

    /** A code run's output bytes are in its {@link CodeResult#exec()}, as a command's. */
    @Test
    @Requires(Feature.CODE_EXECUTION)
    default void code_binaryOutput_bytesInExec(Sandbox sandbox) {
        assumeTrue(sandbox.code().languages().contains(Language.PYTHON), "no python3 in this sandbox");
        CodeResult r = sandbox.code().run(CodeRequest.of(Language.PYTHON,
                "import sys\nsys.stdout.buffer.write(b'\\xff\\xfe\\x00ok\\n')\n"));
        assertThat(r.status()).as(r.stderr()).isEqualTo(CodeResult.Status.COMPLETED);
        assertThat(r.exec().rawStdout()).isEqualTo(RawOutput.of(NOT_UTF8));
        assertThat(r.stdout()).isEqualTo("\uFFFD\uFFFD\0ok\n");
    }
}
