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
 * the head and tail. An exception it throws is ignored and does not stop the command. Both methods do nothing
 * unless overridden, so a listener overrides only the stream it wants.
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
}
