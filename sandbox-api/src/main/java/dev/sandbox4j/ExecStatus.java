package dev.sandbox4j;

import java.util.Locale;

/** How a command ended. A non-zero exit is still {@link #COMPLETED}: the exit code says the rest. */
public enum ExecStatus {
    /** The command exited by itself; see {@link ExecResult#exitCode()}. */
    COMPLETED,
    /** The command ran past its timeout; its whole process tree was killed and the output so far kept. */
    TIMEOUT,
    /** The command was killed before it finished: by {@link ExecHandle#kill()}, a resource limit or the sandbox closing. */
    KILLED;

    /** The stable lower-case wire code, such as {@code timeout}. */
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }
}
