package dev.sandbox4j.docker;

import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.StreamType;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.core.BytePipe;
import dev.sandbox4j.core.OutputBuffer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The agent's two byte streams over the container's attach connection: what the host writes goes to the container's
 * stdin through a pipe the engine client's stdin thread reads; the container's stdout frames come back as the
 * agent's output, its stderr frames are kept for diagnostics. The host owns the order in which the streams end (see
 * {@link ContainerHost#close}).
 */
final class ContainerAttach {
    /** How long {@link #endInput} waits for the stdin thread to end its request. */
    private static final long STDIN_DRAIN_MS = 300;

    private final BytePipe toAgent = new BytePipe(1 << 20);
    private final BytePipe fromAgent = new BytePipe(1 << 20);
    /** Completed when the engine client's stdin thread has read the end of {@link #toAgent} (see endInput). */
    private final CompletableFuture<Void> stdinDone = new CompletableFuture<>();
    private final InputStream stdinSeen = new java.io.FilterInputStream(toAgent.in) {
        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n < 0) {
                stdinDone.complete(null);
            }
            return n;
        }
    };
    private final OutputBuffer agentErr = new OutputBuffer(4000);
    private volatile ResultCallback.Adapter<Frame> attached;

    /** What the agent writes. */
    InputStream fromAgent() {
        return fromAgent.in;
    }

    /** What the agent reads. */
    OutputStream toAgent() {
        return toAgent.out;
    }

    /** Attaches to the container's stdin, stdout and stderr before it starts, so the agent's first frame is seen. */
    void attach(Engine engine, String containerId) {
        // started, or failed before it started (no descriptor for the connection): awaitStarted alone would wait
        // out its whole bound for a connection that already failed
        CountDownLatch settled = new CountDownLatch(1);
        Throwable[] failure = new Throwable[1];
        ResultCallback.Adapter<Frame> callback = new ResultCallback.Adapter<>() {
            @Override
            public void onStart(java.io.Closeable stream) {
                super.onStart(stream);
                settled.countDown();
            }

            @Override
            public void onNext(Frame frame) {
                try {
                    if (frame.getStreamType() == StreamType.STDOUT || frame.getStreamType() == StreamType.RAW) {
                        fromAgent.out.write(frame.getPayload());
                    } else if (frame.getStreamType() == StreamType.STDERR) {
                        agentErr.write(frame.getPayload());
                    }
                } catch (IOException e) {
                    // the channel was closed: nothing reads the agent any more
                }
            }

            @Override
            public void onError(Throwable t) {
                failure[0] = t;
                settled.countDown();
                fromAgent.close();
                super.onError(t);
            }

            @Override
            public void onComplete() {
                fromAgent.close();
                super.onComplete();
            }
        };
        attached = engine.stream.attachContainerCmd(containerId).withStdIn(stdinSeen).withStdOut(true)
                .withStdErr(true).withFollowStream(true).withLogs(false).exec(callback);
        try {
            if (!settled.await(30, TimeUnit.SECONDS)) {
                throw DockerErrors.error(ErrorKind.BACKEND_UNAVAILABLE, "attaching to the sandbox's container "
                        + "did not complete within 30 s");
            }
            Throwable t = failure[0];
            if (t != null) {
                throw t instanceof RuntimeException r ? r : new RuntimeException("attaching to the container: " + t, t);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw DockerErrors.interrupted("attaching to a Docker sandbox");
        }
    }

    /** What the agent wrote on stderr, for an error message ("" when nothing). */
    String diagnostics() {
        String err = agentErr.text().strip().replace("sbx-agent: ", ""); // its own prefix names an internal helper
        return err.isEmpty() ? "" : " (agent: " + err + ")";
    }

    /** Fails a sender blocked on the pipe (a streamed write) instead of letting it hold the channel's lock. */
    void closeInput() {
        toAgent.close();
    }

    /**
     * Ends the agent's input and, when attached, waits a little for the engine client's stdin thread to send what it
     * holds and end its request, before the container's removal closes the connection under it (it would print a
     * trace). An agent that stopped reading is not waited for beyond this.
     */
    void endInput() {
        toAgent.close();
        try {
            if (attached != null) {
                stdinDone.get(STDIN_DRAIN_MS, TimeUnit.MILLISECONDS);
            }
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException
                 | InterruptedException e) {
            // removed anyway
        }
    }

    /** Closes the attach connection (best effort). */
    void detach() {
        ResultCallback.Adapter<Frame> a = attached;
        if (a != null) {
            try {
                a.close();
            } catch (IOException | RuntimeException ignored) {
                // best effort
            }
        }
    }

    /** Ends the agent's output for its reader. */
    void closeOutput() {
        fromAgent.close();
    }
}
