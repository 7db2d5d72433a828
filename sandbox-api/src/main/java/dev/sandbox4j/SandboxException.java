package dev.sandbox4j;

import java.util.Objects;

/**
 * The one exception sandbox4j throws for setup failures, bad input and misuse of a sandbox.
 *
 * <p>A command that exits non-zero or times out is not an exception: it is an {@link ExecResult}. Every backend
 * translates its native errors into a {@link ErrorKind} in exactly one place, so callers (and models reading tool
 * results) can branch on {@link #kind()} the same way on every backend. The message names the path or the limit
 * involved and is safe to show to a model: it never carries host paths outside the workspace.
 */
public class SandboxException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorKind kind;
    private final boolean retryable;

    public SandboxException(ErrorKind kind, String message) {
        this(kind, message, null);
    }

    public SandboxException(ErrorKind kind, String message, Throwable cause) {
        this(kind, message, cause, Objects.requireNonNull(kind, "kind").retryable());
    }

    public SandboxException(ErrorKind kind, String message, Throwable cause, boolean retryable) {
        super(Objects.requireNonNull(message, "message"), cause);
        this.kind = Objects.requireNonNull(kind, "kind");
        this.retryable = retryable;
    }

    public ErrorKind kind() {
        return kind;
    }

    /** The stable wire code of {@link #kind()}, such as {@code not_found}. */
    public String code() {
        return kind.code();
    }

    /** Whether the same call may succeed later unchanged; defaults to the kind's, a backend may know better. */
    public boolean retryable() {
        return retryable;
    }

    @Override
    public String toString() {
        return "SandboxException[" + kind.code() + "]: " + getMessage();
    }
}
