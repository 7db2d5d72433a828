package dev.sandbox4j.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Feature;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.testing.Checks;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Issue 16 on the local backend, in whatever setting this runs: as root the workspace is a sized tmpfs mounted on the
 * host workspace directory; as any other user, the same tmpfs mounted in the jail's own mount namespace by a helper
 * that holds it. Either way the quota holds against commands and the file API, and the host's disk does not move.
 * Root's mount goes at close, and the janitor unmounts what a dead JVM left; the other needs neither.
 */
class WorkspaceQuotaTest {
    private static final long MIB = ResourceLimits.MIB;

    private static String quotaUnavailable() {
        Jail.assumeAvailable();
        return WorkspaceQuota.unavailableReason(Host.get(LocalOptions.defaults()));
    }

    private static ExecResult sh(Sandbox s, String cmd) {
        return s.shell().run(ExecRequest.shell(cmd).withTimeout(Duration.ofSeconds(120)));
    }

    @Test
    void defaultSpec_quotaHoldsOrIsRefused() {
        String why = quotaUnavailable();
        Limits here = Jail.limitsHere();
        boolean otherLimitsHold = here.memory() && here.processes() && here.cpu();
        if (why == null && otherLimitsHold) {
            try (Sandbox s = Jail.PROVIDER.open(SandboxSpec.defaults())) {
                assertThat(s.info().limits().workspaceBytes()).isEqualTo(ResourceLimits.DEFAULT_WORKSPACE_BYTES);
                assertThat(s.info().limits().workspaceInodes()).isEqualTo(ResourceLimits.DEFAULT_WORKSPACE_INODES);
                assertThat(s.info().supports(Feature.WORKSPACE_QUOTA)).isTrue();
                ExecResult df = sh(s, "df -k /workspace | tail -1; df -i /workspace | tail -1");
                assertThat(df.stdout()).as(df.toString()).contains("sandbox4j-workspace")
                        .contains(" " + ResourceLimits.DEFAULT_WORKSPACE_BYTES / 1024 + " ");
            }
        } else if (why != null) {
            // the quota alone cannot hold: refused, naming it, unless best effort or no quota is asked for
            ResourceLimits others = new ResourceLimits(here.memory() ? MIB * 1024 : 0, 256, here.cpu() ? 1 : 0,
                    1024 * MIB, 256 * MIB, ResourceLimits.DEFAULT_WORKSPACE_BYTES,
                    ResourceLimits.DEFAULT_WORKSPACE_INODES);
            assertThatThrownBy(() -> Jail.PROVIDER.open(SandboxSpec.builder().limits(others).build()))
                    .isInstanceOf(SandboxException.class)
                    .satisfies(e -> {
                        assertThat(((SandboxException) e).kind()).isEqualTo(ErrorKind.UNSUPPORTED);
                        assertThat(e.getMessage()).contains("workspace quota").contains("withoutWorkspaceQuota")
                                .contains("bestEffortLimits");
                    });
            try (Sandbox s = Jail.PROVIDER.open(SandboxSpec.builder().limits(others).bestEffortLimits(true).build())) {
                assertThat(s.info().limits().workspaceBytes()).isZero();
                assertThat(s.info().limits().workspaceInodes()).isZero();
                assertThat(s.info().supports(Feature.WORKSPACE_QUOTA)).isFalse();
                assertThat(s.info().details().get("workspace quota")).contains("best effort");
            }
            try (Sandbox s = Jail.PROVIDER.open(SandboxSpec.builder().limits(others.withoutWorkspaceQuota()).build())) {
                assertThat(s.info().limits().workspaceBytes()).isZero();
            }
            assertThat(Jail.leaks()).isEmpty();
        }
    }

    /**
     * A command tries to write 512 MiB and 5,000 files into a 32 MiB, 1,000-inode workspace: it gets ENOSPC, and the
     * host file system under the workspace directory loses at most 16 MiB and 256 inodes. The margin is for the rest
     * of the machine, which shares that file system (a CI run's Maven, other builds: 40 inodes were seen once); it is
     * far under what a missing quota would lose (the command asks for 512 MiB and 5,000 files, the quota allows 32 MiB
     * and 1,000), and the measurement starts after the sandbox's own control files were made.
     */
    @Test
    void hostDiskDoesNotMoveWhileCommandsFillTheWorkspace() throws Exception {
        Assumptions.assumeTrue(quotaUnavailable() == null, "no workspace quota in this setting");
        long quota = 32 * MIB;
        try (Sandbox s = Jail.open(SandboxSpec.builder().commandTimeout(Duration.ofSeconds(120))
                .limits(ResourceLimits.DEFAULTS.withWorkspaceQuota(quota, 1000)).build())) {
            Path hostWorkspace = Path.of(s.info().details().get("workspace"));
            if (Host.isRoot()) {
                assertThat(WorkspaceQuota.isMountPoint(hostWorkspace.getParent())).isTrue();
            } else {
                assertThat(s.info().details().get("workspace quota")).contains("jail's mount namespace");
                assertThat(WorkspaceQuota.isMountPoint(hostWorkspace.getParent())).isFalse();
            }
            Path hostTmp = LocalOptions.defaults().tempDir();
            long[] before = Checks.freeBytesAndInodes(hostTmp);
            ExecResult bytes = sh(s, "dd if=/dev/zero of=big bs=1M count=512 2>&1; wc -c < big");
            assertThat(bytes.stdout()).contains("No space left on device");
            ExecResult inodes = sh(s, "mkdir d && i=0; while [ $i -lt 5000 ] && true > d/f$i; do i=$((i+1)); done 2>&1;"
                    + " echo made=$i");
            assertThat(inodes.stdout()).as(inodes.toString()).contains("No space left on device");
            int made = Integer.parseInt(inodes.stdout().replaceAll("(?s).*made=(\\d+).*", "$1"));
            assertThat(made).isLessThan(1000);
            long[] after = Checks.freeBytesAndInodes(hostTmp);
            System.out.printf("[quota] host fs of %s: available %d -> %d bytes, free inodes %d -> %d%n", hostTmp,
                    before[0], after[0], before[1], after[1]);
            assertThat(before[0] - after[0]).as("host bytes used while the workspace filled").isLessThan(16 * MIB);
            assertThat(before[1] - after[1]).as("host inodes used while the workspace filled").isLessThan(256);
            // the host's view of the workspace sees the same full file system
            assertThat(Files.size(hostWorkspace.resolve("big"))).isLessThanOrEqualTo(quota);
            assertThat(catchKind(() -> s.files().write("x", "y"))).isEqualTo(ErrorKind.NO_SPACE_LEFT);
        }
        assertThat(Jail.leaks()).as("the tmpfs is unmounted at close").isEmpty();
    }

    /**
     * A quota larger than the memory limit: the command filling the (memory-backed) workspace is killed by the memory
     * cgroup, the sandbox goes on (its agent is outside the commands' group), and deleting the file makes room.
     */
    @Test
    void quotaOverTheMemoryLimit_fillingKillsTheCommandNotTheSandbox() {
        Assumptions.assumeTrue(quotaUnavailable() == null, "no workspace quota in this setting");
        Assumptions.assumeTrue(Jail.limitsHere().memory(), "no memory cgroup in this setting");
        try (Sandbox s = Jail.open(SandboxSpec.builder().commandTimeout(Duration.ofSeconds(120))
                .limits(ResourceLimits.DEFAULTS.withMemoryBytes(128 * MIB).withWorkspaceQuota(512 * MIB, 1000))
                .build())) {
            ExecResult fill = sh(s, "dd if=/dev/zero of=big bs=1M count=300");
            assertThat(fill.exitCode()).as(fill.toString()).isNotZero();
            assertThat(sh(s, "echo alive").stdout()).isEqualTo("alive\n");
            assertThat(sh(s, "rm big && dd if=/dev/zero of=small bs=1M count=16 2>/dev/null && wc -c < small")
                    .stdout().trim()).isEqualTo(Long.toString(16 * MIB));
        }
    }

    private static ErrorKind catchKind(Runnable r) {
        try {
            r.run();
            return null;
        } catch (SandboxException e) {
            return e.kind();
        }
    }

    /** What a JVM killed with -9 left (a mounted workspace dir named with its dead pid) goes at the next reap. */
    @Test
    void janitorUnmountsAndRemovesADeadJvmsWorkspace() throws Exception {
        Assumptions.assumeTrue(quotaUnavailable() == null, "no workspace quota in this setting");
        Assumptions.assumeTrue(Host.isRoot(), "only root mounts on the host");
        Path tempDir = Files.createTempDirectory("sandbox4j-janitor-test");
        Path ws = Files.createDirectory(tempDir.resolve(BwrapHost.PREFIX + "99999999-ws-test"));
        WorkspaceQuota.mount(ws, ResourceLimits.NONE.withWorkspaceQuota(MIB, 16), 65534, 65534);
        try {
            Files.writeString(WorkspaceQuota.workspace(ws).resolve("left.txt"), "x");
            assertThat(WorkspaceQuota.isMountPoint(ws)).isTrue();
            assertThat(Janitor.reap(tempDir)).isGreaterThanOrEqualTo(1);
            assertThat(WorkspaceQuota.isMountPoint(ws)).isFalse();
            assertThat(ws).doesNotExist();
        } finally {
            WorkspaceQuota.unmount(ws);
            Leftovers.deleteTree(tempDir);
        }
    }

    /** The quota tmpfs's own layout: the staging dir is never inside the jail, and only the workspace is bound. */
    @Test
    void stagingIsNotReachableFromTheJail() {
        Assumptions.assumeTrue(quotaUnavailable() == null, "no workspace quota in this setting");
        try (Sandbox s = Jail.open(SandboxSpec.builder()
                .limits(ResourceLimits.DEFAULTS.withWorkspaceQuota(8 * MIB, 100)).build())) {
            ExecResult r = sh(s, "ls -a /workspace; ls -a /workspace/.. | tr '\\n' ' '; "
                    + "grep ' /workspace ' /proc/self/mountinfo");
            assertThat(r.stdout()).as(r.toString()).doesNotContain(" s ").doesNotContain(" w ")
                    .contains("sandbox4j-workspace");
            if (WorkspaceQuota.HUGE) {
                // big files in large pages (5-6x faster writes and reads here), never beyond a file's size
                assertThat(r.stdout()).as(r.toString()).contains("huge=within_size");
            }
            s.files().write("a/b.txt", "hi");
            assertThat(sh(s, "cat a/b.txt").stdout()).isEqualTo("hi");
            Path host = Path.of(s.info().details().get("workspace"));
            List<String> names = List.of(host.getParent().toFile().list());
            assertThat(names).containsExactlyInAnyOrder("w", "s");
        }
    }

    /**
     * Not root: the helper holding the jail's tmpfs is a host process of this JVM's user. If it dies (killed from
     * outside), the sandbox closes rather than let the file API follow a dead pid's link; at close it is gone.
     */
    @Test
    void notRoot_helperDeath_closesTheSandbox_andCloseEndsTheHelper() throws Exception {
        Assumptions.assumeTrue(quotaUnavailable() == null, "no workspace quota in this setting");
        Assumptions.assumeFalse(Host.isRoot(), "root mounts on the host, with no helper");
        long holder;
        try (Sandbox s = Jail.open(SandboxSpec.builder()
                .limits(ResourceLimits.DEFAULTS.withWorkspaceQuota(8 * MIB, 100)).build())) {
            holder = holderPid(s);
            assertThat(ProcessHandle.of(holder)).isPresent();
        }
        assertThat(ProcessHandle.of(holder).map(ProcessHandle::isAlive).orElse(false)).as("helper after close")
                .isFalse();
        try (Sandbox s = Jail.open(SandboxSpec.builder()
                .limits(ResourceLimits.DEFAULTS.withWorkspaceQuota(8 * MIB, 100)).build())) {
            s.files().write("a.txt", "kept");
            ProcessHandle h = ProcessHandle.of(holderPid(s)).orElseThrow();
            h.destroyForcibly();
            h.onExit().get();
            assertThat(catchKind(() -> s.files().readText("a.txt"))).isEqualTo(ErrorKind.CLOSED);
            assertThat(s.isOpen()).isFalse();
        }
        assertThat(Jail.leaks()).isEmpty();
    }

    private static long holderPid(Sandbox s) throws IOException {
        Path link = Path.of(s.info().details().get("workspace")).getParent();
        Path target = Files.readSymbolicLink(link); // /proc/<pid>/cwd
        return Long.parseLong(target.getParent().getFileName().toString());
    }
}
