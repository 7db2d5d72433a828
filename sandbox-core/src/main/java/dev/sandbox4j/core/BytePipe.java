package dev.sandbox4j.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;

/**
 * A bounded in-memory pipe between threads: what one writes, another reads, in order. Writers block while
 * {@code capacity} bytes wait (backpressure), readers while none do. Unlike {@link java.io.PipedInputStream} it
 * neither polls nor cares which threads use it. Either end may close it: a reader then gets end of stream once what
 * was written is read, a writer an {@link IOException}.
 */
public final class BytePipe {
    private final byte[] buf;
    private int head;
    private int size;
    private boolean closed;
    private boolean finished;

    public BytePipe(int capacity) {
        this.buf = new byte[capacity];
    }

    /** The reading end. */
    public final InputStream in = new InputStream() {
        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            synchronized (BytePipe.this) {
                while (size == 0 && !closed && !finished) {
                    waitQuietly();
                }
                if (size == 0) {
                    return -1;
                }
                int n = Math.min(len, size);
                int first = Math.min(n, buf.length - head);
                System.arraycopy(buf, head, b, off, first);
                System.arraycopy(buf, 0, b, off + first, n - first);
                head = (head + n) % buf.length;
                size -= n;
                BytePipe.this.notifyAll();
                return n;
            }
        }

        @Override
        public int available() {
            synchronized (BytePipe.this) {
                return size;
            }
        }

        @Override
        public void close() {
            BytePipe.this.close();
        }
    };

    /** The writing end. */
    public final OutputStream out = new OutputStream() {
        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            synchronized (BytePipe.this) {
                while (len > 0) {
                    while (size == buf.length && !closed) {
                        waitQuietly();
                    }
                    if (closed) {
                        throw new IOException("pipe closed");
                    }
                    int n = Math.min(len, buf.length - size);
                    int tail = (head + size) % buf.length;
                    int first = Math.min(n, buf.length - tail);
                    System.arraycopy(b, off, buf, tail, first);
                    System.arraycopy(b, off + first, buf, 0, n - first);
                    size += n;
                    off += n;
                    len -= n;
                    BytePipe.this.notifyAll();
                }
            }
        }

        @Override
        public void close() {
            BytePipe.this.close();
        }
    };

    /**
     * Ends the writing side only: the reader gets what was written, then end of stream; a writer blocked on a full
     * pipe is not released (use {@link #close()} for that).
     */
    public synchronized void finish() {
        finished = true;
        notifyAll();
    }

    /** Ends the pipe for both sides. */
    public synchronized void close() {
        closed = true;
        notifyAll();
    }

    private void waitQuietly() throws InterruptedIOException {
        try {
            wait();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting on a pipe");
        }
    }
}
