package dev.sandbox4j.spring;

import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.pool.PoolOptions;
import dev.sandbox4j.tools.ToolConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.io.Resource;
import org.springframework.util.unit.DataSize;

/**
 * The {@code sandbox4j.*} properties: which backend, the spec every sandbox opens with, the tool set, and how long
 * per-conversation sandboxes live.
 *
 * <pre>
 * sandbox4j.backend=local                 # auto (default), local, docker, memory (needs sandbox-memory)
 * sandbox4j.command-timeout=30s
 * sandbox4j.limits.memory=512MB
 * sandbox4j.limits.max-processes=128
 * sandbox4j.network=none                  # none (default), allow-all, allow-all-including-private-addresses
 * sandbox4j.allowed-domains=pypi.org,*.pythonhosted.org   # an allow-list (then network is not used)
 * sandbox4j.tools.read-only=false
 * sandbox4j.tools.disabled=run_code       # tool or capability names
 * sandbox4j.session.idle-timeout=10m
 * sandbox4j.session.max-sandboxes=16
 * sandbox4j.local.temp-dir=/var/lib/sandbox4j   # LocalOptions of sandbox-local
 * sandbox4j.docker.image=registry.example.com/agent-runtime:1   # DockerOptions of sandbox-docker
 * </pre> *
 * <p>Over 500 lines, and kept as one file on purpose: the nested classes are the {@code sandbox4j.*} tree as Spring
 * binds it ({@code sandbox4j.limits.*} is {@link Limits}, {@code sandbox4j.docker.*} is {@link Docker}, ...), they
 * are public types users reference, and the length is mostly the getter and setter pairs Spring binds through and
 * the field comments its configuration processor turns into the properties' descriptions.
 */
@ConfigurationProperties("sandbox4j")
public class SandboxProperties {
    /**
     * The backend: {@code auto} (the available one with the highest priority: local, then docker), or a provider
     * name ({@code local}, {@code docker}, {@code memory}). A named backend that is not on the class path fails the
     * start; one that cannot run on this host makes the health indicator DOWN and every open fail.
     */
    private String backend = "auto";

    /** Timeout of a command when the call gives none. */
    private Duration commandTimeout = SandboxSpec.defaults().commandTimeout();

    /** How long a sandbox may live at all; it closes itself after this. */
    private Duration lifetime = SandboxSpec.defaults().lifetime();

    /** Characters kept at each end of each output stream. */
    private int outputLimit = SandboxSpec.defaults().outputLimit();

    /** Network access of commands: none (loopback only) or allow-all. */
    /** none, allow-all or allow-all-including-private-addresses (see {@link NetworkPolicy}). */
    private String network = "none";
    /** Domains the sandbox may reach through the host's proxy (exact or *.suffix, optional :port); wins over network. */
    private List<String> allowedDomains = new ArrayList<>();

    /** Environment variables of every command. */
    private Map<String, String> env = new LinkedHashMap<>();

    private final Limits limits = new Limits();

    private final Tools tools = new Tools();

    private final Session session = new Session();

    private final Pool pool = new Pool();

    private final Local local = new Local();

    private final Docker docker = new Docker();

    private final Telemetry opentelemetry = new Telemetry();

    /**
     * OpenTelemetry traces and metrics of every sandbox the factory opens, applied when sandbox-opentelemetry is on the
     * class path and an OpenTelemetry bean exists.
     */
    public static class Telemetry {
        /** Whether the factory's sandboxes are traced (when sandbox-opentelemetry and an OpenTelemetry bean exist). */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** Resource limits; 0 means none. A limit the host cannot hold makes open fail unless best-effort is set. */
    public static class Limits {
        /** Memory of all processes of a sandbox. */
        private DataSize memory = DataSize.ofBytes(ResourceLimits.DEFAULTS.memoryBytes());
        /** Processes at once. */
        private int maxProcesses = ResourceLimits.DEFAULTS.maxProcesses();
        /** CPUs (1.5 is one and a half). */
        private double cpus = ResourceLimits.DEFAULTS.cpus();
        /** Largest file a command may write. */
        private DataSize maxFileSize = DataSize.ofBytes(ResourceLimits.DEFAULTS.maxFileBytes());
        /** Size of /tmp. */
        private DataSize tmpSize = DataSize.ofBytes(ResourceLimits.DEFAULTS.tmpBytes());
        /** The workspace's byte quota (memory-backed); 0 with {@code workspaceInodes} 0 asks for none. */
        private DataSize workspaceSize = DataSize.ofBytes(ResourceLimits.DEFAULTS.workspaceBytes());
        /** The workspace's inode quota. */
        private long workspaceInodes = ResourceLimits.DEFAULTS.workspaceInodes();
        /** Accept the limits this host can hold instead of refusing to open ({@code info()} says which hold). */
        private boolean bestEffort;

        public DataSize getWorkspaceSize() {
            return workspaceSize;
        }

        public void setWorkspaceSize(DataSize workspaceSize) {
            this.workspaceSize = workspaceSize;
        }

        public long getWorkspaceInodes() {
            return workspaceInodes;
        }

        public void setWorkspaceInodes(long workspaceInodes) {
            this.workspaceInodes = workspaceInodes;
        }

        public DataSize getMemory() {
            return memory;
        }

        public void setMemory(DataSize memory) {
            this.memory = memory;
        }

        public int getMaxProcesses() {
            return maxProcesses;
        }

        public void setMaxProcesses(int maxProcesses) {
            this.maxProcesses = maxProcesses;
        }

        public double getCpus() {
            return cpus;
        }

        public void setCpus(double cpus) {
            this.cpus = cpus;
        }

        public DataSize getMaxFileSize() {
            return maxFileSize;
        }

        public void setMaxFileSize(DataSize maxFileSize) {
            this.maxFileSize = maxFileSize;
        }

        public DataSize getTmpSize() {
            return tmpSize;
        }

        public void setTmpSize(DataSize tmpSize) {
            this.tmpSize = tmpSize;
        }

        public boolean isBestEffort() {
            return bestEffort;
        }

        public void setBestEffort(boolean bestEffort) {
            this.bestEffort = bestEffort;
        }
    }

    /** The agent tools offered to the model. */
    public static class Tools {
        /** Whether the tool callbacks are registered at all. */
        private boolean enabled = true;
        /** Offer only the reading tools. */
        private boolean readOnly;
        /** The published tool surface: default, agentbay, coding, execute-code, spacebot, aio or filesystem. */
        private String profile = "default";
        /** Tools or capabilities switched off: run_commands, run_code, write_files, read_files, or tool names. */
        private List<String> disabled = new ArrayList<>();
        /** Timeout of bash and exec when the model gives none. */
        private Duration defaultTimeout = ToolConfig.defaults().defaultTimeout();
        /** The longest timeout the model may ask for. */
        private Duration maxTimeout = ToolConfig.defaults().maxTimeout();
        /** Timeout of execute_code when the model gives none. */
        private Duration defaultCodeTimeout = ToolConfig.defaults().defaultCodeTimeout();

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getProfile() {
            return profile;
        }

        public void setProfile(String profile) {
            this.profile = profile;
        }

        public boolean isReadOnly() {
            return readOnly;
        }

        public void setReadOnly(boolean readOnly) {
            this.readOnly = readOnly;
        }

        public List<String> getDisabled() {
            return disabled;
        }

        public void setDisabled(List<String> disabled) {
            this.disabled = disabled;
        }

        public Duration getDefaultTimeout() {
            return defaultTimeout;
        }

        public void setDefaultTimeout(Duration defaultTimeout) {
            this.defaultTimeout = defaultTimeout;
        }

        public Duration getMaxTimeout() {
            return maxTimeout;
        }

        public void setMaxTimeout(Duration maxTimeout) {
            this.maxTimeout = maxTimeout;
        }

        public Duration getDefaultCodeTimeout() {
            return defaultCodeTimeout;
        }

        public void setDefaultCodeTimeout(Duration defaultCodeTimeout) {
            this.defaultCodeTimeout = defaultCodeTimeout;
        }
    }

    /** The sandboxes the tools open: one per conversation or request. */
    public static class Session {
        /** A sandbox unused this long is closed; the next call of its conversation gets a fresh one. */
        private Duration idleTimeout = Duration.ofMinutes(30);
        /** Sandboxes open at once; a conversation beyond this gets a retryable backend_unavailable. */
        private int maxSandboxes = 16;
        /**
         * What a tool call with neither a conversation id in its tool context nor a current request does:
         * {@code refuse} (the default: it fails with a message saying how to pass one) or {@code shared} (one
         * sandbox for all such calls, which then see each other's files).
         */
        private Fallback fallback = Fallback.REFUSE;

        public Duration getIdleTimeout() {
            return idleTimeout;
        }

        public void setIdleTimeout(Duration idleTimeout) {
            this.idleTimeout = idleTimeout;
        }

        public int getMaxSandboxes() {
            return maxSandboxes;
        }

        public void setMaxSandboxes(int maxSandboxes) {
            this.maxSandboxes = maxSandboxes;
        }

        public Fallback getFallback() {
            return fallback;
        }

        public void setFallback(Fallback fallback) {
            this.fallback = fallback;
        }
    }

    /**
     * A warm pool for {@link SandboxFactory#open()} (the configured spec; the tools' sessions open through it too):
     * sandboxes opened ahead and handed out unused, so a conversation's first call does not wait for a jail or
     * container to start. Off by default: warm sandboxes hold memory and processes while nobody uses them.
     */
    public static class Pool {
        /** Whether {@code open()} takes its sandboxes from a warm pool. */
        private boolean enabled;
        /** Sandboxes kept open and unused. */
        private int min = PoolOptions.DEFAULTS.min();
        /** Sandboxes alive at once, warm and handed out together; an open past it waits (acquire-timeout). */
        private int max = PoolOptions.DEFAULTS.max();
        /** Threads that open sandboxes in the background. */
        private int refillThreads = PoolOptions.DEFAULTS.refillThreads();
        /** A warm sandbox unused this long is replaced (it has used this much of its lifetime). */
        private Duration idleExpiry = PoolOptions.DEFAULTS.idleExpiry();
        /** How long an open waits for a sandbox before a retryable timeout. */
        private Duration acquireTimeout = PoolOptions.DEFAULTS.acquireTimeout();

        PoolOptions toOptions() {
            return new PoolOptions(min, max, refillThreads, idleExpiry, acquireTimeout);
        }

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public int getMin() {
            return min;
        }

        public void setMin(int min) {
            this.min = min;
        }

        public int getMax() {
            return max;
        }

        public void setMax(int max) {
            this.max = max;
        }

        public int getRefillThreads() {
            return refillThreads;
        }

        public void setRefillThreads(int refillThreads) {
            this.refillThreads = refillThreads;
        }

        public Duration getIdleExpiry() {
            return idleExpiry;
        }

        public void setIdleExpiry(Duration idleExpiry) {
            this.idleExpiry = idleExpiry;
        }

        public Duration getAcquireTimeout() {
            return acquireTimeout;
        }

        public void setAcquireTimeout(Duration acquireTimeout) {
            this.acquireTimeout = acquireTimeout;
        }
    }

    /**
     * Host-side settings of the local (bubblewrap) backend: {@code LocalOptions} of sandbox-local, applied when the
     * starter opens it. Unset ones keep the library's defaults.
     */
    public static class Local {
        /** The bwrap executable to use instead of the one on PATH. */
        private String bwrap;
        /**
         * Where workspaces and control directories are created; default java.io.tmpdir. A local POSIX file system,
         * traversable by other users (as /tmp is) when the JVM runs as root, since jails run as unprivileged uids.
         */
        private Path tempDir;
        /** The first host uid given to jails when the JVM runs as root (default 200000). */
        private Integer uidBase;
        /** On cgroup v2, the (delegated) group under which sandboxes' groups are made. */
        private Path cgroupParent;

        public String getBwrap() {
            return bwrap;
        }

        public void setBwrap(String bwrap) {
            this.bwrap = bwrap;
        }

        public Path getTempDir() {
            return tempDir;
        }

        public void setTempDir(Path tempDir) {
            this.tempDir = tempDir;
        }

        public Integer getUidBase() {
            return uidBase;
        }

        public void setUidBase(Integer uidBase) {
            this.uidBase = uidBase;
        }

        public Path getCgroupParent() {
            return cgroupParent;
        }

        public void setCgroupParent(Path cgroupParent) {
            this.cgroupParent = cgroupParent;
        }
    }

    /**
     * How the Docker backend reaches the engine and builds containers: {@code DockerOptions} of sandbox-docker,
     * applied when the starter opens it (sandbox-docker must be on the class path). Unset ones keep the library's
     * defaults.
     */
    public static class Docker {
        /** The image (default env SANDBOX4J_DOCKER_IMAGE, else sandbox4j/runtime:bookworm). */
        private String image;
        /** The numeric non-root uid:gid commands run as (default 10001:10001). */
        private String user;
        /** The engine address (unix:// or tcp://); default env DOCKER_HOST, else the local socket. */
        private String dockerHost;
        /** An Engine API version to pin; default unversioned requests. */
        private String apiVersion;
        /** Labels added to every container and volume (keys under dev.sandbox4j are reserved). */
        private Map<String, String> labels = new LinkedHashMap<>();
        /** Connect timeout of engine calls (default 5s). */
        private Duration connectTimeout;
        /** Timeout of control calls (default 60s). */
        private Duration requestTimeout;
        /** Timeout of the availability ping (default 3s). */
        private Duration pingTimeout;
        /** A seccomp profile (Docker's JSON format) replacing sandbox4j's own, such as file:/etc/sandbox4j/seccomp.json. */
        private Resource seccompProfile;

        public String getImage() {
            return image;
        }

        public void setImage(String image) {
            this.image = image;
        }

        public String getUser() {
            return user;
        }

        public void setUser(String user) {
            this.user = user;
        }

        public String getDockerHost() {
            return dockerHost;
        }

        public void setDockerHost(String dockerHost) {
            this.dockerHost = dockerHost;
        }

        public String getApiVersion() {
            return apiVersion;
        }

        public void setApiVersion(String apiVersion) {
            this.apiVersion = apiVersion;
        }

        public Map<String, String> getLabels() {
            return labels;
        }

        public void setLabels(Map<String, String> labels) {
            this.labels = labels;
        }

        public Duration getConnectTimeout() {
            return connectTimeout;
        }

        public void setConnectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
        }

        public Duration getRequestTimeout() {
            return requestTimeout;
        }

        public void setRequestTimeout(Duration requestTimeout) {
            this.requestTimeout = requestTimeout;
        }

        public Duration getPingTimeout() {
            return pingTimeout;
        }

        public void setPingTimeout(Duration pingTimeout) {
            this.pingTimeout = pingTimeout;
        }

        public Resource getSeccompProfile() {
            return seccompProfile;
        }

        public void setSeccompProfile(Resource seccompProfile) {
            this.seccompProfile = seccompProfile;
        }
    }

    /** See {@link Session#getFallback()}. */
    public enum Fallback {
        /** The call fails, saying how to pass a conversation id. */
        REFUSE,
        /** One shared sandbox for calls without a conversation or request. */
        SHARED
    }

    /** The spec every sandbox opens with. */
    public SandboxSpec toSpec() {
        ResourceLimits l = new ResourceLimits(limits.memory.toBytes(), limits.maxProcesses, limits.cpus,
                limits.maxFileSize.toBytes(), limits.tmpSize.toBytes(), limits.workspaceSize.toBytes(),
                limits.workspaceInodes);
        return SandboxSpec.builder().commandTimeout(commandTimeout).lifetime(lifetime).outputLimit(outputLimit)
                .network(networkPolicy()).env(env).limits(l).bestEffortLimits(limits.bestEffort).build();
    }

    /** The tool configuration. */
    public ToolConfig toToolConfig() {
        ToolConfig.Builder b = ToolConfig.builder().profile(tools.profile).readOnly(tools.readOnly)
                .defaultTimeout(tools.defaultTimeout)
                .maxTimeout(tools.maxTimeout).defaultCodeTimeout(tools.defaultCodeTimeout)
                .outputLimit(outputLimit);
        if (!tools.disabled.isEmpty()) {
            b.disable(tools.disabled.toArray(String[]::new));
        }
        return b.build();
    }

    public String getBackend() {
        return backend;
    }

    public void setBackend(String backend) {
        this.backend = backend;
    }

    public Duration getCommandTimeout() {
        return commandTimeout;
    }

    public void setCommandTimeout(Duration commandTimeout) {
        this.commandTimeout = commandTimeout;
    }

    public Duration getLifetime() {
        return lifetime;
    }

    public void setLifetime(Duration lifetime) {
        this.lifetime = lifetime;
    }

    public int getOutputLimit() {
        return outputLimit;
    }

    public void setOutputLimit(int outputLimit) {
        this.outputLimit = outputLimit;
    }

    public String getNetwork() {
        return network;
    }

    public void setNetwork(String network) {
        this.network = network;
    }

    public List<String> getAllowedDomains() {
        return allowedDomains;
    }

    public void setAllowedDomains(List<String> allowedDomains) {
        this.allowedDomains = allowedDomains;
    }

    /** The policy these properties name; an {@link IllegalArgumentException} for an unknown name. */
    public NetworkPolicy networkPolicy() {
        if (allowedDomains != null && !allowedDomains.isEmpty()) {
            return NetworkPolicy.allowDomains(allowedDomains);
        }
        switch (network.trim().toLowerCase(java.util.Locale.ROOT).replace('_', '-')) {
            case "none":
                return NetworkPolicy.none();
            case "allow-all":
                return NetworkPolicy.allowAll();
            case "allow-all-including-private-addresses":
                return NetworkPolicy.allowAllIncludingPrivateAddresses();
            default:
                throw new IllegalArgumentException("sandbox4j.network: '" + network + "' is not none, allow-all or "
                        + "allow-all-including-private-addresses (use sandbox4j.allowed-domains for an allow-list)");
        }
    }

    public Map<String, String> getEnv() {
        return env;
    }

    public void setEnv(Map<String, String> env) {
        this.env = env;
    }

    public Limits getLimits() {
        return limits;
    }

    public Tools getTools() {
        return tools;
    }

    public Pool getPool() {
        return pool;
    }

    public Session getSession() {
        return session;
    }

    public Local getLocal() {
        return local;
    }

    public Docker getDocker() {
        return docker;
    }

    public Telemetry getOpentelemetry() {
        return opentelemetry;
    }
}
