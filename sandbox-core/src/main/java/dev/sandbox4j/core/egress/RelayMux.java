package dev.sandbox4j.core.egress;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The host side of {@code sbx-relay}: reads its frames from the relay's stdout, gives each connection the relay
 * accepted (OPEN) to a {@link Handler} on its own thread as a pair of streams, and writes that connection's bytes back
 * as frames to the relay's stdin. The frame format is described in {@code src/main/c/sbx-relay.c}.
 *
 * <p>Every byte from the relay is treated as hostile (any process in the sandbox may try to speak for it): frame
 * lengths are bounded ({@value #MAX_PAYLOAD} bytes), ids must grow, at most {@code maxConnections} handlers run at
 * once, counted until each returns even when the relay closed its connection earlier (more are refused with CLOSE), each connection buffers at most its {@value #WINDOW}-byte window (DATA beyond the
 * credit given aborts that connection), and a malformed frame ends the whole mux ({@link #failure()} says why). The
 * reader thread never blocks on anything but the relay's stream, so a slow handler or a relay that stops reading its
 * stdin cannot stall other connections' input.
 *
 * <pre>{@code
 * RelayMux mux = new RelayMux(relayStdout, relayStdin, proxy::serve, RelayMux.DEFAULT_MAX_CONNECTIONS).start();
 * int port = mux.awaitReady(Duration.ofSeconds(10));   // the port sbx-relay listens on, from its HELLO
 * ...
 * mux.close();
 * }</pre>
 */
public final class RelayMux implements Closeable {
    /** Serves one connection; {@code out.close()} half-closes it (EOF to the client). */
    @FunctionalInterface
    public interface Handler {
        void handle(InputStream in, OutputStream out) throws IOException;
    }

    // wire constants: begin (the relay's only definition: the build writes them into sbx-relay.c's
    // sbx-relay-protocol.h as RELAY_<name> with src/main/c/gen-protocol.sh, so they stay literal values)
    /** The protocol version sbx-relay's HELLO must carry. */
    public static final int VERSION = 1;
    public static final int MAX_PAYLOAD = 16384;
    public static final int WINDOW = 65536;

    static final int HELLO = 1;
    static final int OPEN = 2;
    static final int DATA = 3;
    static final int EOF = 4;
    static final int CLOSE = 5;
    static final int CREDIT = 6;
    static final int HEADER = 9;
    // wire constants: end

    public static final int DEFAULT_MAX_CONNECTIONS = 128;

    private static final int MAX_QUEUED_CONTROL = 4096;
    private static final int MAX_QUEUED_DATA = 64;
    private static final System.Logger LOG = System.getLogger(RelayMux.class.getName());
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final InputStream from;
    private final OutputStream to;
    private final Handler handler;
    private final int maxConnections;
    final long idleTimeoutNanos;
    private final Map<Long, RelayConn> conns = new HashMap<>();
    private final ArrayDeque<byte[]> control = new ArrayDeque<>();
    private final ArrayDeque<byte[]> data = new ArrayDeque<>();
    private final Object outbox = new Object();
    private final Object lifecycle = new Object();
    final java.util.concurrent.atomic.AtomicLong peakConnectionBytes = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicInteger peakConnections = new java.util.concurrent.atomic.AtomicInteger();
    private int running; // handlers not yet returned (guarded by conns): what maxConnections bounds
    private long lastId;
    private int port = -1;
    private boolean closed;
    private String failure;
    private Thread reader;
    private Thread writer;

    /** A mux with {@value #DEFAULT_MAX_CONNECTIONS} connections at most and a 10-minute idle timeout per stream. */
    public RelayMux(InputStream fromRelay, OutputStream toRelay, Handler handler) {
        this(fromRelay, toRelay, handler, DEFAULT_MAX_CONNECTIONS, Duration.ofMinutes(10));
    }

    /**
     * @param fromRelay the relay's stdout
     * @param toRelay the relay's stdin
     * @param handler serves each connection, e.g. {@code proxy::serve}
     * @param maxConnections connections served at once; more are refused
     * @param idleTimeout a read or a wait for credit on one connection longer than this fails that connection
     */
    public RelayMux(InputStream fromRelay, OutputStream toRelay, Handler handler, int maxConnections,
            Duration idleTimeout) {
        this.from = Objects.requireNonNull(fromRelay, "fromRelay");
        this.to = Objects.requireNonNull(toRelay, "toRelay");
        this.handler = Objects.requireNonNull(handler, "handler");
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections (" + maxConnections + ") must be positive");
        }
        this.maxConnections = maxConnections;
        this.idleTimeoutNanos = Math.max(1, idleTimeout.toNanos());
    }

    /** Starts the reader and writer threads. */
    public RelayMux start() {
        synchronized (lifecycle) {
            if (reader != null) {
                throw new IllegalStateException("already started");
            }
            reader = daemon(this::readLoop, "sandbox4j-relay-reader-" + THREADS.incrementAndGet());
            writer = daemon(this::writeLoop, "sandbox4j-relay-writer-" + THREADS.incrementAndGet());
        }
        return this;
    }

    /**
     * Waits for the relay's HELLO and returns the port it listens on inside the sandbox.
     *
     * @throws IOException when the mux ended first (the message says why)
     * @throws TimeoutException when no HELLO came in time
     */
    public int awaitReady(Duration timeout) throws IOException, InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lifecycle) {
            while (port < 0 && !closed) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new TimeoutException("sbx-relay sent no HELLO within " + timeout);
                }
                lifecycle.wait(Math.max(1, left / 1_000_000));
            }
            if (port < 0) {
                throw new IOException("sbx-relay ended before it was ready: "
                        + (failure != null ? failure : "its stdout ended"));
            }
            return port;
        }
    }

    /**
     * Connections being served now: handlers that have not returned, including those whose connection the relay
     * already closed (a handler may still be finishing its upstream side; it counts until it returns).
     */
    public int openConnections() {
        synchronized (conns) {
            return running;
        }
    }

    public boolean isClosed() {
        synchronized (lifecycle) {
            return closed;
        }
    }

    /** Why the mux ended on its own (a protocol violation, a stream error), or null. */
    public String failure() {
        synchronized (lifecycle) {
            return failure;
        }
    }

    /** Waits until the mux has ended (the relay's stdout ended, a protocol error, or {@link #close()}). */
    public boolean awaitClosed(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lifecycle) {
            while (!closed) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                lifecycle.wait(Math.max(1, left / 1_000_000));
            }
            return true;
        }
    }

    /** Bytes held for all connections now (never more than {@value #WINDOW} per connection). */
    long bufferedBytes() {
        long total = 0;
        synchronized (conns) {
            for (RelayConn c : conns.values()) {
                synchronized (c) {
                    total += c.count;
                }
            }
        }
        return total;
    }

    /** The most bytes one connection has held (relay-sent, not yet credited back) since start: at most the window. */
    long peakConnectionBytes() {
        return peakConnectionBytes.get();
    }

    /** The most connections served at once since start. */
    int peakConnections() {
        return peakConnections.get();
    }

    /**
     * Ends every connection and closes both streams. Idempotent. The reader thread ends when the relay's stdout does:
     * sbx-relay exits when its stdin ends, and a backend should still stop the relay's command when it closes.
     */
    @Override
    public void close() {
        end(null);
    }

    private void end(String why) {
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
            failure = why;
            lifecycle.notifyAll();
        }
        if (why != null) {
            LOG.log(System.Logger.Level.DEBUG, "relay mux ended: {0}", why);
        }
        RelayConn[] all;
        synchronized (conns) {
            all = conns.values().toArray(new RelayConn[0]);
            conns.clear();
        }
        for (RelayConn c : all) {
            c.abort();
        }
        synchronized (outbox) {
            control.clear();
            data.clear();
            outbox.notifyAll();
        }
        EgressProxy.closeQuietly(to); // first: sbx-relay exits when its stdin ends, which ends its stdout too
        EgressProxy.closeQuietly(from);
    }

    // ------------------------------------------------------------------ reading

    private void readLoop() {
        byte[] header = new byte[HEADER];
        byte[] payload = new byte[MAX_PAYLOAD];
        String why;
        try {
            while (true) {
                if (!RelayConn.readFully(from, header, HEADER, true)) {
                    why = null; // the relay's stdout ended cleanly between frames
                    break;
                }
                int type = header[0] & 0xff;
                long id = RelayConn.u32(header, 1);
                long len = RelayConn.u32(header, 5);
                if (len > MAX_PAYLOAD) {
                    why = "frame of " + len + " bytes (at most " + MAX_PAYLOAD + ")";
                    break;
                }
                RelayConn.readFully(from, payload, (int) len, false);
                why = frame(type, id, payload, (int) len);
                if (why != null) {
                    break;
                }
            }
        } catch (EOFException e) {
            why = "truncated frame";
        } catch (IOException e) {
            why = isClosed() ? null : "reading from sbx-relay failed: " + e;
        } catch (RuntimeException | Error e) {
            LOG.log(System.Logger.Level.ERROR, "relay mux reader failed", e);
            why = "internal error: " + e;
        }
        end(why);
    }

    /** Handles one frame; a non-null return is a protocol violation that ends the mux. */
    private String frame(int type, long id, byte[] payload, int len) {
        boolean ready;
        synchronized (lifecycle) {
            ready = port >= 0;
        }
        if (!ready) {
            if (type != HELLO || id != 0 || len != 3) {
                return "the first frame was not HELLO";
            }
            if ((payload[0] & 0xff) != VERSION) {
                return "sbx-relay speaks protocol " + (payload[0] & 0xff) + ", this host " + VERSION;
            }
            int p = ((payload[1] & 0xff) << 8) | (payload[2] & 0xff);
            if (p == 0) {
                return "HELLO with port 0";
            }
            synchronized (lifecycle) {
                port = p;
                lifecycle.notifyAll();
            }
            return null;
        }
        switch (type) {
            case OPEN:
                if (len != 0 || id <= lastId) {
                    return "bad OPEN (id " + id + " after " + lastId + ", length " + len + ")";
                }
                lastId = id;
                open(id);
                return null;
            case DATA: {
                if (len == 0) {
                    return "empty DATA";
                }
                RelayConn c = conn(id);
                if (c != null && !c.receive(payload, len)) {
                    abortAndClose(c);
                }
                return null;
            }
            case EOF: {
                if (len != 0) {
                    return "EOF with a payload";
                }
                RelayConn c = conn(id);
                if (c != null) {
                    c.remoteEof();
                }
                return null;
            }
            case CLOSE: {
                if (len != 0) {
                    return "CLOSE with a payload";
                }
                RelayConn c;
                synchronized (conns) {
                    c = conns.remove(id);
                }
                if (c != null) {
                    c.remoteClosed = true;
                    c.abort();
                }
                return null;
            }
            case CREDIT: {
                if (len != 4) {
                    return "CREDIT of length " + len;
                }
                RelayConn c = conn(id);
                if (c != null && !c.credit(RelayConn.u32(payload, 0))) {
                    abortAndClose(c);
                }
                return null;
            }
            default:
                return "unknown frame type " + type;
        }
    }

    private void open(long id) {
        RelayConn c = new RelayConn(this, id);
        synchronized (conns) {
            if (running >= maxConnections) {
                c = null;
            } else {
                conns.put(id, c);
                running++;
                peakConnections.accumulateAndGet(running, Math::max);
            }
        }
        if (c == null) {
            LOG.log(System.Logger.Level.DEBUG, "relay connection {0} refused: {1} connections open", id,
                    maxConnections);
            sendControl(CLOSE, id, null);
            return;
        }
        RelayConn conn = c;
        daemon(() -> serve(conn), "sandbox4j-relay-conn-" + id + "-" + THREADS.incrementAndGet());
    }

    private void serve(RelayConn c) {
        try {
            handler.handle(c.in, c.out);
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "relay connection {0} ended: {1}", c.id, e.toString());
        } finally {
            boolean mine;
            synchronized (conns) {
                mine = conns.remove(c.id) == c;
                running--;
            }
            c.abort();
            if (mine && !c.remoteClosed) {
                try {
                    sendData(RelayConn.frameBytes(CLOSE, c.id, null, 0, 0)); // after this connection's queued DATA and EOF
                } catch (IOException e) {
                    // the mux is closed: nothing to tell the relay
                }
            }
        }
    }

    private void abortAndClose(RelayConn c) {
        synchronized (conns) {
            conns.remove(c.id, c);
        }
        c.abort();
        sendControl(CLOSE, c.id, null);
    }

    private RelayConn conn(long id) {
        synchronized (conns) {
            return conns.get(id);
        }
    }

    // ------------------------------------------------------------------ writing

    /** Queues a small frame; never blocks (the reader thread calls it). Too many queued means a hostile relay. */
    void sendControl(int type, long id, byte[] payload) {
        byte[] f = RelayConn.frameBytes(type, id, payload, 0, payload == null ? 0 : payload.length);
        boolean overflow;
        synchronized (outbox) {
            if (isClosed()) {
                return;
            }
            overflow = control.size() >= MAX_QUEUED_CONTROL;
            if (!overflow) {
                control.add(f);
                outbox.notifyAll();
            }
        }
        if (overflow) {
            end("sbx-relay is not reading its stdin (" + MAX_QUEUED_CONTROL + " control frames queued)");
        }
    }

    /** Queues a DATA or EOF frame, waiting while the queue is full. */
    void sendData(byte[] frame) throws IOException {
        synchronized (outbox) {
            while (data.size() >= MAX_QUEUED_DATA && !isClosed()) {
                try {
                    outbox.wait(1000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while sending to sbx-relay");
                }
            }
            if (isClosed()) {
                throw new IOException("the relay connection is closed");
            }
            data.add(frame);
            outbox.notifyAll();
        }
    }

    private void writeLoop() {
        try {
            while (true) {
                byte[] f;
                boolean more;
                synchronized (outbox) {
                    while (control.isEmpty() && data.isEmpty() && !isClosed()) {
                        outbox.wait();
                    }
                    if (isClosed()) {
                        return;
                    }
                    f = !control.isEmpty() ? control.poll() : data.poll();
                    more = !control.isEmpty() || !data.isEmpty();
                    outbox.notifyAll();
                }
                to.write(f);
                if (!more) {
                    to.flush();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            end("writer interrupted");
        } catch (IOException e) {
            end(isClosed() ? null : "writing to sbx-relay failed: " + e);
        }
    }

    // ------------------------------------------------------------------ one connection

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
