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
import dev.sandbox4j.CodeRunner;
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
import dev.sandbox4j.Shell;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/** One sandbox: one hardened container, a workspace volume and a private run volume. */
final class DockerSandbox implements Sandbox {
    private static final Logger LOG = LoggerFactory.getLogger(DockerSandbox.class);
    static final Duration INTERNAL_TIMEOUT = Duration.ofSeconds(60);
    private static final ScheduledExecutorService TIMERS = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sandbox4j-docker-lifetime");
        t.setDaemon(true);
        return t;
    });
    private static String seccompDefault;
    /** Interpreters (absolute paths) found by a successful probe, per image id and user: probed once per JVM. */
    private static final Map<String, Map<Language, String>> PROBED = new ConcurrentHashMap<>();

    final String id;
    final Engine engine;
    final SandboxSpec spec;
    final String user;
    final int uid;
    final int gid;
    volatile String containerId;
    final String workspaceVolume;
    final String runVolume;
    private final AtomicBoolean closed = new AtomicBoolean();
    final Set<DockerExecHandle> handles = ConcurrentHashMap.newKeySet();
    final AtomicLong oomKills = new AtomicLong();
    /** Kills process trees, one exec for all commands that need it at the same moment. */
    final Killer killer = new Killer(this);
    /** The interpreter of each language, an absolute path the probe found under the fixed PATH. */
    private Map<Language, String> interpreters = Map.of();
    private SandboxInfo info;
    private ScheduledFuture<?> expiry;
    private final DockerShell shell;
    private final DockerFiles files;
    private final DockerCode code;

    private DockerSandbox(Engine engine, SandboxSpec spec) {
        this.id = "sbx-" + UUID.randomUUID().toString().substring(0, 12);
        this.engine = engine;
        this.spec = spec;
        this.user = engine.options.user();
        String[] ug = user.split(":");
        this.uid = Integer.parseInt(ug[0]);
        this.gid = ug.length > 1 ? Integer.parseInt(ug[1]) : uid;
        this.workspaceVolume = "sandbox4j-" + id + "-ws";
        this.runVolume = "sandbox4j-" + id + "-run";
        this.shell = new DockerShell(this);
        this.files = new DockerFiles(this);
        this.code = new DockerCode(this);
    }

    /**
     * Memory the container keeps for its processes when its workspace (a tmpfs charged to the container's memory
     * cgroup) is full. Measured: with a 512 MiB quota over a 128 MiB memory limit, a command filling the workspace
     * was OOM-killed, and then so was the container's PID 1 (the file pages stay charged), ending the sandbox.
     */
    static final long WORKSPACE_MEMORY_HEADROOM = 64 * ResourceLimits.MIB;
    /** Size of the private run volume when it is a tmpfs: stdin and code files, FIFOs. */
    static final long RUN_BYTES = 64 * ResourceLimits.MIB;

    /** Refuses a quota the memory limit cannot hold beside the processes (INVALID_ARGUMENT, before anything is made). */
    static void checkQuotaFitsMemory(ResourceLimits l) {
        if (l.memoryBytes() > 0 && l.workspaceBytes() > 0
                && l.workspaceBytes() > l.memoryBytes() - WORKSPACE_MEMORY_HEADROOM) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "the workspace quota (" + l.workspaceBytes()
                    + " bytes) does not fit in the memory limit (" + l.memoryBytes() + " bytes): on Docker the "
                    + "workspace is a tmpfs whose files count against the container's memory, which must keep at least "
                    + WORKSPACE_MEMORY_HEADROOM + " bytes for its processes. Raise memoryBytes, lower workspaceBytes, "
                    + "or ask for no quota (ResourceLimits.withoutWorkspaceQuota())");
        }
    }

    static DockerSandbox open(DockerOptions options, SandboxSpec spec) {
        checkQuotaFitsMemory(spec.limits());
        Engine engine = Engine.connect(options, options.requestTimeout());
        DockerSandbox s = new DockerSandbox(engine, spec);
        try {
            engine.janitorInBackground();
            s.create();
            return s;
        } catch (RuntimeException e) {
            s.close();
            throw DockerErrors.translate("opening a Docker sandbox", e);
        }
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

    private void create() {
        ResourceLimits l = spec.limits();
        var c = engine.control;
        Map<String, String> labels = labels();
        // The engine creates the two named volumes, with these labels, as part of creating the container. With a
        // workspace quota both are sized tmpfs volumes of the local driver (issue 16): no path of the engine's host is
        // named, so a remote engine works, and the engine's disk is never written.
        // an inode quota alone still gets a size: tmpfs's default (half the engine host's memory) could outgrow the
        // container's memory limit
        long wsBytes = l.workspaceBytes() == 0 && l.workspaceInodes() > 0 && l.memoryBytes() > WORKSPACE_MEMORY_HEADROOM
                ? l.memoryBytes() - WORKSPACE_MEMORY_HEADROOM : l.workspaceBytes();
        VolumeOptions workspaceOptions = volumeOptions(labels, wsBytes, l.workspaceInodes(), uid, gid);
        // the run volume's root stays root's (the sandbox user gets a private directory in it, see ensureRunDir)
        VolumeOptions runOptions = volumeOptions(labels, l.hasWorkspaceQuota() ? RUN_BYTES : 0,
                l.hasWorkspaceQuota() ? RUN_INODES : 0, 0, 0);
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
                .withNetworkMode(spec.network() == NetworkPolicy.NONE ? "none" : "bridge")
                .withPrivileged(false)
                .withCapDrop(Capability.ALL)
                .withSecurityOpts(List.of("no-new-privileges:true", "seccomp=" + seccompProfile()))
                .withReadonlyRootfs(true)
                .withTmpFs(tmpfs)
                .withShmSize(64 * ResourceLimits.MIB)
                .withIpcMode("private")
                .withOomScoreAdj(500)
                .withUlimits(ulimits)
                .withInit(false)
                .withLogConfig(new LogConfig(LogConfig.LoggingType.JSON_FILE, Map.of("max-size", "1m", "max-file", "1")))
                .withMounts(List.of(
                        new Mount().withType(MountType.VOLUME).withSource(workspaceVolume).withTarget(WorkspaceScripts.WORKSPACE)
                                .withVolumeOptions(workspaceOptions),
                        new Mount().withType(MountType.VOLUME).withSource(runVolume).withTarget("/var/sandbox4j")
                                .withVolumeOptions(runOptions)))
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
        // The spec's environment is not the container's: the SDK's own execs would inherit it. The command wrapper
        // gives it to the user's programs only.
        List<String> env = WorkspaceScripts.BASE_ENV;
        CreateContainerResponse created = c.createContainerCmd(engine.options.image())
                .withName("sandbox4j-" + id)
                .withEntrypoint("/bin/bash", "-c", WorkspaceScripts.REAPER)
                .withCmd(List.of())
                .withUser(user)
                .withWorkingDir(WorkspaceScripts.WORKSPACE)
                .withEnv(env)
                .withHostName("sandbox")
                .withAttachStdin(false).withAttachStdout(false).withAttachStderr(false)
                .withStdinOpen(false).withTty(false)
                .withStopSignal("SIGKILL")
                .withLabels(labels)
                .withHostConfig(hc)
                .exec();
        containerId = created.getId();
        c.startContainerCmd(containerId).exec();
        // The run volume's root belongs to root; give the sandbox user a private directory in it.
        java.util.concurrent.CompletableFuture<InspectContainerResponse> inspecting =
                java.util.concurrent.CompletableFuture.supplyAsync(() -> c.inspectContainerCmd(containerId).exec(),
                        HELPERS);
        InspectContainerResponse inspected = join(inspecting);
        String probeKey = inspected.getImageId() + "|" + user;
        Map<Language, String> known = inspected.getImageId() == null ? null : PROBED.get(probeKey);
        if (known != null) {
            // Same image and user as an earlier successful probe: the languages and the writable /workspace are
            // properties of the image, and a new container's OOM counter starts at zero. The private run directory
            // is created by the first upload that needs it (see uploadToRunDir).
            interpreters = known;
        } else {
            ensureRunDir();
            interpreters = probe();
            if (inspected.getImageId() != null) {
                PROBED.put(probeKey, interpreters);
            }
        }
        for (Map.Entry<String, byte[]> f : spec.files().entrySet()) {
            files.write(f.getKey(), f.getValue());
        }
        info = buildInfo(inspected);
        expiry = TIMERS.schedule(this::close, spec.lifetime().toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Files and directories the private run volume may hold when it is a sized tmpfs. */
    static final long RUN_INODES = 4096;

    /**
     * Options of a volume the engine creates: the labels and, when {@code bytes} or {@code inodes} is set, a tmpfs of
     * the local driver of that size, its root (mode 0755) owned by {@code owner}. tmpfs counts its own root
     * directory as one inode, hence the + 1.
     */
    private static VolumeOptions volumeOptions(Map<String, String> labels, long bytes, long inodes, int owner,
                                               int group) {
        VolumeOptions o = new VolumeOptions().withLabels(labels);
        if (bytes <= 0 && inodes <= 0) {
            return o;
        }
        List<String> opts = new ArrayList<>();
        if (bytes > 0) {
            opts.add("size=" + bytes);
        }
        if (inodes > 0) {
            opts.add("nr_inodes=" + (inodes + 1));
        }
        opts.addAll(List.of("uid=" + owner, "gid=" + group, "mode=0755", "nosuid", "nodev"));
        return o.withDriverConfig(new com.github.dockerjava.api.model.Driver().withName("local")
                .withOptions(Map.of("type", "tmpfs", "device", "tmpfs", "o", String.join(",", opts))));
    }

    /** Probes the container once: interpreters, OOM counter, writable workspace and run directory. */
    private Map<Language, String> probe() {
        Engine.Ran probe = internal(List.of("/bin/sh", "-c", WorkspaceScripts.PROBE), null);
        String out = probe.out();
        Map<Language, String> langs = new java.util.EnumMap<>(Language.class);
        for (String line : out.split("\n")) {
            String[] lang = line.trim().split(":", 3);
            switch (lang.length == 3 && lang[0].equals("lang") ? lang[1] : "") {
                case "python3" -> langs.put(Language.PYTHON, lang[2]);
                case "node" -> langs.put(Language.JAVASCRIPT, lang[2]);
                case "bash" -> langs.put(Language.BASH, lang[2]);
                default -> {
                    if (line.startsWith("oom:") && line.length() > 4) {
                        try {
                            oomKills.set(Long.parseLong(line.substring(4).trim()));
                        } catch (NumberFormatException ignored) {
                            // no counter on this kernel
                        }
                    }
                }
            }
        }
        if (!out.contains("ws:ok")) {
            throw new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, "the image " + engine.options.image()
                    + " has no /workspace writable by " + user + "; build it with scripts/build-test-image.sh (probe: "
                    + out.strip() + " / exit " + probe.exitCode() + " " + new String(probe.stderr(), StandardCharsets.UTF_8).strip() + ")");
        }
        if (!out.contains("run:ok")) {
            throw new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, "cannot prepare the private run directory in "
                    + engine.options.image());
        }
        return Map.copyOf(langs);
    }

    private static final java.util.concurrent.ExecutorService HELPERS = Engine.daemonPool("sandbox4j-docker-open");

    private static <T> T join(java.util.concurrent.CompletableFuture<T> f) {
        try {
            return f.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw e;
        }
    }

    private SandboxInfo buildInfo(InspectContainerResponse ic) {
        HostConfig h = ic.getHostConfig();
        long mem = h.getMemory() == null ? 0 : h.getMemory();
        long pids = h.getPidsLimit() == null || h.getPidsLimit() < 0 ? 0 : h.getPidsLimit();
        double cpus = h.getNanoCPUs() == null ? 0 : h.getNanoCPUs() / 1e9;
        long fsize = 0;
        if (h.getUlimits() != null) {
            for (Ulimit u : h.getUlimits()) {
                if ("fsize".equals(u.getName())) {
                    fsize = u.getHardLong() == null ? 0 : u.getHardLong();
                }
            }
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
            details.put("workspaceQuota", "tmpfs volume (local driver): " + asked.workspaceBytes() + " bytes, "
                    + asked.workspaceInodes() + " inodes; memory of the engine's host, charged to the container's "
                    + "memory limit for what commands write");
        } else {
            features.remove(Feature.WORKSPACE_QUOTA);
            details.put("workspaceQuota", "none (not asked for): a plain volume on the engine's disk");
        }
        if (spec.network() != NetworkPolicy.NONE) {
            details.put("networkPolicy", "allow_all (default bridge)");
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
            try (InputStream in = DockerSandbox.class.getResourceAsStream("seccomp.json")) {
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

    private volatile boolean runDirReady;

    /** Creates the private run directory (0700, the sandbox user's) in the run volume, whose root is root's. */
    void ensureRunDir() {
        if (!runDirReady) {
            synchronized (this) {
                if (!runDirReady) {
                    engine.upload(containerId, "/var/sandbox4j", List.of(new Engine.Entry("run", 0700, 0, null)), uid,
                            gid);
                    runDirReady = true;
                }
            }
        }
    }

    /** Uploads one file into the private run directory, creating the directory in the same upload if needed. */
    void uploadToRunDir(String name, byte[] data) {
        ensureOpen();
        if (runDirReady) {
            engine.upload(containerId, WorkspaceScripts.RUN_DIR,
                    List.of(new Engine.Entry(name, 0600, data.length, () -> bytes(data))), uid, gid);
            return;
        }
        engine.upload(containerId, "/var/sandbox4j", List.of(new Engine.Entry("run", 0700, 0, null),
                new Engine.Entry("run/" + name, 0600, data.length, () -> bytes(data))), uid, gid);
        runDirReady = true;
    }

    /** Runs an internal command as the sandbox user with the internal marker. */
    Engine.Ran internal(List<String> cmd, java.io.OutputStream out) {
        ensureOpen();
        return engine.run(containerId, cmd, user, fixedEnv("internal"), out, 64 << 20, INTERNAL_TIMEOUT);
    }

    /**
     * The environment of an exec the SDK runs for itself, or of the command wrapper: {@link WorkspaceScripts#FIXED_ENV}
     * and the marker, nothing from the spec or the request.
     */
    static List<String> fixedEnv(String marker) {
        List<String> env = new ArrayList<>(WorkspaceScripts.FIXED_ENV);
        env.add(WorkspaceScripts.MARKER + "=" + marker);
        return env;
    }

    /**
     * Kills every process carrying one of the markers (and unmarked strays when sweep). Best effort: waits for one
     * killer exec that started after this call, sharing it with concurrent kills in this sandbox; the wait covers the
     * killer's own retries (a fork bomb may hold every pid for a moment).
     */
    void kill(boolean sweep, String... markers) {
        if (!killer.kill(sweep, Duration.ofSeconds(10), markers) && !closed.get()
                && !Thread.currentThread().isInterrupted()) {
            LOG.warn("sandbox4j: killing processes in {} was not confirmed", id);
        }
    }

    /**
     * Kills a timed-out command's processes and waits for that to be confirmed (its output stream ended) until the
     * deadline plus {@link Killer#GRACE_NANOS}, so the caller gets TIMEOUT in bounded time however slow the engine is.
     * When the kill is not confirmed by then it goes on in the background and the returned detail says so. Returns
     * the second half of the TIMEOUT detail.
     */
    String killTimedOut(Engine.Exec exec, long deadline, String... markers) {
        Killer.Task kill = killer.killUntilEnded(exec, true, markers);
        boolean ended;
        try {
            ended = kill.awaitEnd(deadline + Killer.GRACE_NANOS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ended = kill.done.getNow(false);
        }
        if (ended) {
            exec.closeStream();
            return "the command's process tree was killed";
        }
        return "killing the process tree is still in progress";
    }

    /**
     * Why a command that exited 137 was killed from outside (the sandbox closed, its container stopped or the engine
     * went away), or null when the sandbox's container is still running.
     */
    String killedFromOutside() {
        if (closed.get()) {
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
            return closed.get() ? "the sandbox was closed" : "lost the Docker engine: " + e.getMessage();
        }
    }

    /** The memory-limit detail when the OOM killer fired since the last check, else null. */
    String oomDetail() {
        try {
            Engine.Ran r = engine.run(containerId, List.of("/bin/sh", "-c", WorkspaceScripts.OOM_COUNT), user,
                    fixedEnv("internal"), null, 4096, Duration.ofSeconds(10));
            String s = r.out().trim();
            if (s.isEmpty()) {
                return null;
            }
            long now = Long.parseLong(s);
            long before = oomKills.getAndSet(now);
            if (now > before) {
                return "killed by the out-of-memory killer: memory limit of "
                        + (spec.limits().memoryBytes() / ResourceLimits.MIB) + " MiB exceeded";
            }
        } catch (RuntimeException e) {
            LOG.debug("reading the OOM counter failed", e);
        }
        return null;
    }

    Set<Language> languages() {
        return interpreters.keySet();
    }

    /** The absolute path of the interpreter of a language the probe found. */
    String interpreter(Language language) {
        return interpreters.get(language);
    }

    void ensureOpen() {
        if (closed.get()) {
            throw DockerErrors.closed(id);
        }
    }

    /**
     * Why a command that ended with {@code code} was killed from outside (the sandbox closed, the memory limit, the
     * container stopped or the engine lost), or null when it ended by itself.
     */
    String killedBy(int code) {
        if ((code == 137 || code < 0) && closed()) {
            return "the sandbox was closed";
        }
        if (code == 137) {
            String why = oomDetail();
            return why != null ? why : killedFromOutside();
        }
        return null;
    }

    boolean closed() {
        return closed.get();
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public Shell shell() {
        return shell;
    }

    @Override
    public CodeRunner code() {
        return code;
    }

    @Override
    public FileSystem files() {
        return files;
    }

    @Override
    public SandboxInfo info() {
        ensureOpen();
        return info;
    }

    @Override
    public boolean isOpen() {
        return !closed.get();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (expiry != null) {
            expiry.cancel(false);
        }
        // Kills still running in the background stop here: removing the container ends every process anyway.
        killer.close();
        for (DockerExecHandle h : handles) {
            h.onSandboxClosed();
        }
        if (containerId != null) {
            engine.removeContainerQuietly(containerId);
        }
        engine.removeVolumeQuietly(workspaceVolume);
        engine.removeVolumeQuietly(runVolume);
        engine.close();
        killer.awaitClosed(2000);
    }

    static InputStream bytes(byte[] b) {
        return new ByteArrayInputStream(b);
    }

    @Override
    public String toString() {
        return "DockerSandbox[" + id + "]";
    }
}
