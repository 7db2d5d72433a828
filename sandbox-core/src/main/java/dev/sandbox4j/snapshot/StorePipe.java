package dev.sandbox4j.snapshot;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SnapshotStore;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The bounded pipe between a capture (writing, on the caller's thread) and {@link SnapshotStore#put} (reading, on a
 * thread of its own): a failed capture makes the store's stream fail (so the store keeps nothing), a failed store
 * makes the capture's writes fail. At most {@link #BUFFER} bytes are in flight.
 */
final class StorePipe {
    static final int BUFFER = 1 << 20;

    private final PipedOutputStream out;
    private final CompletableFuture<Void> put = new CompletableFuture<>();
    private final String id;
    private final SnapshotStore store;
    private volatile Throwable failure;
    private long written;

    private StorePipe(SnapshotStore store, String id, PipedOutputStream out) {
        this.store = store;
        this.id = id;
        this.out = out;
    }

    static StorePipe start(SnapshotStore store, String id) {
        PipedInputStream in = new PipedInputStream(BUFFER);
        PipedOutputStream out;
        try {
            out = new PipedOutputStream(in);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        StorePipe p = new StorePipe(store, id, out);
        Thread t = new Thread(() -> p.run(in), "sandbox4j-snapshot-put-" + id);
        t.setDaemon(true);
        t.start();
        return p;
    }

    private void run(PipedInputStream raw) {
        try (InputStream in = new FilterInputStream(raw) {
            @Override
            public int read() throws IOException {
                int b = super.read();
                return b < 0 ? end() : b;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                int n = super.read(b, off, len);
                return n < 0 ? end() : n;
            }

            private int end() throws IOException {
                if (failure != null) {
                    throw new IOException("the capture failed: " + failure.getMessage(), failure);
                }
                return -1;
            }
        }) {
            store.put(id, in);
            put.complete(null);
        } catch (Throwable e) {
            put.completeExceptionally(e);
        }
    }

    /** Where the capture writes; counts what it wrote. */
    OutputStream sink() {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                try {
                    out.write(b, off, len);
                } catch (IOException e) {
                    throw storeError().map(se -> (IOException) new IOException(se.getMessage(), se)).orElse(e);
                }
                written += len;
            }

            @Override
            public void close() throws IOException {
                out.close();
            }
        };
    }

    long written() {
        return written;
    }

    /** The capture failed: the store's stream fails, and this waits for the store to give up. */
    void fail(Throwable why) {
        failure = why;
        try {
            out.close();
        } catch (IOException e) {
            // the reader is gone already
        }
        try {
            put.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            // expected: the stream failed it
        }
        try {
            if (store.stat(id).isPresent()) { // a store that kept a failed stream: take it out
                store.delete(id);
            }
        } catch (IOException | RuntimeException e) {
            // best effort; the store's own failure is what is reported
        }
    }

    /** The store's own failure, once it has failed (for a capture whose writes then failed). */
    Optional<SandboxException> storeError() {
        if (!put.isCompletedExceptionally()) {
            return Optional.empty();
        }
        try {
            put.join();
            return Optional.empty();
        } catch (java.util.concurrent.CompletionException e) {
            Throwable c = e.getCause();
            if (failure != null && c instanceof IOException && c.getCause() == failure) {
                return Optional.empty();
            }
            return Optional.of(c instanceof SandboxException se ? se : new SandboxException(ErrorKind.IO_ERROR,
                    "the snapshot store failed: " + c.getMessage(), c));
        }
    }

    /** The capture ended well: waits until the store has it all. */
    void await() {
        try {
            put.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SandboxException(ErrorKind.INTERRUPTED, "interrupted while storing snapshot " + id, e);
        } catch (ExecutionException e) {
            throw storeError().orElseGet(() -> new SandboxException(ErrorKind.IO_ERROR, "the snapshot store failed: "
                    + e.getCause(), e.getCause()));
        }
    }
}
