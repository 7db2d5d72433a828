package dev.sandbox4j.local;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;

/**
 * Where the local backend creates its {@link SandboxException}s, so every kind and message it produces is in one file
 * (sandbox-tools' ErrorTranslationArchTest). The file system's errors come from the shared no-follow workspace in sandbox-core, the
 * shell's from the shared agent client; these are the backend's own: what the host cannot do, what a spec asks for
 * that cannot be honoured here.
 */
final class LocalErrors {
    private LocalErrors() {
    }

    static SandboxException error(ErrorKind kind, String message) {
        return new SandboxException(kind, message);
    }

    static SandboxException error(ErrorKind kind, String message, Throwable cause) {
        return new SandboxException(kind, message, cause);
    }
}
