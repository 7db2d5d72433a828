package dev.sandbox4j;

import java.time.Duration;
import java.util.Objects;

/**
 * The outcome of a code snippet: the status agents branch on, and the command result underneath.
 *
 * @param status   completed, timeout, runtime error or setup error
 * @param language the language that ran
 * @param exec     exit code, capped output and duration of the interpreter process
 */
public record CodeResult(CodeStatus status, Language language, ExecResult exec) {
    public CodeResult {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(language, "language");
        Objects.requireNonNull(exec, "exec");
    }

    /** Maps a finished interpreter process to a code status: exit 0 completed, timeout, anything else a runtime error. */
    public static CodeResult of(Language language, ExecResult exec) {
        CodeStatus status = switch (exec.status()) {
            case TIMEOUT -> CodeStatus.TIMEOUT;
            case KILLED -> CodeStatus.ERROR_RUNTIME;
            case COMPLETED -> exec.exitCode() == 0 ? CodeStatus.COMPLETED : CodeStatus.ERROR_RUNTIME;
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
        return status == CodeStatus.COMPLETED;
    }
}
