package dev.sandbox4j.kubernetes;

import dev.sandbox4j.kubernetes.Crd.SandboxClaim;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * One watch of this JVM's claims (selected by its owner label), shared by every open waiting for its claim to be
 * Ready. One watch per open meant an API server connection set up and torn down per sandbox: latency on each open
 * (the watch's setup was in the claim-to-Ready time) and, with 16 opens at once, a load the API server should not
 * get from one client. Events go to the waiter of their claim; a watch that drops tells every waiter (each reads its
 * claim again, so nothing is missed) and is opened again by the next one that needs it.
 */
final class ClaimWatch implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClaimWatch.class);
    /** What a waiter receives when its claim was deleted. */
    static final Object GONE = new Object();
    /** What every waiter receives when the watch dropped. */
    static final Object DROPPED = new Object();

    private final Supplier<FilterWatchListDeletable<SandboxClaim, ?, ?>> mine;
    private final Map<String, BlockingQueue<Object>> waiters = new ConcurrentHashMap<>();
    private Watch watch;
    private boolean closed;

    /** @param mine this JVM's claims (namespace and owner label applied) */
    ClaimWatch(Supplier<FilterWatchListDeletable<SandboxClaim, ?, ?>> mine) {
        this.mine = mine;
    }

    /** Starts receiving the claim's events into the queue; the watch is open when this returns. */
    void subscribe(String name, BlockingQueue<Object> events) {
        waiters.put(name, events);
        try {
            ensureOpen();
        } catch (RuntimeException e) {
            waiters.remove(name);
            throw e;
        }
    }

    void unsubscribe(String name) {
        waiters.remove(name);
    }

    /** Opens the watch if it is not open (first use, or after it dropped). */
    synchronized void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("closed");
        }
        if (watch != null) {
            return;
        }
        try {
            watch = mine.get().watch(new Watcher<>() {
                @Override
                public void eventReceived(Action action, SandboxClaim c) {
                    BlockingQueue<Object> q = c.getMetadata() == null ? null : waiters.get(c.getMetadata().getName());
                    if (q != null) {
                        q.add(action == Action.DELETED ? GONE : c);
                    }
                }

                @Override
                public void onClose(WatcherException cause) {
                    dropped(cause);
                }
            });
        } catch (KubernetesClientException e) {
            throw KubeErrors.translate("watching this JVM's claims", e);
        }
    }

    private synchronized void dropped(WatcherException cause) {
        LOG.debug("sandbox4j: the watch of this JVM's claims dropped ({})", String.valueOf(cause));
        watch = null;
        waiters.values().forEach(q -> q.add(DROPPED));
    }

    /** Closes the watch, which the next waiter opens again. */
    synchronized void reset() {
        if (watch != null) {
            watch.close();
            watch = null;
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (watch != null) {
            watch.close();
            watch = null;
        }
    }
}
