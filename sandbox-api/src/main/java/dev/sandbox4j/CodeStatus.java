package dev.sandbox4j;

import java.util.Locale;

/** How a code snippet ended, in the terms agent tool surfaces use. */
public enum CodeStatus {
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
