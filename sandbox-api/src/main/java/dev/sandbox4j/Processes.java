package dev.sandbox4j;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * Background commands found again by id ({@link Shell#processes()}, {@link Feature#PROCESS_REGISTRY}): a later call,
 * another thread or another tool call reattaches to a command's output from a cursor, writes to its stdin or kills
 * it, knowing only its id.
 *
 * <p>Bounded per sandbox: at most {@link #MAX_RUNNING} run at once (a further start fails with
 * {@link ErrorKind#TOO_LARGE}); each keeps the last {@link #OUTPUT_BYTES} bytes of its output (stdout and stderr
 * interleaved as they arrived); a finished command's output and exit stay readable for {@link #RETAINED} minutes or
 * until {@link #MAX_FINISHED} newer ones have finished, then its id is {@link ErrorKind#NOT_FOUND}. Closing the
 * sandbox kills them all.
 */
public interface Processes {
    /** Commands running at once, at most (Codex's unified exec allows the same). */
    int MAX_RUNNING = 64;
    /** Finished commands whose results are kept, at most. */
    int MAX_FINISHED = 64;
    /** Minutes a finished command's result is kept. */
    int RETAINED = 15;
    /** Bytes of output each command keeps: the latest ones. */
    int OUTPUT_BYTES = 1024 * 1024;

    /**
     * Starts a command in the background (as {@link Shell#start}, with its timeout if the request sets one) and gives
     * it an id: a decimal number, unique in the sandbox.
     */
    ProcessInfo start(ExecRequest request);

    /** The running commands and the finished ones still kept, oldest first. */
    List<ProcessInfo> list();

    /** One command; {@link ErrorKind#NOT_FOUND} for an id never given or no longer kept. */
    ProcessInfo info(String id);

    /**
     * The output after {@code cursor} (0 for the start), waiting first until the command ends or {@code wait} has
     * passed, whichever comes first ({@link Duration#ZERO} to read what is there). Output before the kept window is
     * counted in {@link ProcessOutput#skipped()}; a running command's text ends on a whole character, so
     * {@link ProcessOutput#next()} may stop short of a character still arriving.
     */
    ProcessOutput read(String id, long cursor, Duration wait);

    /** Writes to the command's stdin; {@link ErrorKind#CLOSED} once it ended or its stdin was closed. */
    void writeStdin(String id, byte[] bytes);

    default void writeStdin(String id, String text) {
        writeStdin(id, text.getBytes(StandardCharsets.UTF_8));
    }

    /** Closes the command's stdin, so it sees end of input. */
    void closeStdin(String id);

    /**
     * Resizes a terminal command's terminal ({@link ExecHandle#resize}); {@link ErrorKind#UNSUPPORTED} for a command
     * without one.
     */
    default void resize(String id, int cols, int rows) {
        throw new SandboxException(ErrorKind.UNSUPPORTED, "this sandbox has no terminals");
    }

    /** Kills the command's whole process tree (if it still runs) and returns it, finished. */
    ProcessInfo kill(String id);
}
