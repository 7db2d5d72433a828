package dev.sandbox4j.local;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Feature;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.spi.SandboxProvider;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code local} backend: each sandbox is one long-lived bubblewrap jail (all namespaces unshared, no network,
 * seccomp, cgroup limits where the host allows them) with a small agent inside that starts the commands.
 */
public final class LocalSandboxProvider implements SandboxProvider {
    private final LocalOptions options;

    /** The provider with {@link LocalOptions#defaults()} (used by ServiceLoader). */
    public LocalSandboxProvider() {
        this(LocalOptions.defaults());
    }

    public LocalSandboxProvider(LocalOptions options) {
        this.options = Objects.requireNonNull(options, "options");
    }

    @Override
    public String name() {
        return "local";
    }

    @Override
    public int priority() {
        return 100;
    }

    @Override
    public Set<Feature> features() {
        Set<Feature> f = EnumSet.of(Feature.SHELL, Feature.BACKGROUND_PROCESSES, Feature.PROCESS_REGISTRY,
                Feature.TERMINAL,
                Feature.SHARED_PROCESS_SPACE,
                Feature.CODE_EXECUTION, Feature.CODE_CONTEXTS, Feature.FILE_WATCH, Feature.ISOLATION,
                Feature.NETWORK_ISOLATION, Feature.SYMLINKS, Feature.POSIX_PERMISSIONS, Feature.BYTE_FILE_NAMES,
                // an overlay is a real overlayfs as root, a copy with the same semantics otherwise (info says which)
                Feature.WORKSPACE_COPY, Feature.WORKSPACE_OVERLAY, Feature.WORKSPACE_BIND, Feature.WORKSPACE_VOLUME,
                Feature.WORKSPACE_GIT,
                Feature.READ_ONLY_MOUNTS, Feature.SNAPSHOT,
                Feature.SCRATCH_MOUNTS, Feature.PORTS);
        Host host = Host.get(options);
        if (host.problem != null) {
            return f;
        }
        Limits can = Limits.of(host, CgroupSetting.get(options));
        if (can.memory()) {
            f.add(Feature.MEMORY_LIMIT);
        }
        if (can.processes()) {
            f.add(Feature.PROCESS_LIMIT);
        }
        if (can.cpu()) {
            f.add(Feature.CPU_LIMIT);
        }
        if (WorkspaceQuota.unavailableReason(host) == null) {
            f.add(Feature.WORKSPACE_QUOTA);
        }
        CgroupSetting cg = CgroupSetting.get(options);
        if (cg.kind == CgroupSetting.Kind.V2 || (cg.kind == CgroupSetting.Kind.V1 && CgroupsV1.usable("freezer"))) {
            f.add(Feature.PAUSE); // sandboxes whose groups could not be made refuse pause(), saying why
        }
        return f;
    }

    @Override
    public Optional<String> unavailableReason() {
        return Host.get(options).problem();
    }

    @Override
    public Sandbox open(SandboxSpec spec) {
        Objects.requireNonNull(spec, "spec");
        if (!spec.lease().isZero()) {
            throw LocalErrors.error(ErrorKind.UNSUPPORTED, NO_LEASE);
        }
        Host host = Host.get(options);
        if (host.problem != null) {
            throw LocalErrors.error(ErrorKind.BACKEND_UNAVAILABLE, "local sandbox unavailable: " + host.problem);
        }
        // a git source from a host path is cloned in the jail from a read-only mount of it
        // a snapshot is extracted and checked first, then copied in as a copy source would be
        return dev.sandbox4j.core.AgentSandbox.openFromSnapshot(spec,
                s -> BwrapHost.open(host, options, dev.sandbox4j.core.GitSeed.withMount(s)));
    }

    /** Why this backend has no REATTACH (docs/reattach.md). */
    static final String NO_LEASE = "the local backend cannot lease or reattach a sandbox: its jail (bubblewrap) is a "
            + "child of this JVM and dies with it; use the docker backend for sandboxes that outlive the JVM";

    /** Refused: see {@link #NO_LEASE}. */
    @Override
    public Sandbox attach(String id, dev.sandbox4j.AttachCredential credential, SandboxSpec settings) {
        throw LocalErrors.error(ErrorKind.UNSUPPORTED, NO_LEASE);
    }

    /** Removes a named volume from {@link LocalOptions#volumesDir()}; refused while a sandbox is open on it. */
    @Override
    public void removeVolume(String name) {
        VolumeStore.remove(options, name);
    }
}
