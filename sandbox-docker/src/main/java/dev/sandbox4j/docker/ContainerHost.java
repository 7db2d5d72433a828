package dev.sandbox4j.docker;

import com.github.dockerjava.api.command.CreateContainerResponse;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.VolumeOptions;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.Language;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxInfo;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.core.AgentSandbox;
import dev.sandbox4j.core.LanguageProbe;
import dev.sandbox4j.core.SandboxHost;
import dev.sandbox4j.core.AgentRunner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What a Docker (or Podman) sandbox is beyond the shared {@link AgentSandbox}: one hardened container whose first
 * process is the native agent, driven over the container's attach stream (so a remote engine works); a workspace
 * volume; a root-owned volume holding the agent; the engine's answers about limits and death; the removal.
 *
 * <p>This class holds the container's lifetime (create, start, probe, close) and its state; what it is made of is
 * {@link ContainerConfig}, the agent's streams over the attach connection are {@link ContainerAttach}, what holds
 * once it runs (Podman's checks, the info) is {@link ContainerFacts}, and every error is made by
 * {@link DockerErrors}, the backend's one translation point.
 */
final class ContainerHost implements SandboxHost {
    private static final Logger LOG = LoggerFactory.getLogger(ContainerHost.class);
    static final Duration INTERNAL_TIMEOUT = Duration.ofSeconds(60);

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
    /** The agent's byte streams over the container's attach connection. */
    private final ContainerAttach attach = new ContainerAttach();
    /** The create request went out: the container may exist even when its id never came back. */
    private boolean createSent;
    /** The container was made but its agent did not start (the engine's start failed, or no READY came). */
    private volatile boolean agentDidNotStart;
    /** What the engine answers about the container, asked beside the attach and start (see create). */
    private java.util.concurrent.CompletableFuture<InspectContainerResponse> inspecting;
    /** The size of the workspace's tmpfs volume, or 0 (none). */
    private long workspaceTmpfsBytes;
    /** The workspace source and the mounts (issue 35), checked before anything was made. */
    private final ContainerSources sources;
    /** The lease (docs/reattach.md), or null. */
    private final Lease lease;
    /** A leased container this host attaches to (ContainerLease.find), or null: this host makes its own. */
    private final InspectContainerResponse existing;
    /** Whether close removes the container: always for one this host made; after an attach, once it is ready. */
    private volatile boolean owns;

    private ContainerHost(Engine engine, SandboxSpec spec, ContainerSources sources, String id, String user,
                          Lease lease, InspectContainerResponse existing) {
        this.id = id;
        this.engine = engine;
        this.spec = spec;
        this.lease = lease;
        this.existing = existing;
        this.owns = existing == null;
        this.user = user;
        String[] ug = user.split(":");
        this.uid = Integer.parseInt(ug[0]);
        this.gid = ug.length > 1 ? Integer.parseInt(ug[1]) : uid;
        this.workspaceVolume = "sandbox4j-" + id + "-ws";
        this.sources = sources;
    }

    static Sandbox open(DockerOptions options, SandboxSpec spec) {
        ContainerLease.checkOpen(spec);
        ContainerConfig.checkQuotaFitsMemory(spec.limits());
        ContainerConfig.checkSeccomp(options, spec.syscallSets()); // refused before anything is made
        return open(options, spec, ContainerSources.prepare(options, spec), true);
    }

    /**
     * One try. The binaries volume is not looked at before (Engine.binariesVolume): when the agent did not start, the
     * volume is checked and, if it had been pruned, made again, and the open tried once more.
     */
    private static Sandbox open(DockerOptions options, SandboxSpec spec, ContainerSources sources,
                                boolean mayRetry) {
        Engine engine = Engine.connect(options, options.requestTimeout());
        Lease lease = spec.lease().isZero() ? null
                : new Lease(dev.sandbox4j.AttachCredential.generate(), spec.lease(), ContainerLease.PORT, true);
        ContainerHost h = new ContainerHost(engine, spec, sources, "sbx-" + UUID.randomUUID().toString()
                .replace("-", "").substring(0, 12), engine.options.user(), lease, null);
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
                    return open(options, spec, sources, false);
                }
            }
            throw DockerErrors.translate("opening a Docker sandbox", e);
        }
    }

    /** A host for the leased container {@code found} of sandbox {@code id} (ContainerLease.attach). */
    static ContainerHost attaching(Engine e, SandboxSpec spec, String id, String user, Lease lease,
                                  InspectContainerResponse found) {
        return new ContainerHost(e, spec, ContainerSources.prepare(e.options, spec), id, user, lease, found);
    }

    /** The container host under a sandbox this backend opened (for tests that look at the container). */
    static ContainerHost of(Sandbox sandbox) {
        return (ContainerHost) ((AgentSandbox) sandbox).host();
    }

    // ---------------------------------------------------------------- SandboxHost

    @Override
    public Sandbox openAnother(SandboxSpec spec) {
        return new DockerSandboxProvider(engine.options).open(spec);
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public AgentStreams start(Context context) {
        this.context = context;
        engine.janitorInBackground();
        if (existing != null) {
            reattach();
        } else {
            granted = ContainerConfig.grant(spec.limits(), spec.bestEffortLimits(), engine.traits(), engine.host);
            create();
        }
        return new AgentStreams(attach.fromAgent(), attach.toAgent());
    }

    /** The relay to the leased agent, through the engine's exec, and the handshake under the credential. */
    private void reattach() {
        containerId = existing.getId();
        granted = spec.limits();
        inspecting = java.util.concurrent.CompletableFuture.completedFuture(existing);
        attach.exec(engine, containerId, ContainerLease.relay(lease.port()));
        ContainerLease.handshake(attach, lease.credential(), id);
    }

    @Override
    public Lease lease() {
        return lease;
    }

    @Override
    public SandboxException agentDidNotStart(String why) {
        return DockerErrors.error(ErrorKind.BACKEND_UNAVAILABLE, "the sandbox's agent did not start in "
                + engine.options.image() + ": " + why + attach.diagnostics());
    }

    @Override
    public List<String> internalEnv() {
        return WorkspaceScripts.FIXED_ENV;
    }

    @Override
    public String agentDir() {
        return ContainerConfig.AGENT_DIR;
    }

    /** The shared language probe and this backend's check of the workspace, in one command on the open's path. */
    @Override
    public java.util.Optional<Map<Language, String>> interpreters(AgentRunner runner) {
        this.runner = runner;
        agentDidNotStart = false; // it said READY: a failure from here on is not a missing binaries volume
        AgentRunner.Ran probe = internal(List.of("/bin/sh", "-c", LanguageProbe.PROBE
                + "\ntest -w /workspace && echo ws:ok"));
        if (!probe.out().contains("ws:ok")) {
            throw DockerErrors.error(ErrorKind.BACKEND_UNAVAILABLE, "the image " + engine.options.image()
                    + " has no /workspace writable by " + user + "; build it with scripts/build-test-image.sh (probe: "
                    + probe.out().strip() + " / exit " + probe.exitCode() + " " + probe.err().strip() + ")");
        }
        return java.util.Optional.of(LanguageProbe.interpreters(probe.out()));
    }

    @Override
    public SandboxInfo ready(AgentRunner runner, Map<Language, String> interpreters) {
        this.runner = runner;
        agentDidNotStart = false;
        this.interpreters = interpreters;
        InspectContainerResponse inspected = await(inspecting);
        Engine.Traits traits = engine.traits();
        ContainerFacts facts = new ContainerFacts(engine, spec, granted);
        long page = ContainerConfig.PODMAN_PAGE;
        if (traits.podman() && workspaceTmpfsBytes > 0) {
            facts.checkWorkspaceSize(this::internal, (workspaceTmpfsBytes + page - 1) / page * page);
        }
        if (traits.podman()) {
            podmanFsize = facts.checkPodmanLimits(this::internal, granted.maxFileBytes());
        }
        SandboxInfo info = facts.info(id, containerId, user, podmanFsize, !interpreters.isEmpty(), inspected);
        sources.seed(engine.control, containerId, uid, gid, granted, this::internal);
        Map<String, String> details = new java.util.LinkedHashMap<>(info.details());
        details.put("workspace source", sources.sourceDetail());
        details.put("mounts", sources.mountsDetail);
        if (lease != null) {
            details.put("lease", lease.duration() + (existing != null ? " (attached)" : ""));
        }
        owns = true; // an attached sandbox is this host's from here on: its close removes it
        return new SandboxInfo(info.id(), info.backend(), info.features(), info.limits(), details);
    }

    @Override
    public dev.sandbox4j.Workspace changeSet(Context context) {
        return sources.changeSet(this, context::checkOpen);
    }

    /** The container's workspace as the engine's tar archive (its first component is {@code workspace}). */
    InputStream downloadWorkspace() {
        return engine.control.copyArchiveFromContainerCmd(containerId, WorkspaceScripts.WORKSPACE).exec();
    }

    /** Snapshots: the engine's archive of the workspace, extracted by the same hardened reader as a change set's. */
    @Override
    public long copyWorkspaceTo(java.nio.file.Path into) {
        try (InputStream in = downloadWorkspace()) {
            return ArchiveTree.extract(in, into, ArchiveTree.Limits.DEFAULT);
        } catch (java.io.IOException e) {
            throw error(ErrorKind.IO_ERROR, "downloading the workspace for a snapshot: " + e.getMessage(), e);
        } catch (dev.sandbox4j.SandboxException e) {
            throw e;
        } catch (RuntimeException e) {
            throw DockerErrors.translate("downloading the workspace for a snapshot", e);
        }
    }

    @Override
    public FileSystem workspace(AgentRunner runner, Context context) {
        return new dev.sandbox4j.core.AgentWorkspace(runner, WorkspaceScripts.WORKSPACE, context, this::error,
                spec.limits().maxFileBytes()).withUpload((name, content) -> TarUpload.upload(engine.control,
                containerId, WorkspaceScripts.WORKSPACE, List.of(new TarUpload.Entry(name, 0644, content.length,
                () -> bytes(content))), uid, gid), UPLOAD_OVER);
    }

    /**
     * Content over this size goes through the engine's archive endpoint, then the agent's commit: measured faster for
     * large content (64 MiB: 806 ms against 3,051 ms as STDIN frames on a loaded machine, see docs/benchmarks.md),
     * slower for small (a 16-byte write through it took 47 ms against a few as STDIN frames).
     */
    static final int UPLOAD_OVER = 1 << 20;

    @Override
    public java.util.function.Predicate<String> hiddenFromWatches() {
        return dev.sandbox4j.core.AgentWorkspace::isTemporary;
    }

    @Override
    public String death(String why) {
        String outside = killedFromOutside();
        return (outside != null ? outside : "the sandbox's agent stopped (" + why + ")") + attach.diagnostics();
    }

    @Override
    public SandboxException error(ErrorKind kind, String message, Throwable cause) {
        return DockerErrors.error(kind, message, cause);
    }

    /** The engine's pause and unpause (the container's cgroup freezer, as {@code docker pause}). */
    @Override
    public void freeze(boolean frozen) {
        try {
            if (frozen) {
                engine.control.pauseContainerCmd(containerId).exec();
            } else {
                engine.control.unpauseContainerCmd(containerId).exec();
            }
        } catch (RuntimeException e) {
            throw DockerErrors.translate((frozen ? "pausing" : "resuming") + " Docker sandbox " + id, e);
        }
    }

    @Override
    public void beforeChannelClose() {
        // a sender blocked on the pipe (a streamed write) fails now instead of holding the channel's lock
        attach.closeInput();
    }

    private void create() {
        ResourceLimits l = granted;
        Engine.Traits traits = engine.traits();
        var c = engine.control;
        Map<String, String> labels = ContainerConfig.labels(engine.options, id, spec.lifetime());
        if (lease != null) {
            ContainerLease.label(labels, lease.duration(), l);
        }
        // The engine creates the two named volumes, with these labels, as part of creating the container. With a
        // workspace quota both are sized tmpfs volumes of the local driver (issue 16): no path of the engine's host is
        // named, so a remote engine works, and the engine's disk is never written.
        long wsBytes = workspaceTmpfsBytes = ContainerConfig.workspaceTmpfsBytes(l);
        VolumeOptions workspaceOptions = ContainerConfig.volumeOptions(labels, wsBytes, l.workspaceInodes(), uid, gid,
                traits.podman());
        String seccomp = engine.seccompOption(ContainerConfig.seccompProfile(engine.options, spec.syscallSets(),
                traits.architecture()));
        HostConfig hc = ContainerConfig.hostConfig(l, workspaceVolume, workspaceOptions, seccomp,
                engine.binariesVolume(traits.architecture()));
        ContainerConfig.addSources(hc, sources);
        if (lease != null) {
            hc.withAutoRemove(true); // the agent ends when its lease runs out with no host: the container goes
        }
        sources.makeVolume(c);
        if (traits.podman() && !sources.bindsWorkspace()) {
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
            created = ContainerConfig.create(engine, containerName(), user, hc, labels, l);
        } catch (com.github.dockerjava.api.exception.DockerException e) {
            if (!traits.podman() || e.getMessage() == null || !e.getMessage().contains("seccomp profile")) {
                throw e;
            }
            // the profile's volume went (podman volume prune removes it: no container uses it): write it again
            engine.forgetSeccomp();
            hc.withSecurityOpts(ContainerConfig.securityOpts(engine.seccompOption(
                    ContainerConfig.seccompProfile(engine.options, spec.syscallSets(), traits.architecture()))));
            created = ContainerConfig.create(engine, containerName(), user, hc, labels, l);
        }
        containerId = created.getId();
        String cid = containerId;
        // what buildInfo reads from the engine, asked now beside the attach, start and probe (Docker answers it once
        // the start lets go of the container): after the start it cost 11-72 ms on the open's path
        inspecting = java.util.concurrent.CompletableFuture.supplyAsync(() -> c.inspectContainerCmd(cid).exec(), HELPERS);
        attach.attach(engine, containerId);
        agentDidNotStart = true;
        c.startContainerCmd(containerId).exec();
    }

    private void createVolume(String name, VolumeOptions o) {
        var cmd = engine.control.createVolumeCmd().withName(name).withLabels(o.getLabels());
        if (o.getDriverConfig() != null) {
            cmd.withDriver(o.getDriverConfig().getName()).withDriverOpts(o.getDriverConfig().getOptions());
        }
        cmd.exec();
    }

    static final java.util.concurrent.Executor HELPERS = dev.sandbox4j.core.Background.workers();

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

    /**
     * Runs a command of the backend's own (a probe, a check) through the agent, as the sandbox user, with the fixed
     * environment only and no input; its stdout is kept (up to 64 MiB). Ended after {@link #INTERNAL_TIMEOUT}.
     */
    AgentRunner.Ran internal(List<String> cmd) {
        ensureOpen();
        try {
            return runner.run(cmd, (InputStream) null, null, 64 << 20, INTERNAL_TIMEOUT);
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

    /**
     * Removes the container and its workspace volume once AgentSandbox ended every command (see its close order).
     * The attach connection does not pass end of input on to the container (docker-java does not half-close it), so
     * removing the container is what ends the agent and every process in it.
     */
    /** Ends this host's connection (the agent reads its end and waits for a later host); removes nothing. */
    @Override
    public void detach() {
        attach.endInput();
        attach.detach();
        engine.close();
        attach.closeOutput();
    }

    @Override
    public void close() {
        if (!owns) {
            detach(); // an attach that failed: the sandbox stays as it was, for a host with the right credential
            return;
        }
        // a streamed write keeps the engine client's stdin thread writing: it ends its request before the removal
        attach.endInput();
        if (containerId != null) {
            engine.removeContainerQuietly(containerId);
        } else if (createSent) {
            // the engine may have made it and its answer got lost (a timeout, no descriptor left to read it)
            engine.removeContainerQuietly(containerName());
        }
        attach.detach();
        engine.removeOwnVolumeQuietly(workspaceVolume);
        engine.close();
        attach.closeOutput();
    }

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