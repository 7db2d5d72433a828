package dev.sandbox4j;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a sandbox should be: command timeout, lifetime, output cap, environment, network, resource limits and the
 * files it starts with. Immutable; build one with {@link #builder()} or start from {@link #defaults()}.
 *
 * <pre>{@code
 * SandboxSpec spec = SandboxSpec.builder()
 *     .commandTimeout(Duration.ofSeconds(30))
 *     .limits(ResourceLimits.DEFAULTS.withMemoryBytes(2L << 30))
 *     .env("CI", "1")
 *     .file("main.py", "print('hi')\n")
 *     .build();
 * }</pre>
 */
public final class SandboxSpec {
    /** Characters kept at each end of each output stream by default: 15,000 + 15,000. */
    public static final int DEFAULT_OUTPUT_LIMIT = 15_000;

    private static final Set<String> SYSCALL_SETS = Collections.unmodifiableSet(new TreeSet<>(Set.of("debug",
            "io_uring")));
    private static final SandboxSpec DEFAULTS = builder().build();

    private final Duration commandTimeout;
    private final Duration lifetime;
    private final int outputLimit;
    private final Map<String, String> env;
    private final NetworkPolicy network;
    private final ResourceLimits limits;
    private final boolean bestEffortLimits;
    private final Map<String, byte[]> files;
    private final Set<String> syscallSets;
    private final WorkspaceSource workspace;
    private final java.util.List<Mount> mounts;
    private final FileRules fileRules;
    private final Duration lease;

    private SandboxSpec(Builder b) {
        this.commandTimeout = b.commandTimeout;
        this.lifetime = b.lifetime;
        this.outputLimit = b.outputLimit;
        this.env = Map.copyOf(b.env);
        this.network = b.network;
        this.limits = b.limits;
        this.bestEffortLimits = b.bestEffortLimits;
        Map<String, byte[]> copy = new LinkedHashMap<>();
        b.files.forEach((k, v) -> copy.put(k, v.clone()));
        this.files = Collections.unmodifiableMap(copy);
        this.syscallSets = Collections.unmodifiableSet(new TreeSet<>(b.syscallSets));
        this.workspace = b.workspace;
        this.mounts = java.util.List.copyOf(b.mounts.values());
        this.fileRules = b.fileRules;
        this.lease = b.lease;
    }

    /** 2-minute commands, a 1-hour lifetime, 15,000 + 15,000 characters of output, no network, default limits. */
    public static SandboxSpec defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.commandTimeout = commandTimeout;
        b.lifetime = lifetime;
        b.outputLimit = outputLimit;
        b.env.putAll(env);
        b.network = network;
        b.limits = limits;
        b.bestEffortLimits = bestEffortLimits;
        files.forEach((k, v) -> b.files.put(k, v.clone()));
        b.syscallSets.addAll(syscallSets);
        b.workspace = workspace;
        mounts.forEach(m -> b.mounts.put(m.path(), m));
        b.fileRules = fileRules;
        b.lease = lease;
        return b;
    }

    /** Timeout of a command whose request sets none. */
    public Duration commandTimeout() {
        return commandTimeout;
    }

    /** How long the sandbox may live; it closes itself after that. */
    public Duration lifetime() {
        return lifetime;
    }

    /**
     * How long the sandbox outlives a host that let go of it ({@link Sandbox#detach()}, or its JVM died) before it
     * is removed; {@link Duration#ZERO} (the default): it does not, it ends with the JVM that opened it. A leased
     * sandbox is reached again with {@link Sandboxes#attach} and its {@link Sandbox#credential()}; needs
     * {@link Feature#REATTACH} (docs/reattach.md).
     */
    public Duration lease() {
        return lease;
    }

    /** Characters kept at each end of each output stream of a command whose request sets none. */
    public int outputLimit() {
        return outputLimit;
    }

    /** Environment of every command (requests may add to it). */
    public Map<String, String> env() {
        return env;
    }

    public NetworkPolicy network() {
        return network;
    }

    public ResourceLimits limits() {
        return limits;
    }

    /**
     * Whether {@code open} may go ahead when the host cannot enforce some of the {@link #limits()} asked for. False by
     * default: a sandbox whose memory, process or CPU limit would silently not hold is refused with
     * {@link ErrorKind#UNSUPPORTED}, naming the limit and what to change. When true, the sandbox opens with what the
     * host can enforce, and {@link SandboxInfo#limits()} reports exactly that (0 for a limit that does not hold).
     */
    public boolean bestEffortLimits() {
        return bestEffortLimits;
    }

    /** Files written to the workspace when the sandbox opens, by workspace-relative path. */
    public Map<String, byte[]> files() {
        Map<String, byte[]> copy = new LinkedHashMap<>();
        files.forEach((k, v) -> copy.put(k, v.clone()));
        return Collections.unmodifiableMap(copy);
    }

    /**
     * System calls beyond the default seccomp allow-list, by set: {@code debug} (ptrace and process_vm_readv/writev,
     * for gdb, strace, py-spy: a process may then read and change any other process of its sandbox) and
     * {@code io_uring} (the io_uring interface, a large kernel surface with a history of privilege escalations;
     * without it io_uring_setup fails with ENOSYS and libuv, Tokio and liburing users fall back to epoll). Empty by
     * default. Backends with a syscall filter report the sets in force in {@link SandboxInfo#details()}
     * ({@code seccomp}). Sorted.
     */
    public Set<String> syscallSets() {
        return syscallSets;
    }

    /** What the workspace starts from; {@link WorkspaceSource#empty()} by default. */
    public WorkspaceSource workspace() {
        return workspace;
    }

    /** Extra mounts beside the workspace, in the order added (one per sandbox path). */
    public java.util.List<Mount> mounts() {
        return mounts;
    }

    /**
     * What the file API refuses beyond the workspace boundary: protected paths and symbolic links
     * ({@link FileRules#NONE} by default). Every backend holds them, for every file call, not for code the sandbox
     * runs.
     */
    public FileRules fileRules() {
        return fileRules;
    }

    /** Builds a {@link SandboxSpec}. */
    public static final class Builder {
        private Duration commandTimeout = Duration.ofMinutes(2);
        private Duration lifetime = Duration.ofHours(1);
        private int outputLimit = DEFAULT_OUTPUT_LIMIT;
        private final Map<String, String> env = new LinkedHashMap<>();
        private NetworkPolicy network = NetworkPolicy.NONE;
        private ResourceLimits limits = ResourceLimits.DEFAULTS;
        private boolean bestEffortLimits;
        private final Map<String, byte[]> files = new LinkedHashMap<>();
        private final Set<String> syscallSets = new TreeSet<>();
        private WorkspaceSource workspace = WorkspaceSource.empty();
        private final Map<String, Mount> mounts = new LinkedHashMap<>();
        private FileRules fileRules = FileRules.NONE;
        private Duration lease = Duration.ZERO;

        private Builder() {
        }

        /** See {@link SandboxSpec#lease()}: positive, at most a day. */
        public Builder lease(Duration lease) {
            this.lease = positive(lease, "lease");
            if (lease.compareTo(Duration.ofDays(1)) > 0) {
                throw new IllegalArgumentException("lease (" + lease + ") must be at most a day");
            }
            return this;
        }

        public Builder commandTimeout(Duration timeout) {
            this.commandTimeout = positive(timeout, "commandTimeout");
            return this;
        }

        public Builder lifetime(Duration lifetime) {
            this.lifetime = positive(lifetime, "lifetime");
            return this;
        }

        public Builder outputLimit(int chars) {
            if (chars <= 0) {
                throw new IllegalArgumentException("output limit (" + chars + ") must be positive");
            }
            this.outputLimit = chars;
            return this;
        }

        public Builder env(String name, String value) {
            env.put(ExecRequest.checkName(name), ExecRequest.checkValue(value));
            return this;
        }

        public Builder env(Map<String, String> vars) {
            ExecRequest.checkVars(vars).forEach(this::env);
            return this;
        }

        public Builder network(NetworkPolicy network) {
            this.network = Objects.requireNonNull(network, "network");
            return this;
        }

        public Builder limits(ResourceLimits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /** See {@link SandboxSpec#bestEffortLimits()}: accept whatever limits the host can enforce. */
        public Builder bestEffortLimits(boolean bestEffort) {
            this.bestEffortLimits = bestEffort;
            return this;
        }

        public Builder file(String path, String text) {
            return file(path, text.getBytes(StandardCharsets.UTF_8));
        }

        /** Drops the files added so far: a {@link Sandbox#fork() fork} starts from its parent's files alone. */
        public Builder clearFiles() {
            files.clear();
            return this;
        }

        public Builder file(String path, byte[] content) {
            files.put(Objects.requireNonNull(path, "path"), content.clone());
            return this;
        }

        /**
         * What the workspace starts from: empty (the default), a copy of a host directory, a copy-on-write overlay
         * of it, or the directory itself read-write; see {@link WorkspaceSource} for what each means for the host.
         * The spec's {@link #file files} are written on top.
         */
        public Builder workspace(WorkspaceSource source) {
            this.workspace = Objects.requireNonNull(source, "source");
            return this;
        }

        /**
         * Adds a mount ({@link Mount#readOnly}, {@link Mount#scratch}).
         *
         * @throws IllegalArgumentException when another mount has the same path, or one holds the other
         */
        public Builder mount(Mount mount) {
            Objects.requireNonNull(mount, "mount");
            for (String other : mounts.keySet()) {
                if (other.equals(mount.path()) || other.startsWith(mount.path() + "/")
                        || mount.path().startsWith(other + "/")) {
                    throw new IllegalArgumentException("mount " + mount + " overlaps the mount at " + other);
                }
            }
            mounts.put(mount.path(), mount);
            return this;
        }

        /** Sets the file API's {@link FileRules}: protected paths, symbolic links refused. */
        public Builder fileRules(FileRules rules) {
            this.fileRules = Objects.requireNonNull(rules, "rules");
            return this;
        }

        /**
         * Adds an opt-in set of system calls, {@code debug} or {@code io_uring}; see {@link SandboxSpec#syscallSets()}.
         *
         * @throws IllegalArgumentException for another name
         */
        public Builder syscallSet(String name) {
            if (!SYSCALL_SETS.contains(name)) {
                throw new IllegalArgumentException("unknown syscall set '" + name + "': known are " + SYSCALL_SETS);
            }
            syscallSets.add(name);
            return this;
        }

        /**
         * @throws IllegalArgumentException when an environment value or a file holds a brokered credential's secret:
         *     it would reach the sandbox, which the credential exists to prevent
         */
        public SandboxSpec build() {
            for (NetworkPolicy.Credential c : network.credentials()) {
                String secret = c.revealSecret();
                env.forEach((k, v) -> {
                    if (v.contains(secret)) {
                        throw new IllegalArgumentException("the environment variable " + k + " holds the secret of the "
                                + "credential " + c + "; the sandbox gets its placeholder (exposedAs) instead");
                    }
                });
                byte[] needle = secret.getBytes(StandardCharsets.US_ASCII);
                files.forEach((path, content) -> {
                    if (contains(content, needle)) {
                        throw new IllegalArgumentException("the file " + path + " holds the secret of the credential "
                                + c + "; the sandbox must not have it");
                    }
                });
            }
            return new SandboxSpec(this);
        }

        private static boolean contains(byte[] hay, byte[] needle) {
            outer:
            for (int i = 0; i + needle.length <= hay.length; i++) {
                for (int j = 0; j < needle.length; j++) {
                    if (hay[i + j] != needle[j]) {
                        continue outer;
                    }
                }
                return true;
            }
            return false;
        }

        private static Duration positive(Duration d, String what) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " (" + d + ") must be positive");
            }
            return d;
        }
    }

    @Override
    public String toString() {
        return "SandboxSpec[commandTimeout=" + commandTimeout + ", lifetime=" + lifetime + ", outputLimit="
                + outputLimit + ", env=" + env.keySet() + ", network=" + network + ", limits=" + limits
                + (bestEffortLimits ? " (best effort)" : "") + ", files="
                + files.keySet() + (syscallSets.isEmpty() ? "" : ", syscallSets=" + syscallSets)
                + (workspace.kind() == WorkspaceSource.Kind.EMPTY ? "" : ", workspace=" + workspace)
                + (mounts.isEmpty() ? "" : ", mounts=" + mounts)
                + (fileRules.isEmpty() ? "" : ", fileRules=" + fileRules)
                + (lease.isZero() ? "" : ", lease=" + lease) + "]";
    }
}
