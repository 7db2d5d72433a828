package dev.sandbox4j.core;

import dev.sandbox4j.CodeContext;
import dev.sandbox4j.CodeRequest;
import dev.sandbox4j.CodeResult;
import dev.sandbox4j.CodeRunner;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.Language;
import dev.sandbox4j.OutputListener;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxInfo;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Shell;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The one implementation of {@link Shell} and {@link CodeRunner} for every backend whose sandbox runs the native
 * agent: requests are defaulted and checked here, commands start, stream, time out and die here, over an {@link
 * AgentChannel}. A backend supplies the channel and {@link Hooks} for what only it knows (cgroups, OOM, whether open).
 *
 * <p>Threads: {@code run} blocks its caller; output arrives on the channel's reader thread; timers of background
 * commands run on one shared daemon thread.
 */
public final class AgentShell implements Shell, CodeRunner {
    /** What only the sandbox knows: whether it is open, and its host's process control. */
    public interface Hooks {
        /** The host's process control ({@link SandboxHost#processControl()}). */
        SandboxHost.ProcessControl control();

        /** Throws {@link ErrorKind#CLOSED} when the sandbox is closed (noticing a dead jail or container). */
        void checkOpen();

        boolean closed();

        SandboxInfo info();

        /** Why a command that ended with 137 was killed from outside (say, its container stopped), or null. */
        default String killedFromOutside() {
            return null;
        }

        /** Where commands see the workspace ({@link SandboxHost#workspaceRoot()}). */
        default String workspaceRoot() {
            return WorkspacePaths.WORKSPACE;
        }
    }

    /** The code runner's wrapper's own variables (over the sandbox's base environment). */
    private static final List<String> WRAPPER_ENV = List.of("PATH=/usr/local/bin:/usr/bin:/bin");
    /** How long an interrupted command's caller waits for the kill to be confirmed before it gets its exception. */
    private static final long INTERRUPT_KILL_WAIT_MS = 2_000;

    final String sandboxId;
    final SandboxSpec spec;
    final AgentChannel channel;
    final Hooks hooks;
    private final FileSystem files;
    private final Set<Language> languages;
    private final Map<Integer, AgentCommand> commands = new ConcurrentHashMap<>();
    /** Bounds the commands alive at once: more would overrun the sandbox's process limit with gates. */
    private final Semaphore permits;
    private final int permitCount;
    private final AgentCodeContexts contexts = new AgentCodeContexts(this);
    private final ProcessTable processes = new ProcessTable(this);

    public AgentShell(String sandboxId, SandboxSpec spec, AgentChannel channel, FileSystem files,
                      Set<Language> languages, int permits, Hooks hooks) {
        this.sandboxId = sandboxId;
        this.spec = spec;
        this.channel = channel;
        this.files = files;
        this.languages = Set.copyOf(languages);
        this.permitCount = permits;
        this.permits = new Semaphore(permits, true);
        this.hooks = hooks;
    }

    /** Variables every command gets before the spec's (the egress proxy's); set once, right after open. */
    public void setBaseEnv(List<String> env) {
        this.baseEnv = List.copyOf(env);
    }

    private volatile List<String> baseEnv = List.of();

    /** Commands alive at once per sandbox: min(64, maxProcesses / 4), at least 8 (64 without a process limit). */
    public static int commandPermits(int maxProcesses) {
        return maxProcesses <= 0 ? 64 : Math.max(8, Math.min(64, maxProcesses / 4));
    }

    /** Whether a command of this sandbox is still running (for the backend's group pruning and tests). */
    public boolean isRunning(int id) {
        return commands.containsKey(id);
    }

    // ---------------------------------------------------------------- Shell

    @Override
    public ExecResult run(ExecRequest request) {
        return run(request, null);
    }

    /**
     * Runs a request; {@code wrapperEnv} null gives the command the spec's and the request's variables, else the
     * command gets exactly these (the code runner's wrapper, which hands the user's variables to the interpreter
     * only).
     */
    private ExecResult run(ExecRequest request, List<String> wrapperEnv) {
        hooks.checkOpen();
        Duration timeout = request.timeout() != null ? request.timeout() : spec.commandTimeout();
        long deadline = System.nanoTime() + timeout.toNanos();
        long waitStart = System.nanoTime();
        if (!acquirePermit(timeout.toMillis(), request)) {
            return ExecResult.of(ExecStatus.TIMEOUT, -1, "", "")
                    .withDuration(Duration.ofNanos(System.nanoTime() - waitStart))
                    .withDetail("timed out after " + timeout.toMillis() + " ms waiting for one of the sandbox's "
                            + permitCount + " command slots; the command did not start");
        }
        AgentCommand c = startHolding(request, null, true, wrapperEnv);
        try {
            if (!c.awaitExit(TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()) + 1)) {
                c.forcedStatus = ExecStatus.TIMEOUT;
                c.forcedDetail = "timed out after " + timeout.toMillis() + " ms";
                if (terminate(c)) {
                    c.forcedDetail += "; the command's processes were killed";
                }
            }
        } catch (InterruptedException e) {
            c.forcedStatus = ExecStatus.KILLED;
            c.forcedDetail = "interrupted";
            killAndAwait(c);
            Thread.currentThread().interrupt();
            throw new SandboxException(ErrorKind.INTERRUPTED, "interrupted while running " + request, e);
        }
        return c.result();
    }

    @Override
    public ExecHandle start(ExecRequest request, OutputListener listener) {
        hooks.checkOpen();
        Duration wait = request.timeout() != null ? request.timeout() : spec.commandTimeout();
        if (!acquirePermit(wait.toMillis(), request)) {
            throw new SandboxException(ErrorKind.TIMEOUT, "no command slot became free within " + wait.toMillis()
                    + " ms (" + permitCount + " commands run at once per sandbox)");
        }
        AgentCommand c = startHolding(request, listener == null ? OutputListener.NONE : listener, false, null);
        if (request.timeout() != null) {
            Background.timer().schedule(() -> {
                if (c.isAlive()) {
                    c.forcedStatus = ExecStatus.TIMEOUT;
                    c.forcedDetail = "timed out after " + request.timeout().toMillis() + " ms";
                    terminate(c);
                }
            }, request.timeout().toMillis(), TimeUnit.MILLISECONDS);
        }
        return c;
    }

    /**
     * Starts a code context's interpreter: a background command with the wrapper's fixed environment (the user's
     * variables are in its argv, for {@code env}), no timeout, its output going to {@code listener}.
     */
    AgentCommand startContext(ExecRequest request, OutputListener listener) {
        hooks.checkOpen();
        Duration wait = spec.commandTimeout();
        if (!acquirePermit(wait.toMillis(), request)) {
            throw new SandboxException(ErrorKind.TIMEOUT, "no command slot became free within " + wait.toMillis()
                    + " ms (" + permitCount + " commands run at once per sandbox)");
        }
        return startHolding(request, listener, false, WRAPPER_ENV);
    }

    /** The variables a code context's interpreter gets, as NAME=VALUE: the backend's, then the spec's. */
    List<String> contextEnv() {
        return userEnv(Map.of());
    }

    /** Waits for a command slot (fair); false when none came within the time. */
    private boolean acquirePermit(long millis, ExecRequest request) {
        try {
            boolean ok = permits.tryAcquire(Math.max(0, millis), TimeUnit.MILLISECONDS);
            if (ok && hooks.closed()) {
                permits.release();
                hooks.checkOpen();
            }
            return ok;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SandboxException(ErrorKind.INTERRUPTED, "interrupted while waiting to run " + request, e);
        }
    }

    /** Starts a command holding a permit: released when the command's exit completes (or it never started). */
    private AgentCommand startHolding(ExecRequest request, OutputListener listener, boolean closeStdin,
                                      List<String> wrapperEnv) {
        AgentCommand[] made = new AgentCommand[1];
        try {
            return start(request, listener, closeStdin, made, wrapperEnv);
        } finally {
            AgentCommand c = made[0];
            if (c == null) {
                permits.release();
            } else {
                c.exit.whenComplete((v, t) -> permits.release());
            }
        }
    }

    private AgentCommand start(ExecRequest request, OutputListener listener, boolean closeStdin,
                               AgentCommand[] made, List<String> wrapperEnv) {
        List<String> env = AgentCommand.terminalEnv(request.terminal(), hooks,
                wrapperEnv != null ? wrapperEnv : userEnv(request.env()));
        String cwd = request.cwd() == null ? hooks.workspaceRoot() : cwdOf(request.cwd());
        int limit = request.outputLimit() > 0 ? request.outputLimit() : spec.outputLimit();
        hooks.control().pruneGroups(commands::containsKey);
        AgentCommand c = new AgentCommand(this, channel.newId(), request, limit, listener);
        commands.put(c.id, c);
        made[0] = c;
        try {
            channel.spawn(c.id, request.argv(), env, cwd, c.keepBytes(), request.terminal(), c);
        } catch (IOException e) {
            commands.remove(c.id);
            c.exit.complete(-1);
            hooks.checkOpen();
            throw new SandboxException(ErrorKind.IO_ERROR, "the sandbox's agent is gone: " + e.getMessage(), e);
        }
        int pid;
        try {
            pid = c.spawned.get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            killAndAwait(c);
            Thread.currentThread().interrupt();
            throw new SandboxException(ErrorKind.INTERRUPTED, "interrupted while starting " + request, e);
        } catch (Exception e) {
            commands.remove(c.id);
            c.exit.complete(-1);
            hooks.checkOpen();
            throw new SandboxException(ErrorKind.IO_ERROR, "the sandbox did not start " + request, e);
        }
        if (pid <= 0) {
            hooks.checkOpen();
            return c; // failed to start; result() reports it
        }
        String refused = hooks.control().place(pid, c.id);
        if (refused != null) {
            // fail closed: the gate has not let the command run; end it there
            c.failure = refused;
            try {
                channel.signal(c.id, 9);
            } catch (IOException ignored) {
                // gone
            }
            return c;
        }
        boolean more = closeStdin || request.hasStdin();
        try {
            // GO and the stdin frames that follow at once go out in one write
            channel.go(c.id, !more);
            if (more) {
                try {
                    if (request.hasStdin()) {
                        sendStdin(c, request.stdin(), false);
                    }
                    closeStdin(c, false);
                } finally {
                    channel.flush();
                }
            }
        } catch (IOException e) {
            hooks.checkOpen();
            throw new SandboxException(ErrorKind.IO_ERROR, "the sandbox's agent is gone: " + e.getMessage(), e);
        }
        return c;
    }

    /** The backend's variables (the proxy's), then the spec's, then the request's (a later one wins), as NAME=VALUE. */
    private List<String> userEnv(Map<String, String> requestEnv) {
        List<String> env = new ArrayList<>(baseEnv);
        Map<String, String> merged = new LinkedHashMap<>(spec.env());
        merged.putAll(requestEnv);
        merged.forEach((k, v) -> env.add(k + "=" + v));
        return env;
    }

    /** The working directory: an existing directory of the workspace (checked without following links). */
    private String cwdOf(String cwd) {
        String normalized = WorkspacePaths.normalize(cwd);
        if (!normalized.isEmpty()) {
            FileInfo fi;
            try {
                fi = files.stat(normalized);
            } catch (SandboxException e) {
                // a link on the way would take the command's chdir wherever it points: that is a path error here
                ErrorKind kind = e.kind() == ErrorKind.PERMISSION_DENIED ? ErrorKind.INVALID_PATH : e.kind();
                throw new SandboxException(kind, "working directory '" + cwd + "': " + e.getMessage(), e);
            }
            if (fi.isSymlink()) {
                throw new SandboxException(ErrorKind.INVALID_PATH, "working directory '" + cwd
                        + "' is a symbolic link; give the directory it points to (inside the workspace)");
            }
            if (!fi.isDirectory()) {
                throw new SandboxException(ErrorKind.NOT_A_DIRECTORY, "working directory '" + cwd
                        + "' is not a directory");
            }
        }
        return WorkspacePaths.absolute(hooks.workspaceRoot(), normalized);
    }

    void sendStdin(AgentCommand c, byte[] bytes) {
        hooks.checkOpen();
        try {
            sendStdin(c, bytes, true);
        } catch (IOException e) {
            hooks.checkOpen();
            throw new SandboxException(ErrorKind.IO_ERROR, "the sandbox's agent is gone: " + e.getMessage(), e);
        }
    }

    private void sendStdin(AgentCommand c, byte[] bytes, boolean flush) throws IOException {
        if (c.stdinClosed || c.exit.isDone()) {
            throw new SandboxException(ErrorKind.CLOSED, "the standard input of " + c.command() + " is closed");
        }
        for (int off = 0; off < bytes.length; off += 1 << 20) {
            int n = Math.min(1 << 20, bytes.length - off);
            channel.stdin(c.id, bytes, off, n, flush);
        }
    }

    void closeStdin(AgentCommand c) {
        try {
            closeStdin(c, true);
        } catch (IOException e) {
            hooks.checkOpen();
            throw new SandboxException(ErrorKind.IO_ERROR, "the sandbox's agent is gone: " + e.getMessage(), e);
        }
    }

    private void closeStdin(AgentCommand c, boolean flush) throws IOException {
        if (!hooks.closed() && !c.stdinClosed && !c.exit.isDone()) {
            c.stdinClosed = true;
            channel.closeStdin(c.id, flush);
        }
    }

    /**
     * The timeout ladder: TERM to the whole tree, a short grace, KILL, then a bounded wait for the exit report.
     * Returns whether the agent confirmed the end (else the command is ended here and the kill goes on there).
     */
    boolean terminate(AgentCommand c) {
        signalTree(c, false);
        try {
            // a short grace: the caller gets its answer within the deadline + 0.5 s
            c.awaitExit(200);
            // whatever ignored TERM (or left the tree) gets KILL, even when the main process already exited
            killTree(c);
            c.awaitExit(250);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            killTree(c);
        }
        if (!c.exit.isDone()) {
            // said before the exit completes: a thread awaiting the result reads the detail right after
            c.forcedDetail += "; killing the process tree is still in progress";
            c.exit.complete(137);
            commands.remove(c.id);
            channel.forget(c.id);
            return false;
        }
        return true;
    }

    /**
     * Kills the tree and waits (not interruptibly, bounded) for the agent's exit report, which comes after the
     * reaper's sweep: an interrupted caller's next command must not meet the last one's processes.
     */
    private void killAndAwait(AgentCommand c) {
        killTree(c);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(INTERRUPT_KILL_WAIT_MS);
        boolean interrupted = false;
        while (!c.exit.isDone() && !hooks.closed()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                c.forcedDetail += "; killing the process tree is still in progress";
                return;
            }
            try {
                c.awaitExit(TimeUnit.NANOSECONDS.toMillis(left) + 1);
            } catch (InterruptedException again) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    void killTree(AgentCommand c) {
        signalTree(c, true);
    }

    private void signalTree(AgentCommand c, boolean kill) {
        if (hooks.control().hasGroup(c.id)) {
            hooks.control().signalGroup(c.id, kill);
        }
        if (!hooks.closed()) {
            try {
                channel.signal(c.id, kill ? 9 : 15);
            } catch (IOException ignored) {
                // gone
            }
        }
    }

    /** Kills whatever a finished command left behind in its group (background children, a fork bomb's rest). */
    void endLeftovers(AgentCommand c) {
        if (c.exit.isDone() && hooks.control().hasGroup(c.id)) {
            hooks.control().signalGroup(c.id, true);
        }
    }

    void ended(AgentCommand c) {
        commands.remove(c.id);
    }

    /**
     * Ends every command with KILLED and {@code detail} (unless it already has a status): the sandbox closed or its
     * jail or container died. Call after the channel is closed.
     */
    public void endAll(String detail) {
        for (AgentCommand c : List.copyOf(commands.values())) {
            if (c.forcedStatus == null) {
                c.forcedStatus = ExecStatus.KILLED;
                c.forcedDetail = detail;
            }
            c.spawned.complete(-1);
            c.exit.complete(137);
        }
        commands.clear();
        permits.release(1 << 20); // callers waiting for a slot wake up and get CLOSED
        processes.close();
    }

    @Override
    public dev.sandbox4j.Processes processes() {
        return processes;
    }

    /** Marks the running commands KILLED with {@code detail} before the backend closes (its jail died). */
    public void markAll(String detail) {
        for (AgentCommand c : List.copyOf(commands.values())) {
            if (c.forcedStatus == null) {
                c.forcedStatus = ExecStatus.KILLED;
                c.forcedDetail = detail;
            }
            c.spawned.complete(-1);
        }
    }

    // ---------------------------------------------------------------- CodeRunner

    @Override
    public Set<Language> languages() {
        hooks.checkOpen();
        return languages;
    }

    /** Python and JavaScript contexts, where their runtime is present; see {@link AgentCodeContexts}. */
    @Override
    public CodeContext createContext(Language language) {
        hooks.checkOpen();
        if (language == Language.BASH || !languages.contains(language)) {
            throw new SandboxException(ErrorKind.UNSUPPORTED_LANGUAGE, "no " + language.id()
                    + " code context in this sandbox; contexts run: " + languages.stream()
                    .filter(l -> l != Language.BASH).map(Language::id).sorted().collect(Collectors.joining(", ")));
        }
        return contexts.create(language);
    }

    @Override
    public List<CodeContext> contexts() {
        hooks.checkOpen();
        return contexts.list();
    }

    @Override
    public CodeResult run(CodeRequest request) {
        hooks.checkOpen();
        Language lang = request.language();
        if (!languages.contains(lang)) {
            throw new SandboxException(ErrorKind.UNSUPPORTED_LANGUAGE, "language '" + lang.id()
                    + "' is not available in this sandbox; supported: "
                    + languages.stream().map(Language::id).sorted().collect(Collectors.joining(", ")));
        }
        String notFound = CodeWrapper.notFound(lang);
        List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c", CodeWrapper.script(lang, hooks.workspaceRoot()),
                "sandbox4j"));
        argv.addAll(userEnv(Map.of()));
        ExecRequest exec = ExecRequest.argv(argv).withStdin(CodeWrapper.input(request.code(), request.stdin()));
        if (request.timeout() != null) {
            exec = exec.withTimeout(request.timeout());
        }
        if (request.outputLimit() > 0) {
            exec = exec.withOutputLimit(request.outputLimit());
        }
        ExecResult r = run(exec, WRAPPER_ENV);
        if (r.status() == ExecStatus.COMPLETED && (r.exitCode() == 125
                || (r.exitCode() == 127 && r.stdout().isEmpty() && r.stderr().equals(notFound + "\n")))) {
            return CodeResult.setupError(lang, r);
        }
        return CodeResult.of(lang, r);
    }
}
