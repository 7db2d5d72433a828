package dev.sandbox4j.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.command.ExecCreateCmdResponse;
import com.github.dockerjava.api.command.InspectExecResponse;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.transport.DockerHttpClient;
import com.github.dockerjava.zerodep.ZerodepDockerHttpClient;
import dev.sandbox4j.SandboxException;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import dev.sandbox4j.core.AgentBinary;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/** The connection to one Docker engine: a control client with short timeouts and a stream client for exec output. */
final class Engine implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(Engine.class);
    static final String LABEL = "dev.sandbox4j";
    static final String LABEL_OWNER = "dev.sandbox4j.owner";
    static final String LABEL_EXPIRES = "dev.sandbox4j.expires";
    static final String LABEL_ID = "dev.sandbox4j.id";
    static final String OWNER = ownerId();

    final DockerOptions options;
    final DockerClient control;
    final DockerClient stream;
    final String host;
    /** The control client's transport, for the few Podman endpoints docker-java has no command for. */
    private final DockerHttpClient controlHttp;

    private Engine(DockerOptions options, DockerClient control, DockerClient stream, String host,
                   DockerHttpClient controlHttp) {
        this.options = options;
        this.control = control;
        this.stream = stream;
        this.host = host;
        this.controlHttp = controlHttp;
    }

    static Engine connect(DockerOptions options, Duration requestTimeout) {
        DefaultDockerClientConfig.Builder b = DefaultDockerClientConfig.createDefaultConfigBuilder();
        if (options.dockerHost() != null) {
            b.withDockerHost(options.dockerHost());
        }
        if (options.apiVersion() != null) {
            b.withApiVersion(options.apiVersion());
        }
        DockerClientConfig cfg = b.build();
        DockerHttpClient controlHttp = new ZerodepDockerHttpClient.Builder().dockerHost(cfg.getDockerHost())
                .sslConfig(cfg.getSSLConfig()).maxConnections(32).connectionTimeout(options.connectTimeout())
                .responseTimeout(requestTimeout).build();
        // Exec output may be silent for as long as the command's own timeout; that timeout bounds the wait instead.
        DockerHttpClient streamHttp = new ZerodepDockerHttpClient.Builder().dockerHost(cfg.getDockerHost())
                .sslConfig(cfg.getSSLConfig()).maxConnections(256).connectionTimeout(options.connectTimeout())
                .responseTimeout(Duration.ofDays(1)).build();
        return new Engine(options, DockerClientImpl.getInstance(cfg, controlHttp),
                DockerClientImpl.getInstance(cfg, streamHttp), cfg.getDockerHost().toString(), controlHttp);
    }

    /** Pings the engine; empty when it answers, else why not. */
    static Optional<String> probe(DockerOptions options) {
        try (Engine e = connect(options, options.pingTimeout())) {
            CompletableFuture<Void> ping = CompletableFuture.runAsync(() -> e.control.pingCmd().exec());
            try {
                ping.get(options.pingTimeout().toMillis() + 500, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException te) {
                ping.cancel(true);
                return Optional.of("the Docker engine at " + e.host + " did not answer a ping within "
                        + options.pingTimeout().toMillis() + " ms; start dockerd or set DOCKER_HOST");
            }
            try {
                e.control.inspectImageCmd(options.image()).exec();
            } catch (RuntimeException ie) {
                return Optional.of("the Docker engine at " + e.host + " has no image '" + options.image()
                        + "'; build it with scripts/build-test-image.sh or set SANDBOX4J_DOCKER_IMAGE");
            }
            return Optional.empty();
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted while pinging the Docker engine");
        } catch (Exception ex) {
            Throwable c = ex.getCause() != null ? ex.getCause() : ex;
            return Optional.of("cannot reach the Docker engine (" + c.getClass().getSimpleName() + ": "
                    + c.getMessage() + "); start dockerd, or set DOCKER_HOST (unix:///var/run/docker.sock or "
                    + "tcp://host:2375) to a running engine");
        }
    }

    @Override
    public void close() {
        try {
            control.close();
        } catch (IOException | RuntimeException ignored) {
            // best effort
        }
        try {
            stream.close();
        } catch (IOException | RuntimeException ignored) {
            // best effort
        }
    }

    // ---------------------------------------------------------------------------------------------- the engine's kind

    /**
     * What the engine is and which cgroup limits it can apply, read once per engine address and JVM from {@code /info},
     * {@code /version} and, for Podman, {@code /libpod/info} (Podman 4.x's compat {@code /info} says neither that it is
     * rootless nor which controllers it has, and answers {@code MemoryLimit: true} on cgroup v1 rootless, where it then
     * drops the limit with a warning).
     *
     * @param podman      the {@code /version} components name a Podman engine
     * @param version     the engine's version
     * @param architecture as Docker names it (x86_64, aarch64)
     * @param rootless    the engine runs without root (security option {@code name=rootless}, or Podman's own info)
     * @param cgroupVersion "1" or "2"
     * @param memory      whether a memory limit holds; likewise {@code pids} and {@code cpu}
     * @param why         why the limits that do not hold do not, or ""
     * @param storageRoot where the engine keeps images and volumes on its host ("" when it does not say)
     */
    record Traits(boolean podman, String version, String architecture, boolean rootless, String cgroupVersion,
                  boolean memory, boolean pids, boolean cpu, String why, String storageRoot) {
        String describe() {
            return (podman ? "Podman " : "Docker Engine ") + version + (rootless ? ", rootless" : "") + ", cgroup v"
                    + cgroupVersion;
        }
    }

    private static final Map<String, Traits> TRAITS = new java.util.concurrent.ConcurrentHashMap<>();

    Traits traits() {
        return TRAITS.computeIfAbsent(host, h -> readTraits());
    }

    private Traits readTraits() {
        com.fasterxml.jackson.databind.JsonNode info;
        com.fasterxml.jackson.databind.JsonNode version;
        try {
            info = getJson("/info");
            version = getJson("/version");
        } catch (IOException e) {
            throw DockerErrors.error(dev.sandbox4j.ErrorKind.BACKEND_UNAVAILABLE, "reading the Docker engine's "
                    + "/info at " + host + ": " + e.getMessage(), e);
        }
        boolean podman = false;
        String ver = info.path("ServerVersion").asText("?");
        for (var c : version.path("Components")) {
            if (c.path("Name").asText("").toLowerCase(java.util.Locale.ROOT).contains("podman")) {
                podman = true;
                ver = c.path("Version").asText(ver);
            }
        }
        String arch = info.path("Architecture").asText("");
        if (arch.isEmpty()) {
            arch = System.getProperty("os.arch");
        }
        boolean rootless = false;
        for (var o : info.path("SecurityOptions")) {
            rootless |= o.asText("").contains("name=rootless");
        }
        String cgroup = info.path("CgroupVersion").asText("1").trim();
        boolean memory = info.path("MemoryLimit").asBoolean(true);
        boolean pids = info.path("PidsLimit").asBoolean(true);
        boolean cpu = info.path("CpuCfsQuota").asBoolean(true);
        String storageRoot = info.path("DockerRootDir").asText("");
        if (podman) {
            // Podman's own info: rootless, the cgroup version and, on v2, the controllers delegated to it
            try {
                com.fasterxml.jackson.databind.JsonNode libpod = getJson("/v4.0.0/libpod/info");
                com.fasterxml.jackson.databind.JsonNode h = libpod.path("host");
                storageRoot = libpod.path("store").path("graphRoot").asText(storageRoot);
                rootless |= h.path("security").path("rootless").asBoolean(false);
                String v = h.path("cgroupVersion").asText("");
                if (!v.isEmpty()) {
                    cgroup = v.replace("v", "");
                }
                java.util.Set<String> controllers = new java.util.HashSet<>();
                h.path("cgroupControllers").forEach(n -> controllers.add(n.asText()));
                if (rootless && cgroup.equals("2")) {
                    memory = controllers.contains("memory");
                    pids = controllers.contains("pids");
                    cpu = controllers.contains("cpu");
                }
            } catch (IOException | RuntimeException e) {
                LOG.debug("reading Podman's /libpod/info failed", e);
            }
        }
        String why = "";
        if (rootless && cgroup.equals("1")) {
            // cgroup v1 has no delegation to a user: Podman drops such limits with a warning, never applies them
            memory = false;
            pids = false;
            cpu = false;
            why = "a rootless engine on cgroup v1 cannot apply cgroup limits (cgroup v1 has no delegation to a user)";
        } else if (!(memory && pids && cpu)) {
            why = rootless ? "the rootless engine's cgroup v2 group lacks the controller (systemd: Delegate=memory pids "
                    + "cpu for the user's service)" : "the engine reports the cgroup controller missing";
        }
        return new Traits(podman, ver, arch, rootless, cgroup, memory, pids, cpu, why, storageRoot);
    }

    private com.fasterxml.jackson.databind.JsonNode getJson(String path) throws IOException {
        DockerHttpClient.Request req = DockerHttpClient.Request.builder().method(DockerHttpClient.Request.Method.GET)
                .path(path).build();
        try (DockerHttpClient.Response r = controlHttp.execute(req)) {
            if (r.getStatusCode() != 200) {
                throw new IOException("GET " + path + ": status " + r.getStatusCode());
            }
            return new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.getBody());
        }
    }

    // ---------------------------------------------------------------------------------------------- seccomp on Podman

    private static final Map<String, String> SECCOMP_PATHS = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * The {@code seccomp=} security option for this engine. Docker takes the profile's JSON inline; Podman's compat API
     * (4.x, 5.x) takes only a path on the engine's host (podman issue 27710). For Podman the profile goes, once per
     * engine and JVM, into a volume of its own named by the profile's hash ({@code sandbox4j-seccomp-<hash>}, root's,
     * mounted by no sandbox, outside the janitor's label), written through the archive endpoint of a carrier
     * container that is never started; the option then names the file at the volume's mount point on the engine's
     * host. A remote engine works the same.
     */
    String seccompOption(String profileJson) {
        if (!traits().podman()) {
            return "seccomp=" + profileJson;
        }
        String hash = sha256(profileJson).substring(0, 16);
        return SECCOMP_PATHS.computeIfAbsent(host + "|" + hash, k -> "seccomp=" + installProfile(hash, profileJson));
    }

    /** Forgets the installed profile (its volume was removed under us), so the next open writes it again. */
    void forgetSeccomp() {
        SECCOMP_PATHS.keySet().removeIf(k -> k.startsWith(host + "|"));
    }

    private String installProfile(String hash, String json) {
        String volume = "sandbox4j-seccomp-" + hash;
        byte[] content = json.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        try {
            control.inspectVolumeCmd(volume).exec();
        } catch (com.github.dockerjava.api.exception.NotFoundException e) {
            control.createVolumeCmd().withName(volume).withLabels(Map.of("dev.sandbox4j.seccomp", hash)).exec();
        }
        String carrier = carrier("sandbox4j-seccomp-" + hash, volume, "/profile");
        try {
            upload(carrier, "/profile", List.of(new Entry("seccomp.json", 0444, content.length,
                    () -> new java.io.ByteArrayInputStream(content))), 0, 0);
        } finally {
            removeContainerQuietly(carrier);
        }
        String mountpoint = control.inspectVolumeCmd(volume).exec().getMountpoint();
        if (mountpoint == null || mountpoint.isBlank()) {
            throw DockerErrors.error(dev.sandbox4j.ErrorKind.BACKEND_UNAVAILABLE, "the Podman engine at " + host
                    + " did not say where volume " + volume + " is; the seccomp profile needs a path there");
        }
        return mountpoint + "/seccomp.json";
    }

    // ---------------------------------------------------------------------------------------------- agent binaries

    private static final Map<String, String> BINARY_VOLUMES = new java.util.concurrent.ConcurrentHashMap<>();

    /** The binaries of one architecture, as uploaded, and the hash naming their volume. */
    private record Binaries(List<Entry> entries, String hash) {
    }

    /** Per architecture, read, checked and hashed once per JVM: an open only looks them up. */
    private static final Map<String, Binaries> BINARIES = new java.util.concurrent.ConcurrentHashMap<>();

    /** Where the binaries volume is mounted in a sandbox (read-only), and the name of its complete copy. */
    static final String BIN_MOUNT = "/var/sandbox4j";
    static final String BIN_READY = "ready";

    /**
     * The volume holding the agent's binaries for {@code arch}, made once per engine and binary version, mounted
     * read-only into every sandbox: uploading them into each container cost a third of an open (133 ms of 601,
     * docs/benchmarks.md). The volume ({@code sandbox4j-bin-<hash>}, root's, outside the janitor's label) is filled
     * through a carrier container that is never started: each filler writes a directory of its own, then points the
     * {@code ready} link at it, so a sandbox never runs a half-written binary, and two JVMs filling at once both
     * leave a complete copy. A volume whose {@code ready} already holds the agent is used as it is.
     *
     * <p>Once made or found in this JVM it is trusted without a look on Docker: {@code docker volume prune} may remove
     * it while no sandbox runs, and the mount then makes an empty one, so the agent cannot start; the open notices
     * that ({@link #repairBinaries}) and opens again. On Podman a mount that makes a missing volume chowns it to the
     * sandbox user, so there it is still looked at (one inspect) on every open.
     */
    String binariesVolume(String arch) {
        Binaries b = binariesFor(arch);
        String hash = b.hash();
        List<Entry> entries = b.entries();
        String key = host + "|" + arch + "|" + hash;
        String volume = BINARY_VOLUMES.computeIfAbsent(key, k -> installBinaries(hash, entries));
        if (!traits().podman()) {
            return volume;
        }
        try {
            control.inspectVolumeCmd(volume).exec();
            return volume;
        } catch (com.github.dockerjava.api.exception.NotFoundException e) {
            BINARY_VOLUMES.remove(key);
            return BINARY_VOLUMES.computeIfAbsent(key, k -> installBinaries(hash, entries));
        }
    }

    private Binaries binariesFor(String arch) {
        Binaries b = BINARIES.get(arch);
        if (b == null) {
            b = binaries(arch);
            BINARIES.putIfAbsent(arch, b);
        }
        return b;
    }

    /**
     * After a sandbox's agent did not start (its container is removed by then): whether the binaries volume lacked
     * the agent (pruned, then made empty by the sandbox's mount) and has it now, so the open may try once more.
     * False when the volume was whole (the failure was another) or when looking failed: the open's own error stands.
     */
    boolean repairBinaries(String arch) {
        try {
            Binaries b = binariesFor(arch);
            String volume = "sandbox4j-bin-" + b.hash();
            boolean mountMade;
            try {
                Map<String, String> labels = control.inspectVolumeCmd(volume).exec().getLabels();
                mountMade = labels == null || !labels.containsKey("dev.sandbox4j.bin");
            } catch (com.github.dockerjava.api.exception.NotFoundException e) {
                mountMade = false;
            }
            if (mountMade) {
                // made by a mount, not by installBinaries: made again as ours (fails harmlessly while in use)
                removeVolumeQuietly(volume);
            }
            return fillBinaries(b.hash(), b.entries());
        } catch (RuntimeException e) {
            LOG.debug("checking the binaries volume failed", e);
            return false;
        }
    }

    /** The agent, reaper and relay for {@code arch}, checked against the build's checksums, and their hash. */
    private Binaries binaries(String arch) {
        List<Entry> entries = new ArrayList<>();
        java.security.MessageDigest digest;
        try {
            digest = java.security.MessageDigest.getInstance("SHA-256");
            for (String name : List.of(AgentBinary.RELAY, AgentBinary.REAPER, AgentBinary.AGENT)) {
                byte[] b = AgentBinary.bytes(name, arch);
                digest.update(name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                digest.update(b);
                entries.add(new Entry(name, 0555, b.length, () -> new java.io.ByteArrayInputStream(b)));
            }
        } catch (IOException e) {
            throw DockerErrors.error(dev.sandbox4j.ErrorKind.UNSUPPORTED, "the Docker engine at " + host + " runs "
                    + arch + ": " + e.getMessage());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        return new Binaries(List.copyOf(entries), java.util.HexFormat.of().formatHex(digest.digest()).substring(0, 16));
    }

    /** Forgets which volumes this JVM made or checked (for tests: the next open looks again). */
    static void forgetBinariesForTests() {
        BINARY_VOLUMES.clear();
    }

    private String installBinaries(String hash, List<Entry> binaries) {
        fillBinaries(hash, binaries);
        return "sandbox4j-bin-" + hash;
    }

    /** Makes the volume if missing and fills it if its {@code ready} lacks the agent; whether it had to fill it. */
    private boolean fillBinaries(String hash, List<Entry> binaries) {
        String volume = "sandbox4j-bin-" + hash;
        try {
            control.inspectVolumeCmd(volume).exec();
        } catch (com.github.dockerjava.api.exception.NotFoundException e) {
            var create = control.createVolumeCmd().withName(volume).withLabels(Map.of("dev.sandbox4j.bin", hash));
            if (traits().podman()) {
                // Podman chowns a new volume to the first container's user unless it names its owner (docker.md)
                create.withDriver("local").withDriverOpts(Map.of("o", "uid=0,gid=0"));
            }
            create.exec();
        }
        String carrier = carrier("sandbox4j-bin-" + hash, volume, "/v");
        try {
            if (exists(carrier, "/v/" + BIN_READY + "/" + binaries.get(binaries.size() - 1).name())) {
                return false;
            }
            String dir = "c-" + java.util.UUID.randomUUID().toString().substring(0, 12);
            List<Entry> copy = new ArrayList<>();
            copy.add(new Entry(dir, 0755, 0, null));
            for (Entry e : binaries) {
                copy.add(new Entry(dir + "/" + e.name(), e.mode(), e.size(), e.content()));
            }
            upload(carrier, "/v", copy, 0, 0);
            upload(carrier, "/v", List.of(Entry.link(BIN_READY, dir)), 0, 0);
            return true;
        } finally {
            removeContainerQuietly(carrier);
        }
    }

    /** Whether {@code path} exists in a container (following links on the way), by the archive endpoint. */
    private boolean exists(String containerId, String path) {
        try (InputStream in = control.copyArchiveFromContainerCmd(containerId, path).exec()) {
            return in.read() >= 0;
        } catch (com.github.dockerjava.api.exception.NotFoundException e) {
            return false;
        } catch (IOException | RuntimeException e) {
            return false; // fill it again: a second complete copy is the worst that can happen
        }
    }

    /**
     * A container that is never started, with {@code volume} at {@code target}: the archive endpoint writes into the
     * volume through it. Labelled as ours with a short expiry, so the janitor removes one a dead JVM left.
     */
    private String carrier(String name, String volume, String target) {
        return control.createContainerCmd(options.image())
                .withName(name + "-" + java.util.UUID.randomUUID().toString().substring(0, 8))
                .withEntrypoint("/bin/true").withCmd(List.of())
                .withLabels(Map.of(LABEL, "1", LABEL_OWNER, OWNER,
                        LABEL_EXPIRES, Long.toString(Instant.now().getEpochSecond() + 120)))
                .withHostConfig(com.github.dockerjava.api.model.HostConfig.newHostConfig().withNetworkMode("none")
                        .withMounts(List.of(new com.github.dockerjava.api.model.Mount()
                                .withType(com.github.dockerjava.api.model.MountType.VOLUME).withSource(volume)
                                .withTarget(target))))
                .exec().getId();
    }

    private static String sha256(String s) {
        try {
            byte[] d = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            StringBuilder b = new StringBuilder();
            for (byte x : d) {
                b.append(String.format("%02x", x));
            }
            return b.toString();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    // ---------------------------------------------------------------------------------------------- tar upload

    /** One file or directory to upload; directories have null content. */
    record Entry(String name, int mode, long size, InputStreamSupplier content, String linkTarget) {
        Entry(String name, int mode, long size, InputStreamSupplier content) {
            this(name, mode, size, content, null);
        }

        /** A symbolic link {@code name -> target}. */
        static Entry link(String name, String target) {
            return new Entry(name, 0777, 0, null, target);
        }
    }

    @FunctionalInterface
    interface InputStreamSupplier {
        InputStream open() throws IOException;
    }

    /** Uploads entries (names relative to {@code remoteDir}) owned by uid:gid, streaming through a pipe. */
    void upload(String containerId, String remoteDir, List<Entry> entries, int uid, int gid) {
        PipedInputStream in = new PipedInputStream(1 << 20);
        CompletableFuture<Void> writer;
        try {
            PipedOutputStream pout = new PipedOutputStream(in);
            writer = CompletableFuture.runAsync(() -> {
                try (TarArchiveOutputStream tar = new TarArchiveOutputStream(pout)) {
                    tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
                    tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
                    for (Entry en : entries) {
                        if (en.linkTarget() != null) {
                            TarArchiveEntry link = new TarArchiveEntry(en.name(),
                                    org.apache.commons.compress.archivers.tar.TarConstants.LF_SYMLINK);
                            link.setLinkName(en.linkTarget());
                            link.setIds(uid, gid);
                            tar.putArchiveEntry(link);
                            tar.closeArchiveEntry();
                            continue;
                        }
                        boolean dir = en.content() == null;
                        TarArchiveEntry te = new TarArchiveEntry(dir ? en.name() + "/" : en.name());
                        te.setMode((dir ? 040000 : 0100000) | en.mode());
                        te.setIds(uid, gid);
                        te.setModTime(java.util.Date.from(Instant.now()));
                        if (!dir) {
                            te.setSize(en.size());
                        }
                        tar.putArchiveEntry(te);
                        if (!dir) {
                            try (InputStream data = en.content().open()) {
                                long copied = data.transferTo(tar);
                                if (copied != en.size()) {
                                    throw new IOException("content changed size while uploading " + en.name());
                                }
                            }
                        }
                        tar.closeArchiveEntry();
                    }
                    tar.finish();
                } catch (IOException ex) {
                    throw new java.io.UncheckedIOException(ex);
                }
            }, dev.sandbox4j.core.Background.workers());
        } catch (IOException ex) {
            throw DockerErrors.error(dev.sandbox4j.ErrorKind.IO_ERROR, "preparing an upload: " + ex.getMessage(), ex);
        }
        try {
            control.copyArchiveToContainerCmd(containerId).withRemotePath(remoteDir).withTarInputStream(in)
                    // copyUIDGID stays false: the engine then keeps the tar headers' uid/gid (the sandbox user).
                    // copyUIDGID=true makes Engine 20.10 look the container user up in the *host's* passwd.
                    .withNoOverwriteDirNonDir(false).exec();
        } catch (RuntimeException ex) {
            writer.cancel(true);
            throw DockerErrors.translate("uploading to the sandbox", ex);
        } finally {
            try {
                in.close();
            } catch (IOException ignored) {
                // closed
            }
        }
        try {
            writer.get(30, TimeUnit.SECONDS);
        } catch (Exception ex) {
            Throwable c = ex.getCause() != null ? ex.getCause() : ex;
            throw DockerErrors.error(dev.sandbox4j.ErrorKind.IO_ERROR, "uploading to the sandbox: " + c.getMessage(), c);
        }
    }

    // ---------------------------------------------------------------------------------------------- janitor

    /** Minimum time between two janitor runs against the same engine in one JVM. */
    static final Duration JANITOR_INTERVAL = Duration.ofSeconds(2);
    private static final Map<String, Long> JANITOR_LAST = new java.util.concurrent.ConcurrentHashMap<>();
    /** Janitor runs one at a time (each on its own connection), on the library's shared workers. */
    private static final java.util.concurrent.Executor JANITORS = dev.sandbox4j.core.Background.serial();

    /**
     * Runs the janitor in the background, on its own connection, at most once per {@link #JANITOR_INTERVAL} per engine
     * and JVM; never on the caller's path.
     */
    void janitorInBackground() {
        long now = System.nanoTime();
        boolean[] due = new boolean[1];
        JANITOR_LAST.compute(host, (k, last) -> {
            if (last == null || now - last >= JANITOR_INTERVAL.toNanos()) {
                due[0] = true;
                return now;
            }
            return last;
        });
        if (!due[0]) {
            return;
        }
        try {
            JANITORS.execute(() -> {
                try (Engine e = connect(options, options.requestTimeout())) {
                    e.janitor();
                } catch (RuntimeException ex) {
                    LOG.debug("sandbox4j janitor failed", ex);
                }
            });
        } catch (RuntimeException ex) {
            LOG.debug("sandbox4j janitor not scheduled", ex);
        }
    }

    /**
     * Removes containers and volumes of sandbox4j whose owner JVM on this host is gone or whose expiry passed.
     * Best effort: errors are logged, never thrown.
     */
    void janitor() {
        Leftovers mine = LEFTOVERS.get(host);
        if (mine != null) {
            removeLeftovers(mine);
        }
        try {
            long now = Instant.now().getEpochSecond();
            List<Container> containers = control.listContainersCmd().withShowAll(true)
                    .withLabelFilter(Map.of(LABEL, "1")).exec();
            List<String> live = new ArrayList<>();
            for (Container c : containers) {
                Map<String, String> labels = c.getLabels() == null ? Map.of() : c.getLabels();
                if (stale(labels, now)) {
                    LOG.info("sandbox4j janitor: removing stale container {}", c.getId());
                    removeContainerQuietly(c.getId());
                } else if (labels.get(LABEL_ID) != null) {
                    live.add(labels.get(LABEL_ID));
                }
            }
            var volumes = control.listVolumesCmd().withFilter("label", List.of(LABEL + "=1")).exec().getVolumes();
            if (volumes != null) {
                for (var v : volumes) {
                    Map<String, String> labels = v.getLabels() == null ? Map.of() : v.getLabels();
                    if (stale(labels, now) && !live.contains(labels.get(LABEL_ID))) {
                        LOG.info("sandbox4j janitor: removing stale volume {}", v.getName());
                        removeVolumeQuietly(v.getName());
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.debug("sandbox4j janitor failed", e);
        }
    }

    static boolean stale(Map<String, String> labels, long nowEpoch) {
        String expires = labels.get(LABEL_EXPIRES);
        if (expires != null) {
            try {
                if (Long.parseLong(expires) < nowEpoch) {
                    return true;
                }
            } catch (NumberFormatException ignored) {
                // not ours to judge
            }
        }
        String owner = labels.get(LABEL_OWNER);
        if (owner == null) {
            return false;
        }
        String[] parts = owner.split(":");
        if (parts.length != 3 || !parts[0].equals(OWNER.split(":")[0])) {
            return false; // another host's sandbox: only its expiry counts
        }
        try {
            long pid = Long.parseLong(parts[1]);
            long start = Long.parseLong(parts[2]);
            Optional<ProcessHandle> p = ProcessHandle.of(pid);
            if (p.isEmpty()) {
                return true;
            }
            Optional<Instant> started = p.get().info().startInstant();
            return started.isPresent() && Math.abs(started.get().toEpochMilli() - start) > 2000;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** Removes one of this JVM's containers; when the engine cannot be asked now, it is {@linkplain #leave left} for later. */
    void removeContainerQuietly(String id) {
        if (!removeContainer(id)) {
            leave(id, null);
        }
    }

    /** Whether the container is gone (removed now, or not there). */
    private boolean removeContainer(String id) {
        try {
            control.removeContainerCmd(id).withForce(true).withRemoveVolumes(true).exec();
            return true;
        } catch (com.github.dockerjava.api.exception.NotFoundException e) {
            return true;
        } catch (RuntimeException e) {
            LOG.debug("removing container {} failed: {}", id, e.toString());
            return false;
        }
    }

    /** Removes a volume of this JVM's own sandbox; when that fails, it is {@linkplain #leave left} for later. */
    void removeOwnVolumeQuietly(String name) {
        if (!removeVolumeQuietly(name)) {
            leave(null, name);
        }
    }

    /** Whether the volume is gone; a volume still in use stays (and false is returned) after a few tries. */
    boolean removeVolumeQuietly(String name) {
        for (int i = 0; i < 5; i++) {
            try {
                control.removeVolumeCmd(name).exec();
                return true;
            } catch (com.github.dockerjava.api.exception.NotFoundException e) {
                return true;
            } catch (RuntimeException e) {
                LOG.debug("removing volume {} failed: {}", name, e.toString());
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return false;
    }

    // ---------------------------------------------------------------------------------------------- leftovers

    /**
     * This JVM's containers and volumes whose removal failed, by engine address: the engine was unreachable for a
     * moment, or the JVM had no file descriptor left for a connection (an open that failed at the fd limit could not
     * remove the container it had made). They are tried again in the background with growing pauses, by every
     * janitor run against the same engine, and once more as the JVM exits; otherwise they would stay until this JVM
     * died and another one's janitor found them.
     */
    private static final Map<String, Leftovers> LEFTOVERS = new java.util.concurrent.ConcurrentHashMap<>();
    private static final java.util.concurrent.atomic.AtomicBoolean EXIT_HOOK = new java.util.concurrent.atomic.AtomicBoolean();
    private static final java.util.concurrent.atomic.AtomicBoolean RETRYING = new java.util.concurrent.atomic.AtomicBoolean();
    /** The longest pause between two background tries. */
    private static final long RETRY_MAX_MS = 60_000;

    private record Leftovers(DockerOptions options, java.util.Set<String> containers, java.util.Set<String> volumes) {
        boolean isEmpty() {
            return containers.isEmpty() && volumes.isEmpty();
        }
    }

    private void leave(String container, String volume) {
        Leftovers l = LEFTOVERS.computeIfAbsent(host, h -> new Leftovers(options,
                java.util.concurrent.ConcurrentHashMap.newKeySet(), java.util.concurrent.ConcurrentHashMap.newKeySet()));
        if (container != null) {
            l.containers.add(container);
        }
        if (volume != null) {
            l.volumes.add(volume);
        }
        LOG.debug("sandbox4j: left for later: container {} volume {}", container, volume);
        if (EXIT_HOOK.compareAndSet(false, true)) {
            try {
                dev.sandbox4j.core.Background.atExit(Engine::removeLeftovers);
            } catch (IllegalStateException alreadyExiting) {
                // the JVM is exiting: the janitor of the next JVM removes them (their owner is gone by then)
            }
        }
        if (RETRYING.compareAndSet(false, true)) {
            scheduleRetry(500);
        }
    }

    private static boolean anyLeftover() {
        return LEFTOVERS.values().stream().anyMatch(l -> !l.isEmpty());
    }

    private static void scheduleRetry(long delayMs) {
        try {
            // the timer only hands the try to a worker: a removal waits on the engine
            dev.sandbox4j.core.Background.timer().schedule(() -> dev.sandbox4j.core.Background.execute(() -> {
                removeLeftovers();
                if (anyLeftover()) {
                    scheduleRetry(Math.min(delayMs * 2, RETRY_MAX_MS));
                } else {
                    RETRYING.set(false);
                    if (anyLeftover() && RETRYING.compareAndSet(false, true)) {
                        scheduleRetry(500); // one was left while this try ended
                    }
                }
            }), delayMs, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException ignored) {
            // shutting down: the exit hook tries
        }
    }

    /** Tries every leftover once, on a connection of its own per engine. */
    static void removeLeftovers() {
        for (Map.Entry<String, Leftovers> e : LEFTOVERS.entrySet()) {
            Leftovers l = e.getValue();
            if (l.isEmpty()) {
                continue;
            }
            try (Engine engine = connect(l.options, l.options.requestTimeout())) {
                engine.removeLeftovers(l);
            } catch (RuntimeException ex) {
                LOG.debug("sandbox4j: removing leftovers failed", ex);
            }
        }
    }

    private void removeLeftovers(Leftovers l) {
        for (String c : List.copyOf(l.containers)) {
            if (removeContainer(c)) {
                l.containers.remove(c);
            }
        }
        for (String v : List.copyOf(l.volumes)) {
            if (removeVolumeQuietly(v)) {
                l.volumes.remove(v);
            }
        }
    }

    private static String ownerId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = System.getenv().getOrDefault("HOSTNAME", "unknown");
        }
        host = host.replace(':', '_');
        ProcessHandle self = ProcessHandle.current();
        long start = self.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
        return host + ":" + self.pid() + ":" + start;
    }
}
