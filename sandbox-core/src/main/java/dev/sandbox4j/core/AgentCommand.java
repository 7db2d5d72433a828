package dev.sandbox4j.core;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.Feature;
import dev.sandbox4j.Terminal;
import dev.sandbox4j.core.seccomp.SeccompPolicy;
import dev.sandbox4j.OutputListener;
import dev.sandbox4j.SandboxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** One command run by an agent, as the host sees it; also the {@link ExecHandle} of a background command. */
final class AgentCommand implements ExecHandle, AgentChannel.Events {
    private static final int SIGSYS = 31; // x86_64 and aarch64
    final AgentShell shell;
    final int id;
    final ExecRequest request;
    final OutputBuffer out;
    final OutputBuffer err;
    final long started = System.nanoTime();
    final CompletableFuture<Integer> spawned = new CompletableFuture<>();
    final CompletableFuture<Integer> exit = new CompletableFuture<>();
    final long oomBefore;
    final long pidsDeniedBefore;
    volatile long oomAtExit = -1;
    volatile boolean stdinClosed;
    volatile String failure;          // spawn failure message
    volatile ExecStatus forcedStatus; // TIMEOUT or KILLED when we ended it
    volatile String forcedDetail = "";
    private volatile ExecResult result;
    private final boolean listening;
    /** A terminal's output as text (null: pipes, or a terminal whose control sequences are kept). */
    private final TerminalText text;

    AgentCommand(AgentShell shell, int id, ExecRequest request, int limit, OutputListener listener) {
        this.shell = shell;
        this.id = id;
        this.request = request;
        this.listening = listener != null && listener != OutputListener.NONE;
        if (!listening) {
            this.out = new OutputBuffer(limit);
            this.err = new OutputBuffer(limit);
        } else {
            this.out = new OutputBuffer(limit, listener::onStdout, listener::onStdoutBytes);
            this.err = new OutputBuffer(limit, listener::onStderr, listener::onStderrBytes);
        }
        this.text = request.terminal() != null && !request.terminal().keepControl() ? new TerminalText() : null;
        this.oomBefore = oomKills();
        this.pidsDeniedBefore = shell.hooks.control().pidsDenied();
    }

    // ---------------------------------------------------------------- the agent's events (reader thread)

    @Override
    public void spawned(int pid) {
        spawned.complete(pid);
    }

    @Override
    public void failed(String message) {
        failure = message;
        spawned.complete(-1);
        shell.ended(this);
        exit.complete(127);
    }

    @Override
    public void stdout(byte[] bytes) {
        if (text == null) {
            out.write(bytes);
            return;
        }
        byte[] t = text.feed(bytes);
        if (t.length > 0) {
            out.write(t);
        }
    }

    @Override
    public void stderr(byte[] bytes) {
        err.write(bytes);
    }

    @Override
    public void skipped(boolean stderr, long bytes, long chars) {
        (stderr ? err : out).skip(bytes, chars);
    }

    /**
     * What the agent may keep of each end of each stream (see {@link AgentProtocol#MAX_KEEP}): the cap's bytes when
     * nothing listens to the output, so a flood stays in the sandbox; 0 (all of it) for a listener, which sees every
     * byte, or a cap too large for the agent to hold.
     */
    int keepBytes() {
        // a terminal's text is made from the whole stream: a head and tail cut inside a sequence would not strip
        return listening || text != null || out.keepBytes() > AgentProtocol.MAX_KEEP ? 0 : out.keepBytes();
    }

    @Override
    public void exited(int code, long oomKills) {
        oomAtExit = oomKills;
        if (text != null) {
            byte[] t = text.finish();
            if (t.length > 0) {
                out.write(t);
            }
        }
        shell.ended(this);
        exit.complete(code);
    }

    @Override
    public void lost(String why) {
        if (forcedStatus == null) {
            forcedStatus = ExecStatus.KILLED;
            forcedDetail = shell.hooks.closed() ? "sandbox closed" : "the sandbox's agent died: " + why;
        }
        spawned.complete(-1);
        shell.ended(this);
        exit.complete(137);
    }

    // ---------------------------------------------------------------- results

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
        shell.endLeftovers(this);
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
        long oomAfter = mayBeOom ? Math.max(oomAtExit, oomKills()) : oomBefore;
        long pidsDenied = shell.hooks.control().pidsDenied();
        if (mayBeOom && oomAfter > oomBefore) {
            status = ExecStatus.KILLED;
            detail = "memory limit exceeded (" + shell.hooks.info().limits().memoryBytes() + " bytes): killed by "
                    + "the out-of-memory killer";
        } else if (pidsDenied > pidsDeniedBefore && pidsDeniedBefore >= 0) {
            // the command saw fork/clone fail with EAGAIN and handled it as it chose; say so, do not kill it
            detail = (detail.isEmpty() ? "" : detail + "; ") + "process limit reached ("
                    + shell.hooks.info().limits().maxProcesses() + " processes, " + (pidsDenied - pidsDeniedBefore)
                    + " forks refused)";
        } else if (status == ExecStatus.COMPLETED && code == 137) {
            String outside = shell.hooks.closed() ? "the sandbox was closed" : shell.hooks.killedFromOutside();
            if (outside != null) {
                status = ExecStatus.KILLED;
                detail = outside;
            }
        }
        if (failure != null) {
            String stderr = "sandbox4j: cannot start command: " + failure + "\n";
            return result = ExecResult.of(127, "", stderr).withDuration(elapsed())
                    .withDetail("cannot start: " + failure);
        }
        if (status == ExecStatus.COMPLETED && code == 128 + SIGSYS) {
            // the filter's only kill: the reaper sees the signal, not si_syscall (a killed child's siginfo has none)
            detail = "terminated by signal " + SIGSYS + ", " + SeccompPolicy.sigsysExplanation();
        } else if (status == ExecStatus.COMPLETED && code > 128 && code < 128 + 65) {
            detail = "terminated by signal " + (code - 128);
        }
        return result = ExecResult.of(status, code, out.text(), err.text()).withDuration(elapsed())
                .withTruncation(out.truncation(), err.truncation())
                .withRawOutput(out.raw(), err.raw())
                .withDetail(detail);
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
        shell.sendStdin(this, bytes);
    }

    @Override
    public void closeStdin() {
        shell.closeStdin(this);
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
            throw new SandboxException(ErrorKind.INTERRUPTED, "interrupted while waiting for " + command(), e);
        }
    }

    @Override
    public void resize(int cols, int rows) {
        if (request.terminal() == null) {
            throw new SandboxException(ErrorKind.UNSUPPORTED, command() + " does not run under a terminal");
        }
        try {
            Terminal.checkSize(cols, rows);
        } catch (IllegalArgumentException e) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, e.getMessage(), e);
        }
        if (!exit.isDone()) {
            shell.hooks.checkOpen();
            try {
                shell.channel.resize(id, cols, rows);
            } catch (java.io.IOException e) {
                shell.hooks.checkOpen();
                throw new SandboxException(ErrorKind.IO_ERROR, "the sandbox's agent is gone: " + e.getMessage(), e);
            }
        }
    }

    /**
     * A command's variables under its terminal: {@code TERM} last (the terminal says what it is); a sandbox without
     * {@link Feature#TERMINAL} refuses a terminal before anything starts.
     */
    static List<String> terminalEnv(Terminal terminal, AgentShell.Hooks hooks, List<String> env) {
        if (terminal == null) {
            return env; // the sandbox's info is not asked for on every command's way
        }
        if (!hooks.info().features().contains(Feature.TERMINAL)) {
            throw new SandboxException(ErrorKind.UNSUPPORTED, "this sandbox has no terminals (Feature.TERMINAL)");
        }
        List<String> withTerm = new ArrayList<>(env);
        withTerm.add("TERM=" + terminal.type());
        return withTerm;
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
            shell.terminate(this);
        }
        return result();
    }

    @Override
    public void close() {
        kill();
    }

    @Override
    public String toString() {
        return "AgentCommand[" + id + ", " + command() + "]";
    }

    /** The sandbox's OOM-kill count: the host's, or the agent's last report (containers: it reads its cgroup). */
    private long oomKills() {
        long own = shell.hooks.control().oomKills();
        return own >= 0 ? own : shell.channel.lastOomKills();
    }
}
