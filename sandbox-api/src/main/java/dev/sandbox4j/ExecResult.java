package dev.sandbox4j;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;

/**
 * The outcome of a command: data, never an exception, whether it exited 0, exited non-zero, timed out or was killed.
 *
 * <p>stdout and stderr are kept apart and capped head+tail: when a stream is longer than the cap, the first and
 * last {@code outputLimit} characters are kept with a marker in between that says how much was cut
 * ({@link Truncation}). Each cut moves to a line boundary when one is near: the head ends after the last line break
 * within its last {@code min(200, outputLimit / 10)} characters, the tail starts after the first line break within
 * its first as many, and the marker's count includes what that drops. The cap bounds memory too: a command that
 * prints gigabytes costs the cap.
 *
 * <p>The text is for people and models; the bytes under it are kept too, for binary output and exact comparisons:
 * {@link #rawStdout()} and {@link #rawStderr()} hold what the command wrote, capped head+tail in bytes by the same
 * limit (the first and last {@code outputLimit} bytes). A result built from text alone ({@link #of}, the
 * eight-argument constructor) carries the UTF-8 encoding of its text as its bytes.
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
 * @param rawStdout the bytes of standard output as the command wrote them, capped head+tail in bytes
 * @param rawStderr the bytes of standard error, likewise
 */
public record ExecResult(
        ExecStatus status,
        int exitCode,
        String stdout,
        String stderr,
        Duration duration,
        Truncation stdoutTruncation,
        Truncation stderrTruncation,
        String detail,
        RawOutput rawStdout,
        RawOutput rawStderr) {

    public ExecResult {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(stdout, "stdout");
        Objects.requireNonNull(stderr, "stderr");
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(stdoutTruncation, "stdoutTruncation");
        Objects.requireNonNull(stderrTruncation, "stderrTruncation");
        Objects.requireNonNull(detail, "detail");
        Objects.requireNonNull(rawStdout, "rawStdout");
        Objects.requireNonNull(rawStderr, "rawStderr");
    }

    /**
     * A result whose bytes are the UTF-8 encoding of its text (the constructor of the eight components there were
     * before the raw bytes; {@link #withRawOutput} sets the bytes).
     */
    public ExecResult(ExecStatus status, int exitCode, String stdout, String stderr, Duration duration,
                      Truncation stdoutTruncation, Truncation stderrTruncation, String detail) {
        this(status, exitCode, stdout, stderr, duration, stdoutTruncation, stderrTruncation, detail, utf8(stdout),
                utf8(stderr));
    }

    /**
     * A completed command whose output was not cut, zero duration, no detail; handy for scripted results in tests.
     * Build other results from {@link #of(ExecStatus, int, String, String)} and the {@code with...} methods rather
     * than the constructors:
     *
     * <pre>{@code
     * ExecResult.of(ExecStatus.TIMEOUT, -1, out.text(), err.text())
     *         .withDuration(elapsed).withTruncation(out.truncation(), err.truncation())
     *         .withRawOutput(out.raw(), err.raw()).withDetail("timed out after 5 s");
     * }</pre>
     */
    public static ExecResult of(int exitCode, String stdout, String stderr) {
        return of(ExecStatus.COMPLETED, exitCode, stdout, stderr);
    }

    /**
     * A command that ended with this status; output not cut (its bytes the UTF-8 of the text), zero duration, no
     * detail (see the withers).
     */
    public static ExecResult of(ExecStatus status, int exitCode, String stdout, String stderr) {
        RawOutput out = utf8(stdout);
        RawOutput err = utf8(stderr);
        return new ExecResult(status, exitCode, stdout, stderr, Duration.ZERO, Truncation.none(out.totalBytes()),
                Truncation.none(err.totalBytes()), "", out, err);
    }

    private static RawOutput utf8(String text) {
        return RawOutput.of(Objects.requireNonNull(text, "text").getBytes(StandardCharsets.UTF_8));
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
        return new ExecResult(status, exitCode, stdout, stderr, duration, stdoutTruncation, stderrTruncation, detail,
                rawStdout, rawStderr);
    }

    /** The same result with what the output cap did to each stream (stdout first, as everywhere in this API). */
    public ExecResult withTruncation(Truncation stdoutTruncation, Truncation stderrTruncation) {
        return new ExecResult(status, exitCode, stdout, stderr, duration, stdoutTruncation, stderrTruncation, detail,
                rawStdout, rawStderr);
    }

    /** The same result with another {@link #detail()}. */
    public ExecResult withDetail(String detail) {
        return new ExecResult(status, exitCode, stdout, stderr, duration, stdoutTruncation, stderrTruncation, detail,
                rawStdout, rawStderr);
    }

    /**
     * The same result with the bytes each stream really carried (stdout first); the text is left as it is, so give
     * bytes whose UTF-8 decoding it is, as a backend does.
     */
    public ExecResult withRawOutput(RawOutput rawStdout, RawOutput rawStderr) {
        return new ExecResult(status, exitCode, stdout, stderr, duration, stdoutTruncation, stderrTruncation, detail,
                rawStdout, rawStderr);
    }
}
