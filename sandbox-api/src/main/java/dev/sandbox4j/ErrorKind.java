package dev.sandbox4j;

import java.util.Locale;

/**
 * Why a sandbox operation failed, as a stable lower-case wire code that agents and tools can branch on.
 *
 * <p>The codes never change meaning once released; new kinds may be added. {@link #retryable()} says whether the
 * same call may succeed later without any change by the caller (a backend that was down, a transient I/O error).
 */
public enum ErrorKind {
    /** The path, file or resource does not exist. */
    NOT_FOUND(false),
    /** The target exists and the call was not asked to replace it. */
    ALREADY_EXISTS(false),
    /** A directory was expected (a parent in the path, or a listing) but something else is there. */
    NOT_A_DIRECTORY(false),
    /** A file was expected but the path names a directory. */
    IS_A_DIRECTORY(false),
    /** A directory must be empty for this call (non-recursive delete). */
    DIRECTORY_NOT_EMPTY(false),
    /** The path leaves the workspace, holds NUL, is empty or over-long, or is otherwise malformed. */
    INVALID_PATH(false),
    /**
     * An argument other than a path is malformed: an empty or invalid glob, an invalid regular expression, a
     * negative range or depth, empty text to replace, an empty edit list. Models often write these arguments, so
     * they fail like any other bad input instead of as an {@code IllegalArgumentException}.
     */
    INVALID_ARGUMENT(false),
    /**
     * The sandbox refuses the operation: a symbolic link it will not follow, a special file, file permissions, a path
     * its {@link FileRules} protect or a link they refuse.
     */
    PERMISSION_DENIED(false),
    /** The content or request exceeds a limit (read cap, file size limit, disk quota, watches per sandbox). */
    TOO_LARGE(false),
    /**
     * The workspace is full: its byte or file quota ({@link ResourceLimits#workspaceBytes()},
     * {@link ResourceLimits#workspaceInodes()}) is used up. Delete files, then try again; the file that was being
     * written keeps its old content.
     */
    NO_SPACE_LEFT(false),
    /** {@code replace} or {@code edit} found no occurrence of the text to replace. */
    NO_MATCH(false),
    /** {@code replace} or {@code edit} found the text to replace more than once. */
    AMBIGUOUS_MATCH(false),
    /**
     * The file changed while it was being read by a call that checks it did not
     * ({@link FileSystem#readToUnchanged}); reading it again once it is stable may succeed. Also: a change set
     * could not be applied ({@link Workspace#applyTo}) because the host changed the same files; the message names
     * them and nothing was applied.
     */
    CONFLICT(true),
    /** The language is unknown or its runtime is not present in this sandbox. */
    UNSUPPORTED_LANGUAGE(false),
    /** The backend does not offer this feature (see {@link SandboxInfo#features()}). */
    UNSUPPORTED(false),
    /** A blocking call other than a command ran out of time (commands report timeouts in their result). */
    TIMEOUT(true),
    /** The sandbox, or the handle, has been closed. */
    CLOSED(false),
    /**
     * The sandbox is paused ({@link Sandbox#pause()}): its processes are stopped, so it takes no command and no file
     * call until {@link Sandbox#resume()}.
     */
    PAUSED(false),
    /** The backend cannot be reached or cannot run here (missing binary, daemon down, kernel lacks a feature). */
    BACKEND_UNAVAILABLE(true),
    /** The caller's thread was interrupted while it waited; the command it waited for has been killed. */
    INTERRUPTED(false),
    /** An I/O error the other kinds do not describe (a broken pipe, a failing disk). */
    IO_ERROR(true),
    /** A bug or an unexpected state inside sandbox4j or the backend. */
    INTERNAL(false);

    private final boolean retryable;

    ErrorKind(boolean retryable) {
        this.retryable = retryable;
    }

    /** The stable lower-case wire code, such as {@code not_found}. */
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether the same call may succeed later unchanged. */
    public boolean retryable() {
        return retryable;
    }

    /** The kind for a wire code, such as {@code not_found}. */
    public static ErrorKind fromCode(String code) {
        return valueOf(code.toUpperCase(Locale.ROOT));
    }
}
