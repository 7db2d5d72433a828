package dev.sandbox4j.docker;

import dev.sandbox4j.testing.FileSystemContract;
import dev.sandbox4j.testing.LifecycleContract;
import dev.sandbox4j.testing.SandboxFixture;
import dev.sandbox4j.testing.SnapshotRestoredFixture;

/**
 * The kit's lifecycle and file contracts on containers whose workspace was restored from a snapshot (issue 31):
 * every sandbox a test opens with an empty workspace starts from a snapshot, uploaded as a copy source is. The shell
 * contract passed here too (159 run with these, 0 failed, 2026-11-28) and is left to the plain fixture for CI's time:
 * a restore changes the workspace, not how commands run.
 */
@org.junit.jupiter.api.Tag("once")
class SnapshotRestoredDockerConformanceTest implements LifecycleContract, FileSystemContract {
    private static final SandboxFixture FIXTURE = new SnapshotRestoredFixture(
            new DockerConformanceTest.DockerFixture());

    @Override
    public SandboxFixture fixture() {
        return FIXTURE;
    }
}
