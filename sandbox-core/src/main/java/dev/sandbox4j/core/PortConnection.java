package dev.sandbox4j.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One host TCP connection of an opened port, carried by one {@code connect PORT} file operation of the agent
 * (PROTOCOL.md, "Ports"): the operation's stdin and stdout are records (int n, then n bytes when n &gt; 0; 0 a
 * half-close; a negative n a credit of -n bytes), so each direction has a window of {@link #WINDOW} bytes and the
 * channel's reader thread never waits for this client: what the sandbox sends is at most what was granted, and the
 * client's writer grants more only as the client takes it.
 *
 * <p>Threads: {@link #stdout} and the other events on the channel's reader; one shared worker copies the client to
 * the sandbox, another the sandbox to the client. The socket closes once the operation ended and its bytes reached
 * the client, or at once on {@link #abort}; {@code onEnd} runs once, then.
 */
final class PortConnection implements AgentChannel.Events {
    /**
     * Bytes in flight per direction: throughput is about a window per round trip of a credit (host, agent, operation
     * and back), so the window is what a loaded machine needs (docs/benchmarks.md, "Ports"). Towards the client it is
     * the host memory a stalled client holds; towards the sandbox, 16 stalled servers' windows fill the agent's 16 MiB
     * stdin queue, after which the agent stops reading this sandbox's channel until they read (a sandbox stalls only
     * itself).
     */
    static final int WINDOW = 1 << 20;
    /** Credit is granted back in batches of at least this much (one STDIN frame per batch, not per write). */
    static final int GRANT = WINDOW / 4;
    /** The most one record carries (the agent reads the socket 64 KiB at a time). */
    static final int READ = 64 << 10;

    private final AgentChannel channel;
    private final Socket client;
    private final int id;
    private final Runnable onEnd;
    /** The operation's data for the client: slices of the frames as they came (no copy), at most WINDOW bytes. */
    private final ArrayDeque<ByteBuffer> toClient = new ArrayDeque<>();
    /** No more data for the client will come (guarded by toClient). */
    private boolean toClientEnded;
    /** Bytes the operation may still send us: granted and not yet received. */
    private final AtomicLong granted = new AtomicLong(WINDOW);
    /** Client bytes sent to the operation and not yet acknowledged (guarded by this). */
    private long unacked;
    private boolean commandDone;
    private boolean writerDone;
    private final AtomicBoolean closed = new AtomicBoolean();
    // the stdout record being read (reader thread only)
    private final byte[] head = new byte[4];
    private int headLen;
    private int dataLeft;

    PortConnection(AgentChannel channel, Socket client, Runnable onEnd) {
        this.channel = channel;
        this.client = client;
        this.id = channel.newId();
        this.onEnd = onEnd;
    }

    /** Asks the agent to connect to {@code port} inside the sandbox and starts the copies. */
    void start(int port, String root) throws IOException {
        channel.file(id, List.of("connect", Integer.toString(port)), root, this);
        channel.go(id, false);
        channel.stdin(id, record(-WINDOW, null, 0), 0, 4, true);
        Background.execute(this::clientToSandbox);
        Background.execute(this::sandboxToClient);
    }

    private static byte[] record(int n, byte[] data, int len) {
        byte[] r = new byte[4 + len];
        r[0] = (byte) (n >>> 24);
        r[1] = (byte) (n >>> 16);
        r[2] = (byte) (n >>> 8);
        r[3] = (byte) n;
        if (len > 0) {
            System.arraycopy(data, 0, r, 4, len);
        }
        return r;
    }

    /** The client's bytes to the operation, within the operation's credit; the client's EOF as a 0 record. */
    private void clientToSandbox() {
        byte[] buf = new byte[READ];
        try {
            InputStream in = client.getInputStream();
            while (true) {
                int room;
                synchronized (this) {
                    while (unacked >= WINDOW && !commandDone && !closed.get()) {
                        wait();
                    }
                    if (commandDone || closed.get()) {
                        return;
                    }
                    room = (int) Math.min(READ, WINDOW - unacked);
                }
                int n = in.read(buf, 0, room);
                if (n < 0) {
                    channel.stdin(id, record(0, null, 0), 0, 4, true);
                    return;
                }
                synchronized (this) {
                    unacked += n;
                }
                channel.stdin(id, record(n, buf, n), 0, 4 + n, true);
            }
        } catch (IOException e) {
            abort(); // the client reset, or the channel ended
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abort();
        }
    }

    /** The operation's bytes to the client; each write granted back to the operation as credit. */
    private void sandboxToClient() {
        try {
            OutputStream out = client.getOutputStream();
            int owed = 0;
            for (ByteBuffer b; (b = nextForClient()) != null; ) {
                out.write(b.array(), b.position(), b.remaining());
                owed += b.remaining();
                if (owed >= GRANT || nothingForClient()) {
                    granted.addAndGet(owed);
                    if (!isCommandDone()) {
                        channel.stdin(id, record(-owed, null, 0), 0, 4, true);
                    }
                    owed = 0;
                }
            }
            client.shutdownOutput();
        } catch (IOException e) {
            abort(); // the client is gone
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abort();
            return;
        }
        boolean close;
        synchronized (this) {
            writerDone = true;
            close = commandDone;
        }
        if (close) {
            closeSocket();
        }
    }

    /** The next slice for the client, waiting for one; null once none will come. */
    private ByteBuffer nextForClient() throws InterruptedException {
        synchronized (toClient) {
            while (toClient.isEmpty() && !toClientEnded) {
                toClient.wait();
            }
            return toClient.poll();
        }
    }

    private boolean nothingForClient() {
        synchronized (toClient) {
            return toClient.isEmpty();
        }
    }

    private void forClient(ByteBuffer slice) {
        synchronized (toClient) {
            if (!toClientEnded) {
                toClient.add(slice);
                toClient.notifyAll();
            }
        }
    }

    /** No more data for the client; {@code drop} also drops what waits (an abort). */
    private void endForClient(boolean drop) {
        synchronized (toClient) {
            toClientEnded = true;
            if (drop) {
                toClient.clear();
            }
            toClient.notifyAll();
        }
    }

    private synchronized boolean isCommandDone() {
        return commandDone;
    }

    @Override
    public void spawned(int pid) {
    }

    @Override
    public void stdout(byte[] b) {
        int i = 0;
        while (i < b.length && !closed.get()) {
            if (dataLeft > 0) {
                int n = Math.min(dataLeft, b.length - i);
                forClient(ByteBuffer.wrap(b, i, n));
                i += n;
                dataLeft -= n;
                continue;
            }
            head[headLen++] = b[i++];
            if (headLen == 4) {
                headLen = 0;
                record(AgentProtocol.readInt(head));
            }
        }
    }

    /** One stdout record's header: data (within the grant), the server's half-close, or a credit. */
    private void record(int n) {
        if (n > 0) {
            if (n > READ || granted.addAndGet(-n) < 0) {
                abort(); // more than was granted: the operation is not ours to trust
            }
            dataLeft = n;
        } else if (n == 0) {
            endForClient(false);
        } else {
            synchronized (this) {
                if (-(long) n > unacked) {
                    abort(); // acknowledges bytes never sent
                    return;
                }
                unacked += n;
                notifyAll();
            }
        }
    }

    @Override
    public void stderr(byte[] bytes) {
        // the operation's failure line (nothing listens): the client sees the connection close
    }

    @Override
    public void exited(int code, long oomKills) {
        ended();
    }

    @Override
    public void failed(String message) {
        ended();
    }

    @Override
    public void lost(String why) {
        ended();
    }

    /** The operation ended: what it sent goes to the client, then the socket closes. */
    private void ended() {
        boolean close;
        synchronized (this) {
            commandDone = true;
            close = writerDone;
            notifyAll();
        }
        channel.forget(id);
        endForClient(false);
        if (close) {
            closeSocket();
        }
    }

    /** Ends the connection at once: the operation is killed, the client closed. */
    void abort() {
        if (closed.get()) {
            return;
        }
        if (!isCommandDone()) {
            try {
                channel.signal(id, 9);
            } catch (IOException ignored) {
                // the channel is gone, and the operation with it
            }
        }
        closeSocket();
    }

    private void closeSocket() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        endForClient(true);
        synchronized (this) {
            notifyAll();
        }
        try {
            client.close();
        } catch (IOException ignored) {
            // closed is what was wanted
        }
        onEnd.run();
    }
}
