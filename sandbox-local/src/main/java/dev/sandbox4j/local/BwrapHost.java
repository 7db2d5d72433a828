package dev.sandbox4j.local;

import dev.sandbox4j.core.AgentBinary;
import dev.sandbox4j.core.AgentRunner;
import dev.sandbox4j.core.AgentSandbox;
import dev.sandbox4j.core.SandboxHost;
import dev.sandbox4j.core.AgentEgress;
import dev.sandbox4j.core.AgentShell;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Feature;
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
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What a local sandbox is beyond the shared {@link AgentSandbox}: one bubblewrap jail with the native agent
 * ({@code sbx-agent}) as its main process, its cgroups, its workspace directory (and quota), and their removal.
 */
final class BwrapHost implements SandboxHost {
    /**
     * The jail's main process: {@code sbx-agent [--nproc=N] [--data=BYTES]}. Each command runs as
     * {@code sbx-reaper -- argv} (the gate, the command's subreaper and tree kill) with, on hosts without a pids or
     * memory cgroup, RLIMIT_NPROC = N + 1 (the agent, single-threaded, which is the jail's init; the count is per
     * user namespace: this jail's) and RLIMIT_DATA = BYTES, soft = hard.
     */
    static final String AGENT_PATH = "/opt/sandbox4j/sbx-agent";

    static final String PREFIX = "sandbox4j-local-";
    /** Names of this JVM's sandboxes, cgroups and temp dirs start so: a leak check can tell them from others'. */
    static final String OWNER = ProcessHandle.current().pid() + "-";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Set<BwrapHost> OPEN = ConcurrentHashMap.newKeySet();
    /** Lifetimes, deferred closes and the quota helper's answer timeout: one daemon thread for all sandboxes. */
    static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sandbox4j-local-timer");
        t.setDaemon(true);
        return t;
    });

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
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
        }, "sandbox4j-local-shutdown"));
    }

    private final String id;
    private final SandboxSpec spec;
    final Cgroups cgroups;
    private final Path ctl;
    private final Path workspace;
    /** The host directory made for the workspace: the workspace itself, or the quota tmpfs's mount point. */
    private final Path wsRoot;
    private final int uid;
    private final int gid;
    private final Process jail;
    private final OutputBuffer agentErr = new OutputBuffer(4000);
    private final SandboxInfo info;
    private final Path staging;
    /** Not root, with a workspace quota: where the agent is, for the helper that then holds the quota's tmpfs. */
    private final Path quotaAgent;
    private final ResourceLimits quotaLimits;
    /** The sandbox's open state, from AgentSandbox (set by start). */
    private volatile Context context;
    /** The sandbox over this host, once open (the JVM's exit closes it). */
    private volatile Sandbox sandbox;
    /** Not root, with a workspace quota: the helper that holds the quota's tmpfs, or null. */
    private volatile Process quotaHolder;

    private BwrapHost(String id, SandboxSpec spec, Cgroups cgroups, Path ctl, Path wsRoot, Path workspace,
                      Path staging, int uid, int gid, Process jail, SandboxInfo info, Path quotaAgent,
                      ResourceLimits quotaLimits) {
        this.id = id;
        this.spec = spec;
        this.cgroups = cgroups;
        this.ctl = ctl;
        this.workspace = workspace;
        this.wsRoot = wsRoot;
        this.uid = uid;
        this.gid = gid;
        this.jail = jail;
        this.info = info;
        this.staging = staging;
        this.quotaAgent = quotaAgent;
        this.quotaLimits = quotaLimits;
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

    /** Commands alive at once per sandbox (see {@link AgentShell#commandPermits}). */
    static int commandPermits(int maxProcesses) {
        return AgentShell.commandPermits(maxProcesses);
    }

    /** The open-files limit for the jail: min(1024, this JVM's hard RLIMIT_NOFILE) (raising it would be EPERM). */
    static long nofileLimit() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (line.startsWith("Max open files")) {
                    String[] parts = line.substring("Max open files".length()).trim().split("\\s+");
                    if (parts.length >= 2 && !parts[1].equals("unlimited")) {
                        return Math.max(1, Math.min(1024, Long.parseLong(parts[1])));
                    }
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // keep 1024
        }
        return 1024;
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
        ResourceLimits granted = can.apply(spec.limits(), spec.bestEffortLimits(), setting.description);
        granted = quotaFailed != null ? granted.withoutWorkspaceQuota()
                : WorkspaceQuota.decide(host, granted, spec.bestEffortLimits());
        if (!Seccomp.available()) {
            // fail closed: without the syscall filter the jail would be weaker than documented
            throw LocalErrors.error(ErrorKind.UNSUPPORTED, "the local backend has a seccomp filter for x86_64 and "
                    + "aarch64 only, not for '" + System.getProperty("os.arch") + "'; use the docker backend here");
        }
        Phases.mark("open: limits, seccomp");
        Janitor.maybeReap(options.tempDir());
        retryLeftovers();
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
        boolean root = host.root;
        int uid = root ? options.uidBase() + RANDOM.nextInt(1_000_000) : Host.currentUid();
        int gid = root ? uid : Host.currentGid();
        Path ctl = null;
        Path ws = null;
        Cgroups cg = null;
        try {
            Files.createDirectories(options.tempDir());
            ctl = Files.createTempDirectory(options.tempDir(), PREFIX + OWNER + "ctl-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x")));
            Files.setPosixFilePermissions(ctl, PosixFilePermissions.fromString("rwx--x--x"));
            Files.createDirectory(ctl.resolve("staging"),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            ws = Files.createTempDirectory(options.tempDir(), PREFIX + OWNER + "ws-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            if (root) {
                chown(ws, uid, gid);
            }
            Path workspace = ws;
            Path staging = ctl.resolve("staging");
            Phases.mark("open: ctl and workspace dirs");
            String noQuota = quotaFailed != null ? quotaFailed : WorkspaceQuota.unavailableReason(host);
            // not root: the quota's tmpfs is mounted in the jail's own mount namespace once the jail runs
            boolean quotaInJail = !root && granted.hasWorkspaceQuota();
            if (granted.hasWorkspaceQuota() && root) {
                try {
                    WorkspaceQuota.mount(ws, granted, uid, gid);
                } catch (IOException e) {
                    // root without CAP_SYS_ADMIN (a container), or no tmpfs: the quota cannot hold here
                    if (!spec.bestEffortLimits()) {
                        throw WorkspaceQuota.refused(granted, e.getMessage());
                    }
                    granted = granted.withoutWorkspaceQuota();
                    noQuota = e.getMessage();
                }
            }
            Phases.mark("open: workspace quota mount");
            if (quotaInJail) {
                WorkspaceQuota.linkStandIn(ctl);
                workspace = ctl.resolve(WorkspaceQuota.HOLDER_LINK).resolve("w");
                staging = ctl.resolve(WorkspaceQuota.HOLDER_LINK).resolve("s");
            } else if (granted.hasWorkspaceQuota()) {
                workspace = WorkspaceQuota.workspace(ws);
                staging = WorkspaceQuota.staging(ws);
            }
            cg = setting.create(id, granted.memoryBytes(), can.rlimitProcesses() ? 0 : granted.maxProcesses(),
                    granted.cpus());
            Phases.mark("open: cgroups made");
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

            List<String> args = bwrapArgs(spec, inForce, quotaInJail ? ws : workspace, agentDir, uid, gid);
            if (quotaInJail) {
                // bwrap's child pid, whose namespaces the quota's helper joins
                args.addAll(0, List.of("--info-fd", "9"));
            }
            writeSecret(ctl.resolve("args"), nulJoin(args));
            writeSecret(ctl.resolve("seccomp"), Seccomp.program(spec.syscallSets()));
            writeSecret(ctl.resolve("passwd"), ("root:x:0:0:root:/root:/usr/sbin/nologin\n"
                    + "sandbox:x:" + uid + ":" + gid + ":sandbox:/workspace:/bin/sh\n"
                    + "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n").getBytes(StandardCharsets.UTF_8));
            writeSecret(ctl.resolve("group"), ("root:x:0:\nsandbox:x:" + gid + ":\nnogroup:x:65534:\n")
                    .getBytes(StandardCharsets.UTF_8));
            // localhost resolves to loopback, as in a container; no resolver is consulted (there is no network)
            writeSecret(ctl.resolve("hosts"), ("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
                    + "127.0.1.1\tsandbox\n").getBytes(StandardCharsets.UTF_8));
            writeSecret(ctl.resolve("nsswitch"), ("passwd: files\ngroup: files\nhosts: files\n")
                    .getBytes(StandardCharsets.UTF_8));

            Phases.mark("open: control files");
            StringBuilder script = new StringBuilder();
            script.append(cg.placeLauncher());
            String c = ctl.toString();
            script.append("exec 3<'").append(c).append("/args' 4<'").append(c).append("/seccomp' 5<'").append(c)
                    .append("/passwd' 6<'").append(c).append("/group' 7<'").append(c).append("/hosts' 8<'")
                    .append(c).append("/nsswitch'").append(quotaInJail ? " 9>'" + c + "/info'" : "")
                    .append(" || exit 122\n");
            script.append("rm -f '").append(c).append("/args' '").append(c).append("/seccomp' '").append(c)
                    .append("/passwd' '").append(c).append("/group' '").append(c).append("/hosts' '").append(c)
                    .append("/nsswitch'\n");
            script.append("exec");
            if (host.prlimit != null) {
                long nofile = nofileLimit();
                script.append(" '").append(host.prlimit).append("' --nofile=").append(nofile).append(':')
                        .append(nofile).append(" --core=0:0");
                if (maxFile > 0) {
                    script.append(" --fsize=").append(maxFile).append(':').append(maxFile);
                }
            }
            if (root) {
                script.append(" '").append(host.setpriv).append("' --reuid=").append(uid).append(" --regid=")
                        .append(gid).append(" --clear-groups --inh-caps=-all --bounding-set=-all --");
            }
            script.append(" '").append(host.bwrap).append("' --args 3 --");
            for (String part : agentCommand(nproc ? granted.maxProcesses() : 0, dataLimit)) {
                if (part.contains("'")) {
                    throw new IOException("unsupported character in " + part);
                }
                script.append(" '").append(part).append('\'');
            }
            script.append('\n');
            for (String part : List.of(c, host.bwrap, String.valueOf(host.setpriv), String.valueOf(host.prlimit))) {
                if (part.contains("'")) {
                    throw new IOException("unsupported character in path " + part);
                }
            }
            List<String> launcher = new ArrayList<>(cg.launchPrefix());
            launcher.addAll(List.of("/bin/sh", "-c", script.toString()));
            ProcessBuilder pb = new ProcessBuilder(launcher);
            pb.environment().clear();
            pb.environment().put("PATH", "/usr/bin:/bin:/usr/sbin:/sbin");
            if (!cg.launchPrefix().isEmpty()) {
                CgroupSetting.userBusEnv(pb);
            }
            pb.directory(ctl.toFile());
            Phases.mark("open: launcher script");
            Process jail = Host.launch(pb);
            Phases.mark("open: launcher forked");
            try {
                cg.bind(jail);
            } catch (IOException e) {
                jail.destroyForcibly();
                throw e;
            }

            Set<Feature> features = EnumSet.of(Feature.SHELL, Feature.BACKGROUND_PROCESSES,
                    Feature.SHARED_PROCESS_SPACE, Feature.CODE_EXECUTION, Feature.CODE_CONTEXTS, Feature.FILE_WATCH,
                    Feature.ISOLATION, Feature.SYMLINKS, Feature.POSIX_PERMISSIONS, Feature.BYTE_FILE_NAMES);
            if (inForce.memoryBytes() > 0) {
                features.add(Feature.MEMORY_LIMIT);
            }
            if (inForce.maxProcesses() > 0) {
                features.add(Feature.PROCESS_LIMIT);
            }
            if (inForce.cpus() > 0) {
                features.add(Feature.CPU_LIMIT);
            }
            if (inForce.hasWorkspaceQuota()) {
                features.add(Feature.WORKSPACE_QUOTA);
            }
            Map<String, String> details = new LinkedHashMap<>();
            details.put("bwrap", host.bwrap);
            details.put("uid", Integer.toString(uid));
            details.put("cgroups", cg.toString());
            details.put("cgroup setting", setting.toString());
            if (nproc) {
                details.put("processes", "RLIMIT_NPROC " + granted.maxProcesses() + " plus 1 (the single-threaded "
                        + "agent, the jail's init), counted in the jail's own user namespace (no pids cgroup here)");
            }
            if (dataLimit > 0) {
                details.put("memory", "per process only: RLIMIT_DATA " + dataLimit + " bytes (no memory cgroup here; "
                        + "the sandbox as a whole is not bounded)");
            }
            details.put("seccomp", Seccomp.describe(spec.syscallSets()));
            details.put("workspace", workspace.toString());
            details.put("workspace quota", inForce.hasWorkspaceQuota()
                    ? (quotaInJail ? "tmpfs in the jail's mount namespace (held by a helper of this JVM's user): "
                    : "tmpfs on the host workspace dir: ") + inForce.workspaceBytes() + " bytes, "
                    + inForce.workspaceInodes() + " inodes (memory: commands' files are charged to the sandbox's "
                    + "memory cgroup, the file API's to the JVM's; no host disk)"
                    : spec.limits().hasWorkspaceQuota() ? "none (best effort: " + noQuota + ")"
                    : "none (not asked for)");
            if (spec.network().mode() == NetworkPolicy.Mode.NONE) {
                features.add(Feature.NETWORK_ISOLATION);
            } else {
                details.put("network", spec.network() + " through the host's egress proxy (127.0.0.1:"
                        + AgentEgress.PORT + " in the sandbox; loopback only otherwise)");
            }
            SandboxInfo info = new SandboxInfo(id, "local", features, inForce, details);
            BwrapHost h = new BwrapHost(id, spec, cg, ctl, ws, workspace, staging, uid, gid, jail, info,
                    quotaInJail ? agentDir.resolve(AgentBinary.AGENT) : null, granted);
            OPEN.add(h);
            cg = null; // from here on the host's close removes them
            ws = null;
            ctl = null;
            Phases.mark("open: host");
            return h.sandbox = AgentSandbox.open(h, spec); // closes the host when it fails
        } catch (QuotaNotHeld e) {
            String why = "the jail's own tmpfs could not be mounted: " + e.getMessage();
            if (spec.bestEffortLimits()) {
                return open(host, options, spec, why);
            }
            throw WorkspaceQuota.refused(granted, why);
        } catch (IOException e) {
            cleanup(cg, ws, ctl);
            throw LocalErrors.error(ErrorKind.BACKEND_UNAVAILABLE, "cannot start the jail: " + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            // Errors too (no native thread for the reader, out of memory): nothing of a failed open may stay.
            cleanup(cg, ws, ctl);
            throw e;
        }
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[6];
        RANDOM.nextBytes(b);
        return b;
    }

    private static void cleanup(Cgroups cg, Path ws, Path ctl) {
        if (cg != null) {
            cg.destroy();
        }
        deleteOrRemember(ws);
        deleteOrRemember(ctl);
    }

    /**
     * Directories of this JVM that could not be deleted when their sandbox failed to open or closed (for example
     * out of file descriptors mid-walk), with the number of attempts so far. They are retried on a background thread,
     * never on the thread of an open or close: one sandbox's leftovers must not slow another's close. A retry pass
     * runs at most once every {@link #LEFTOVER_RETRY_MILLIS} ms; a directory is given up after
     * {@link #LEFTOVER_ATTEMPTS} attempts (this JVM's exit tries once more, and the janitor of a later JVM reaps it).
     */
    private static final Map<Path, Integer> LEFTOVERS = new ConcurrentHashMap<>();
    static final long LEFTOVER_RETRY_MILLIS = 5_000;
    static final int LEFTOVER_ATTEMPTS = 12;
    private static final AtomicBoolean RETRY_PENDING = new AtomicBoolean();
    private static final ScheduledExecutorService LEFTOVER_RETRIES = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sandbox4j-local-leftovers");
        t.setDaemon(true);
        return t;
    });

    private static final AtomicBoolean EXIT_HOOK = new AtomicBoolean();
    /** Runs close's host umount(8) beside the jail's kill (daemon threads, gone when idle). */
    private static final java.util.concurrent.ExecutorService UNMOUNTS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "sandbox4j-local-unmount");
        t.setDaemon(true);
        return t;
    });

    static void deleteOrRemember(Path dir) {
        if (dir != null && !deleteTree(dir)) {
            LEFTOVERS.putIfAbsent(dir, 1);
            if (EXIT_HOOK.compareAndSet(false, true)) {
                // a JVM that never opens or closes another sandbox still tries once more on its way out
                Runtime.getRuntime().addShutdownHook(new Thread(BwrapHost::retryLeftoversNow,
                        "sandbox4j-local-exit"));
            }
            retryLeftovers();
        }
    }

    /** Schedules a background retry pass of the leftovers, unless one is pending; returns at once. */
    static void retryLeftovers() {
        if (!LEFTOVERS.isEmpty() && RETRY_PENDING.compareAndSet(false, true)) {
            LEFTOVER_RETRIES.schedule(() -> {
                RETRY_PENDING.set(false);
                retryLeftoversNow();
                retryLeftovers();
            }, LEFTOVER_RETRY_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** One retry pass, on the calling thread: deletes what it can, forgets what was tried too often. */
    static void retryLeftoversNow() {
        for (Path dir : List.copyOf(LEFTOVERS.keySet())) {
            if (deleteTree(dir)) {
                LEFTOVERS.remove(dir);
            } else if (LEFTOVERS.merge(dir, 1, Integer::sum) > LEFTOVER_ATTEMPTS) {
                LEFTOVERS.remove(dir); // left to the janitor of a later JVM
            }
        }
    }

    /** The directories waiting for a retry (for tests). */
    static Set<Path> leftovers() {
        return Set.copyOf(LEFTOVERS.keySet());
    }

    private static List<String> bwrapArgs(SandboxSpec spec, ResourceLimits limits, Path ws, Path agentDir,
                                          int uid, int gid) {
        List<String> a = new ArrayList<>(List.of(
                "--unshare-all", "--unshare-user", "--disable-userns",
                // the agent is the jail's init (as it is the container's on Docker): no bwrap reaper process between
                "--as-pid-1",
                "--die-with-parent", "--new-session", "--cap-drop", "ALL",
                "--clearenv",
                "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin",
                "--setenv", "HOME", "/workspace",
                "--setenv", "TMPDIR", "/tmp",
                "--setenv", "LANG", "C.UTF-8",
                "--setenv", "USER", "sandbox",
                "--setenv", "LOGNAME", "sandbox",
                "--hostname", "sandbox",
                "--ro-bind", "/usr", "/usr"));
        for (String d : List.of("bin", "sbin", "lib", "lib64", "lib32", "libx32")) {
            Path p = Path.of("/" + d);
            if (Files.isSymbolicLink(p)) {
                try {
                    a.addAll(List.of("--symlink", Files.readSymbolicLink(p).toString(), "/" + d));
                } catch (IOException ignored) {
                    // skip
                }
            } else if (Files.isDirectory(p)) {
                a.addAll(List.of("--ro-bind", "/" + d, "/" + d));
            }
        }
        a.addAll(List.of("--perms", "0755", "--dir", "/etc"));
        for (String e : List.of("/etc/alternatives", "/etc/ssl", "/etc/ca-certificates", "/etc/ld.so.cache",
                "/etc/localtime")) {
            a.addAll(List.of("--ro-bind-try", e, e));
        }
        a.addAll(List.of("--ro-bind-data", "5", "/etc/passwd", "--ro-bind-data", "6", "/etc/group",
                "--ro-bind-data", "7", "/etc/hosts", "--ro-bind-data", "8", "/etc/nsswitch.conf",
                "--proc", "/proc", "--dev", "/dev"));
        long tmp = limits.tmpBytes();
        a.addAll(List.of("--perms", "1777"));
        if (tmp > 0) {
            a.addAll(List.of("--size", Long.toString(Math.min(tmp, 64L << 20))));
        }
        a.addAll(List.of("--tmpfs", "/dev/shm", "--perms", "1777"));
        if (tmp > 0) {
            a.addAll(List.of("--size", Long.toString(tmp)));
        }
        a.addAll(List.of("--tmpfs", "/tmp",
                "--bind", ws.toString(), "/workspace",
                "--ro-bind", agentDir.toString(), "/opt/sandbox4j"));
        a.addAll(List.of("--chdir", "/workspace", "--remount-ro", "/"));
        a.addAll(List.of("--seccomp", "4"));
        return a;
    }

    /** The jail's command (on bwrap's argv after --args: bwrap 0.8 ignores a command inside the --args file). */
    private static List<String> agentCommand(int nproc, long dataBytes) {
        List<String> cmd = new ArrayList<>(List.of(AGENT_PATH));
        if (nproc > 0) {
            // the agent adds its own allowance: itself (one thread, the jail's init)
            cmd.add("--nproc=" + nproc);
        }
        if (dataBytes > 0) {
            cmd.add("--data=" + dataBytes);
        }
        return cmd;
    }

    private static byte[] nulJoin(List<String> args) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (String s : args) {
            if (s.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("NUL in a jail argument");
            }
            b.writeBytes(s.getBytes(StandardCharsets.UTF_8));
            b.write(0);
        }
        return b.toByteArray();
    }

    private static void writeSecret(Path file, byte[] content) throws IOException {
        Files.write(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }

    private static void chown(Path p, int uid, int gid) throws IOException {
        Files.setAttribute(p, "unix:uid", uid, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(p, "unix:gid", gid, java.nio.file.LinkOption.NOFOLLOW_LINKS);
    }

    // ---------------------------------------------------------------- SandboxHost

    @Override
    public String id() {
        return id;
    }

    @Override
    public AgentStreams start(Context context) {
        this.context = context;
        Thread e = new Thread(() -> {
            try {
                agentErr.drain(jail.getErrorStream());
            } catch (IOException ignored) {
                // jail gone
            }
        }, "sandbox4j-" + id + "-stderr");
        e.setDaemon(true);
        e.start();
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
        Map<Language, String> found = new java.util.EnumMap<>(Language.class);
        Map<Language, String> names = Map.of(Language.PYTHON, "python3", Language.JAVASCRIPT, "node",
                Language.BASH, "bash");
        names.forEach((language, name) -> {
            for (String dir : List.of("/usr/local/bin", "/usr/bin", "/bin")) {
                Path p = Path.of(dir, name);
                if (Files.isExecutable(p) && !Files.isDirectory(p)) {
                    found.put(language, p.toString());
                    break;
                }
            }
        });
        return java.util.Optional.of(Map.copyOf(found));
    }

    /** The jail's fixed environment for the backend's own commands (the probe): its PATH, nothing of the user's. */
    @Override
    public List<String> internalEnv() {
        return List.of("PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C", "HOME=/workspace", "BASH_ENV=", "ENV=");
    }

    @Override
    public String agentDir() {
        return "/opt/sandbox4j";
    }

    /** Not root, with a workspace quota: the quota's tmpfs is mounted on the running jail's /workspace first. */
    @Override
    public SandboxInfo ready(AgentRunner runner, Map<Language, String> interpreters) {
        Phases.mark("open: agent READY");
        if (quotaAgent != null) {
            try {
                holdWorkspace(quotaAgent, quotaLimits);
            } catch (IOException e) {
                throw new QuotaNotHeld(e.getMessage());
            }
        }
        return info;
    }

    @Override
    public FileSystem workspace(AgentRunner runner, Context context) {
        NioWorkspace.Options fo = NioWorkspace.Options.defaults().withGuard(context::checkOpen)
                .withMaxFileBytes(info.limits().maxFileBytes())
                .withSizeFirst(info.limits().hasWorkspaceQuota() && WorkspaceQuota.HUGE);
        if (Host.isRoot()) {
            fo = fo.withOwner(uid, gid);
        }
        return new NioWorkspace(workspace, staging, fo); // writes stage outside: no temp name for watches to hide
    }

    @Override
    public ProcessControl processControl() {
        return new JailControl();
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

    private static final java.util.regex.Pattern CHILD_PID =
            java.util.regex.Pattern.compile("\"child-pid\"\\s*:\\s*(\\d+)");

    /**
     * Mounts the quota's tmpfs on the running jail's /workspace (not root: see {@link WorkspaceQuota#holdInJail}),
     * before any command or file of the caller; the file API's paths point at it from then on.
     */
    private void holdWorkspace(Path agent, ResourceLimits limits) throws IOException {
        // written by bwrap itself on --info-fd before it ran the agent, which has said READY
        String info = Files.readString(ctl.resolve("info"));
        java.util.regex.Matcher m = CHILD_PID.matcher(info);
        if (!m.find()) {
            throw new IOException("bwrap did not report its child's pid");
        }
        quotaHolder = WorkspaceQuota.holdInJail(agent, Long.parseLong(m.group(1)), limits, ctl);
    }

    private String jailDiagnostics() {
        String err = agentErr.text().trim();
        String rc = jail.isAlive() ? "running" : "exit " + jail.exitValue();
        return rc + (err.isEmpty() ? "" : ": " + err);
    }

    /** What the shared shell needs of the jail's cgroups. */
    private final class JailControl implements ProcessControl {
        @Override
        public String place(int agentPid, int commandId) {
            if (!cgroups.perCommand()) {
                return null;
            }
            Phases.mark("run: spawned");
            long host = hostPid(agentPid);
            Phases.mark("run: gate's host pid found");
            if (host <= 0) {
                return "its process was not found in the sandbox";
            }
            boolean placed = cgroups.placeCommand(host, commandId);
            Phases.mark("run: placed in cgroups");
            return placed ? null : "it could not be placed in its cgroups";
        }

        @Override
        public boolean hasGroup(int commandId) {
            return cgroups.hasCommandGroup(commandId);
        }

        @Override
        public void signalGroup(int commandId, boolean kill) {
            cgroups.signal(commandId, kill);
        }

        @Override
        public void pruneGroups(java.util.function.IntPredicate live) {
            cgroups.pruneCommandGroups(live::test);
        }

        @Override
        public long oomKills() {
            return cgroups.oomKills();
        }

        @Override
        public long pidsDenied() {
            return cgroups.pidsDenied();
        }
    }

    /** The host pid of a jail pid, found among the sandbox's processes by their NSpid. */
    private long hostPid(int jailPid) {
        for (int attempt = 0; attempt < 50; attempt++) {
            List<Long> candidates = cgroups.sandboxPids();
            // newest first: the command's gate is almost always the last one listed
            for (int i = candidates.size() - 1; i >= 0; i--) {
                long p = candidates.get(i);
                try {
                    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(p), "status"))) {
                        if (line.startsWith("NSpid:")) {
                            String[] parts = line.substring(6).trim().split("\\s+");
                            if (parts.length > 1 && parts[parts.length - 1].equals(Integer.toString(jailPid))) {
                                return p;
                            }
                        }
                    }
                } catch (IOException | RuntimeException ignored) {
                    // exited
                }
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1;
            }
        }
        return -1;
    }

    // ---------------------------------------------------------------- closing

    /** Kills the jail and removes its cgroups and directories, once AgentSandbox ended every command. */
    @Override
    public void close() {
        Phases.mark("close");
        OPEN.remove(this);
        // root's quota tmpfs on the host is unmounted while the jail's processes are killed: the jail holds a mount
        // of its own (its namespace's), so the host's umount(8) (a process start, ~5 ms) need not wait for their
        // end; the tmpfs's memory goes when the last of the two mounts does. Joined below, before close returns.
        java.util.concurrent.Future<?> unmounting = info.limits().hasWorkspaceQuota() && quotaHolder == null
                ? UNMOUNTS.submit(() -> WorkspaceQuota.unmount(wsRoot)) : null;
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
        deleteOrRemember(wsRoot);
        Phases.mark("close: workspace deleted");
        deleteOrRemember(ctl);
        Phases.mark("close: ctl deleted");
        retryLeftovers();
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Deletes {@code root} and everything under it, of any depth, never following links (links are removed, never
     * their targets); whether nothing is left. Iterative and descriptor-relative, holding a bounded number of
     * directory descriptors (see {@link NioWorkspace#deleteTree(Path)}), so a tree sandboxed code nested thousands of
     * levels deep is deleted too, and a JVM at its descriptor limit still cleans up a failed open.
     */
    static boolean deleteTree(Path root) {
        if (root == null) {
            return true;
        }
        // a workspace quota's tmpfs goes first (its memory with it); then the mount point is an empty directory
        WorkspaceQuota.unmount(root);
        try {
            NioWorkspace.deleteTree(root);
        } catch (IOException | RuntimeException ignored) {
            // reported by the return value: the caller remembers the directory and retries
        }
        return !Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS);
    }

    @Override
    public String toString() {
        return "BwrapHost[" + id + "]";
    }
}
