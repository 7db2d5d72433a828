package dev.sandbox4j.docker;

import dev.sandbox4j.testing.FileSystemContract;
import dev.sandbox4j.testing.LifecycleContract;
import dev.sandbox4j.testing.SandboxFixture;
import dev.sandbox4j.testing.ShellContract;
import dev.sandbox4j.testing.SnapshotRestoredFixture;

/**
 * The kit's lifecycle, shell and file contracts on containers whose workspace was restored from a snapshot (issue
 * 31): every sandbox a test opens with an empty workspace starts from a snapshot, uploaded as a copy source is.
 */
@org.junit.jupiter.api.Tag("once")
class SnapshotRestoredDockerConformanceTest implements LifecycleContract, ShellContract, FileSystemContract {
    private static final SandboxFixture FIXTURE = new SnapshotRestoredFixture(
            new DockerConformanceTest.DockerFixture());

    @Override
    public SandboxFixture fixture() {
        return FIXTURE;
    }
}
