package dev.sandbox4j.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Feature;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Issue 16: the workspace's byte and inode quota. A backend that declares {@link Feature#WORKSPACE_QUOTA} stops writes
 * past it, from commands (ENOSPC inside the sandbox) and through the file API ({@link ErrorKind#NO_SPACE_LEFT}), keeps
 * the old content of a file whose rewrite failed, and works again once files are deleted. A spec that asks for no
 * quota opens on every backend.
 */
public interface WorkspaceQuotaContract extends ConformanceSupport {
    long QUOTA_BYTES = 8 * ResourceLimits.MIB;
    long QUOTA_INODES = 64;
    int MIB = (int) ResourceLimits.MIB;

    private Sandbox openWithQuota(long bytes, long inodes) {
        return fixture().open(SandboxSpec.builder().commandTimeout(Duration.ofSeconds(60))
                .limits(ResourceLimits.DEFAULTS.withWorkspaceQuota(bytes, inodes)).build());
    }

    private static ExecResult sh(Sandbox sandbox, String cmd) {
        return sandbox.shell().run(ExecRequest.shell(cmd).withTimeout(Duration.ofSeconds(60)));
    }

    private static ErrorKind kindOf(Runnable call) {
        SandboxException e = catchThrowableOfType(call::run, SandboxException.class);
        return e == null ? null : e.kind();
    }

    // ---- the file API --------------------------------------------------------------------------------------------

    @Test
    @Requires(Feature.WORKSPACE_QUOTA)
    default void workspaceQuota_apiWritesPastTheBytes_failTyped_oldContentStays_deletingMakesRoom(Sandbox ignored) {
        try (Sandbox s = openWithQuota(QUOTA_BYTES, QUOTA_INODES * 4)) {
            assertThat(s.info().limits().workspaceBytes()).isEqualTo(QUOTA_BYTES);
            assertThat(s.info().supports(Feature.WORKSPACE_QUOTA)).isTrue();
            s.files().write("keep.txt", "old content\n");
            byte[] mib = new byte[MIB];
            Arrays.fill(mib, (byte) 'x');
            int written = 0;
            SandboxException full = null;
            for (int i = 0; i < 32 && full == null; i++) {
                try {
                    s.files().write("fill/f" + i, mib);
                    written++;
                } catch (SandboxException e) {
                    full = e;
                }
            }
            assertThat(full).as("a write past the quota fails").isNotNull();
            assertThat(full.kind()).as(full.getMessage()).isEqualTo(ErrorKind.NO_SPACE_LEFT);
            assertThat(full.kind().retryable()).isFalse();
            assertThat(written).as("whole MiB files that fit in 8 MiB").isBetween(4, 8);
            assertThat(s.files().list("fill", 1)).as("the failed write left no file").hasSize(written);

            byte[] big = new byte[4 * MIB];
            assertThat(kindOf(() -> s.files().write("keep.txt", big))).isEqualTo(ErrorKind.NO_SPACE_LEFT);
            assertThat(kindOf(() -> s.files().append("keep.txt", big))).isEqualTo(ErrorKind.NO_SPACE_LEFT);
            assertThat(s.files().readText("keep.txt")).as("a failed rewrite or append keeps the old content")
                    .isEqualTo("old content\n");

            s.files().deleteRecursively("fill");
            s.files().write("after.bin", new byte[4 * MIB]);
            assertThat(s.files().stat("after.bin").size()).isEqualTo(4L * MIB);
        }
    }

    @Test
    @Requires(Feature.WORKSPACE_QUOTA)
    default void workspaceQuota_apiCreatesPastTheInodes_failTyped_deletingMakesRoom(Sandbox ignored) {
        try (Sandbox s = openWithQuota(QUOTA_BYTES, QUOTA_INODES)) {
            assertThat(s.info().limits().workspaceInodes()).isEqualTo(QUOTA_INODES);
            int made = 0;
            SandboxException full = null;
            for (int i = 0; i < QUOTA_INODES * 2 && full == null; i++) {
                try {
                    s.files().write("e" + i, "");
                    made++;
                } catch (SandboxException e) {
                    full = e;
                }
            }
            assertThat(full).as("a file past the inode quota").isNotNull();
            assertThat(full.kind()).as(full.getMessage()).isEqualTo(ErrorKind.NO_SPACE_LEFT);
            assertThat((long) made).as("empty files that fit in " + QUOTA_INODES + " inodes")
                    .isBetween(QUOTA_INODES - 4, QUOTA_INODES);
            assertThat(kindOf(() -> s.files().mkdirs("newdir"))).isEqualTo(ErrorKind.NO_SPACE_LEFT);

            s.files().delete("e0");
            s.files().delete("e1");
            s.files().mkdirs("newdir");
            s.files().write("newdir/x", "y");
            assertThat(s.files().readText("newdir/x")).isEqualTo("y");
        }
    }

    // ---- commands ------------------------------------------------------------------------------------------------

    @Test
    @Requires({Feature.SHELL, Feature.WORKSPACE_QUOTA})
    default void workspaceQuota_shellFillsTheBytes_getsEnospc_apiTooAndSandboxRecovers(Sandbox ignored) {
        try (Sandbox s = openWithQuota(QUOTA_BYTES, QUOTA_INODES * 4)) {
            s.files().write("keep.txt", "old content\n");
            ExecResult dd = sh(s, "dd if=/dev/zero of=big bs=1M count=32; echo rc=$?; wc -c < big");
            assertThat(dd.stderr()).as(dd.toString()).contains("No space left on device");
            assertThat(dd.stdout()).contains("rc=1");
            long size = Long.parseLong(dd.stdout().replaceAll("(?s).*rc=1\\s*", "").trim());
            assertThat(size).as("bytes the command got in").isLessThanOrEqualTo(QUOTA_BYTES)
                    .isGreaterThan(QUOTA_BYTES - MIB);
            assertThat(kindOf(() -> s.files().write("more.bin", new byte[MIB]))).isEqualTo(ErrorKind.NO_SPACE_LEFT);
            assertThat(kindOf(() -> s.files().write("keep.txt", new byte[MIB]))).isEqualTo(ErrorKind.NO_SPACE_LEFT);
            assertThat(s.files().readText("keep.txt")).isEqualTo("old content\n");

            ExecResult again = sh(s, "rm big && dd if=/dev/zero of=again bs=1M count=4 2>/dev/null && wc -c < again");
            assertThat(again.stdout().trim()).as(again.toString()).isEqualTo(Long.toString(4L * MIB));
            s.files().write("more.bin", new byte[MIB]);
        }
    }

    @Test
    @Requires({Feature.SHELL, Feature.WORKSPACE_QUOTA})
    default void workspaceQuota_shellFillsTheInodes_getsEnospc_apiTooAndSandboxRecovers(Sandbox ignored) {
        try (Sandbox s = openWithQuota(QUOTA_BYTES, QUOTA_INODES)) {
            ExecResult fill = sh(s, "mkdir d && i=0; while [ $i -lt 1000 ] && true > d/f$i; do i=$((i+1)); done; echo made=$i");
            assertThat(fill.stderr()).as(fill.toString()).contains("No space left on device");
            int made = Integer.parseInt(fill.stdout().replaceAll("(?s).*made=(\\d+).*", "$1"));
            assertThat((long) made).as("files the command could make").isLessThan(QUOTA_INODES)
                    .isGreaterThanOrEqualTo(QUOTA_INODES - 6);
            assertThat(kindOf(() -> s.files().write("one-more", ""))).isEqualTo(ErrorKind.NO_SPACE_LEFT);
            assertThat(kindOf(() -> s.files().mkdirs("dir"))).isEqualTo(ErrorKind.NO_SPACE_LEFT);

            ExecResult again = sh(s, "rm -r d && mkdir d2 && : > d2/x && echo ok");
            assertThat(again.stdout()).as(again.toString()).isEqualTo("ok\n");
            s.files().write("one-more", "");
        }
    }

    // ---- no quota ------------------------------------------------------------------------------------------------

    @Test
    default void workspaceQuota_askedForNone_opensEverywhere_andIsReportedAsNone(Sandbox ignored) {
        try (Sandbox s = fixture().open(SandboxSpec.builder()
                .limits(ResourceLimits.DEFAULTS.withoutWorkspaceQuota()).build())) {
            assertThat(s.info().limits().workspaceBytes()).isZero();
            assertThat(s.info().limits().workspaceInodes()).isZero();
            assertThat(s.info().supports(Feature.WORKSPACE_QUOTA)).isFalse();
            s.files().write("a.txt", "works");
            assertThat(s.files().readText("a.txt")).isEqualTo("works");
        }
    }

    @Test
    @Requires(absent = Feature.WORKSPACE_QUOTA)
    default void workspaceQuota_undeclared_isReportedAsNone(Sandbox sandbox) {
        assertThat(sandbox.info().limits().workspaceBytes()).isZero();
        assertThat(sandbox.info().limits().workspaceInodes()).isZero();
    }
}
