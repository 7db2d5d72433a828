package dev.sandbox4j.docker;

import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * The one place where the Docker backend turns native failures into {@link ErrorKind}s: engine exceptions from
 * docker-java, transport failures, and the {@code E:<KIND>:<message>} lines the in-container file scripts print.
 */
final class DockerErrors {
    /** Exit code of an in-container script that printed an {@code E:} line on stderr. */
    static final int SCRIPT_ERROR = 3;
    private static final String HINT = "; is the Docker engine running (dockerd, DOCKER_HOST)?";

    private DockerErrors() {
    }

    /**
     * A failure the backend itself decides (a spec it cannot honour, an engine that does not answer as it must, an
     * I/O failure of its own spooling). Created here, and nowhere else in this package (sandbox-tools' ErrorTranslationArchTest), so
     * every kind and message the Docker backend produces is in this one file.
     */
    static SandboxException error(ErrorKind kind, String message) {
        return new SandboxException(kind, message);
    }

    /** {@link #error(ErrorKind, String)} with the native failure that caused it. */
    static SandboxException error(ErrorKind kind, String message, Throwable cause) {
        return new SandboxException(kind, message, cause);
    }

    /** Translates any failure of an engine call. Never returns null; SandboxExceptions pass through. */
    /** An engine's answer about a named volume: gone is {@code not_found}, in use is {@code conflict}. */
    static SandboxException volume(String what, String name, RuntimeException e) {
        if (e instanceof NotFoundException) {
            return new SandboxException(ErrorKind.NOT_FOUND, what + ": there is no volume " + name, e);
        }
        if (e instanceof ConflictException) {
            return new SandboxException(ErrorKind.CONFLICT, what + ": the volume " + name + " is in use by a "
                    + "container (an open sandbox): " + brief(e), e);
        }
        return translate(what, e);
    }

    static SandboxException translate(String what, Throwable e) {
        if (e instanceof SandboxException se) {
            return se;
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            if (root instanceof DockerException) {
                break;
            }
            root = root.getCause();
        }
        if (e instanceof NotFoundException || root instanceof NotFoundException || noSuchContainer(e)) {
            return SandboxException.permanent(ErrorKind.BACKEND_UNAVAILABLE,
                    what + ": the sandbox container is gone (" + brief(e) + ")", e);
        }
        if (e instanceof ConflictException || root instanceof ConflictException) {
            return SandboxException.permanent(ErrorKind.BACKEND_UNAVAILABLE,
                    what + ": the sandbox container is not running (" + brief(e) + ")", e);
        }
        if (noSpace(e)) {
            return new SandboxException(ErrorKind.NO_SPACE_LEFT, what + ": no space left in the workspace (its byte "
                    + "or file quota is used up; delete files to make room): " + brief(e), e);
        }
        if (e instanceof DockerException de) {
            String message = what + ": Docker engine error " + de.getHttpStatus() + ": " + brief(e);
            return de.getHttpStatus() >= 500 ? SandboxException.temporary(ErrorKind.BACKEND_UNAVAILABLE, message, e)
                    : SandboxException.permanent(ErrorKind.BACKEND_UNAVAILABLE, message, e);
        }
        if (isTransport(e)) {
            return SandboxException.temporary(ErrorKind.BACKEND_UNAVAILABLE,
                    what + ": cannot reach the Docker engine (" + brief(e) + ")" + HINT, e);
        }
        return new SandboxException(ErrorKind.INTERNAL, what + ": " + brief(e), e);
    }

    /** Whether the engine (an archive upload) failed for a full file system: ENOSPC or EDQUOT. */
    static boolean noSpace(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String m = t.getMessage() == null ? "" : t.getMessage().toLowerCase(java.util.Locale.ROOT);
            if (m.contains("no space left on device") || m.contains("disk quota exceeded")) {
                return true;
            }
        }
        return false;
    }

    static boolean isTransport(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ConnectException || t instanceof SocketTimeoutException || t instanceof IOException
                    || t instanceof UncheckedIOException) {
                return true;
            }
            String name = t.getClass().getName();
            if (name.contains("ConnectionClosed") || name.contains("NoHttpResponse")) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /** Whether the engine says the container is gone or stopped (so the sandbox is dead). */
    static boolean containerGone(Throwable e) {
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof NotFoundException || t instanceof ConflictException) {
                return true;
            }
        }
        return noSuchContainer(e);
    }

    /**
     * Whether the engine said the container does not exist: Docker with a 404, Podman 4.3 also with a 500
     * "no such container" (inspect of a removed container).
     */
    static boolean noSuchContainer(Throwable e) {
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof NotFoundException || (t instanceof DockerException && t.getMessage() != null
                    && t.getMessage().contains("no such container"))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The error an in-container file script reported: its stderr holds {@code E:<KIND>:<message>}. Anything else
     * that failed is an {@link ErrorKind#IO_ERROR} carrying the tool's message.
     */
    static SandboxException script(String what, int exitCode, byte[] stderr) {
        String text = new String(stderr, StandardCharsets.UTF_8).strip();
        for (String line : text.split("\n")) {
            if (line.startsWith("E:")) {
                int colon = line.indexOf(':', 2);
                if (colon > 2) {
                    String kind = line.substring(2, colon);
                    String message = line.substring(colon + 1);
                    try {
                        return new SandboxException(ErrorKind.valueOf(kind), message);
                    } catch (IllegalArgumentException ignored) {
                        break;
                    }
                }
            }
        }
        if (text.contains("No space left on device") || text.contains("Disk quota exceeded")) {
            return new SandboxException(ErrorKind.NO_SPACE_LEFT, what + ": no space left in the workspace (its byte "
                    + "or file quota is used up; delete files to make room): " + abbreviate(text));
        }
        if (text.contains("File too large")) {
            return new SandboxException(ErrorKind.TOO_LARGE, what + ": file size limit: " + abbreviate(text));
        }
        if (text.contains("Permission denied") || text.contains("Operation not permitted")) {
            return new SandboxException(ErrorKind.PERMISSION_DENIED, what + ": " + abbreviate(text));
        }
        if (text.contains("subdirectory of itself")) {
            return new SandboxException(ErrorKind.INVALID_PATH, what + ": " + abbreviate(text));
        }
        if (text.contains("cannot overwrite directory") || text.contains("Is a directory")) {
            return new SandboxException(ErrorKind.IS_A_DIRECTORY, what + ": " + abbreviate(text));
        }
        if (text.contains("Not a directory")) {
            return new SandboxException(ErrorKind.NOT_A_DIRECTORY, what + ": " + abbreviate(text));
        }
        if (text.contains("Directory not empty")) {
            return new SandboxException(ErrorKind.DIRECTORY_NOT_EMPTY, what + ": " + abbreviate(text));
        }
        if (text.contains("No such file")) {
            return new SandboxException(ErrorKind.NOT_FOUND, what + ": " + abbreviate(text));
        }
        return new SandboxException(ErrorKind.IO_ERROR, what + " failed (exit " + exitCode + "): " + abbreviate(text));
    }

    static SandboxException interrupted(String what) {
        return new SandboxException(ErrorKind.INTERRUPTED, what + " was interrupted; the command has been killed");
    }

    private static String brief(Throwable e) {
        String m = e.getMessage();
        if (m == null || m.isBlank()) {
            m = e.getClass().getSimpleName();
        }
        return abbreviate(m.strip());
    }

    private static String abbreviate(String s) {
        return s.length() <= 300 ? s : s.substring(0, 300) + "…";
    }
}
