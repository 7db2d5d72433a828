package dev.sandbox4j.docker;

import com.github.dockerjava.api.command.CreateContainerResponse;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.LogConfig;
import com.github.dockerjava.api.model.Mount;
import com.github.dockerjava.api.model.MountType;
import com.github.dockerjava.api.model.Ulimit;
import com.github.dockerjava.api.model.VolumeOptions;
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
import dev.sandbox4j.core.AgentBinary;
import dev.sandbox4j.core.AgentSandbox;
import dev.sandbox4j.core.SandboxHost;
import dev.sandbox4j.core.AgentRunner;
import dev.sandbox4j.core.AgentEgress;
import dev.sandbox4j.core.BytePipe;
import dev.sandbox4j.core.OutputBuffer;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.StreamType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * What a Docker (or Podman) sandbox is beyond the shared {@link AgentSandbox}: one hardened container whose first
 * process is the native agent, driven over the container's attach stream (so a remote engine works); a workspace
 * volume; a root-owned volume holding the agent; the engine's answers about limits and death; the removal.
 */
final class ContainerHost implements SandboxHost {
    private static final Logger LOG = LoggerFactory.getLogger(ContainerHost.class);
    static final Duration INTERNAL_TIMEOUT = Duration.ofSeconds(60);
    private static String seccompDefault;

    final String id;
    final Engine engine;
    final SandboxSpec spec;
    /** The spec's limits as they hold on this engine: those it cannot apply are 0 (only with best effort). */
    private ResourceLimits granted;
    /** On Podman: the file size limit read in the sandbox (its inspect does not report the ulimits), else -1. */
    private long podmanFsize = -1;
    final String user;
    final int uid;
    final int gid;
    volatile String containerId;
    final String workspaceVolume;
    /** The sandbox's open state, from AgentSandbox (set by start). */
    private volatile Context context;
    /** The backend's own commands (probes, file scripts); set once the agent is up. */
    private volatile AgentRunner runner;
    /** The interpreter of each language the probe found. */
    private Map<Language, String> interpreters = Map.of();
    private final BytePipe toAgent = new BytePipe(1 << 20);
    private final BytePipe fromAgent = new BytePipe(1 << 20);
    /** Completed when the engine client's stdin thread has read the end of {@link #toAgent} (see closeNow). */
    private final java.util.concurrent.CompletableFuture<Void> stdinDone = new java.util.concurrent.CompletableFuture<>();
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
    /** The create request went out: the container may exist even when its id never came back. */
    private boolean createSent;
    /** The container was made but its agent did not start (the engine's start failed, or no READY came). */
    private volatile boolean agentDidNotStart;
    /** What the engine answers about the container, asked beside the attach and start (see create). */
    private java.util.concurrent.CompletableFuture<InspectContainerResponse> inspecting;
    /** The size of the workspace's tmpfs volume, or 0 (none). */
    private long workspaceTmpfsBytes;

    private ContainerHost(Engine engine, SandboxSpec spec) {
        this.id = "sbx-" + UUID.randomUUID().toString().substring(0, 12);
        this.engine = engine;
        this.spec = spec;
        this.user = engine.options.user();
        String[] ug = user.split(":");
        this.uid = Integer.parseInt(ug[0]);
        this.gid = ug.length > 1 ? Integer.parseInt(ug[1]) : uid;
        this.workspaceVolume = "sandbox4j-" + id + "-ws";
    }

    /**
     * Memory the container keeps for its processes when its workspace (a tmpfs charged to the container's memory
     * cgroup) is full. Measured: with a 512 MiB quota over a 128 MiB memory limit, a command filling the workspace
     * was OOM-killed, and then so was the container's PID 1 (the file pages stay charged), ending the sandbox.
     */
    static final long WORKSPACE_MEMORY_HEADROOM = 64 * ResourceLimits.MIB;

    /** Refuses a quota the memory limit cannot hold beside the processes (INVALID_ARGUMENT, before anything is made). */
    static void checkQuotaFitsMemory(ResourceLimits l) {
        if (l.memoryBytes() > 0 && l.workspaceBytes() > 0
                && l.workspaceBytes() > l.memoryBytes() - WORKSPACE_MEMORY_HEADROOM) {
            throw DockerErrors.error(ErrorKind.INVALID_ARGUMENT, "the workspace quota (" + l.workspaceBytes()
                    + " bytes) does not fit in the memory limit (" + l.memoryBytes() + " bytes): on Docker the "
                    + "workspace is a tmpfs whose files count against the container's memory, which must keep at least "
                    + WORKSPACE_MEMORY_HEADROOM + " bytes for its processes. Raise memoryBytes, lower workspaceBytes, "
                    + "or ask for no quota (ResourceLimits.withoutWorkspaceQuota())");
        }
    }

    /**
     * What of {@code want} holds on this engine: the spec's limits where the engine can apply them, 0 where not. A
     * limit asked for that the engine cannot apply (rootless Podman or Docker on cgroup v1; a rootless engine on
     * cgroup v2 without the controller delegated) fails the open with UNSUPPORTED naming it, unless the spec accepts
     * best effort; an engine would otherwise drop it silently (Podman 4.3 only logs a warning).
     */
    static ResourceLimits grant(ResourceLimits want, boolean bestEffort, Engine.Traits t, String host) {
        List<String> refused = new ArrayList<>();
        if (want.memoryBytes() > 0 && !t.memory()) {
            refused.add("memory (" + want.memoryBytes() + " bytes)");
        }
        if (want.maxProcesses() > 0 && !t.pids()) {
            refused.add("processes (" + want.maxProcesses() + ")");
        }
        if (want.cpus() > 0 && !t.cpu()) {
            refused.add("CPU (" + want.cpus() + " cores)");
        }
        if (!refused.isEmpty() && !bestEffort) {
            throw DockerErrors.error(ErrorKind.UNSUPPORTED, "the engine at " + host + " (" + t.describe()
                    + ") cannot apply the " + String.join(", ", refused) + " limit" + (refused.size() > 1 ? "s" : "")
                    + ": " + t.why() + ". Ask for less: set those limits to 0 in ResourceLimits, or "
                    + "SandboxSpec.builder().bestEffortLimits(true) to open with what holds (info().limits() reports "
                    + "it); or use a rootful engine, or cgroup v2 with the controllers delegated");
        }
        return new ResourceLimits(t.memory() ? want.memoryBytes() : 0, t.pids() ? want.maxProcesses() : 0,
                t.cpu() ? want.cpus() : 0, want.maxFileBytes(), want.tmpBytes(), want.workspaceBytes(),
                want.workspaceInodes());
    }

    static Sandbox open(DockerOptions options, SandboxSpec spec) {
        checkQuotaFitsMemory(spec.limits());
        return open(options, spec, true);
    }

    /**
     * One try. The binaries volume is not looked at before (Engine.binariesVolume): when the agent did not start, the
     * volume is checked and, if it had been pruned, made again, and the open tried once more.
     */
    private static Sandbox open(DockerOptions options, SandboxSpec spec, boolean mayRetry) {
        Engine engine = Engine.connect(options, options.requestTimeout());
        ContainerHost h = new ContainerHost(engine, spec);
        try {
            return AgentSandbox.open(h, spec); // closes the host when it fails
        } catch (RuntimeException e) {
            // on Podman the volume is looked at before every open, as before (Engine.binariesVolume)
            if (mayRetry && h.agentDidNotStart && !engine.traits().podman()
                    && !Thread.currentThread().isInterrupted()) {
                boolean repaired;
                try (Engine check = Engine.connect(options, options.requestTimeout())) {
                    repaired = check.repairBinaries(check.traits().architecture());
                }
                if (repaired) {
                    LOG.info("sandbox4j: the agent's binaries volume was gone or empty (docker volume prune?); made it "
                            + "again, opening once more");
                    return open(options, spec, false);
                }
            }
            throw DockerErrors.translate("opening a Docker sandbox", e);
        }
    }

    /** The container host under a sandbox this backend opened (for tests that look at the container). */
    static ContainerHost of(Sandbox sandbox) {
        return (ContainerHost) ((AgentSandbox) sandbox).host();
    }

    // ---------------------------------------------------------------- SandboxHost

    @Override
    public String id() {
        return id;
    }

    @Override
    public AgentStreams start(Context context) {
        this.context = context;
        engine.janitorInBackground();
        granted = grant(spec.limits(), spec.bestEffortLimits(), engine.traits(), engine.host);
        create();
        return new AgentStreams(fromAgent.in, toAgent.out);
    }

    @Override
    public SandboxException agentDidNotStart(String why) {
        return DockerErrors.error(ErrorKind.BACKEND_UNAVAILABLE, "the sandbox's agent did not start in "
                + engine.options.image() + ": " + why + agentDiagnostics());
    }

    @Override
    public List<String> internalEnv() {
        return WorkspaceScripts.FIXED_ENV;
    }

    @Override
    public String agentDir() {
        return AGENT_DIR;
    }

    /** The shared language probe and this backend's check of the workspace, in one command on the open's path. */
    @Override
    public java.util.Optional<Map<Language, String>> interpreters(AgentRunner runner) {
        this.runner = runner;
        agentDidNotStart = false; // it said READY: a failure from here on is not a missing binaries volume
        AgentRunner.Ran probe = internal(List.of("/bin/sh", "-c", AgentSandbox.PROBE
                + "\ntest -w /workspace && echo ws:ok"), null);
        if (!probe.out().contains("ws:ok")) {
            throw DockerErrors.error(ErrorKind.BACKEND_UNAVAILABLE, "the image " + engine.options.image()
                    + " has no /workspace writable by " + user + "; build it with scripts/build-test-image.sh (probe: "
                    + probe.out().strip() + " / exit " + probe.exitCode() + " " + probe.err().strip() + ")");
        }
        return java.util.Optional.of(AgentSandbox.interpreters(probe.out()));
    }

    @Override
    public SandboxInfo ready(AgentRunner runner, Map<Language, String> interpreters) {
        this.runner = runner;
        agentDidNotStart = false;
        this.interpreters = interpreters;
        InspectContainerResponse inspected = await(inspecting);
        Engine.Traits traits = engine.traits();
        if (traits.podman() && workspaceTmpfsBytes > 0) {
            checkWorkspaceSize((workspaceTmpfsBytes + PODMAN_PAGE - 1) / PODMAN_PAGE * PODMAN_PAGE);
        }
        if (traits.podman()) {
            podmanFsize = checkPodmanLimits(granted.maxFileBytes());
        }
        return buildInfo(inspected);
    }

    @Override
    public FileSystem workspace(AgentRunner runner, Context context) {
        return new dev.sandbox4j.core.AgentWorkspace(runner, WorkspaceScripts.WORKSPACE, context, this::error,
                spec.limits().maxFileBytes());
    }

    @Override
    public java.util.function.Predicate<String> hiddenFromWatches() {
        return dev.sandbox4j.core.AgentWorkspace::isTemporary;
    }

    @Override
    public String death(String why) {
        String outside = killedFromOutside();
        return (outside != null ? outside : "the sandbox's agent stopped (" + why + ")") + agentDiagnostics();
    }

    @Override
    public SandboxException closedError(String deathDetail) {
        if (deathDetail != null) {
            // the container died under the sandbox: the backend failed, not the caller (open a new sandbox)
            return DockerErrors.error(ErrorKind.BACKEND_UNAVAILABLE, "sandbox " + id + " is gone: " + deathDetail);
        }
        return DockerErrors.closed(id);
    }

    @Override
    public SandboxException error(ErrorKind kind, String message, Throwable cause) {
        return DockerErrors.error(kind, message, cause);
    }

    @Override
    public void beforeChannelClose() {
        // a sender blocked on the pipe (a streamed write) fails now instead of holding the channel's lock
        toAgent.close();
    }

    private Map<String, String> labels() {
        Map<String, String> labels = new LinkedHashMap<>(engine.options.labels());
        labels.put(Engine.LABEL, "1");
        labels.put(Engine.LABEL_ID, id);
        labels.put(Engine.LABEL_OWNER, Engine.OWNER);
        labels.put(Engine.LABEL_EXPIRES,
                Long.toString(Instant.now().plus(spec.lifetime()).plusSeconds(60).getEpochSecond()));
        return labels;
    }

    /** Where the agent and the reaper live in the container: a volume only root can write. */
    static final String AGENT_DIR = Engine.BIN_MOUNT + "/" + Engine.BIN_READY;

    private void create() {
        ResourceLimits l = granted;
        Engine.Traits traits = engine.traits();
        var c = engine.control;
        Map<String, String> labels = labels();
        // The engine creates the two named volumes, with these labels, as part of creating the container. With a
        // workspace quota both are sized tmpfs volumes of the local driver (issue 16): no path of the engine's host is
        // named, so a remote engine works, and the engine's disk is never written.
        // an inode quota alone still gets a size: tmpfs's default (half the engine host's memory) could outgrow the
        // container's memory limit
        long wsBytes = workspaceTmpfsBytes = l.workspaceBytes() == 0 && l.workspaceInodes() > 0 && l.memoryBytes() > WORKSPACE_MEMORY_HEADROOM
                ? l.memoryBytes() - WORKSPACE_MEMORY_HEADROOM : l.workspaceBytes();
        VolumeOptions workspaceOptions = volumeOptions(labels, wsBytes, l.workspaceInodes(), uid, gid,
                traits.podman());
        List<Ulimit> ulimits = new ArrayList<>();
        ulimits.add(new Ulimit("nofile", 4096L, 4096L));
        ulimits.add(new Ulimit("core", 0L, 0L));
        if (l.maxFileBytes() > 0) {
            ulimits.add(new Ulimit("fsize", l.maxFileBytes(), l.maxFileBytes()));
        }
        Map<String, String> tmpfs = new LinkedHashMap<>();
        long tmp = l.tmpBytes() > 0 ? l.tmpBytes() : 256 * ResourceLimits.MIB;
        tmpfs.put("/tmp", "rw,nosuid,nodev,size=" + tmp + ",mode=1777");
        HostConfig hc = HostConfig.newHostConfig()
                // every policy: no network but loopback; a policy's only way out is the relay to the host's proxy
                .withNetworkMode("none")
                .withPrivileged(false)
                .withCapDrop(Capability.ALL)
                .withSecurityOpts(List.of("no-new-privileges:true", engine.seccompOption(seccompProfile())))
                .withReadonlyRootfs(true)
                .withTmpFs(tmpfs)
                .withShmSize(64 * ResourceLimits.MIB)
                .withIpcMode("private")
                .withOomScoreAdj(500)
                .withUlimits(ulimits)
                .withInit(false)
                // the agent's stdout carries every command's output: the engine must not also log it
                .withLogConfig(new LogConfig(LogConfig.LoggingType.NONE, null))
                .withMounts(List.of(
                        new Mount().withType(MountType.VOLUME).withSource(workspaceVolume).withTarget(WorkspaceScripts.WORKSPACE)
                                .withVolumeOptions(workspaceOptions),
                        // the agent's binaries: one root-owned volume per engine and version, read-only here, so the
                        // sandbox can replace nothing in it (Engine.binariesVolume)
                        new Mount().withType(MountType.VOLUME).withSource(engine.binariesVolume(traits.architecture()))
                                .withTarget(Engine.BIN_MOUNT).withReadOnly(true)))
                .withAutoRemove(false);
        if (l.maxProcesses() > 0) {
            hc.withPidsLimit((long) l.maxProcesses());
        }
        if (l.memoryBytes() > 0) {
            hc.withMemory(l.memoryBytes()).withMemorySwap(l.memoryBytes());
        }
        if (l.cpus() > 0) {
            hc.withNanoCPUs((long) (l.cpus() * 1_000_000_000L));
        }
        if (traits.podman()) {
            // Podman's compat API creates a mount's volume without the mount's VolumeOptions (no labels, no driver
            // options: the workspace would be a plain directory on the engine's disk, measured on 4.3.1), so both
            // volumes are created first, explicitly; the mounts then name existing volumes
            createVolume(workspaceVolume, workspaceOptions);
        }
        // The container's environment is the agent's, the base every command's environment starts from; the
        // spec's variables go with each command. stdin stays open for one attach: when this JVM's attach ends
        // (close, crash), the agent reads EOF, kills everything and exits, and the container stops.
        CreateContainerResponse created;
        try {
            createSent = true;
            created = createContainer(hc, labels, l, traits);
        } catch (com.github.dockerjava.api.exception.DockerException e) {
            if (!traits.podman() || e.getMessage() == null || !e.getMessage().contains("seccomp profile")) {
                throw e;
            }
            // the profile's volume went (podman volume prune removes it: no container uses it): write it again
            engine.forgetSeccomp();
            hc.withSecurityOpts(List.of("no-new-privileges:true", engine.seccompOption(seccompProfile())));
            created = createContainer(hc, labels, l, traits);
        }
        containerId = created.getId();
        String cid = containerId;
        // what buildInfo reads from the engine, asked now beside the attach, start and probe (Docker answers it once
        // the start lets go of the container): after the start it cost 11-72 ms on the open's path
        inspecting = java.util.concurrent.CompletableFuture.supplyAsync(() -> c.inspectContainerCmd(cid).exec(), HELPERS);
        attach();
        agentDidNotStart = true;
        c.startContainerCmd(containerId).exec();
    }

    /** Attaches to the container's stdin, stdout and stderr before it starts, so the agent's first frame is seen. */
    private void attach() {
        // started, or failed before it started (no descriptor for the connection): awaitStarted alone would wait
        // out its whole bound for a connection that already failed
        java.util.concurrent.CountDownLatch settled = new java.util.concurrent.CountDownLatch(1);
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

    private String agentDiagnostics() {
        String err = agentErr.text().strip().replace("sbx-agent: ", ""); // its own prefix names an internal helper
        return err.isEmpty() ? "" : " (agent: " + err + ")";
    }

    /**
     * Options of a volume the engine creates: the labels and, when {@code bytes} or {@code inodes} is set, a tmpfs of
     * the local driver of that size, its root (mode 0755) owned by {@code owner}. tmpfs counts its own root
     * directory as one inode, hence the + 1. On Podman the size is given as {@code nr_blocks} (pages of 4 KiB; the
     * probe checks the result): Podman 4.3 takes {@code size=} in a local volume's options for a project quota on
     * its own disk, refuses it without one ("Filesystem does not support Project Quota"), and never hands it to
     * the tmpfs mount; {@code nr_blocks} goes to the mount unchanged.
     */
    private static VolumeOptions volumeOptions(Map<String, String> labels, long bytes, long inodes, int owner,
                                               int group, boolean podman) {
        VolumeOptions o = new VolumeOptions().withLabels(labels);
        if (bytes <= 0 && inodes <= 0) {
            if (podman) {
                // Podman chowns a new volume to the container's user at its first mount, unless the volume names its
                // owner: without this the agent's volume (a path the image lacks) was the sandbox user's, writable,
                // on the engine's disk (found by PodmanQuotaTest)
                return o.withDriverConfig(new com.github.dockerjava.api.model.Driver().withName("local")
                        .withOptions(Map.of("o", "uid=" + owner + ",gid=" + group)));
            }
            return o;
        }
        List<String> opts = new ArrayList<>();
        if (bytes > 0) {
            opts.add(podman ? "nr_blocks=" + ((bytes + PODMAN_PAGE - 1) / PODMAN_PAGE) : "size=" + bytes);
        }
        if (inodes > 0) {
            opts.add("nr_inodes=" + (inodes + 1));
        }
        opts.addAll(List.of("uid=" + owner, "gid=" + group, "mode=0755", "nosuid", "nodev"));
        return o.withDriverConfig(new com.github.dockerjava.api.model.Driver().withName("local")
                .withOptions(Map.of("type", "tmpfs", "device", "tmpfs", "o", String.join(",", opts))));
    }

    /**
     * The container's first process: the agent. On Podman through the image's {@code /bin/sh}, which sets the
     * ulimits and execs the agent (so the agent is still PID 1): Podman 4.x's compat API drops
     * {@code HostConfig.Ulimits} for a rootless engine without a word (measured on 4.3.1: fsize unlimited, nofile
     * 20000; podman issue 25881, fixed in 5.5). {@link #checkPodmanLimits} then reads what holds.
     */
    static List<String> entrypoint(boolean podman, ResourceLimits l) {
        List<String> agent = List.of(AGENT_DIR + "/" + AgentBinary.AGENT, "--reaper=" + AGENT_DIR + "/"
                + AgentBinary.REAPER, "--oom");
        if (!podman) {
            return agent;
        }
        // POSIX sh (dash, bash as sh): ulimit -f counts 512-byte blocks; without -H or -S it sets both
        String script = "ulimit -n 4096 && ulimit -c 0" + (l.maxFileBytes() > 0 ? " && ulimit -f "
                + l.maxFileBytes() / 512 : "") + " && exec \"$0\" \"$@\"";
        List<String> e = new ArrayList<>(List.of("/bin/sh", "-c", script));
        e.addAll(agent);
        return e;
    }

    /** The file size limit the commands really have on Podman (read with the image's sh), in bytes; 0 for none. */
    private long checkPodmanLimits(long wantFsize) {
        AgentRunner.Ran r = internal(List.of("/bin/sh", "-c", "ulimit -H -f; ulimit -S -f; ulimit -H -n"), null);
        String[] f = r.out().trim().split("\\s+");
        long want = wantFsize / 512;
        boolean ok = f.length == 3 && f[2].equals("4096") && (wantFsize > 0 ? f[0].equals(Long.toString(want))
                && f[1].equals(f[0]) : f[0].equals("unlimited"));
        if (!ok) {
            throw DockerErrors.error(ErrorKind.UNSUPPORTED, "the engine at " + engine.host + " ("
                    + engine.traits().describe() + ") did not apply the file size limit (" + wantFsize + " bytes) and "
                    + "4096 open files (ulimit -f -f -n in the sandbox: " + r.out().strip() + r.err().strip() + ")");
        }
        return wantFsize > 0 ? want * 512 : 0;
    }

    private CreateContainerResponse createContainer(HostConfig hc, Map<String, String> labels, ResourceLimits l,
                                                    Engine.Traits traits) {
        return engine.control.createContainerCmd(engine.options.image())
                .withName(containerName())
                .withEntrypoint(entrypoint(traits.podman(), l))
                .withCmd(List.of())
                .withUser(user)
                .withWorkingDir(WorkspaceScripts.WORKSPACE)
                .withEnv(WorkspaceScripts.BASE_ENV)
                .withHostName("sandbox")
                .withAttachStdin(true).withAttachStdout(true).withAttachStderr(true)
                .withStdinOpen(true).withStdInOnce(true).withTty(false)
                .withStopSignal("SIGKILL")
                .withLabels(labels)
                .withHostConfig(hc)
                .exec();
    }

    private void createVolume(String name, VolumeOptions o) {
        var cmd = engine.control.createVolumeCmd().withName(name).withLabels(o.getLabels());
        if (o.getDriverConfig() != null) {
            cmd.withDriver(o.getDriverConfig().getName()).withDriverOpts(o.getDriverConfig().getOptions());
        }
        cmd.exec();
    }

    /** The page size {@code nr_blocks} counts in on a Podman engine; {@link #checkWorkspaceSize} verifies it. */
    static final long PODMAN_PAGE = 4096;

    /**
     * Checks that the workspace's tmpfs is the size asked for (on Podman, where it is given in pages of an assumed
     * size): anything else is refused (UNSUPPORTED), never a quota other than the spec's.
     */
    private void checkWorkspaceSize(long expected) {
        AgentRunner.Ran r = internal(List.of("/usr/bin/stat", "-f", "-c", "%t %b %S", WorkspaceScripts.WORKSPACE),
                null);
        String[] f = r.out().trim().split(" ");
        long size = -1;
        boolean tmpfs = false;
        if (f.length == 3) {
            tmpfs = f[0].equals("1021994");
            size = Long.parseLong(f[1]) * Long.parseLong(f[2]);
        }
        if (!tmpfs || size != expected) {
            throw DockerErrors.error(ErrorKind.UNSUPPORTED, "the engine at " + engine.host + " ("
                    + engine.traits().describe() + ") did not make the workspace a tmpfs of " + expected + " bytes ("
                    + "stat -f: " + r.out().strip() + r.err().strip() + "), so the workspace quota does not hold "
                    + "there; ask for none (ResourceLimits.withoutWorkspaceQuota())");
        }
    }

    static final java.util.concurrent.ExecutorService HELPERS = Engine.daemonPool("sandbox4j-docker-open");

    /** The result of an engine call made on a helper thread, its failure rethrown as the call's own would be. */
    private static <T> T await(java.util.concurrent.CompletableFuture<T> f) {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw DockerErrors.interrupted("opening a Docker sandbox");
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    private SandboxInfo buildInfo(InspectContainerResponse ic) {
        HostConfig h = ic.getHostConfig();
        // what the engine reports, for the limits it can apply; 0 for those it cannot (a rootless engine on cgroup v1
        // may report a limit it dropped)
        long mem = granted.memoryBytes() == 0 || h.getMemory() == null ? 0 : h.getMemory();
        long pids = granted.maxProcesses() == 0 || h.getPidsLimit() == null || h.getPidsLimit() < 0 ? 0
                : h.getPidsLimit();
        double cpus = granted.cpus() == 0 || h.getNanoCPUs() == null ? 0 : h.getNanoCPUs() / 1e9;
        long fsize = 0;
        if (h.getUlimits() != null) {
            for (Ulimit u : h.getUlimits()) {
                // Docker reports "fsize", Podman "RLIMIT_FSIZE"
                if ("fsize".equalsIgnoreCase(u.getName()) || "RLIMIT_FSIZE".equalsIgnoreCase(u.getName())) {
                    fsize = u.getHardLong() == null ? 0 : u.getHardLong();
                }
            }
        }
        if (podmanFsize >= 0) {
            fsize = podmanFsize;
        }
        long tmp = spec.limits().tmpBytes() > 0 ? spec.limits().tmpBytes() : 256 * ResourceLimits.MIB;
        Map<String, String> details = new LinkedHashMap<>();
        details.put("image", engine.options.image());
        details.put("imageId", String.valueOf(ic.getImageId()));
        details.put("container", containerId.substring(0, 12));
        details.put("user", user);
        details.put("network", String.valueOf(h.getNetworkMode()));
        details.put("readonlyRootfs", String.valueOf(h.getReadonlyRootfs()));
        details.put("seccomp", "sandbox4j profile (inline)");
        details.put("engine", engine.host);
        Engine.Traits traits = engine.traits();
        details.put("engineKind", traits.describe());
        if (!traits.why().isEmpty()) {
            details.put("limitsNotApplied", traits.why());
        }
        Set<Feature> features = EnumSet.copyOf(DockerSandboxProvider.FEATURES);
        if (mem == 0) {
            features.remove(Feature.MEMORY_LIMIT);
        }
        if (pids == 0) {
            features.remove(Feature.PROCESS_LIMIT);
        }
        if (cpus == 0) {
            features.remove(Feature.CPU_LIMIT);
        }
        if (interpreters.isEmpty()) {
            features.remove(Feature.CODE_EXECUTION);
        }
        ResourceLimits asked = spec.limits();
        if (asked.hasWorkspaceQuota()) {
            details.put("workspaceQuota", "tmpfs volume (local driver" + (traits.podman() ? ", size as nr_blocks" : "")
                    + "): " + asked.workspaceBytes() + " bytes, "
                    + asked.workspaceInodes() + " inodes; memory of the engine's host, charged to the container's "
                    + "memory limit for what commands write");
        } else {
            features.remove(Feature.WORKSPACE_QUOTA);
            details.put("workspaceQuota", "none (not asked for): a plain volume on the engine's disk");
        }
        if (spec.network().mode() != NetworkPolicy.Mode.NONE) {
            features.remove(Feature.NETWORK_ISOLATION);
            details.put("networkPolicy", spec.network() + " through the host's egress proxy (127.0.0.1:"
                    + AgentEgress.PORT + " in the sandbox; loopback only otherwise)");
        }
        return new SandboxInfo(id, DockerSandboxProvider.NAME, features,
                new ResourceLimits(mem, (int) pids, cpus, fsize, tmp, asked.workspaceBytes(), asked.workspaceInodes()),
                details);
    }

    static synchronized String seccompProfile(DockerOptions o) {
        if (o.seccompProfile() != null) {
            return o.seccompProfile();
        }
        if (seccompDefault == null) {
            try (InputStream in = ContainerHost.class.getResourceAsStream("seccomp.json")) {
                if (in == null) {
                    throw new IllegalStateException("seccomp.json resource missing");
                }
                seccompDefault = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return seccompDefault;
    }

    private String seccompProfile() {
        return seccompProfile(engine.options);
    }

    /**
     * Runs a command of the backend's own (a probe, a file script) through the agent, as the sandbox user, with the
     * fixed environment only; stdout to {@code out} when given, else kept (up to 64 MiB).
     */
    AgentRunner.Ran internal(List<String> cmd, java.io.OutputStream out) {
        return internal(cmd, null, out);
    }

    /** An internal command with {@code stdin} (or null) as its input. */
    AgentRunner.Ran internal(List<String> cmd, byte[] stdin, java.io.OutputStream out) {
        return internal(cmd, stdin == null ? null : bytes(stdin), out, INTERNAL_TIMEOUT);
    }

    /**
     * An internal command with {@code stdin} (or null) read to its end as its input, ended after {@code timeout}. A
     * failure to read {@code stdin} is IO_ERROR naming the caller's stream.
     */
    AgentRunner.Ran internal(List<String> cmd, InputStream stdin, java.io.OutputStream out, Duration timeout) {
        ensureOpen();
        try {
            return runner.run(cmd, stdin, out, 64 << 20, timeout);
        } catch (AgentRunner.StdinFailed e) {
            ensureOpen();
            throw DockerErrors.error(ErrorKind.IO_ERROR, "reading the content to write: " + e.getMessage(), e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw DockerErrors.error(ErrorKind.TIMEOUT, "an internal command did not finish: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw DockerErrors.interrupted("a file operation");
        } catch (IOException e) {
            ensureOpen();
            throw DockerErrors.error(ErrorKind.IO_ERROR, "the sandbox's agent: " + e.getMessage(), e);
        }
    }

    /**
     * Why a command that ended with 137 was killed from outside (its container stopped or the engine went away),
     * or null when the sandbox's container is still running.
     */
    @Override
    public String killedFromOutside() {
        if (closed()) {
            return "the sandbox was closed";
        }
        try {
            var state = engine.control.inspectContainerCmd(containerId).exec().getState();
            if (state != null && Boolean.FALSE.equals(state.getRunning())) {
                return "the sandbox's container stopped (was the Docker engine restarted?)";
            }
            return null;
        } catch (com.github.dockerjava.api.exception.NotFoundException e) {
            return "the sandbox's container is gone";
        } catch (RuntimeException e) {
            if (DockerErrors.noSuchContainer(e)) {
                return "the sandbox's container is gone";
            }
            return closed() ? "the sandbox was closed" : "lost the Docker engine: " + e.getMessage();
        }
    }

    void ensureOpen() {
        context.checkOpen();
    }

    boolean closed() {
        Context c = context;
        return c != null && c.isClosed();
    }

    /** The backend's own commands, for tests. */
    AgentRunner runner() {
        return runner;
    }

    /**
     * Removes the container and its workspace volume once AgentSandbox ended every command (see its close order).
     * The attach connection does not pass end of input on to the container (docker-java does not half-close it), so
     * removing the container is what ends the agent and every process in it.
     */
    @Override
    public void close() {
        toAgent.close();
        try {
            // A streamed write keeps the engine client's stdin thread writing: let it send what it holds and end its
            // request before the removal closes the connection under it (it would print a trace). An agent that
            // stopped reading is not waited for beyond this.
            if (attached != null) {
                stdinDone.get(STDIN_DRAIN_MS, TimeUnit.MILLISECONDS);
            }
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException
                 | InterruptedException e) {
            // removed anyway
        }
        if (containerId != null) {
            engine.removeContainerQuietly(containerId);
        } else if (createSent) {
            // the engine may have made it and its answer got lost (a timeout, no descriptor left to read it)
            engine.removeContainerQuietly(containerName());
        }
        ResultCallback.Adapter<Frame> a = attached;
        if (a != null) {
            try {
                a.close();
            } catch (IOException | RuntimeException ignored) {
                // best effort
            }
        }
        engine.removeOwnVolumeQuietly(workspaceVolume);
        engine.close();
        fromAgent.close();
    }

    /** How long close waits for the stdin thread to end its request (see closeNow). */
    private static final long STDIN_DRAIN_MS = 300;

    private String containerName() {
        return "sandbox4j-" + id;
    }

    static InputStream bytes(byte[] b) {
        return new ByteArrayInputStream(b);
    }

    @Override
    public String toString() {
        return "ContainerHost[" + id + "]";
    }
}
