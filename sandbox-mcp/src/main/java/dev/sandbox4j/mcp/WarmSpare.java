package dev.sandbox4j.mcp;

import dev.sandbox4j.Sandbox;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fresh sandboxes, one per call, with the next one opened in the background while the current call runs: a call
 * waits for an open only when calls come faster than sandboxes open. Closing closes the spare too.
 */
final class WarmSpare implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WarmSpare.class);

    private final Supplier<Sandbox> opener;
    private final ExecutorService background = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "sandbox-mcp-spare");
        t.setDaemon(true);
        return t;
    });
    private CompletableFuture<Sandbox> next;
    private boolean closed;

    WarmSpare(Supplier<Sandbox> opener) {
        this.opener = opener;
    }

    /** A sandbox no call has used; the caller closes it. */
    Sandbox take() {
        CompletableFuture<Sandbox> mine;
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("the server is shutting down");
            }
            mine = next;
            next = CompletableFuture.supplyAsync(opener, background);
        }
        if (mine == null) {
            return opener.get();
        }
        try {
            return mine.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            mine.thenAccept(WarmSpare::closeQuietly);
            throw new IllegalStateException("interrupted while a sandbox opened", e);
        } catch (ExecutionException e) {
            // the spare failed to open (perhaps a passing fault): one more try, in this thread
            LOG.debug("spare sandbox failed to open: {}", e.getCause().toString());
            return opener.get();
        }
    }

    static void closeQuietly(Sandbox s) {
        try {
            s.close();
        } catch (RuntimeException e) {
            LOG.warn("closing sandbox {} failed: {}", s.id(), e.toString());
        }
    }

    @Override
    public void close() {
        CompletableFuture<Sandbox> last;
        synchronized (this) {
            closed = true;
            last = next;
            next = null;
        }
        if (last != null) {
            last.thenAccept(WarmSpare::closeQuietly);
            try {
                last.join();
            } catch (RuntimeException ignored) {
                // it never opened: nothing to close
            }
        }
        background.shutdown();
    }
}
