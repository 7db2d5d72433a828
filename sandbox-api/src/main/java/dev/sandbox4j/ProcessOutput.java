package dev.sandbox4j;

import java.util.Objects;

/**
 * Output of a {@link Processes} command read from a cursor.
 *
 * @param id       the command's id
 * @param text     the output from {@code cursor} (or the start of the kept window) to {@code next}, stdout and stderr
 *                 interleaved as they arrived, decoded as UTF-8
 * @param cursor   the cursor asked for
 * @param next     the cursor to read from next time
 * @param skipped  bytes after {@code cursor} no longer kept (the command wrote more than
 *                 {@link Processes#OUTPUT_BYTES} since)
 * @param running  whether the command still runs
 * @param status   how it ended; null while it runs
 * @param exitCode its exit code as {@link ExecResult#exitCode()} gives it; null while it runs
 */
public record ProcessOutput(String id, String text, long cursor, long next, long skipped, boolean running,
                            ExecStatus status, Integer exitCode) {
    public ProcessOutput {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(text, "text");
    }
}
