package dev.sandbox4j.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.core.AgentSandbox;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Pause on Docker, seen from the host: the container's state and its CPU time (cpuacct) while paused. */
class DockerPauseTest {
    /** The container's CPU time in ns from its cgroup v1 cpuacct group (cgroupfs driver, as on this CI host). */
    private static long cpuNanos(Path usage) throws IOException {
        return Long.parseLong(Files.readString(usage).trim());
    }

    @Test
    void aPausedBusyLoopGetsNoCpuTime() throws Exception {
        try (Sandbox sandbox = DockerTestSupport.open()) {
            ContainerHost host = (ContainerHost) ((AgentSandbox) sandbox).host();
            Path usage = Path.of("/sys/fs/cgroup/cpuacct/docker", host.containerId, "cpuacct.usage");
            Assumptions.assumeTrue(Files.isReadable(usage), "no cgroup v1 cpuacct group of the container here");
            try (ExecHandle loop = sandbox.shell().start(ExecRequest.shell("while :; do :; done"))) {
                long t0 = cpuNanos(usage);
                Thread.sleep(500);
                assertThat(cpuNanos(usage) - t0).as("the measure sees a running loop's CPU time").isPositive();

                sandbox.pause();
                assertThat(host.engine.control.inspectContainerCmd(host.containerId).exec().getState().getPaused())
                        .isTrue();
                long p0 = cpuNanos(usage);
                Thread.sleep(500);
                assertThat(cpuNanos(usage) - p0).as("CPU time of the container while paused").isZero();

                sandbox.resume();
                long r0 = cpuNanos(usage);
                Thread.sleep(500);
                assertThat(cpuNanos(usage) - r0).as("the loop runs again").isPositive();
                assertThat(loop.isAlive()).isTrue();
            }
        }
    }
}
