package dev.sandbox4j.mcp;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.tools.ToolResult;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP server's clients, one per MCP session: each with its own sandboxes and a bound on its running calls.
 * A client's sandboxes close when its session ends ({@code DELETE}), when it has been silent for the idle timeout,
 * or when the server closes.
 */
final class Clients implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Clients.class);

    private static final class Client {
        final SandboxPool pool;
        final Semaphore calls;
        volatile long lastSeen = System.nanoTime();

        Client(SandboxPool pool, int maxCalls) {
            this.pool = pool;
            this.calls = new Semaphore(maxCalls);
        }
    }

    private final Supplier<Sandbox> opener;
    private final int maxSandboxes;
    private final int maxCalls;
    private final int maxClients;
    private final Duration idle;
    private final Map<String, Client> clients = new ConcurrentHashMap<>();
    private final ScheduledExecutorService sweeper;
    private volatile boolean closed;

    Clients(Supplier<Sandbox> opener, int maxSandboxes, int maxCalls, int maxClients, Duration idle) {
        this.opener = opener;
        this.maxSandboxes = maxSandboxes;
        this.maxCalls = maxCalls;
        this.maxClients = maxClients;
        this.idle = idle;
        this.sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sandbox-mcp-clients");
            t.setDaemon(true);
            return t;
        });
        long every = Math.max(50, Math.min(idle.toMillis() / 4, 30_000));
        sweeper.scheduleWithFixedDelay(this::sweep, every, every, TimeUnit.MILLISECONDS);
    }

    private static String key(String session) {
        return session == null ? "" : session;
    }

    private Client client(String session) {
        if (closed) {
            throw new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, "the server is shutting down");
        }
        Client c = clients.get(key(session));
        if (c != null) {
            c.lastSeen = System.nanoTime();
            return c;
        }
        synchronized (this) {
            c = clients.get(key(session));
            if (c == null) {
                if (clients.size() >= maxClients) {
                    throw new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, clients.size() + " clients have"
                            + " sandboxes, the most this server serves at once; try again later");
                }
                c = new Client(new SandboxPool(opener, maxSandboxes, idle, false), maxCalls);
                clients.put(key(session), c);
                LOG.info("client {} connected ({} clients)", session, clients.size());
            }
            return c;
        }
    }

    /** The calling client's sandboxes. */
    SandboxPool pool(McpSyncServerExchange exchange) {
        return client(exchange.sessionId()).pool;
    }

    /** Admits one call of a client: null, or the refusal when it has too many running or the server is full. */
    ToolResult begin(String session) {
        try {
            Client c = client(session);
            if (!c.calls.tryAcquire()) {
                return ToolResult.error(ErrorKind.BACKEND_UNAVAILABLE, maxCalls + " calls of this client are"
                        + " running, the most it may have at once; wait for one to finish");
            }
            return null;
        } catch (SandboxException e) {
            return ToolResult.error(e);
        }
    }

    void end(String session) {
        Client c = clients.get(key(session));
        if (c != null) {
            c.calls.release();
            c.lastSeen = System.nanoTime();
        }
    }

    /** A request of this session arrived: it is not idle. */
    void touch(String session) {
        Client c = clients.get(key(session));
        if (c != null) {
            c.lastSeen = System.nanoTime();
        }
    }

    /** The session ended: its sandboxes close now. */
    void ended(String session) {
        Client c = clients.remove(key(session));
        if (c != null) {
            LOG.info("client {} ended its session: closing its {} sandbox(es)", session, c.pool.size());
            c.pool.close();
        }
    }

    int size() {
        return clients.size();
    }

    int sandboxes() {
        int n = 0;
        for (Client c : clients.values()) {
            n += c.pool.size();
        }
        return n;
    }

    void sweep() {
        long now = System.nanoTime();
        List<Map.Entry<String, Client>> stale = new ArrayList<>();
        for (Map.Entry<String, Client> e : clients.entrySet()) {
            Client c = e.getValue();
            boolean busy = c.calls.availablePermits() < maxCalls;
            if (!busy && now - c.lastSeen > idle.toNanos()) {
                stale.add(e);
            } else {
                c.pool.sweep();
            }
        }
        for (Map.Entry<String, Client> e : stale) {
            if (clients.remove(e.getKey(), e.getValue())) {
                LOG.info("client {} idle for {} s: closing its sandboxes", e.getKey(), idle.toSeconds());
                e.getValue().pool.close();
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        sweeper.shutdownNow();
        for (String session : new ArrayList<>(clients.keySet())) {
            ended(session);
        }
    }
}
