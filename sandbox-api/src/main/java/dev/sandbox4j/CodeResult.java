package dev.sandbox4j;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * The outcome of a code snippet: the status agents branch on, and the command result underneath.
 *
 * @param status   completed, timeout, runtime error or setup error
 * @param language the language that ran
 * @param exec     exit code, capped output and duration of the interpreter process (of the run, in a
 *                 {@link CodeContext}); the output's bytes are there too ({@code exec().rawStdout()}), the
 *                 accessors here give text
 * @param text     the value of the code's last expression as text, as a REPL prints it (a {@link CodeContext}'s
 *                 runs), capped head+tail like the output; empty when there was none
 * @param png      a PNG of the matplotlib figure the run left open (a Python {@link CodeContext}'s runs, when
 *                 matplotlib is importable there), or null
 */
public record CodeResult(Status status, Language language, ExecResult exec, String text, byte[] png) {
    public CodeResult {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(language, "language");
        Objects.requireNonNull(exec, "exec");
        Objects.requireNonNull(text, "text");
        png = png == null ? null : png.clone();
    }

    /** A result without a value or figure (a one-off {@link CodeRunner#run}). */
    public CodeResult(Status status, Language language, ExecResult exec) {
        this(status, language, exec, "", null);
    }

    /** The PNG bytes (a copy), or null. */
    @Override
    public byte[] png() {
        return png == null ? null : png.clone();
    }

    /** Whether the run returned a figure. */
    public boolean hasPng() {
        return png != null;
    }

    /** A run whose interpreter could not be started ({@link Status#ERROR_SETUP}); {@code exec} says why. */
    public static CodeResult setupError(Language language, ExecResult exec) {
        return new CodeResult(Status.ERROR_SETUP, language, exec);
    }

    /** Maps a finished interpreter process to a code status: exit 0 completed, timeout, anything else a runtime error. */
    public static CodeResult of(Language language, ExecResult exec) {
        Status status = switch (exec.status()) {
            case TIMEOUT -> Status.TIMEOUT;
            case KILLED -> Status.ERROR_RUNTIME;
            case COMPLETED -> exec.exitCode() == 0 ? Status.COMPLETED : Status.ERROR_RUNTIME;
        };
        return new CodeResult(status, language, exec);
    }

    public String stdout() {
        return exec.stdout();
    }

    public String stderr() {
        return exec.stderr();
    }

    public int exitCode() {
        return exec.exitCode();
    }

    public Duration duration() {
        return exec.duration();
    }

    public boolean isSuccess() {
        return status == Status.COMPLETED;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CodeResult r && status == r.status && language == r.language && exec.equals(r.exec)
                && text.equals(r.text) && java.util.Arrays.equals(png, r.png);
    }

    @Override
    public int hashCode() {
        return Objects.hash(status, language, exec, text, java.util.Arrays.hashCode(png));
    }

    @Override
    public String toString() {
        return "CodeResult[status=" + status + ", language=" + language + ", exec=" + exec + ", text=" + text
                + ", png=" + (png == null ? "none" : png.length + " bytes") + "]";
    }

    /** How a code snippet ended, in the terms agent tool surfaces use. */
    public enum Status {
        /** The program ran and exited 0. */
        COMPLETED,
        /** The program ran past its timeout and was killed. */
        TIMEOUT,
        /** The program ran and failed: a non-zero exit, an uncaught exception, a syntax error, a kill by a limit. */
        ERROR_RUNTIME,
        /** The program could not be started: the interpreter is missing or broken. */
        ERROR_SETUP;

        /** The stable lower-case wire code, such as {@code error_runtime}. */
        public String code() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
