package dev.sandbox4j.local;

import dev.sandbox4j.testing.FileSystemContract;
import dev.sandbox4j.testing.LifecycleContract;
import dev.sandbox4j.testing.SandboxFixture;
import dev.sandbox4j.testing.ShellContract;
import dev.sandbox4j.testing.SnapshotContract;
import dev.sandbox4j.testing.SnapshotRestoredFixture;

/**
 * The kit's lifecycle, shell, file and snapshot contracts on jails whose workspace was restored from a snapshot
 * (issue 31): every sandbox a test opens with an empty workspace starts from a snapshot instead.
 */
@org.junit.jupiter.api.Tag("once")
class SnapshotRestoredLocalConformanceTest implements LifecycleContract, ShellContract, FileSystemContract,
        SnapshotContract {
    private static final SandboxFixture FIXTURE = new SnapshotRestoredFixture(new LocalConformanceTest.LocalFixture());

    @Override
    public SandboxFixture fixture() {
        return FIXTURE;
    }
}
