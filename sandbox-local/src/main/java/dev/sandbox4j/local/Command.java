package dev.sandbox4j.local;

import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.OutputListener;
import dev.sandbox4j.StreamType;
import dev.sandbox4j.spi.OutputBuffer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** One command in a jail, as the host sees it; also the {@link ExecHandle} of a background command. */
final class Command implements ExecHandle {
    final LocalSandbox sandbox;
    final int id;
    final ExecRequest request;
    final OutputBuffer out;
    final OutputBuffer err;
    final long started = System.nanoTime();
    final CompletableFuture<Integer> spawned = new CompletableFuture<>();
    final CompletableFuture<Integer> exit = new CompletableFuture<>();
    final long oomBefore;
    final long pidsDeniedBefore;
    volatile boolean stdinClosed;
    volatile String failure;          // spawn failure message
    volatile ExecStatus forcedStatus; // TIMEOUT or KILLED when we ended it
    volatile String forcedDetail = "";
    private volatile ExecResult result;

    Command(LocalSandbox sandbox, int id, ExecRequest request, int limit, OutputListener listener) {
        this.sandbox = sandbox;
        this.id = id;
        this.request = request;
        if (listener == null || listener == OutputListener.NONE) {
            this.out = new OutputBuffer(limit);
            this.err = new OutputBuffer(limit);
        } else {
            this.out = new OutputBuffer(limit, t -> listener.onOutput(StreamType.STDOUT, t));
            this.err = new OutputBuffer(limit, t -> listener.onOutput(StreamType.STDERR, t));
        }
        this.oomBefore = sandbox.cgroups.oomKills();
        this.pidsDeniedBefore = sandbox.cgroups.pidsDenied();
    }

    /** Waits for the exit; true when it came within the time. */
    boolean awaitExit(long millis) throws InterruptedException {
        try {
            exit.get(Math.max(0, millis), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return true;
        }
    }

    synchronized ExecResult result() {
        if (result != null) {
            return result;
        }
        // what the command left running ends with it (a server that should outlive its command is start()ed)
        sandbox.endLeftovers(this);
        out.finish();
        err.finish();
        int code = exit.getNow(-1);
        ExecStatus status = ExecStatus.COMPLETED;
        String detail = "";
        if (forcedStatus != null) {
            status = forcedStatus;
            detail = forcedDetail;
        }
        // the OOM count matters only for a command that was killed (137) or ended by us: read it only then
        boolean mayBeOom = oomBefore >= 0 && (code == 137 || status != ExecStatus.COMPLETED);
        long oomAfter = mayBeOom ? sandbox.cgroups.oomKills() : oomBefore;
        long deniedAfter = sandbox.cgroups.pidsDenied();
        if (mayBeOom && oomAfter > oomBefore) {
            status = ExecStatus.KILLED;
            detail = "memory limit exceeded (" + sandbox.info().limits().memoryBytes() + " bytes): killed by the "
                    + "out-of-memory killer";
        } else if (deniedAfter > pidsDeniedBefore && pidsDeniedBefore >= 0) {
            // the command saw fork/clone fail with EAGAIN and handled it as it chose; say so, do not kill it
            detail = (detail.isEmpty() ? "" : detail + "; ") + "process limit reached ("
                    + sandbox.info().limits().maxProcesses() + " processes, " + (deniedAfter - pidsDeniedBefore)
                    + " forks refused)";
        }
        if (failure != null) {
            ExecResult r = new ExecResult(ExecStatus.COMPLETED, 127, "", "sandbox4j: cannot start command: "
                    + failure + "\n", elapsed(), out.truncation(), err.truncation(), "cannot start: " + failure);
            return result = new ExecResult(r.status(), r.exitCode(), r.stdout(), r.stderr(), r.duration(),
                    dev.sandbox4j.Truncation.none(0), dev.sandbox4j.Truncation.none(r.stderr().length()),
                    r.detail());
        }
        if (status == ExecStatus.COMPLETED && code > 128 && code < 128 + 65) {
            detail = "terminated by signal " + (code - 128);
        }
        return result = new ExecResult(status, code, out.text(), err.text(), elapsed(), out.truncation(),
                err.truncation(), detail);
    }

    private Duration elapsed() {
        return Duration.ofNanos(System.nanoTime() - started);
    }

    // ---------------------------------------------------------------- ExecHandle (background commands)

    @Override
    public String command() {
        return request.displayCommand();
    }

    @Override
    public void writeStdin(byte[] bytes) {
        sandbox.sendStdin(this, bytes);
    }

    @Override
    public void closeStdin() {
        sandbox.closeStdin(this);
    }

    @Override
    public Optional<ExecResult> await(Duration timeout) {
        try {
            if (awaitExit(timeout.toMillis())) {
                return Optional.of(result());
            }
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new dev.sandbox4j.SandboxException(dev.sandbox4j.ErrorKind.INTERRUPTED,
                    "interrupted while waiting for " + command(), e);
        }
    }

    @Override
    public boolean isAlive() {
        return !exit.isDone();
    }

    @Override
    public ExecResult kill() {
        if (!exit.isDone()) {
            if (forcedStatus == null) {
                forcedStatus = ExecStatus.KILLED;
                forcedDetail = "killed on request";
            }
            sandbox.terminate(this);
        }
        return result();
    }

    @Override
    public void close() {
        kill();
    }

    @Override
    public String toString() {
        return "Command[" + id + ", " + command() + "]";
    }
}
