package dev.sandbox4j.docker;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * {@link DockerQuotaTest} on a Podman engine (env {@code SANDBOX4J_PODMAN_HOST}): the workspace is a sized tmpfs
 * volume there too, and the engine's disk (its storage root, {@code ~/.local/share/containers/storage} for rootless)
 * does not move while commands fill it.
 */
class PodmanQuotaTest extends DockerQuotaTest {
    @Override
    Sandbox openSandbox(SandboxSpec spec) {
        return PodmanTestSupport.open(spec);
    }

    @Override
    List<String> owned() {
        return PodmanTestSupport.ownedResources();
    }

    @Override
    Path engineRoot() {
        PodmanTestSupport.requirePodman();
        String host = PodmanTestSupport.HOST.trim();
        String root = PodmanTestSupport.traits().storageRoot();
        return host.startsWith("unix:") && !root.isEmpty() && Files.isDirectory(Path.of(root)) ? Path.of(root) : null;
    }

    /**
     * The quota-against-memory check comes first, as on Docker; past it, where the engine applies no memory limit
     * (rootless on cgroup v1), a spec asking for one is refused, typed.
     */
    @Test
    @Override
    void quotaThatDoesNotFitInTheMemoryLimit_isRefusedBeforeAnythingIsMade() {
        PodmanTestSupport.requirePodman();
        SandboxException e = catchThrowableOfType(() -> PodmanTestSupport.openAsIs(SandboxSpec.builder()
                .limits(ResourceLimits.DEFAULTS.withMemoryBytes(128 * ResourceLimits.MIB)).build()).close(),
                SandboxException.class);
        assertThat(e).isNotNull();
        assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT);
        assertThat(owned()).isEmpty();
        if (!PodmanTestSupport.traits().memory()) {
            SandboxException refused = catchThrowableOfType(() -> PodmanTestSupport.openAsIs(SandboxSpec.builder()
                    .limits(ResourceLimits.DEFAULTS.withMaxProcesses(0).withCpus(0)
                            .withMemoryBytes(128 * ResourceLimits.MIB).withWorkspaceQuota(64 * ResourceLimits.MIB,
                                    1000)).build()).close(), SandboxException.class);
            assertThat(refused).isNotNull();
            assertThat(refused.kind()).isEqualTo(ErrorKind.UNSUPPORTED);
            assertThat(refused.getMessage()).contains("memory (134217728 bytes)");
            assertThat(owned()).isEmpty();
        } else {
            super.quotaThatDoesNotFitInTheMemoryLimit_isRefusedBeforeAnythingIsMade();
        }
    }
}
