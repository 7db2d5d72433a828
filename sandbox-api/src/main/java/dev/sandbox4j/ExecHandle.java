package dev.sandbox4j;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * A command started in the background by {@link Shell#start}: write to its stdin, wait for it, or kill it.
 *
 * <p>Output reaches the {@link OutputListener} given at start as it arrives; the final {@link ExecResult} keeps the
 * head and tail of each stream. Closing the handle kills the command if it still runs; closing the sandbox kills
 * every handle's command.
 */
public interface ExecHandle extends AutoCloseable {
    /** What was started, for people. */
    String command();

    /** Writes to the command's stdin. Fails with {@link ErrorKind#CLOSED} once stdin is closed or the command ended. */
    void writeStdin(byte[] bytes);

    default void writeStdin(String text) {
        writeStdin(text.getBytes(StandardCharsets.UTF_8));
    }

    /** Closes stdin, so the command sees end of input. Idempotent. */
    void closeStdin();

    /** Waits up to {@code timeout} for the command to end; empty if it still runs then. */
    Optional<ExecResult> await(Duration timeout);

    /** Whether the command still runs. */
    boolean isAlive();

    /** Kills the command's whole process tree and returns its result (status {@link ExecStatus#KILLED}). */
    ExecResult kill();

    /**
     * Resizes the command's terminal ({@link ExecRequest#withTerminal}); its programs get {@code SIGWINCH}. A command
     * without a terminal: {@link ErrorKind#UNSUPPORTED}; one that ended: ignored.
     */
    default void resize(int cols, int rows) {
        throw new SandboxException(ErrorKind.UNSUPPORTED, command() + " does not run under a terminal");
    }

    /** Kills the command if it still runs. */
    @Override
    void close();
}
