package dev.sandbox4j.core.egress;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.Objects;

/**
 * One connection of a {@link RelayMux}: its receive window (a ring of {@value RelayMux#WINDOW} bytes the relay may
 * fill no further than the credit given), its send credit, and the pair of streams its handler reads and writes.
 * Reading credits the relay back a quarter window at a time; writing waits for credit and queues DATA frames on the
 * mux. Also the frame layout both sides of the mux write: type, id and length, then the payload.
 */
final class RelayConn {
    private final RelayMux mux;
    final long id;
    final byte[] ring = new byte[RelayMux.WINDOW];
    int head;
    int count;
    int unacked; // consumed but not yet credited back
    long sendCredit = RelayMux.WINDOW;
    boolean eof;
    boolean aborted;
    boolean inputClosed;
    boolean outputClosed;
    volatile boolean remoteClosed;
    final InputStream in = new In();
    final OutputStream out = new Out();

    RelayConn(RelayMux mux, long id) {
        this.mux = mux;
        this.id = id;
    }

    /** False when the relay sent beyond the window (or after EOF): a violation that aborts the connection. */
    synchronized boolean receive(byte[] b, int len) {
        if (aborted) {
            return true;
        }
        if (eof || count + unacked + len > RelayMux.WINDOW) {
            return false;
        }
        mux.peakConnectionBytes.accumulateAndGet(count + unacked + len, Math::max);
        if (inputClosed) {
            unacked += len; // dropped, but the window must stay honest
            return true;
        }
        int tail = (head + count) % RelayMux.WINDOW;
        int first = Math.min(len, RelayMux.WINDOW - tail);
        System.arraycopy(b, 0, ring, tail, first);
        System.arraycopy(b, first, ring, 0, len - first);
        count += len;
        notifyAll();
        return true;
    }

    synchronized void remoteEof() {
        eof = true;
        notifyAll();
    }

    synchronized boolean credit(long n) {
        if (sendCredit + n > RelayMux.WINDOW) {
            return false;
        }
        sendCredit += n;
        notifyAll();
        return true;
    }

    synchronized void abort() {
        aborted = true;
        notifyAll();
    }

    private void waitFor(long deadline) throws IOException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new java.net.SocketTimeoutException("relay connection " + id + " idle for too long");
        }
        try {
            wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException();
        }
    }

    final class In extends InputStream {
        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            Objects.checkFromIndexSize(off, len, b.length);
            if (len == 0) {
                return 0;
            }
            int n;
            int grant = 0;
            synchronized (RelayConn.this) {
                long deadline = System.nanoTime() + mux.idleTimeoutNanos;
                while (count == 0 && !eof && !aborted && !inputClosed) {
                    waitFor(deadline);
                }
                if (inputClosed || (aborted && count == 0 && !eof)) {
                    throw new IOException("relay connection " + id + " is closed");
                }
                if (count == 0) {
                    return -1;
                }
                n = Math.min(len, count);
                int first = Math.min(n, RelayMux.WINDOW - head);
                System.arraycopy(ring, head, b, off, first);
                System.arraycopy(ring, 0, b, off + first, n - first);
                head = (head + n) % RelayMux.WINDOW;
                count -= n;
                unacked += n;
                if (unacked >= RelayMux.WINDOW / 4 && !aborted) {
                    grant = unacked;
                    unacked = 0;
                }
            }
            if (grant > 0) {
                byte[] p = new byte[4];
                put32(p, 0, grant);
                mux.sendControl(RelayMux.CREDIT, id, p);
            }
            return n;
        }

        @Override
        public int available() {
            synchronized (RelayConn.this) {
                return count;
            }
        }

        @Override
        public void close() {
            synchronized (RelayConn.this) {
                inputClosed = true;
                count = 0;
                RelayConn.this.notifyAll();
            }
        }
    }

    final class Out extends OutputStream {
        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            Objects.checkFromIndexSize(off, len, b.length);
            while (len > 0) {
                int n;
                synchronized (RelayConn.this) {
                    long deadline = System.nanoTime() + mux.idleTimeoutNanos;
                    while (sendCredit == 0 && !aborted && !outputClosed) {
                        waitFor(deadline);
                    }
                    if (aborted || outputClosed) {
                        throw new IOException("relay connection " + id + " is closed");
                    }
                    n = (int) Math.min(Math.min(len, sendCredit), RelayMux.MAX_PAYLOAD);
                    sendCredit -= n;
                }
                mux.sendData(frameBytes(RelayMux.DATA, id, b, off, n));
                off += n;
                len -= n;
            }
        }

        @Override
        public void close() throws IOException {
            synchronized (RelayConn.this) {
                if (outputClosed || aborted) {
                    outputClosed = true;
                    return;
                }
                outputClosed = true;
            }
            mux.sendData(frameBytes(RelayMux.EOF, id, null, 0, 0));
        }
    }

    static byte[] frameBytes(int type, long id, byte[] b, int off, int len) {
        byte[] f = new byte[RelayMux.HEADER + len];
        f[0] = (byte) type;
        put32(f, 1, id);
        put32(f, 5, len);
        if (len > 0) {
            System.arraycopy(b, off, f, RelayMux.HEADER, len);
        }
        return f;
    }

    static long u32(byte[] b, int off) {
        return ((b[off] & 0xffL) << 24) | ((b[off + 1] & 0xffL) << 16) | ((b[off + 2] & 0xffL) << 8) | (b[off + 3] & 0xffL);
    }

    static void put32(byte[] b, int off, long v) {
        b[off] = (byte) (v >>> 24);
        b[off + 1] = (byte) (v >>> 16);
        b[off + 2] = (byte) (v >>> 8);
        b[off + 3] = (byte) v;
    }

    /** Reads {@code n} bytes of a frame; false at a clean end of the stream before the first (when that is allowed). */
    static boolean readFully(InputStream from, byte[] b, int n, boolean eofAtStartIsClean) throws IOException {
        int off = 0;
        while (off < n) {
            int r = from.read(b, off, n - off);
            if (r < 0) {
                if (off == 0 && eofAtStartIsClean) {
                    return false;
                }
                throw new EOFException();
            }
            off += r;
        }
        return true;
    }
}
