package dev.sandbox4j;

import java.time.Duration;
import java.util.Objects;

/**
 * The outcome of a command: data, never an exception, whether it exited 0, exited non-zero, timed out or was killed.
 *
 * <p>stdout and stderr are kept apart and capped head+tail: when a stream is longer than the cap, the first and
 * last {@code outputLimit} characters are kept with a marker in between that says how much was cut
 * ({@link Truncation}). The cap bounds memory too: a command that prints gigabytes costs the cap.
 *
 * @param status   how the command ended
 * @param exitCode the exit code; for a process killed by a signal, 128 + the signal number; -1 if unknown
 * @param stdout   standard output as UTF-8 text (malformed bytes replaced), capped head+tail
 * @param stderr   standard error, likewise
 * @param duration wall-clock time from start to end
 * @param stdoutTruncation what the cap did to stdout
 * @param stderrTruncation what the cap did to stderr
 * @param detail   why the command was killed or timed out, for people and models ("memory limit of 256 MiB
 *                 exceeded"); empty when it completed
 */
public record ExecResult(
        ExecStatus status,
        int exitCode,
        String stdout,
        String stderr,
        Duration duration,
        Truncation stdoutTruncation,
        Truncation stderrTruncation,
        String detail) {

    public ExecResult {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(stdout, "stdout");
        Objects.requireNonNull(stderr, "stderr");
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(stdoutTruncation, "stdoutTruncation");
        Objects.requireNonNull(stderrTruncation, "stderrTruncation");
        Objects.requireNonNull(detail, "detail");
    }

    /** A completed command whose output was not cut; handy for scripted results in tests. */
    public static ExecResult of(int exitCode, String stdout, String stderr) {
        return new ExecResult(ExecStatus.COMPLETED, exitCode, stdout, stderr, Duration.ZERO,
                Truncation.none(stdout.length()), Truncation.none(stderr.length()), "");
    }

    /** Whether the command completed with exit code 0. */
    public boolean isSuccess() {
        return status == ExecStatus.COMPLETED && exitCode == 0;
    }

    public boolean timedOut() {
        return status == ExecStatus.TIMEOUT;
    }

    /** Whether either stream was cut by the output cap. */
    public boolean truncated() {
        return stdoutTruncation.truncated() || stderrTruncation.truncated();
    }

    /** The same result with another duration (scripted results get the time they really took). */
    public ExecResult withDuration(Duration duration) {
        return new ExecResult(status, exitCode, stdout, stderr, duration, stdoutTruncation, stderrTruncation, detail);
    }
}
