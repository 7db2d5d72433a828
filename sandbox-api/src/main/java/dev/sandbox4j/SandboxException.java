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

    /**
     * A failure that will not go away by retrying the same call, whatever its kind's default (a container that is
     * gone is {@link ErrorKind#BACKEND_UNAVAILABLE} but not retryable).
     */
    public static SandboxException permanent(ErrorKind kind, String message, Throwable cause) {
        return new SandboxException(kind, message, cause, false);
    }

    /** A failure the same call may get past later, whatever its kind's default (an engine answering 503). */
    public static SandboxException temporary(ErrorKind kind, String message, Throwable cause) {
        return new SandboxException(kind, message, cause, true);
    }

    private SandboxException(ErrorKind kind, String message, Throwable cause, boolean retryable) {
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

    /**
     * Whether the same call may succeed later unchanged; the kind's default ({@link ErrorKind#retryable()}) unless
     * made by {@link #permanent} or {@link #temporary}, where a backend knew better.
     */
    public boolean retryable() {
        return retryable;
    }

    @Override
    public String toString() {
        return "SandboxException[" + kind.code() + "]: " + getMessage();
    }
}
