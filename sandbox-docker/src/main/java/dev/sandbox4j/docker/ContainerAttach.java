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
        Settled settled = new Settled();
        attached = engine.stream.attachContainerCmd(containerId).withStdIn(stdinSeen).withStdOut(true)
                .withStdErr(true).withFollowStream(true).withLogs(false).exec(callback(settled));
        settled.await("attaching to the sandbox's container");
    }

    /**
     * Starts {@code cmd} in the running container (the engine's exec) with its stdin, stdout and stderr as these
     * streams: a later host's relay to a leased agent (docs/reattach.md).
     */
    void exec(Engine engine, String containerId, java.util.List<String> cmd) {
        String execId = engine.control.execCreateCmd(containerId).withCmd(cmd.toArray(String[]::new))
                .withAttachStdin(true).withAttachStdout(true).withAttachStderr(true).withTty(false).exec().getId();
        Settled settled = new Settled();
        attached = engine.stream.execStartCmd(execId).withStdIn(stdinSeen).withDetach(false).withTty(false)
                .exec(callback(settled));
        settled.await("starting the relay to the sandbox's agent");
    }

    /** Started, or failed before it started (no descriptor for the connection): the connection's first word. */
    private static final class Settled {
        final CountDownLatch latch = new CountDownLatch(1);
        volatile Throwable failure;

        void await(String what) {
            try {
                if (!latch.await(30, TimeUnit.SECONDS)) {
                    throw DockerErrors.error(ErrorKind.BACKEND_UNAVAILABLE, what + " did not complete within 30 s");
                }
                Throwable t = failure;
                if (t != null) {
                    throw t instanceof RuntimeException r ? r : new RuntimeException(what + ": " + t, t);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw DockerErrors.interrupted(what);
            }
        }
    }

    private ResultCallback.Adapter<Frame> callback(Settled settled) {
        return new ResultCallback.Adapter<>() {
            @Override
            public void onStart(java.io.Closeable stream) {
                super.onStart(stream);
                settled.latch.countDown();
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
                settled.failure = t;
                settled.latch.countDown();
                fromAgent.close();
                super.onError(t);
            }

            @Override
            public void onComplete() {
                fromAgent.close();
                super.onComplete();
            }
        };
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
