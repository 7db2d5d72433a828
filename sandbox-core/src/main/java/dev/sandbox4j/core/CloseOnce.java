package dev.sandbox4j.core;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The once-only close of a sandbox, shared by the backends. A sandbox is closed from several threads: the user's, the
 * lifetime timer's, the thread that sees the jail or container die. Exactly one of them does the work; the others
 * return only once that work is done, so that whoever sees {@code close()} return (a test, a pool, a Spring scope)
 * never finds a directory, cgroup or container still being removed.
 */
public final class CloseOnce {

    /** How long a second caller waits for the first one's close; a close that takes longer has hung elsewhere. */
    private static final long WAIT_SECONDS = 60;

    private volatile boolean started;
    private volatile Thread closer;
    private final CountDownLatch done = new CountDownLatch(1);

    /**
     * True for the one caller that must close now, which then calls {@link #done()}; false for every other caller,
     * after the close underway has finished (or after a bounded wait, or an interrupt, which stays set).
     */
    public boolean begin() {
        synchronized (this) {
            if (!started) {
                started = true;
                closer = Thread.currentThread();
                return true;
            }
        }
        if (closer == Thread.currentThread()) {
            return false; // a callback of the close itself (a command's future completing) closing again
        }
        try {
            done.await(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    /** The close is finished; waiting callers return. */
    public void done() {
        closer = null;
        done.countDown();
    }

    /** Whether a close has begun. */
    public boolean isClosed() {
        return started;
    }
}
