package dev.sandbox4j.core;

import dev.sandbox4j.CodeRunner;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.Language;
import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxInfo;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Shell;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The one {@link Sandbox} of every backend whose sandbox runs the native agent, over a {@link SandboxHost} that
 * supplies the isolation and the agent's streams. Written once here: the channel, the command slots, the shell and
 * code runner, the language probe, watches, egress, the spec's files, the lifetime, noticing death, the rules after
 * close, and the close order:
 *
 * <ol>
 *   <li>running commands are marked KILLED with the reason (before anything ends, so they report it);</li>
 *   <li>opened ports stop listening and their connections end;</li>
 *   <li>watches end, then the egress relay;</li>
 *   <li>the agent's channel closes, which ends every command, internal command and watch in flight at once;</li>
 *   <li>the host removes the isolation; {@link #close()} returns when it has.</li>
 * </ol>
 *
 * <p>Threads: {@code close} may come from any thread, the lifetime's timer or the channel's reader (death); it runs
 * once ({@link CloseOnce}) and every other caller waits for it to finish.
 */
public final class AgentSandbox implements Sandbox {
    /** How long the agent may take to say READY. */
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

    private final SandboxHost host;
    private final SandboxSpec spec;
    private final CloseOnce closing = new CloseOnce();
    private final SandboxHost.Context context = new SandboxHost.Context() {
        @Override
        public void checkOpen() {
            checkUsable();
        }

        @Override
        public boolean isClosed() {
            return closing.isClosed();
        }
    };
    private volatile AgentChannel channel;
    private volatile AgentShell shell;
    private volatile FileSystem files;
    /** The host's file API without the spec's file rules: what a snapshot reads. */
    private volatile FileSystem rawFiles;
    /** Run once the host is closed (a restored snapshot's directory). */
    private final java.util.List<Runnable> afterClose = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile WatchHub watches;
    private volatile AgentEgress egress;
    private volatile AgentPorts ports;
    private volatile SandboxInfo info;
    private volatile ScheduledFuture<?> expiry;
    /** Why the sandbox closed itself (its isolation or agent died), or null. */
    private volatile String deathDetail;
    private final java.util.concurrent.atomic.AtomicBoolean dying = new java.util.concurrent.atomic.AtomicBoolean();
    private final Freezer freezer;

    private AgentSandbox(SandboxHost host, SandboxSpec spec) {
        this.host = host;
        this.spec = spec;
        this.freezer = new Freezer(host);
    }

    /**
     * Starts {@code host} and makes it a sandbox; on any failure closes the host (so it removes what it made) and
     * throws the host's error.
     */
    public static AgentSandbox open(SandboxHost host, SandboxSpec spec) {
        AgentSandbox s = new AgentSandbox(host, spec);
        try {
            s.start();
            return s;
        } catch (RuntimeException | Error e) {
            s.close();
            throw e;
        }
    }

    private void start() {
        SandboxHost.AgentStreams io = host.start(context);
        AgentChannel ch = new AgentChannel(host.id(), io.fromAgent(), io.toAgent(), this::agentEnded);
        channel = ch;
        ch.start();
        try {
            ch.awaitReady(READY_TIMEOUT);
        } catch (IOException e) {
            throw host.agentDidNotStart(e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw host.error(ErrorKind.INTERRUPTED, "interrupted while opening sandbox " + host.id(), e);
        }
        takeLease(ch);
        String root = workspaceRoot();
        AgentRunner runner = new AgentRunner(ch, host.internalEnv(), root);
        Map<Language, String> interpreters = host.interpreters(runner).orElseGet(() -> probe(runner));
        info = host.ready(runner, interpreters);
        FileSystem fs = host.workspace(runner, context);
        files = GuardedFileSystem.of(fs, spec.fileRules());
        rawFiles = fs;
        watches = fs instanceof WorkspaceBase w
                ? w.enableWatches(new AgentWatches(ch, root, host.hiddenFromWatches())) : null;
        shell = new AgentShell(host.id(), spec, ch, fs, interpreters.keySet(),
                AgentShell.commandPermits(info.limits().maxProcesses()), new Hooks());
        AgentShell sh = shell;
        ports = new AgentPorts(ch, root, runner, sh::processes, this::checkUsable);
        startEgress(ch);
        if (spec.workspace().kind() == dev.sandbox4j.WorkspaceSource.Kind.GIT) {
            Map<String, String> details = new java.util.LinkedHashMap<>(info.details());
            details.put("workspace source", GitSeed.cloneInto(shell, spec.workspace()));
            info = new SandboxInfo(info.id(), info.backend(), info.features(), info.limits(), details);
        }
        spec.files().forEach((path, content) -> fs.write(path, content));
        if (!spec.lifetime().isZero() && !spec.lifetime().isNegative()) {
            expiry = Background.timer().schedule(() -> Background.execute(this::close), spec.lifetime().toMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    /** Tells the agent of the host's lease before anything of the sandbox runs (so no command can take its port). */
    private void takeLease(AgentChannel ch) {
        SandboxHost.Lease lease = host.lease();
        if (lease == null || !lease.tell()) {
            return;
        }
        byte[] key = lease.credential().keyBytes();
        try {
            ch.lease(lease.duration().toMillis(), lease.port(), key, READY_TIMEOUT);
        } catch (IOException e) {
            throw host.error(ErrorKind.BACKEND_UNAVAILABLE, "the sandbox's agent did not take its lease: "
                    + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw host.error(ErrorKind.INTERRUPTED, "interrupted while opening sandbox " + host.id(), e);
        } finally {
            java.util.Arrays.fill(key, (byte) 0);
        }
    }

    /** The host's {@link SandboxHost#workspaceRoot()}, checked: it is written into the code runner's scripts. */
    private String workspaceRoot() {
        String root = host.workspaceRoot();
        if (!root.matches("/[A-Za-z0-9/._-]*")) {
            throw host.error(ErrorKind.BACKEND_UNAVAILABLE, "the sandbox's workspace root '" + root
                    + "' is not an absolute path of [A-Za-z0-9/._-]", null);
        }
        return root;
    }

    /** The languages whose interpreter the sandbox has, and where (one script, the same on every backend). */
    private Map<Language, String> probe(AgentRunner runner) {
        AgentRunner.Ran r;
        try {
            r = runner.run(List.of("/bin/sh", "-c", LanguageProbe.PROBE), null, 64 << 10, READY_TIMEOUT);
        } catch (IOException | java.util.concurrent.TimeoutException e) {
            throw host.agentDidNotStart("the language probe failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw host.error(ErrorKind.INTERRUPTED, "interrupted while opening sandbox " + host.id(), e);
        }
        return LanguageProbe.interpreters(r.out());
    }


    /** With a network policy, the relay to the host's egress proxy (the sandbox's network has loopback only). */
    private void startEgress(AgentChannel ch) {
        if (spec.network().mode() == NetworkPolicy.Mode.NONE) {
            return;
        }
        try {
            egress = AgentEgress.start(ch, host.agentDir() + "/" + AgentBinary.RELAY, spec.network(),
                    Duration.ofSeconds(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw host.error(ErrorKind.INTERRUPTED, "interrupted while opening sandbox " + host.id(), e);
        } catch (IOException e) {
            throw host.error(ErrorKind.BACKEND_UNAVAILABLE, "the sandbox's network: " + e.getMessage(), e);
        }
        shell.setBaseEnv(AgentEgress.env(spec.network()));
    }

    /** The agent's channel ended while the sandbox was open (on the channel's reader thread). */
    private void agentEnded(String why) {
        AgentChannel ch = channel;
        if (closing.isClosed() || ch == null || !ch.isReady() || !dying.compareAndSet(false, true)) {
            return; // closing, an open that fails on its own, or already noticed
        }
        // at once: a call racing this one (its spawn failed on the ended channel) must see the sandbox as gone, not
        // an I/O error, while the host is asked why (which may take an engine's round trip)
        deathDetail = "the sandbox's agent stopped (" + why + ")";
        died(host.death(why));
    }

    /** The isolation died under an open sandbox: the commands learn why, then the sandbox closes (not on this thread). */
    private void died(String detail) {
        deathDetail = detail;
        AgentShell s = shell;
        if (s != null) {
            s.markAll("the sandbox died: " + detail);
        }
        Background.execute(this::close);
    }

    private void checkOpen() {
        if (!closing.isClosed() && deathDetail == null) {
            String gone = host.whyGone();
            if (gone != null && dying.compareAndSet(false, true)) {
                died(gone);
            }
        }
        if (closing.isClosed() || deathDetail != null) {
            throw host.closedError(deathDetail);
        }
    }

    /** {@link #checkOpen()}, and not paused: what every call that needs the sandbox's processes checks. */
    private void checkUsable() {
        checkOpen();
        if (freezer.isPaused()) {
            throw host.error(ErrorKind.PAUSED, "sandbox " + host.id() + " is paused; resume() it first", null);
        }
    }

    /** Freezes the isolation through the host; calls are refused from the moment it begins (one mechanism here). */
    @Override
    public void pause() {
        freezer.pause(this::checkPausable);
    }

    @Override
    public void resume() {
        freezer.resume(this::checkPausable);
    }

    /** Open, and its info declares {@link dev.sandbox4j.Feature#PAUSE} (the host's freezer is there). */
    private void checkPausable() {
        checkOpen();
        if (!info.supports(dev.sandbox4j.Feature.PAUSE)) {
            throw host.error(ErrorKind.UNSUPPORTED, "sandbox " + host.id() + " cannot be paused: its backend has no "
                    + "freezer for it (the local backend needs cgroups: root, or a delegated cgroup v2 subtree)", null);
        }
    }

    /** The host under this sandbox (tests reach their backend's internals through it). */
    public SandboxHost host() {
        return host;
    }

    @Override
    public String id() {
        return host.id();
    }

    @Override
    public Shell shell() {
        checkUsable();
        return shell;
    }

    @Override
    public CodeRunner code() {
        checkUsable();
        return shell;
    }

    @Override
    public FileSystem files() {
        checkUsable();
        return files;
    }

    /** Refused (UNSUPPORTED) when the host's info leaves out {@link dev.sandbox4j.Feature#PORTS}. */
    @Override
    public dev.sandbox4j.Ports ports() {
        checkUsable();
        if (!info.supports(dev.sandbox4j.Feature.PORTS)) {
            throw host.error(ErrorKind.UNSUPPORTED, "sandbox " + host.id() + " cannot open its ports on the host "
                    + "(its backend does not declare " + dev.sandbox4j.Feature.PORTS + ")", null);
        }
        return ports;
    }

    @Override
    public dev.sandbox4j.Workspace workspace() {
        checkUsable();
        dev.sandbox4j.Workspace w = host.changeSet(context);
        return w != null ? w : new NoChangeSet(spec.workspace(), this::checkUsable);
    }

    @Override
    public dev.sandbox4j.Snapshot snapshot(dev.sandbox4j.SnapshotStore store) {
        java.util.Objects.requireNonNull(store, "store");
        checkSnapshots();
        return dev.sandbox4j.snapshot.Snapshots.capture(rawFiles, store, host::copyWorkspaceTo);
    }

    @Override
    public Sandbox fork() {
        checkSnapshots();
        return dev.sandbox4j.snapshot.Snapshots.fork(store -> snapshot(store), spec, host::openAnother);
    }

    private void checkSnapshots() {
        checkUsable();
        if (!info.supports(dev.sandbox4j.Feature.SNAPSHOT)) {
            throw host.error(ErrorKind.UNSUPPORTED, "the " + info.backend() + " backend takes no snapshots", null);
        }
    }

    /**
     * Opens {@code spec} with {@code opener} (a backend's own open), a snapshot source first restored into a private
     * directory that an agent's sandbox keeps until it closes (its change set compares against it).
     */
    public static Sandbox openFromSnapshot(SandboxSpec spec,
            java.util.function.Function<SandboxSpec, Sandbox> opener) {
        return dev.sandbox4j.snapshot.Snapshots.open(spec, opener, (s, remove) -> {
            if (s instanceof AgentSandbox a) {
                a.afterClose(remove);
            } else {
                remove.run();
            }
        });
    }

    /** Runs {@code task} once the sandbox is closed and its host removed (at once if it is closed already). */
    public void afterClose(Runnable task) {
        afterClose.add(task);
        if (closing.isClosed()) {
            runAfterClose();
        }
    }

    private void runAfterClose() {
        for (Runnable r : afterClose) {
            if (afterClose.remove(r)) {
                r.run();
            }
        }
    }

    @Override
    public SandboxInfo info() {
        checkOpen();
        return info;
    }

    @Override
    public dev.sandbox4j.AttachCredential credential() {
        checkOpen();
        SandboxHost.Lease lease = host.lease();
        if (lease == null) {
            throw host.error(ErrorKind.UNSUPPORTED, "sandbox " + host.id() + " has no lease: open it with "
                    + "SandboxSpec.Builder.lease on a backend with REATTACH", null);
        }
        return lease.credential();
    }

    /** Ends this host's hold as close does (commands first, then the channel), but the host keeps the isolation. */
    @Override
    public dev.sandbox4j.AttachCredential detach() {
        dev.sandbox4j.AttachCredential credential = credential();
        if (!closing.begin()) {
            return credential; // closed meanwhile by another thread: detached or closed, as that one did
        }
        boolean interrupted = Thread.interrupted();
        try {
            closeNow(true);
        } finally {
            closing.done();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return credential;
    }

    @Override
    public boolean isOpen() {
        if (closing.isClosed()) {
            return false;
        }
        try {
            checkOpen();
            return true;
        } catch (SandboxException e) {
            return false;
        }
    }

    @Override
    public void close() {
        if (!closing.begin()) {
            return; // closed, or closed by now by the thread that began it
        }
        // an interrupt of the closing thread must not stop the removal halfway
        boolean interrupted = Thread.interrupted();
        try {
            closeNow(false);
        } finally {
            closing.done();
            runAfterClose();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void closeNow(boolean detach) {
        String why = detach ? "sandbox detached" : "sandbox closed";
        ScheduledFuture<?> t = expiry;
        if (t != null) {
            t.cancel(false);
        }
        freezer.thawForClose();
        AgentShell s = shell;
        if (s != null) {
            s.markAll(why);
        }
        AgentPorts p = ports;
        if (p != null) {
            p.closeAll();
        }
        WatchHub w = watches;
        if (w != null) {
            w.closeAll(detach ? "the sandbox was detached" : "the sandbox was closed");
        }
        AgentEgress relay = egress;
        if (relay != null) {
            relay.close();
        }
        host.beforeChannelClose();
        AgentChannel ch = channel;
        if (ch != null) {
            ch.close();
        }
        if (s != null) {
            s.endAll(why);
        }
        if (detach) {
            host.detach();
        } else {
            host.close();
        }
    }

    /** The shell's view of the sandbox: whether it is open, and the host's process control. */
    private final class Hooks implements AgentShell.Hooks {
        private final SandboxHost.ProcessControl control = host.processControl();

        @Override
        public void checkOpen() {
            checkUsable();
        }

        @Override
        public boolean closed() {
            return closing.isClosed();
        }

        @Override
        public SandboxInfo info() {
            return info;
        }

        @Override
        public SandboxHost.ProcessControl control() {
            return control;
        }

        @Override
        public String killedFromOutside() {
            return closing.isClosed() ? "the sandbox was closed" : host.killedFromOutside();
        }

        @Override
        public String workspaceRoot() {
            return host.workspaceRoot();
        }
    }

    @Override
    public String toString() {
        return "AgentSandbox[" + host.id() + "]";
    }
}
