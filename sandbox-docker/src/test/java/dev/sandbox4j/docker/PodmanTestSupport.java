package dev.sandbox4j.docker;

import dev.sandbox4j.Feature;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.testing.Required;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The Docker backend against a Podman engine (docs/docker.md#rootless-podman): env {@value #ENV} names the engine's
 * API socket ({@code unix:///run/user/<uid>/podman/podman.sock}, as {@code scripts/podman-service.sh start} prints it).
 * Unset, or not answering, or not Podman: the Podman tests skip, and fail instead when {@code SANDBOX4J_REQUIRE}
 * contains {@code podman}.
 */
final class PodmanTestSupport {
    static final String ENV = "SANDBOX4J_PODMAN_HOST";
    static final String HOST = System.getenv(ENV);
    static final DockerOptions OPTIONS = HOST == null || HOST.isBlank() ? DockerOptions.defaults()
            : DockerOptions.defaults().withDockerHost(HOST.trim());
    static final DockerSandboxProvider PROVIDER = new DockerSandboxProvider(OPTIONS);
    private static volatile Optional<String> reason;
    private static volatile Engine.Traits traits;

    private PodmanTestSupport() {
    }

    static synchronized void requirePodman() {
        if (reason == null) {
            reason = unavailable();
        }
        Required.orSkip("podman", reason);
    }

    private static Optional<String> unavailable() {
        if (HOST == null || HOST.isBlank()) {
            return Optional.of(ENV + " is not set (scripts/podman-service.sh start prints the socket to set it to)");
        }
        Optional<String> why = PROVIDER.unavailableReason();
        if (why.isPresent()) {
            return why;
        }
        Engine.Traits t = traits();
        return t.podman() ? Optional.empty() : Optional.of(HOST + " is not a Podman engine (" + t.describe() + ")");
    }

    /** What the engine is and which limits it applies. */
    static Engine.Traits traits() {
        Engine.Traits t = traits;
        if (t == null) {
            try (Engine e = Engine.connect(OPTIONS, Duration.ofSeconds(10))) {
                t = e.traits();
            }
            traits = t;
        }
        return t;
    }

    /** The spec without the cgroup limits this engine cannot apply (the kit's specs ask for the defaults). */
    static SandboxSpec withoutUnappliedLimits(SandboxSpec spec) {
        Engine.Traits t = traits();
        ResourceLimits l = spec.limits();
        if (!t.memory()) {
            l = l.withMemoryBytes(0);
        }
        if (!t.pids()) {
            l = l.withMaxProcesses(0);
        }
        if (!t.cpu()) {
            l = l.withCpus(0);
        }
        return spec.toBuilder().limits(l).build();
    }

    /** The provider's features less the limits (and the freezer) this engine cannot give. */
    static Set<Feature> features() {
        Set<Feature> f = EnumSet.copyOf(PROVIDER.features());
        if (HOST == null || HOST.isBlank()) {
            return Set.copyOf(f);
        }
        try {
            Engine.Traits t = traits();
            if (!t.memory()) {
                f.remove(Feature.MEMORY_LIMIT);
            }
            if (!t.pids()) {
                f.remove(Feature.PROCESS_LIMIT);
            }
            if (!t.cpu()) {
                f.remove(Feature.CPU_LIMIT);
            }
            if (!t.freezer()) {
                f.remove(Feature.PAUSE);
            }
        } catch (RuntimeException e) {
            // the engine is not there: every test skips (or fails when required) at open
        }
        return Set.copyOf(f);
    }

    /** Opens with the limits the engine cannot apply left out. */
    static Sandbox open(SandboxSpec spec) {
        requirePodman();
        return PROVIDER.open(withoutUnappliedLimits(spec));
    }

    /** Opens exactly the spec given (for the tests of what is refused). */
    static Sandbox openAsIs(SandboxSpec spec) {
        requirePodman();
        return PROVIDER.open(spec);
    }

    static List<String> ownedResources() {
        return DockerTestSupport.ownedResources(OPTIONS);
    }
}
