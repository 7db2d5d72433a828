package dev.sandbox4j.local;

import dev.sandbox4j.core.AgentBinary;
import dev.sandbox4j.core.AgentRunner;
import dev.sandbox4j.core.AgentSandbox;
import dev.sandbox4j.core.SandboxHost;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.Language;
import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxInfo;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.core.NioWorkspace;
import dev.sandbox4j.core.OutputBuffer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What a local sandbox is beyond the shared {@link AgentSandbox}: one bubblewrap jail with the native agent
 * ({@code sbx-agent}) as its main process, its cgroups, its workspace directory (and quota), and their removal.
 */
final class BwrapHost implements SandboxHost {
    static final String PREFIX = "sandbox4j-local-";
    /** Names of this JVM's sandboxes, cgroups and temp dirs start so: a leak check can tell them from others'. */
    static final String OWNER = ProcessHandle.current().pid() + "-";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Set<BwrapHost> OPEN = ConcurrentHashMap.newKeySet();
    static {
        // the JVM's exit closes every sandbox still open (the library's one exit hook)
        dev.sandbox4j.core.Background.atExit(() -> {
            for (BwrapHost s : List.copyOf(OPEN)) {
                try {
                    Sandbox open = s.sandbox;
                    if (open != null) {
                        open.close();
                    } else {
                        s.close();
                    }
                } catch (RuntimeException ignored) {
                    // best effort at exit
                }
            }
        });
    }

    private final String id;
    final Cgroups cgroups;
    private final JailDirs dirs;
    private final int uid;
    private final int gid;
    /** The launcher, which became the jail's outer bwrap. */
    private final Process jail;
    private final OutputBuffer agentErr = new OutputBuffer(4000);
    private final SandboxInfo info;
    /** Not root, with a workspace quota: where the agent is, for the helper that then holds the quota's tmpfs. */
    private final Path quotaAgent;
    /** The workspace source and mounts, as prepared at open. */
    private final LocalWorkspace sourced;
    /** For {@link #openAnother}: the provider's options. */
    private volatile LocalOptions options;
    /** The sandbox over this host, once open (the JVM's exit closes it). */
    private volatile Sandbox sandbox;
    /** The sandbox's open state, for the change set's guard (set once the sandbox exists). */
    private volatile java.util.concurrent.atomic.AtomicReference<Context> opened;
    /** Not root, with a workspace quota: the helper that holds the quota's tmpfs, or null. */
    private volatile Process quotaHolder;

    private BwrapHost(String id, Cgroups cgroups, JailDirs dirs, JailCommandLine.Jail who, Process jail,
                      SandboxInfo info, Path quotaAgent, LocalWorkspace sourced) {
        this.sourced = sourced;
        this.id = id;
        this.cgroups = cgroups;
        this.dirs = dirs;
        this.uid = who.uid();
        this.gid = who.gid();
        this.jail = jail;
        this.info = info;
        this.quotaAgent = quotaAgent;
    }

    /** An open sandbox of this JVM by id, or null (for tests that look at its processes from the host). */
    static BwrapHost openSandbox(String id) {
        return OPEN.stream().filter(s -> s.id.equals(id)).findFirst().orElse(null);
    }

    /** The host pid of the process that became the jail's outer bwrap. */
    long launcherPid() {
        return jail.pid();
    }

    // ---------------------------------------------------------------- opening

    @Override
    public Sandbox openAnother(SandboxSpec spec) {
        return new LocalSandboxProvider(options).open(spec);
    }

    static Sandbox open(Host host, LocalOptions options, SandboxSpec spec) {
        return open(host, options, spec, null);
    }

    /** The jail's own tmpfs could not be mounted after the agent said READY (see {@link #ready}). */
    private static final class QuotaNotHeld extends RuntimeException {
        QuotaNotHeld(String why) {
            super(why, null, false, false);
        }
    }

    /**
     * Opens a sandbox; {@code quotaFailed} is why a first attempt's workspace quota did not hold (a best-effort spec
     * is then opened again without it), or null.
     */
    private static Sandbox open(Host host, LocalOptions options, SandboxSpec spec, String quotaFailed) {
        CgroupSetting setting = CgroupSetting.get(options);
        Phases.mark("open");
        Limits can = Limits.of(host, setting);
        // fails closed before anything is made: a limit asked for that cannot hold here is refused
        ResourceLimits asked = can.apply(spec.limits(), spec.bestEffortLimits(), setting.description);
        ResourceLimits granted = quotaFailed != null ? asked.withoutWorkspaceQuota()
                : WorkspaceQuota.decide(host, asked, spec.bestEffortLimits());
        if (!Seccomp.available()) {
            // fail closed: without the syscall filter the jail would be weaker than documented
            throw LocalErrors.error(ErrorKind.UNSUPPORTED, "the local backend has a seccomp filter for x86_64 and "
                    + "aarch64 only, not for '" + System.getProperty("os.arch") + "'; use the docker backend here");
        }
        Phases.mark("open: limits, seccomp");
        Janitor.maybeReap(options.tempDir());
        Leftovers.retry();
        Phases.mark("open: janitor");
        Path agentDir;
        try {
            agentDir = AgentFiles.dir(options.tempDir(), spec.network().mode() != NetworkPolicy.Mode.NONE);
        } catch (AgentFiles.Missing e) {
            throw LocalErrors.error(ErrorKind.UNSUPPORTED, "the local backend cannot run here: " + e.getMessage());
        } catch (IOException e) {
            throw LocalErrors.error(ErrorKind.BACKEND_UNAVAILABLE, "cannot start the jail: " + e.getMessage(), e);
        }
        Phases.mark("open: agent binaries (once per JVM)");
        String id = "sbx-" + OWNER + HexFormat.of().formatHex(randomBytes());
        // overlay and bind as root: the jail runs as the directory's owner (overlayfs and the files' modes check it)
        int owner = host.root ? LocalWorkspace.ownerUid(spec, options) : -1;
        int uid = host.root ? (owner > 0 ? owner : options.uidBase() + RANDOM.nextInt(1_000_000)) : Host.currentUid();
        int gid = host.root ? uid : Host.currentGid();
        java.util.concurrent.atomic.AtomicReference<Context> opened = new java.util.concurrent.atomic.AtomicReference<>();
        JailDirs dirs = null;
        Cgroups cg = null;
        LocalWorkspace sourced = null;
        try {
            dirs = JailDirs.make(host, options, spec, granted, quotaFailed, uid, gid);
            granted = dirs.granted();
            sourced = LocalWorkspace.prepare(host, options, spec, dirs, uid, gid, () -> {
                Context c = opened.get();
                if (c != null) {
                    c.checkOpen();
                }
            });
            Phases.mark("open: workspace source");
            cg = setting.create(id, granted.memoryBytes(), can.rlimitProcesses() ? 0 : granted.maxProcesses(),
                    granted.cpus());
            Phases.mark("open: cgroups made");
            BwrapHost h = start(id, host, setting, can, cg, spec, dirs, agentDir, uid, gid, sourced,
                    options.seccompProgram(spec.syscallSets()));
            h.opened = opened;
            h.options = options;
            cg = null; // from here on the host's close removes them
            dirs = null;
            sourced = null;
            return h.sandbox = AgentSandbox.open(h, spec); // closes the host when it fails
        } catch (QuotaNotHeld e) {
            String why = "the jail's own tmpfs could not be mounted: " + e.getMessage();
            if (spec.bestEffortLimits()) {
                return open(host, options, spec, why);
            }
            throw WorkspaceQuota.refused(granted, why);
        } catch (IOException e) {
            cleanup(cg, dirs, sourced);
            throw LocalErrors.error(ErrorKind.BACKEND_UNAVAILABLE, "cannot start the jail: " + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            // Errors too (no native thread for the reader, out of memory): nothing of a failed open may stay.
            cleanup(cg, dirs, sourced);
            throw e;
        }
    }

    /** Decides the limits in force, starts the jail's launcher and makes the host (not yet the sandbox). */
    private static BwrapHost start(String id, Host host, CgroupSetting setting, Limits can, Cgroups cg,
                                   SandboxSpec spec, JailDirs dirs, Path agentDir, int uid, int gid,
                                   LocalWorkspace sourced, byte[] seccomp) throws IOException {
        ResourceLimits granted = dirs.granted();
        long maxFile = host.prlimit != null ? granted.maxFileBytes() : 0;
        boolean nproc = can.rlimitProcesses() && granted.maxProcesses() > 0;
        ResourceLimits inForce = new ResourceLimits(cg.memory ? granted.memoryBytes() : 0,
                cg.pids || nproc ? granted.maxProcesses() : 0, cg.cpu ? granted.cpus() : 0, maxFile,
                granted.tmpBytes(), granted.workspaceBytes(), granted.workspaceInodes());
        if (!spec.bestEffortLimits() && !inForce.equals(granted.withMaxFileBytes(maxFile))) {
            throw LocalErrors.error(ErrorKind.UNSUPPORTED, "the local backend could not set every limit "
                    + "asked for in " + cg + " (asked " + granted + ", set " + inForce + "); see the host's "
                    + "cgroup delegation, or ask for less (bestEffortLimits)");
        }
        // without a memory cgroup, best effort caps each process's data segment: honest, but per process
        long dataLimit = !cg.memory && spec.limits().memoryBytes() > 0 && host.prlimit != null
                ? spec.limits().memoryBytes() : 0;
        JailCommandLine.Jail jail = new JailCommandLine.Jail(host.root, uid, gid, maxFile, inForce.tmpBytes(),
                nproc ? granted.maxProcesses() : 0, dataLimit, dirs.quotaInJail());
        Process launcher = launch(host, cg, jail, new JailCommandLine.Paths(dirs.ctl(), sourced.bound(), agentDir,
                sourced.binds()), seccomp);
        SandboxInfo info = JailInfo.of(id, host, setting, cg, spec, jail, dirs, inForce, sourced);
        BwrapHost h = new BwrapHost(id, cg, dirs, jail, launcher, info,
                dirs.quotaInJail() ? agentDir.resolve(AgentBinary.AGENT) : null, sourced);
        OPEN.add(h);
        Phases.mark("open: host");
        return h;
    }

    /** Writes the control files and starts the launcher ({@link JailCommandLine}), in the sandbox's cgroups. */
    private static Process launch(Host host, Cgroups cg, JailCommandLine.Jail jail, JailCommandLine.Paths paths,
                                  byte[] seccomp) throws IOException {
        JailCommandLine line;
        Map<String, byte[]> files;
        try {
            line = JailCommandLine.of(jail, host.jailFacts(), paths, cg.placeLauncher(), cg.launchPrefix());
            files = line.controlFiles(jail, seccomp);
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage(), e);
        }
        for (Map.Entry<String, byte[]> f : files.entrySet()) {
            Path file = paths.ctl().resolve(f.getKey());
            Files.write(file, f.getValue());
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        }
        Phases.mark("open: control files");
        ProcessBuilder pb = new ProcessBuilder(line.launcher());
        pb.environment().clear();
        pb.environment().put("PATH", "/usr/bin:/bin:/usr/sbin:/sbin");
        if (!cg.launchPrefix().isEmpty()) {
            CgroupSetting.userBusEnv(pb);
        }
        pb.directory(paths.ctl().toFile());
        Phases.mark("open: launcher script");
        Process jailProcess = Host.launch(pb);
        Phases.mark("open: launcher forked");
        try {
            cg.bind(jailProcess);
        } catch (IOException e) {
            jailProcess.destroyForcibly();
            throw e;
        }
        return jailProcess;
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[6];
        RANDOM.nextBytes(b);
        return b;
    }

    private static void cleanup(Cgroups cg, JailDirs dirs, LocalWorkspace sourced) {
        if (sourced != null) {
            sourced.close();
        }
        if (cg != null) {
            cg.destroy();
        }
        if (dirs != null) {
            Overlay.discard(dirs);
            dirs.delete();
        }
    }

    // ---------------------------------------------------------------- SandboxHost

    @Override
    public String id() {
        return id;
    }

    @Override
    public AgentStreams start(Context context) {
        opened.set(context);
        agentErr.drainInBackground(jail.getErrorStream(), "sandbox4j-" + id + "-stderr");
        return new AgentStreams(jail.getInputStream(), jail.getOutputStream());
    }

    @Override
    public SandboxException agentDidNotStart(String why) {
        return LocalErrors.error(ErrorKind.BACKEND_UNAVAILABLE, "the jail did not start: " + why + "; "
                + jailDiagnostics());
    }

    /**
     * Found on the host in the jail's PATH order: the jail binds the host's {@code /usr} (and {@code /bin} with it)
     * read-only, so it sees these very files; no probe through the agent on the open's path.
     */
    @Override
    public java.util.Optional<Map<Language, String>> interpreters(AgentRunner runner) {
        return java.util.Optional.of(Host.interpreters());
    }

    /** The jail's fixed environment for the backend's own commands (the probe): its PATH, nothing of the user's. */
    @Override
    public List<String> internalEnv() {
        return List.of("PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C", "HOME=/workspace", "BASH_ENV=", "ENV=");
    }

    @Override
    public String agentDir() {
        return JailCommandLine.AGENT_DIR;
    }

    /** Not root, with a workspace quota: the quota's tmpfs is mounted on the running jail's /workspace first. */
    @Override
    public SandboxInfo ready(AgentRunner runner, Map<Language, String> interpreters) {
        Phases.mark("open: agent READY");
        if (quotaAgent != null) {
            try {
                // the quota's tmpfs on the running jail's /workspace, before any command or file of the caller
                quotaHolder = WorkspaceQuota.holdInJail(quotaAgent, dirs.granted(), dirs.ctl());
            } catch (IOException e) {
                throw new QuotaNotHeld(e.getMessage());
            }
        }
        return info;
    }

    @Override
    public FileSystem workspace(AgentRunner runner, Context context) {
        if (sourced.viaAgent()) {
            // the jail's /workspace is not a host directory the JVM may stage beside: an overlay's merged view (its
            // writes must land in the upper layer as the jail's user), a user's directory, mounts covering parts of it
            return new dev.sandbox4j.core.AgentWorkspace(runner, "/workspace", context, this::error,
                    info.limits().maxFileBytes());
        }
        NioWorkspace.Options fo = NioWorkspace.Options.defaults().withGuard(context::checkOpen)
                .withMaxFileBytes(info.limits().maxFileBytes())
                .withSizeFirst(info.limits().hasWorkspaceQuota() && WorkspaceQuota.HUGE);
        if (Host.isRoot()) {
            fo = fo.withOwner(uid, gid);
        }
        // writes stage outside the workspace: no temp name for watches to hide
        return new NioWorkspace(dirs.workspace(), dirs.staging(), fo);
    }

    @Override
    public java.util.function.Predicate<String> hiddenFromWatches() {
        return sourced.viaAgent() ? dev.sandbox4j.core.AgentWorkspace::isTemporary : p -> false;
    }

    @Override
    public dev.sandbox4j.Workspace changeSet(Context context) {
        return sourced.changes();
    }

    /** The jail's cgroup freezer (v1 freezer.state, v2 cgroup.freeze); refused where the sandbox has no cgroup. */
    @Override
    public void freeze(boolean frozen) {
        String why = cgroups.freeze(frozen);
        if (why != null) {
            throw LocalErrors.error(frozen && cgroups.freezeFile() == null ? ErrorKind.UNSUPPORTED
                    : ErrorKind.IO_ERROR, "cannot " + (frozen ? "pause" : "resume") + " sandbox " + id + ": " + why);
        }
    }

    @Override
    public ProcessControl processControl() {
        return new JailControl(cgroups);
    }

    /** Checked before every operation: the jail's outer process, or the quota's helper, exited under the sandbox. */
    @Override
    public String whyGone() {
        if (!jail.isAlive()) {
            return "the sandbox's jail exited; " + jailDiagnostics();
        }
        Process holder = quotaHolder;
        if (holder != null && !holder.isAlive()) {
            // the file API never follows the link of a dead helper's pid
            return "the helper holding the workspace's tmpfs exited; " + jailDiagnostics();
        }
        return null;
    }

    @Override
    public String death(String why) {
        return "the sandbox's jail died (" + why + "); " + jailDiagnostics();
    }

    @Override
    public SandboxException closedError(String deathDetail) {
        return LocalErrors.error(ErrorKind.CLOSED, "sandbox " + id + " is closed"
                + (deathDetail == null ? "" : ": " + deathDetail));
    }

    @Override
    public SandboxException error(ErrorKind kind, String message, Throwable cause) {
        return LocalErrors.error(kind, message, cause);
    }

    private String jailDiagnostics() {
        String err = agentErr.text().trim();
        String rc = jail.isAlive() ? "running" : "exit " + jail.exitValue();
        return rc + (err.isEmpty() ? "" : ": " + err);
    }

    // ---------------------------------------------------------------- closing

    /** Kills the jail and removes its cgroups and directories, once AgentSandbox ended every command. */
    @Override
    public void close() {
        Phases.mark("close");
        OPEN.remove(this);
        // the overlay first: its upper layer may be on the quota's tmpfs, which is unmounted next
        Overlay.discard(dirs);
        // root's quota tmpfs on the host is unmounted while the jail's processes are killed: the jail holds a mount
        // of its own (its namespace's), so the host's umount(8) (a process start, ~5 ms) need not wait for their
        // end; the tmpfs's memory goes when the last of the two mounts does. Joined below, before close returns.
        java.util.concurrent.Future<?> unmounting = info.limits().hasWorkspaceQuota() && quotaHolder == null
                ? java.util.concurrent.CompletableFuture.runAsync(() -> WorkspaceQuota.unmount(dirs.wsRoot()),
                        dev.sandbox4j.core.Background.workers()) : null;
        cgroups.destroy();
        Phases.mark("close: cgroups killed and removed");
        jail.destroyForcibly();
        try {
            jail.waitFor(3, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Phases.mark("close: launcher reaped");
        Process holder = quotaHolder;
        if (holder != null) {
            holder.destroy(); // its tmpfs goes with the jail's mount of it
        }
        if (!cgroups.perCommand()) {
            // without a freezer group: bwrap's --die-with-parent chain ends the jail once the outer bwrap dies
            sleepQuietly(50);
        }
        if (unmounting != null) {
            try {
                unmounting.get(15, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException | TimeoutException e) {
                // deleteTree below unmounts (again) on this thread
            }
        }
        Phases.mark("close: workspace unmounted");
        sourced.close(); // a volume's lease, once nothing of the jail is left to write in it
        Leftovers.deleteOrRemember(dirs.wsRoot());
        Phases.mark("close: workspace deleted");
        Leftovers.deleteOrRemember(dirs.ctl());
        Phases.mark("close: ctl deleted");
        Leftovers.retry();
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "BwrapHost[" + id + "]";
    }
}
