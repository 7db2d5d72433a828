package dev.sandbox4j.core;

import dev.sandbox4j.PortForward;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One opened port: a server socket on the host's loopback whose accepting loop runs on a shared worker, each accepted
 * connection carried by a {@link PortConnection} while the sandbox's connection slots last (beyond them a connection
 * is closed at once, with a reset, so the client knows it was refused rather than answered).
 */
final class PortForwarder implements PortForward {
    private final AgentChannel channel;
    private final String root;
    private final int sandboxPort;
    private final ServerSocket server;
    private final InetSocketAddress address;
    private final Semaphore slots;
    private final Consumer<PortForwarder> onClose;
    private final Set<PortConnection> connections = ConcurrentHashMap.newKeySet();
    private volatile boolean open = true;
    /** Counted down when the accepting loop has left: only then has the listening socket really closed. */
    private final CountDownLatch acceptorLeft = new CountDownLatch(1);
    private volatile Thread acceptor;

    PortForwarder(AgentChannel channel, String root, int sandboxPort, ServerSocket server, Semaphore slots,
                  Consumer<PortForwarder> onClose) {
        this.channel = channel;
        this.root = root;
        this.sandboxPort = sandboxPort;
        this.server = server;
        this.address = new InetSocketAddress(server.getInetAddress(), server.getLocalPort());
        this.slots = slots;
        this.onClose = onClose;
    }

    void start() {
        Background.execute(this::acceptLoop);
    }

    private void acceptLoop() {
        acceptor = Thread.currentThread();
        try {
            acceptAll();
        } finally {
            acceptorLeft.countDown();
        }
    }

    private void acceptAll() {
        while (open) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                if (open) {
                    close(); // the server socket failed under us: nothing more can be accepted
                }
                return;
            }
            carry(s);
        }
    }

    private void carry(Socket s) {
        if (!open || !slots.tryAcquire()) {
            refuse(s);
            return;
        }
        PortConnection[] self = new PortConnection[1];
        PortConnection c = new PortConnection(channel, s, () -> {
            connections.remove(self[0]);
            slots.release();
        });
        self[0] = c;
        connections.add(c);
        try {
            s.setTcpNoDelay(true);
            c.start(sandboxPort, root);
        } catch (IOException e) {
            c.abort(); // the channel ended: the sandbox is closing
        }
        if (!open) {
            c.abort(); // closed while this one was starting
        }
    }

    private static void refuse(Socket s) {
        try {
            s.setSoLinger(true, 0);
            s.close();
        } catch (IOException ignored) {
            // refused either way
        }
    }

    @Override
    public int sandboxPort() {
        return sandboxPort;
    }

    @Override
    public InetSocketAddress address() {
        return address;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    /** Stops listening and ends every connection through this port at once. */
    @Override
    public void close() {
        if (!open) {
            return;
        }
        open = false;
        try {
            server.close();
        } catch (IOException ignored) {
            // closed is what was wanted
        }
        // a close racing a blocked accept() releases the socket only once that thread has left it: wait, so the port
        // refuses connections when close returns
        if (Thread.currentThread() != acceptor) {
            try {
                acceptorLeft.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (PortConnection c : connections) {
            c.abort();
        }
        onClose.accept(this);
    }

    @Override
    public String toString() {
        return "PortForward[127.0.0.1:" + address.getPort() + " -> sandbox port " + sandboxPort + "]";
    }
}
