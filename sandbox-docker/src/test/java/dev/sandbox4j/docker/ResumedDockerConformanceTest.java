package dev.sandbox4j.docker;

import dev.sandbox4j.testing.LifecycleContract;
import dev.sandbox4j.testing.ResumedFixture;
import dev.sandbox4j.testing.SandboxFixture;
import dev.sandbox4j.testing.ShellContract;

/**
 * The kit's lifecycle and shell contracts on containers that were paused and resumed (the engine's pause and
 * unpause) before any test touched them (issue 31): the agent's attach stream, the engine's view of the container and
 * the commands' cgroups must come through a freeze and thaw unchanged. The rest of the kit is the plain fixture's:
 * pause touches no file path.
 */
class ResumedDockerConformanceTest implements LifecycleContract, ShellContract {
    private static final SandboxFixture FIXTURE = new ResumedFixture(new DockerConformanceTest.DockerFixture());

    @Override
    public SandboxFixture fixture() {
        return FIXTURE;
    }
}
