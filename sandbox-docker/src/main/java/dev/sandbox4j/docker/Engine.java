package dev.sandbox4j.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.transport.DockerHttpClient;
import com.github.dockerjava.zerodep.ZerodepDockerHttpClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The connection to one Docker engine: a control client with short timeouts and a stream client for exec output,
 * and what the engine is ({@link Traits}). Its volumes are {@link AgentVolumes}, removal and the janitor
 * {@link EngineJanitor}, uploads {@link TarUpload}; the methods below that name them are their entry points.
 */
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

        /**
         * Whether containers get a cgroup to freeze ({@code docker pause}): not on a rootless engine on cgroup v1
         * (measured on Podman 4.3.1: "can not pause containers on rootless containers with cgroup V1").
         */
        boolean freezer() {
            return !(rootless && "1".equals(cgroupVersion));
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

    // ---------------------------------------------------------------------------------------------- the agent's volumes

    /** The {@code seccomp=} security option for this engine (see {@link AgentVolumes#seccompOption}). */
    String seccompOption(String profileJson) {
        return new AgentVolumes(this).seccompOption(profileJson);
    }

    /** Forgets the installed profile (its volume was removed under us), so the next open writes it again. */
    void forgetSeccomp() {
        new AgentVolumes(this).forgetSeccomp();
    }

    /** The volume holding the agent's binaries for {@code arch} (see {@link AgentVolumes#binariesVolume}). */
    String binariesVolume(String arch) {
        return new AgentVolumes(this).binariesVolume(arch);
    }

    /** After a sandbox's agent did not start: whether the binaries volume was repaired (see AgentVolumes). */
    boolean repairBinaries(String arch) {
        return new AgentVolumes(this).repairBinaries(arch);
    }

    /** Forgets which volumes this JVM made or checked (for tests: the next open looks again). */
    static void forgetBinariesForTests() {
        AgentVolumes.forgetBinariesForTests();
    }

    // ---------------------------------------------------------------------------------------------- removal

    /** Runs the janitor in the background at most once per interval per engine and JVM (see EngineJanitor). */
    void janitorInBackground() {
        new EngineJanitor(this).janitorInBackground();
    }

    /** Removes one of this JVM's containers; when the engine cannot be asked now, it is left for later. */
    void removeContainerQuietly(String id) {
        new EngineJanitor(this).removeContainerQuietly(id);
    }

    /** Removes a volume of this JVM's own sandbox; when that fails, it is left for later. */
    void removeOwnVolumeQuietly(String name) {
        new EngineJanitor(this).removeOwnVolumeQuietly(name);
    }

    /** Whether the volume is gone; a volume still in use stays (and false is returned) after a few tries. */
    boolean removeVolumeQuietly(String name) {
        return new EngineJanitor(this).removeVolumeQuietly(name);
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
