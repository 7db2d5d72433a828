package dev.sandbox4j.docker;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * {@link DockerAttackTest}'s attacks against a Podman engine (env {@code SANDBOX4J_PODMAN_HOST}). The shared and the
 * per-test sandboxes go without the cgroup limits the engine cannot apply. Where it cannot apply the pids or memory
 * limit (rootless on cgroup v1), the fork bomb and the memory bomb are not run (nothing would contain them but the
 * host): the tests check instead that a spec asking for that limit is refused, typed, and leaves nothing behind.
 */
class PodmanAttackTest extends DockerAttackTest {
    @Override
    Sandbox openSandbox(SandboxSpec spec) {
        return PodmanTestSupport.open(spec);
    }

    @Override
    List<String> owned() {
        return PodmanTestSupport.ownedResources();
    }

    @Override
    DockerOptions engineOptions() {
        return PodmanTestSupport.OPTIONS;
    }

    @Override
    String expectedPidsMax() {
        // rootless on cgroup v1: the container gets no pids cgroup at all, so there is no pids.max to read
        return PodmanTestSupport.traits().pids() ? "256\n" : "";
    }

    @Test
    @Override
    void resourceDos_forkBombIsContained() {
        if (PodmanTestSupport.traits().pids()) {
            super.resourceDos_forkBombIsContained();
            return;
        }
        assertRefused(ResourceLimits.DEFAULTS.withMemoryBytes(0).withCpus(0).withMaxProcesses(64), "processes (64)");
    }

    @Test
    @Override
    void resourceDos_memoryBombIsKilledWithOomDetail() {
        if (PodmanTestSupport.traits().memory()) {
            super.resourceDos_memoryBombIsKilledWithOomDetail();
            return;
        }
        assertRefused(ResourceLimits.DEFAULTS.withMaxProcesses(0).withCpus(0).withMemoryBytes(128 * ResourceLimits.MIB)
                .withWorkspaceQuota(32 * ResourceLimits.MIB, 4096), "memory (134217728 bytes)");
    }

    private void assertRefused(ResourceLimits limits, String named) {
        List<String> before = owned(); // the class's shared sandbox
        SandboxException e = catchThrowableOfType(() -> PodmanTestSupport.openAsIs(SandboxSpec.builder()
                .limits(limits).build()).close(), SandboxException.class);
        assertThat(e).as("open must refuse a limit the engine cannot apply").isNotNull();
        assertThat(e.kind()).isEqualTo(ErrorKind.UNSUPPORTED);
        assertThat(e.getMessage()).contains(named).contains("cgroup v1").contains("bestEffortLimits");
        assertThat(owned()).as("nothing left behind").isEqualTo(before);
    }
}
