package dev.sandbox4j.pool;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ForwardingSandbox;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.spi.SandboxProvider;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Sandboxes of one spec opened ahead, so that a caller gets one without waiting for a jail or container to start.
 *
 * <pre>{@code
 * try (SandboxPool pool = SandboxPool.open("local", spec, PoolOptions.DEFAULTS.withMin(4))) {
 *     try (Sandbox sandbox = pool.acquire()) {     // a sandbox nobody has used
 *         sandbox.shell().run("make test");
 *     }                                            // closed, not returned: the pool opens a new one
 * }                                                // closes every sandbox it opened, lent ones too
 * }</pre>
 *
 * <p>What {@link #acquire()} hands out was opened by the same provider and spec as a plain open and never used: a
 * sandbox is never returned to the pool, so nothing one caller did (files, processes, a changed {@code /tmp}) can
 * reach the next. Closing it closes it at once, as a plain open's sandbox. Its lifetime clock started when the pool
 * opened it; {@link PoolOptions#idleExpiry()} bounds how much of it a warm sandbox has used.
 *
 * <p>Refill runs on at most {@link PoolOptions#refillThreads()} daemon threads and keeps {@link PoolOptions#min()}
 * sandboxes warm (more while callers wait), never more than {@link PoolOptions#max()} alive. A failed open is not
 * retried in the background: the next acquire retries it and, if it fails again, fails with the open's
 * {@link SandboxException} (its kind, the pool's message); an acquire never waits longer than
 * {@link PoolOptions#acquireTimeout()} ({@link ErrorKind#TIMEOUT}). Thread-safe.
 */
public final class SandboxPool implements AutoCloseable {
    private static final AtomicInteger POOLS = new AtomicInteger();

    private final Supplier<? extends Sandbox> opener;
    private final PoolOptions options;
    private final ScheduledThreadPoolExecutor threads;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final ArrayDeque<Warm> warm = new ArrayDeque<>();
    private final Set<Lent> lent = new HashSet<>();
    private int opening;
    private int waiting;
    private long opened;
    private long failed;
    private boolean suspended;
    private SandboxException lastFailure;
    private boolean closed;

    private SandboxPool(Supplier<? extends Sandbox> opener, PoolOptions options) {
        this.opener = Objects.requireNonNull(opener, "opener");
        this.options = Objects.requireNonNull(options, "options");
        int pool = POOLS.incrementAndGet();
        AtomicInteger n = new AtomicInteger();
        this.threads = new ScheduledThreadPoolExecutor(options.refillThreads(), r -> {
            Thread t = new Thread(r, "sandbox4j-pool-" + pool + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        threads.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        threads.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        long sweep = Math.max(50, Math.min(10_000, options.idleExpiry().toMillis() / 4));
        threads.scheduleWithFixedDelay(this::sweep, sweep, sweep, TimeUnit.MILLISECONDS);
        lock.lock();
        try {
            refill();
        } finally {
            lock.unlock();
        }
    }

    /**
     * A pool of sandboxes of {@code spec} on the named provider.
     *
     * @throws SandboxException {@link ErrorKind#BACKEND_UNAVAILABLE} when there is no such provider or it cannot run
     *                          here
     */
    public static SandboxPool open(String provider, SandboxSpec spec, PoolOptions options) {
        SandboxProvider p = Sandboxes.provider(provider);
        Optional<String> reason = p.unavailableReason();
        if (reason.isPresent()) {
            throw new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, "backend '" + provider
                    + "' is not available: " + reason.get());
        }
        return open(p, spec, options);
    }

    /** A pool of sandboxes of {@code spec} on {@code provider}. */
    public static SandboxPool open(SandboxProvider provider, SandboxSpec spec, PoolOptions options) {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(spec, "spec");
        return new SandboxPool(() -> provider.open(spec), options);
    }

    /**
     * A pool whose sandboxes {@code opener} opens (a decorated sandbox, a provider configured in code). Each call
     * must open a new sandbox; the pool owns and closes what it returns.
     */
    public static SandboxPool of(Supplier<? extends Sandbox> opener, PoolOptions options) {
        return new SandboxPool(opener, options);
    }

    /**
     * A sandbox nobody has used; closing it closes it (the pool opens another in the background).
     *
     * @throws SandboxException {@link ErrorKind#TIMEOUT} after {@link PoolOptions#acquireTimeout()}; the open's own
     *                          kind when opening failed while this call waited; {@link ErrorKind#CLOSED} once the
     *                          pool is closed; {@link ErrorKind#INTERRUPTED} when the thread was interrupted
     */
    public Sandbox acquire() {
        List<Sandbox> dead = new ArrayList<>();
        lock.lock();
        try {
            long deadline = System.nanoTime() + options.acquireTimeout().toNanos();
            long failedBefore = failed;
            while (true) {
                if (closed) {
                    throw new SandboxException(ErrorKind.CLOSED, "the sandbox pool is closed");
                }
                Warm w = warm.pollFirst();
                if (w != null && !w.sandbox().isOpen()) {
                    dead.add(w.sandbox());
                    continue;
                }
                if (w != null) {
                    Lent sandbox = new Lent(w.sandbox());
                    lent.add(sandbox);
                    refill();
                    return sandbox;
                }
                if (failed > failedBefore) {
                    SandboxException f = lastFailure;
                    throw new SandboxException(f.kind(), "the pool could not open a sandbox: " + f.getMessage(), f);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new SandboxException(ErrorKind.TIMEOUT, "no sandbox in the pool within "
                            + options.acquireTimeout() + " (" + stateLocked() + ")");
                }
                waiting++;
                try {
                    refill();
                    changed.awaitNanos(left);
                } finally {
                    waiting--;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SandboxException(ErrorKind.INTERRUPTED, "interrupted while waiting for a pooled sandbox", e);
        } finally {
            lock.unlock();
            dead.forEach(SandboxPool::closeQuietly);
        }
    }

    /** What the pool holds now, for metrics and health checks. */
    public Stats stats() {
        lock.lock();
        try {
            return new Stats(warm.size(), lent.size(), opening, opened, failed);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Counts at one moment.
     *
     * @param warm    open and unused
     * @param lent    handed out and not yet closed
     * @param opening being opened now
     * @param opened  opened successfully since the pool started
     * @param failed  opens that failed since the pool started
     */
    public record Stats(int warm, int lent, int opening, long opened, long failed) {
    }

    /**
     * Closes every sandbox the pool opened, the lent ones included, and waits for opens under way to end (their
     * sandboxes are closed as they arrive). Idempotent.
     */
    @Override
    public void close() {
        List<Sandbox> all = new ArrayList<>();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            warm.forEach(w -> all.add(w.sandbox()));
            warm.clear();
            all.addAll(lent);
            lent.clear();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        threads.shutdown();
        all.forEach(SandboxPool::closeQuietly);
        try {
            threads.awaitTermination(2, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        lock.lock();
        try {
            return "SandboxPool[" + stateLocked() + ", " + options + "]";
        } finally {
            lock.unlock();
        }
    }

    private String stateLocked() {
        return warm.size() + " warm, " + lent.size() + " lent, " + opening + " opening"
                + (suspended ? ", refill suspended after a failed open" : "");
    }

    /** Starts opens until min (or the waiting callers) are covered, within max. Holds the lock. */
    private void refill() {
        if (closed || (suspended && waiting == 0)) {
            return;
        }
        int wanted = (suspended ? waiting : Math.max(options.min(), waiting)) - warm.size() - opening;
        int room = options.max() - warm.size() - lent.size() - opening;
        for (int i = Math.min(wanted, room); i > 0; i--) {
            opening++;
            threads.execute(this::openOne);
        }
    }

    private void openOne() {
        Sandbox sandbox = null;
        SandboxException failure = null;
        try {
            if (!isClosed()) {
                sandbox = Objects.requireNonNull(opener.get(), "the pool's opener returned null");
            }
        } catch (SandboxException e) {
            failure = e;
        } catch (RuntimeException | Error e) {
            failure = new SandboxException(ErrorKind.INTERNAL, "opening a pooled sandbox failed: " + e, e);
        } finally {
            arrived(sandbox, failure);
        }
    }

    private void arrived(Sandbox sandbox, SandboxException failure) {
        Sandbox discard = null;
        lock.lock();
        try {
            opening--;
            if (closed) {
                discard = sandbox;
            } else if (sandbox != null) {
                warm.addLast(new Warm(sandbox, System.nanoTime()));
                opened++;
                suspended = false;
                refill();
            } else if (failure != null) {
                failed++;
                lastFailure = failure;
                suspended = true;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        closeQuietly(discard);
    }

    private boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    /** Closes warm sandboxes past their idle expiry or dead (lifetime over), and tops the pool up again. */
    private void sweep() {
        List<Sandbox> expired = new ArrayList<>();
        lock.lock();
        try {
            long now = System.nanoTime();
            long expiry = options.idleExpiry().toNanos();
            warm.removeIf(w -> {
                boolean gone = now - w.since() >= expiry || !w.sandbox().isOpen();
                if (gone) {
                    expired.add(w.sandbox());
                }
                return gone;
            });
            refill();
        } finally {
            lock.unlock();
        }
        expired.forEach(SandboxPool::closeQuietly);
    }

    private void returned(Lent sandbox) {
        lock.lock();
        try {
            if (lent.remove(sandbox)) {
                refill();
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    private static void closeQuietly(Sandbox sandbox) {
        if (sandbox == null) {
            return;
        }
        try {
            sandbox.close();
        } catch (RuntimeException ignored) {
            // close is documented not to throw; a backend that does must not stop the others from closing
        }
    }

    private record Warm(Sandbox sandbox, long since) {
    }

    /** A handed-out sandbox: every call goes to the real one; closing it closes that and frees its place. */
    private final class Lent extends ForwardingSandbox {
        private final Sandbox sandbox;
        private final AtomicBoolean released = new AtomicBoolean();

        Lent(Sandbox sandbox) {
            this.sandbox = sandbox;
        }

        @Override
        protected Sandbox delegate() {
            return sandbox;
        }

        /** A pooled sandbox's place is the pool's: it is closed or returned, never handed to another host. */
        @Override
        public dev.sandbox4j.AttachCredential detach() {
            throw new dev.sandbox4j.SandboxException(dev.sandbox4j.ErrorKind.UNSUPPORTED, "a pooled sandbox cannot "
                    + "be detached: open a leased sandbox outside the pool");
        }

        @Override
        public void close() {
            try {
                sandbox.close();
            } finally {
                if (released.compareAndSet(false, true)) {
                    returned(this);
                }
            }
        }
    }
}
