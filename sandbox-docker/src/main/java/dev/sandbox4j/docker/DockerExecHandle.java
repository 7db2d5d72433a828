package dev.sandbox4j.docker;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.spi.OutputBuffer;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A background command. Stdin is a FIFO in the private run directory, held open by a helper process until
 * {@link #closeStdin()}; each write uploads the bytes as a file and copies it into the FIFO with an exec.
 */
final class DockerExecHandle implements ExecHandle {
    private final DockerSandbox sandbox;
    private final ExecRequest request;
    private final String marker;
    private final String fifo;
    private final Engine.Exec exec;
    private final OutputBuffer out;
    private final OutputBuffer err;
    private final long start;
    private final CompletableFuture<ExecResult> result = new CompletableFuture<>();
    private volatile ExecStatus forced;
    private volatile String forcedDetail = "";
    private volatile boolean stdinClosed;
    private final Object stdinLock = new Object();

    DockerExecHandle(DockerSandbox sandbox, ExecRequest request, String marker, String fifo, Engine.Exec exec,
                     OutputBuffer out, OutputBuffer err, long start) {
        this.sandbox = sandbox;
        this.request = request;
        this.marker = marker;
        this.fifo = fifo;
        this.exec = exec;
        this.out = out;
        this.err = err;
        this.start = start;
    }

    void begin(Duration timeout) {
        Thread t = new Thread(() -> waitFor(timeout), "sandbox4j-docker-bg-" + marker.substring(0, 8));
        t.setDaemon(true);
        t.start();
    }

    private void waitFor(Duration timeout) {
        long deadline = timeout == null ? Long.MAX_VALUE : start + timeout.toNanos();
        if (deadline < start) {
            deadline = Long.MAX_VALUE;
        }
        Integer exit = null;
        ExecStatus status = ExecStatus.COMPLETED;
        String detail = "";
        boolean timedOut = false;
        try {
            exit = exec.await(deadline);
            if (exit == null) {
                timedOut = true;
                forced = ExecStatus.TIMEOUT;
                // Closes the stream itself once the kill is confirmed, or leaves it to the background kill.
                forcedDetail = "timed out after " + DockerShell.human(timeout) + "; "
                        + sandbox.killTimedOut(exec, deadline, marker, marker + ".stdin");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            if (forced == null) {
                forced = ExecStatus.KILLED;
                forcedDetail = sandbox.closed() ? "the sandbox was closed" : "lost the command: " + e.getMessage();
            }
        }
        if (!timedOut) {
            exec.closeStream();
        }
        int code = exit == null ? -1 : exit;
        if (forced != null) {
            status = forced;
            detail = forcedDetail;
        } else {
            String killedBy = sandbox.killedBy(code);
            if (killedBy != null) {
                status = ExecStatus.KILLED;
                detail = killedBy;
            }
        }
        stdinClosed = true;
        if (timedOut) {
            // The caller's bound (timeout + grace) holds only if the cleanup execs come after the result.
            complete(status, code, detail);
            cleanUp();
        } else {
            cleanUp();
            complete(status, code, detail);
        }
    }

    /** Ends the stdin holder and removes the FIFO. */
    private void cleanUp() {
        if (!sandbox.closed()) {
            try {
                sandbox.kill(false, marker + ".stdin");
                sandbox.internal(List.of("/bin/rm", "-f", "--", fifo), null);
            } catch (RuntimeException ignored) {
                // the sandbox is going away
            }
        }
    }

    private void complete(ExecStatus status, int code, String detail) {
        out.finish();
        err.finish();
        sandbox.handles.remove(this);
        result.complete(new ExecResult(status, code, out.text(), err.text(),
                Duration.ofNanos(System.nanoTime() - start), out.truncation(), err.truncation(), detail));
    }

    @Override
    public String command() {
        return request.displayCommand();
    }

    @Override
    public void writeStdin(byte[] bytes) {
        synchronized (stdinLock) {
            if (stdinClosed || result.isDone()) {
                throw new SandboxException(ErrorKind.CLOSED, "stdin of '" + command() + "' is closed");
            }
            sandbox.ensureOpen();
            if (bytes.length == 0) {
                return;
            }
            String name = "chunk-" + UUID.randomUUID();
            sandbox.engine.upload(sandbox.containerId, WorkspaceScripts.RUN_DIR,
                    List.of(new Engine.Entry(name, 0600, bytes.length, () -> DockerSandbox.bytes(bytes))),
                    sandbox.uid, sandbox.gid);
            String chunk = WorkspaceScripts.RUN_DIR + "/" + name;
            Engine.Ran r = sandbox.internal(List.of("/bin/sh", "-c",
                    "trap '/bin/rm -f -- \"$1\"' EXIT; [ -p \"$2\" ] || exit 4; /bin/cat -- \"$1\" > \"$2\"", "sandbox4j", chunk,
                    fifo), null);
            if (r.exitCode() != 0) {
                throw new SandboxException(ErrorKind.CLOSED, "stdin of '" + command() + "' is closed");
            }
        }
    }

    @Override
    public void closeStdin() {
        synchronized (stdinLock) {
            if (stdinClosed) {
                return;
            }
            stdinClosed = true;
        }
        if (!result.isDone() && !sandbox.closed()) {
            sandbox.kill(false, marker + ".stdin");
        }
    }

    @Override
    public Optional<ExecResult> await(Duration timeout) {
        try {
            return Optional.of(result.get(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SandboxException(ErrorKind.INTERRUPTED, "waiting for '" + command() + "' was interrupted");
        } catch (ExecutionException e) {
            throw DockerErrors.translate("waiting for a command", e.getCause());
        }
    }

    @Override
    public boolean isAlive() {
        return !result.isDone();
    }

    @Override
    public ExecResult kill() {
        if (!result.isDone()) {
            if (forced == null) {
                forced = ExecStatus.KILLED;
                forcedDetail = "killed by the caller";
            }
            // The exec starts asynchronously: a kill right after start() may find no process yet, so repeat it
            // until the command is seen to end.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            try {
                while (!result.isDone() && System.nanoTime() < deadline && !sandbox.closed()) {
                    sandbox.kill(true, marker, marker + ".stdin");
                    try {
                        return result.get(300, TimeUnit.MILLISECONDS);
                    } catch (TimeoutException again) {
                        // not seen ending yet
                    }
                }
                if (!result.isDone()) {
                    exec.closeStream();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                exec.closeStream();
                throw new SandboxException(ErrorKind.INTERRUPTED, "killing '" + command() + "' was interrupted");
            } catch (ExecutionException e) {
                throw DockerErrors.translate("killing a command", e.getCause());
            }
        }
        try {
            return result.get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new SandboxException(ErrorKind.INTERNAL, "the command '" + command() + "' did not end after a kill");
        }
    }

    void onSandboxClosed() {
        if (forced == null) {
            forced = ExecStatus.KILLED;
            forcedDetail = "the sandbox was closed";
        }
        exec.closeStream();
    }

    @Override
    public void close() {
        if (!result.isDone()) {
            kill();
        }
    }
}
