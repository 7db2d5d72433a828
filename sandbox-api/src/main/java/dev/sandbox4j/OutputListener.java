package dev.sandbox4j;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * Receives a background command's output as it arrives, decoded as UTF-8, in order per stream.
 *
 * <pre>{@code
 * StringBuffer out = new StringBuffer(), err = new StringBuffer();
 * ExecHandle h = sandbox.shell().start(ExecRequest.shell("make"), OutputListener.of(out::append, err::append));
 * }</pre>
 *
 * <p>Called from a backend thread; keep it quick. The listener sees every byte even when the result keeps only
 * the head and tail. An exception it throws is ignored and does not stop the command. Every method does nothing
 * unless overridden, so a listener overrides only the stream it wants.
 *
 * <p>Text or bytes: {@link #onStdout(String)} gets the stream decoded as UTF-8 (a character split across chunks is
 * passed on whole, malformed bytes as U+FFFD); {@link #onStdoutBytes(byte[])} gets the same chunks as the command
 * wrote them, for binary or non-UTF-8 output. A listener may take both; for one chunk the bytes come first.
 *
 * <pre>{@code
 * ByteArrayOutputStream out = new ByteArrayOutputStream();
 * ExecHandle h = sandbox.shell().start(ExecRequest.shell("tar c src"),
 *         OutputListener.ofBytes(out::writeBytes, chunk -> { }));
 * }</pre>
 */
public interface OutputListener {
    /** Ignores everything. */
    OutputListener NONE = new OutputListener() {
    };

    /** A chunk of the command's standard output. */
    default void onStdout(String text) {
    }

    /** A chunk of the command's standard error. */
    default void onStderr(String text) {
    }

    /**
     * A chunk of the command's standard output, its bytes as the command wrote them: concatenated, the chunks are
     * the whole stream. The array is the listener's own (a fresh copy each call).
     */
    default void onStdoutBytes(byte[] chunk) {
    }

    /** A chunk of the command's standard error, as bytes; see {@link #onStdoutBytes(byte[])}. */
    default void onStderrBytes(byte[] chunk) {
    }

    /** A listener passing standard output to {@code stdout} and standard error to {@code stderr}. */
    static OutputListener of(Consumer<String> stdout, Consumer<String> stderr) {
        Objects.requireNonNull(stdout, "stdout");
        Objects.requireNonNull(stderr, "stderr");
        return new OutputListener() {
            @Override
            public void onStdout(String text) {
                stdout.accept(text);
            }

            @Override
            public void onStderr(String text) {
                stderr.accept(text);
            }
        };
    }

    /** A listener passing standard output's raw chunks to {@code stdout} and standard error's to {@code stderr}. */
    static OutputListener ofBytes(Consumer<byte[]> stdout, Consumer<byte[]> stderr) {
        Objects.requireNonNull(stdout, "stdout");
        Objects.requireNonNull(stderr, "stderr");
        return new OutputListener() {
            @Override
            public void onStdoutBytes(byte[] chunk) {
                stdout.accept(chunk);
            }

            @Override
            public void onStderrBytes(byte[] chunk) {
                stderr.accept(chunk);
            }
        };
    }
}
