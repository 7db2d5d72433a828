package dev.sandbox4j.kubernetes;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.core.AgentHandshake;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;

/**
 * The host's end of the agent's TCP connector ({@code sbx-agent --listen}, PROTOCOL.md "The TCP connector"): connects,
 * then proves it holds the pool's key and checks that the agent does, before any frame. Each side answers the other's
 * fresh nonce with an HMAC-SHA256 under the key, so the key never crosses the wire and a recorded exchange is useless.
 */
final class AgentConnector {
    static final int KEY_BYTES = AgentHandshake.KEY_BYTES;

    private AgentConnector() {
    }

    /** Why the agent could not be reached or did not prove itself (the open fails with it). */
    static final class Refused extends IOException {
        final ErrorKind kind;

        Refused(ErrorKind kind, String message, Throwable cause) {
            super(message, cause);
            this.kind = kind;
        }
    }

    /**
     * A connection to the agent at {@code host:port} that passed the handshake under {@code key}, with no read
     * timeout left on it (the frames that follow wait as long as commands run). The whole of it is bounded by
     * {@code timeout}; a closed socket on any failure.
     */
    static Socket connect(String host, int port, byte[] key, Duration timeout) throws Refused {
        Socket s = new Socket();
        try {
            int ms = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
            s.setTcpNoDelay(true);
            s.setKeepAlive(true);
            long deadline = System.nanoTime() + timeout.toNanos();
            for (long pause = 10; ; pause = Math.min(200, pause * 2)) {
                try {
                    s.connect(new InetSocketAddress(host, port), ms);
                    break;
                } catch (java.net.ConnectException e) {
                    // refused: a pod Ready a moment before its agent listens (no startupProbe); tried again in time
                    closeQuietly(s);
                    if (System.nanoTime() + pause * 1_000_000 > deadline) {
                        throw new Refused(ErrorKind.BACKEND_UNAVAILABLE, "cannot connect to the sandbox's agent at "
                                + host + ":" + port + " (" + e.getMessage() + ")", e);
                    }
                    sleep(pause);
                    s = new Socket();
                    s.setTcpNoDelay(true);
                    s.setKeepAlive(true);
                } catch (IOException e) {
                    throw new Refused(ErrorKind.BACKEND_UNAVAILABLE, "cannot connect to the sandbox's agent at "
                            + host + ":" + port + " (" + e.getMessage() + ")", e);
                }
            }
            s.setSoTimeout(ms);
            handshake(s.getInputStream(), s.getOutputStream(), key, host + ":" + port);
            s.setSoTimeout(0);
            return s;
        } catch (Refused e) {
            closeQuietly(s);
            throw e;
        } catch (SocketTimeoutException e) {
            closeQuietly(s);
            throw new Refused(ErrorKind.TIMEOUT, "the sandbox's agent at " + host + ":" + port + " did not complete "
                    + "the handshake within " + timeout.toMillis() + " ms", e);
        } catch (IOException e) {
            closeQuietly(s);
            throw new Refused(ErrorKind.BACKEND_UNAVAILABLE, "the handshake with the sandbox's agent at " + host + ":"
                    + port + " failed (" + e.getMessage() + ")", e);
        }
    }

    /** The handshake over {@code in}/{@code out} (core's {@link AgentHandshake}); {@code where} names the peer. */
    static void handshake(InputStream in, OutputStream out, byte[] key, String where) throws IOException {
        try {
            AgentHandshake.run(in, out, key, where, "the pool's key (the JVM's Secret and the pool's differ?)");
        } catch (AgentHandshake.Refused r) {
            throw new Refused(r.kind(), r.getMessage(), r);
        }
    }

    static byte[] hmac(byte[] key, byte[] label, byte[] nonce) {
        return AgentHandshake.hmac(key, label, nonce);
    }

    /** The key from its text (64 hex digits, surrounding white space ignored), or null when it is not one. */
    static byte[] parseKey(String text) {
        String t = text == null ? "" : text.strip();
        if (t.length() != 2 * KEY_BYTES) {
            return null;
        }
        try {
            return java.util.HexFormat.of().parseHex(t);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static void sleep(long ms) throws Refused {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Refused(ErrorKind.INTERRUPTED, "interrupted while connecting to the sandbox's agent", e);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing was sent on it
        }
    }
}
