package dev.sandbox4j.docker;

import dev.sandbox4j.Feature;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.spi.SandboxProvider;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code docker} backend: each sandbox is one hardened container (non-root, no capabilities,
 * no-new-privileges, sandbox4j's seccomp profile, read-only root, no network by default, cgroup limits) with its
 * workspace on a Docker volume, driven through the Engine API only, so a remote engine ({@code DOCKER_HOST=tcp://})
 * works. Needs a running engine and the image of {@link DockerOptions#image()}. Podman's Docker-compatible service,
 * rootless included, works too; limits such an engine cannot apply (memory, processes, CPU on cgroup v1 rootless)
 * make {@link #open} refuse with {@code UNSUPPORTED} unless the spec takes best effort (docs/docker.md, "Rootless
 * Podman").
 */
public final class DockerSandboxProvider implements SandboxProvider {
    static final String NAME = "docker";
    static final Set<Feature> FEATURES = Set.copyOf(EnumSet.of(Feature.SHELL, Feature.BACKGROUND_PROCESSES,
            Feature.PROCESS_REGISTRY, Feature.TERMINAL,
            Feature.SHARED_PROCESS_SPACE, Feature.CODE_EXECUTION, Feature.CODE_CONTEXTS, Feature.FILE_WATCH,
            Feature.ISOLATION, Feature.NETWORK_ISOLATION,
            Feature.MEMORY_LIMIT, Feature.PROCESS_LIMIT, Feature.CPU_LIMIT, Feature.SYMLINKS,
            Feature.POSIX_PERMISSIONS, Feature.WORKSPACE_QUOTA, Feature.WORKSPACE_COPY, Feature.WORKSPACE_OVERLAY,
            Feature.WORKSPACE_BIND, Feature.WORKSPACE_VOLUME, Feature.READ_ONLY_MOUNTS, Feature.SCRATCH_MOUNTS,
            Feature.PAUSE, Feature.PORTS, Feature.SNAPSHOT, Feature.REATTACH));

    private final DockerOptions options;

    /** A provider with {@link DockerOptions#defaults()}; what {@link java.util.ServiceLoader} uses. */
    public DockerSandboxProvider() {
        this(DockerOptions.defaults());
    }

    public DockerSandboxProvider(DockerOptions options) {
        this.options = Objects.requireNonNull(options, "options");
    }

    public DockerOptions options() {
        return options;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return 50;
    }

    @Override
    public Set<Feature> features() {
        return FEATURES;
    }

    @Override
    public Optional<String> unavailableReason() {
        return Engine.probe(options);
    }

    @Override
    public Sandbox open(SandboxSpec spec) {
        String refused = dev.sandbox4j.core.HostDirs.unsupported(Objects.requireNonNull(spec, "spec"), features(),
                "docker");
        if (refused != null) {
            throw DockerErrors.error(dev.sandbox4j.ErrorKind.UNSUPPORTED, refused);
        }
        // a snapshot is extracted and checked first, then uploaded as a copy source would be
        return dev.sandbox4j.core.AgentSandbox.openFromSnapshot(spec, s -> ContainerHost.open(options, s));
    }

    /** Attaches to a leased sandbox of this engine by id and credential (docs/reattach.md). */
    @Override
    public Sandbox attach(String id, dev.sandbox4j.AttachCredential credential, SandboxSpec settings) {
        String refused = dev.sandbox4j.core.HostDirs.attachRefused(Objects.requireNonNull(settings, "settings"));
        if (refused != null) {
            throw DockerErrors.error(dev.sandbox4j.ErrorKind.INVALID_ARGUMENT, refused);
        }
        return ContainerLease.attach(options, Objects.requireNonNull(id, "id"),
                Objects.requireNonNull(credential, "credential"), settings);
    }

    /** Removes a named volume; the engine refuses ({@code conflict}) while a container uses it. */
    @Override
    public void removeVolume(String name) {
        try (Engine engine = Engine.connect(options, options.requestTimeout())) {
            ContainerSources.removeVolume(engine.control, name);
        }
    }
}
