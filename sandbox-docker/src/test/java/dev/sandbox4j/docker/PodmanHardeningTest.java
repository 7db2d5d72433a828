package dev.sandbox4j.docker;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;

/** {@link DockerHardeningTest} against rootless Podman (issue 36). */
class PodmanHardeningTest extends DockerHardeningTest {
    @Override
    Sandbox openSandbox(SandboxSpec spec) {
        return PodmanTestSupport.open(spec);
    }
}
