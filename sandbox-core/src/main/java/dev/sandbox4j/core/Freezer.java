package dev.sandbox4j.core;

/**
 * Pause and resume of one {@link AgentSandbox}: the paused flag every call checks, and the order around the host's
 * {@link SandboxHost#freeze}: calls are refused from the moment a pause begins, a failed freeze leaves the sandbox
 * running, and close thaws first (a frozen process cannot die, and a frozen agent would not see its channel end).
 */
final class Freezer {
    private final SandboxHost host;
    /** Held while freezing or thawing, and by close while it thaws a paused sandbox. */
    private final Object lock = new Object();
    private volatile boolean paused;

    Freezer(SandboxHost host) {
        this.host = host;
    }

    boolean isPaused() {
        return paused;
    }

    /** {@code check}: open and pausable, else throws (run under the lock, so pause and close do not cross). */
    void pause(Runnable check) {
        synchronized (lock) {
            check.run();
            if (paused) {
                return;
            }
            paused = true;
            try {
                host.freeze(true);
            } catch (RuntimeException | Error e) {
                paused = false;
                throw e;
            }
        }
    }

    void resume(Runnable check) {
        synchronized (lock) {
            check.run();
            if (!paused) {
                return;
            }
            host.freeze(false);
            paused = false;
        }
    }

    void thawForClose() {
        synchronized (lock) {
            if (paused) {
                try {
                    host.freeze(false);
                } catch (RuntimeException e) {
                    // the host's removal kills what is left its own way (freezer groups are killed thawed)
                }
                paused = false;
            }
        }
    }
}
