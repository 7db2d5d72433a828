package dev.sandbox4j.memory;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;

/**
 * Where the in-memory backend creates its {@link SandboxException}s, so every kind and message it produces is in one
 * file (sandbox-tools' ErrorTranslationArchTest). File system errors come from the shared no-follow workspace (shaded from
 * sandbox-core); these are the backend's own: closed, unsupported, no handler, jimfs failing.
 */
final class MemoryErrors {
    private MemoryErrors() {
    }

    static SandboxException error(ErrorKind kind, String message) {
        return new SandboxException(kind, message);
    }

    static SandboxException error(ErrorKind kind, String message, Throwable cause) {
        return new SandboxException(kind, message, cause);
    }
}
