package dev.sandbox4j.spring;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The sandboxes of the agent tools, one per key (a conversation id, a request): opened on a key's first tool call,
 * kept for its later calls, closed by {@link #close(String)}, when unused for the idle timeout, and all of them when
 * the application context closes.
 *
 * <p>At most {@code maxSandboxes} are open at once; opening one more fails with a retryable
 * {@code backend_unavailable}, which the tools hand the model as a result.
 */
public final class SandboxSessions implements AutoCloseable {
    private final Supplier<Sandbox> opener;
    private final Duration idleTimeout;
    private final int maxSandboxes;
    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    private final AtomicInteger reserved = new AtomicInteger();
    private final ScheduledExecutorService reaper;
    private volatile boolean closed;

    SandboxSessions(Supplier<Sandbox> opener, Duration idleTimeout, int maxSandboxes) {
        this.opener = Objects.requireNonNull(opener, "opener");
        if (idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("sandbox4j.session.idle-timeout must be positive, got " + idleTimeout);
        }
        if (maxSandboxes <= 0) {
            throw new IllegalArgumentException("sandbox4j.session.max-sandboxes must be positive, got "
                    + maxSandboxes);
        }
        this.idleTimeout = idleTimeout;
        this.maxSandboxes = maxSandboxes;
        this.reaper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sandbox4j-idle-reaper");
            t.setDaemon(true);
            return t;
        });
        long period = Math.max(100, Math.min(30_000, idleTimeout.toMillis() / 4));
        reaper.scheduleWithFixedDelay(this::closeIdle, period, period, TimeUnit.MILLISECONDS);
    }

    /** One key's sandbox, opened on first use. */
    private final class Entry {
        final String key;
        final ReentrantLock lock = new ReentrantLock();
        volatile Sandbox sandbox;
        long lastUsed = System.nanoTime();   // guarded by lock, as inUse and removed are
        int inUse;
        boolean removed;

        Entry(String key) {
            this.key = key;
        }
    }

    /** Something done with a key's sandbox. */
    @FunctionalInterface
    public interface Work<T> {
        /** Does it. */
        T apply(Sandbox sandbox);
    }

    /**
     * Runs {@code work} with the sandbox of {@code key}, opening it first if the key has none (or its sandbox has
     * closed itself). The sandbox is not closed for idleness while work runs on it.
     *
     * @throws SandboxException {@code backend_unavailable} when {@code maxSandboxes} are open, {@code closed} after
     *                          {@link #close()}, or what opening failed with
     */
    public <T> T with(String key, Work<T> work) {
        Objects.requireNonNull(key, "key");
        Entry e;
        Sandbox sandbox;
        while (true) {
            e = entries.computeIfAbsent(key, Entry::new);
            e.lock.lock();
            try {
                if (e.removed) {
                    continue;   // closed between the lookup and the lock: take the key's new entry
                }
                sandbox = sandbox(e);
                e.inUse++;
                e.lastUsed = System.nanoTime();
                break;
            } finally {
                e.lock.unlock();
            }
        }
        try {
            return work.apply(sandbox);
        } finally {
            e.lock.lock();
            try {
                e.inUse--;
                e.lastUsed = System.nanoTime();
            } finally {
                e.lock.unlock();
            }
        }
    }

    private Sandbox sandbox(Entry e) {
        e.lock.lock();
        try {
            if (closed) {
                throw new SandboxException(ErrorKind.CLOSED, "the application is shutting down");
            }
            Sandbox s = e.sandbox;
            if (s != null && s.isOpen()) {
                return s;
            }
            if (s != null) {
                e.sandbox = null;
                reserved.decrementAndGet();
            }
            if (reserved.incrementAndGet() > maxSandboxes) {
                reserved.decrementAndGet();
                throw new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, maxSandboxes
                        + " sandboxes are open (sandbox4j.session.max-sandboxes); try again when one closes");
            }
            try {
                s = opener.get();
            } catch (RuntimeException ex) {
                reserved.decrementAndGet();
                throw ex;
            }
            e.sandbox = s;
            return s;
        } finally {
            e.lock.unlock();
        }
    }

    /** Whether {@code key} has an open sandbox. */
    public boolean isOpen(String key) {
        Entry e = entries.get(key);
        return e != null && e.sandbox != null && e.sandbox.isOpen();
    }

    /** The keys with an open sandbox. */
    public Set<String> keys() {
        Set<String> out = new java.util.TreeSet<>();
        entries.forEach((k, e) -> {
            if (e.sandbox != null && e.sandbox.isOpen()) {
                out.add(k);
            }
        });
        return out;
    }

    /** Open sandboxes. */
    public int openCount() {
        return keys().size();
    }

    /** The most sandboxes open at once. */
    public int maxSandboxes() {
        return maxSandboxes;
    }

    /** The idle timeout. */
    public Duration idleTimeout() {
        return idleTimeout;
    }

    /** Closes the sandbox of {@code key}, killing what runs in it; returns whether there was one. */
    public boolean close(String key) {
        Entry e = entries.remove(key);
        return e != null && closeEntry(e);
    }

    private boolean closeEntry(Entry e) {
        e.lock.lock();
        try {
            e.removed = true;
            Sandbox s = e.sandbox;
            e.sandbox = null;
            if (s == null) {
                return false;
            }
            reserved.decrementAndGet();
            s.close();
            return true;
        } finally {
            e.lock.unlock();
        }
    }

    /** Closes the sandboxes unused for the idle timeout; runs on a timer. */
    void closeIdle() {
        long now = System.nanoTime();
        for (Entry e : List.copyOf(entries.values())) {
            e.lock.lock();
            try {
                if (!e.removed && e.inUse == 0 && now - e.lastUsed > idleTimeout.toNanos()) {
                    entries.remove(e.key, e);
                    closeEntry(e);
                }
            } catch (RuntimeException ignored) {
                // one sandbox failing to close must not stop the others from closing
            } finally {
                e.lock.unlock();
            }
        }
    }

    /** Closes every sandbox and stops the idle timer. */
    @Override
    public void close() {
        closed = true;
        reaper.shutdownNow();
        List<RuntimeException> failures = new ArrayList<>();
        for (String key : List.copyOf(entries.keySet())) {
            try {
                close(key);
            } catch (RuntimeException ex) {
                failures.add(ex);
            }
        }
        if (!failures.isEmpty()) {
            RuntimeException first = failures.get(0);
            failures.subList(1, failures.size()).forEach(first::addSuppressed);
            throw first;
        }
    }
}
