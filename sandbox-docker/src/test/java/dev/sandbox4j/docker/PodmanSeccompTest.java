package dev.sandbox4j.docker;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;

/**
 * {@link DockerSeccompTest} against rootless Podman (issue 33): the kernel filters the container's processes, the
 * explicit denials answer their errno, numbers past the table and {@code memfd_secret} answer ENOSYS, x32 and i386
 * calls are killed, the opt-in sets are applied, and the runtime image's part of the corpus (Python, Node with and
 * without io_uring, bash job control) runs under the profile the engine was given.
 */
class PodmanSeccompTest extends DockerSeccompTest {
    @Override
    Sandbox openSandbox(SandboxSpec spec) {
        return PodmanTestSupport.open(spec);
    }

    @Override
    DockerOptions options() {
        PodmanTestSupport.requirePodman();
        return PodmanTestSupport.OPTIONS;
    }
}
