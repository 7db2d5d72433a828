package dev.sandbox4j;

import java.time.Instant;
import java.util.Objects;

/**
 * A command of {@link Processes}.
 *
 * @param id       its id, a decimal number
 * @param command  what was started, for people
 * @param started  when it started
 * @param running  whether it still runs
 * @param status   how it ended; null while it runs
 * @param exitCode its exit code as {@link ExecResult#exitCode()} gives it; null while it runs
 */
public record ProcessInfo(String id, String command, Instant started, boolean running, ExecStatus status,
                          Integer exitCode) {
    public ProcessInfo {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(started, "started");
    }
}
