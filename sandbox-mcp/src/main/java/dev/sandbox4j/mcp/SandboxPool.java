package dev.sandbox4j.mcp;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The server's sandboxes: one default opened lazily, others by create_sandbox; a cap, and idle expiry. */
final class SandboxPool implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SandboxPool.class);

    private static final class Entry {
        final Sandbox sandbox;
        volatile long lastUsed = System.nanoTime();

        Entry(Sandbox sandbox) {
            this.sandbox = sandbox;
        }
    }

    private final Supplier<Sandbox> opener;
    private final int max;
    private final Duration idle;
    private final Map<String, Entry> open = new LinkedHashMap<>();
    private final Map<String, String> expired = new LinkedHashMap<>();
    private final ScheduledExecutorService sweeper;
    private String defaultId;

    SandboxPool(Supplier<Sandbox> opener, int max, Duration idle) {
        this(opener, max, idle, true);
    }

    /** @param ownSweeper sweep idle sandboxes on a thread of its own; false where the owner calls {@link #sweep} */
    SandboxPool(Supplier<Sandbox> opener, int max, Duration idle, boolean ownSweeper) {
        this.opener = opener;
        this.max = max;
        this.idle = idle;
        if (!ownSweeper) {
            this.sweeper = null;
            return;
        }
        this.sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sandbox-mcp-idle");
            t.setDaemon(true);
            return t;
        });
        long every = Math.max(50, Math.min(idle.toMillis() / 4, 30_000));
        sweeper.scheduleWithFixedDelay(this::sweep, every, every, TimeUnit.MILLISECONDS);
    }

    /** How many sandboxes are open. */
    synchronized int size() {
        return open.size();
    }

    /** The sandbox for a call: the named one, or the default (opened now if needed). */
    synchronized Sandbox get(String id) {
        if (id == null || id.isBlank()) {
            Entry e = defaultId == null ? null : open.get(defaultId);
            if (e == null || !e.sandbox.isOpen()) {
                if (e != null) {
                    open.remove(defaultId);
                }
                e = openNew();
                defaultId = e.sandbox.id();
            }
            e.lastUsed = System.nanoTime();
            return e.sandbox;
        }
        Entry e = open.get(id);
        if (e == null || !e.sandbox.isOpen()) {
            open.remove(id);
            String why = expired.get(id);
            throw new SandboxException(ErrorKind.NOT_FOUND, "no open sandbox '" + id + "'"
                    + (why != null ? " (" + why + ")" : "") + "; open sandboxes: " + open.keySet()
                    + "; call create_sandbox for a new one, or omit sandbox_id for the default sandbox");
        }
        e.lastUsed = System.nanoTime();
        return e.sandbox;
    }

    synchronized Sandbox create() {
        return openNew().sandbox;
    }

    private Entry openNew() {
        open.values().removeIf(e -> !e.sandbox.isOpen());
        if (open.size() >= max) {
            throw new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, open.size() + " sandboxes are open, the"
                    + " most this server allows. Call kill_sandbox on one you no longer need (open: "
                    + open.keySet() + ") and try again.");
        }
        Entry e = new Entry(opener.get());
        open.put(e.sandbox.id(), e);
        LOG.info("opened sandbox {} ({} open)", e.sandbox.id(), open.size());
        return e;
    }

    synchronized boolean kill(String id) {
        Entry e = open.remove(id);
        if (e == null) {
            return false;
        }
        if (id.equals(defaultId)) {
            defaultId = null;
        }
        e.sandbox.close();
        expired.put(id, "killed");
        LOG.info("killed sandbox {}", id);
        return true;
    }

    synchronized List<String> ids() {
        return new ArrayList<>(open.keySet());
    }

    void sweep() {
        List<Sandbox> toClose = new ArrayList<>();
        synchronized (this) {
            long now = System.nanoTime();
            open.entrySet().removeIf(en -> {
                boolean stale = now - en.getValue().lastUsed > idle.toNanos() || !en.getValue().sandbox.isOpen();
                if (stale) {
                    toClose.add(en.getValue().sandbox);
                    expired.put(en.getKey(), "expired after " + idle.toSeconds() + " s idle");
                    if (en.getKey().equals(defaultId)) {
                        defaultId = null;
                    }
                }
                return stale;
            });
        }
        for (Sandbox s : toClose) {
            LOG.info("closing idle sandbox {}", s.id());
            try {
                s.close();
            } catch (RuntimeException e) {
                LOG.warn("closing sandbox {} failed: {}", s.id(), e.toString());
            }
        }
    }

    @Override
    public void close() {
        if (sweeper != null) {
            sweeper.shutdownNow();
        }
        List<Entry> all;
        synchronized (this) {
            all = new ArrayList<>(open.values());
            open.clear();
        }
        for (Entry e : all) {
            try {
                e.sandbox.close();
            } catch (RuntimeException ex) {
                LOG.warn("closing sandbox {} failed: {}", e.sandbox.id(), ex.toString());
            }
        }
    }
}
