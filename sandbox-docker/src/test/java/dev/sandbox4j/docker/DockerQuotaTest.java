package dev.sandbox4j.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Feature;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.testing.Checks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Issue 16 on Docker: the workspace volume is a sized tmpfs of the local driver, created through the Engine API only.
 * Commands that try to fill it get ENOSPC; so does the private run volume; the engine's disk does not move (measured
 * where the engine is this machine's).
 */
class DockerQuotaTest {
    private static final long MIB = ResourceLimits.MIB;

    /** Opens a sandbox on the engine under test (overridden by the Podman run). */
    Sandbox openSandbox(SandboxSpec spec) {
        return DockerTestSupport.open(spec);
    }

    java.util.List<String> owned() {
        return DockerTestSupport.ownedResources();
    }

    /** Where the engine under test keeps its volumes, when that is on this machine; else null (not measured). */
    Path engineRoot() {
        Path dockerRoot = Path.of("/var/lib/docker");
        String host = String.valueOf(System.getenv("DOCKER_HOST"));
        return Files.isDirectory(dockerRoot) && (host.equals("null") || host.startsWith("unix:")) ? dockerRoot : null;
    }

    private static ExecResult sh(Sandbox s, String cmd) {
        return s.shell().run(ExecRequest.shell(cmd).withTimeout(Duration.ofSeconds(120)));
    }

    @Test
    void defaultSpec_hasTheDefaultQuota() {
        try (Sandbox s = openSandbox(SandboxSpec.defaults())) {
            assertThat(s.info().limits().workspaceBytes()).isEqualTo(ResourceLimits.DEFAULT_WORKSPACE_BYTES);
            assertThat(s.info().limits().workspaceInodes()).isEqualTo(ResourceLimits.DEFAULT_WORKSPACE_INODES);
            assertThat(s.info().supports(Feature.WORKSPACE_QUOTA)).isTrue();
            ExecResult df = sh(s, "df -k /workspace | tail -1; df -i /workspace | tail -1");
            assertThat(df.stdout()).as(df.toString()).startsWith("tmpfs")
                    .contains(" " + ResourceLimits.DEFAULT_WORKSPACE_BYTES / 1024 + " ")
                    .contains(" " + (ResourceLimits.DEFAULT_WORKSPACE_INODES + 1) + " ");
        }
    }

    /** A quota the memory limit cannot hold beside the processes would let a full workspace OOM-kill PID 1. */
    @Test
    void quotaThatDoesNotFitInTheMemoryLimit_isRefusedBeforeAnythingIsMade() {
        DockerTestSupport.requireDocker();
        SandboxException e = null;
        try (Sandbox s = DockerTestSupport.open(SandboxSpec.builder()
                .limits(ResourceLimits.DEFAULTS.withMemoryBytes(128 * MIB)).build())) {
            s.close();
        } catch (SandboxException ex) {
            e = ex;
        }
        assertThat(e).as("512 MiB of workspace in a 128 MiB memory limit").isNotNull();
        assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT);
        assertThat(e.getMessage()).contains("memory limit").contains("withoutWorkspaceQuota");
        assertThat(DockerTestSupport.ownedResources()).isEmpty();
        try (Sandbox s = DockerTestSupport.open(SandboxSpec.builder()
                .limits(ResourceLimits.DEFAULTS.withMemoryBytes(128 * MIB).withWorkspaceQuota(64 * MIB, 1000)).build())) {
            assertThat(s.info().limits().workspaceBytes()).isEqualTo(64 * MIB);
        }
    }

    @Test
    void engineDiskDoesNotMoveWhileCommandsFillTheWorkspace() throws Exception {
        Path dockerRoot = engineRoot();
        Assumptions.assumeTrue(dockerRoot != null,
                "the engine's disk is measured only where the engine runs on this machine");
        try (Sandbox s = openSandbox(SandboxSpec.builder().commandTimeout(Duration.ofSeconds(120))
                .limits(ResourceLimits.DEFAULTS.withWorkspaceQuota(32 * MIB, 1000).withTmpBytes(16 * MIB)).build())) {
            // the volumes are mounted before measuring
            assertThat(s.shell().run(ExecRequest.shell("cat").withStdin("warm")).stdout()).isEqualTo("warm");
            long[] before = Checks.freeBytesAndInodes(dockerRoot);
            ExecResult bytes = sh(s, "dd if=/dev/zero of=big bs=1M count=512 2>&1; wc -c < big");
            assertThat(bytes.stdout()).as(bytes.toString()).contains("No space left on device");
            assertThat(Long.parseLong(bytes.stdout().replaceAll("(?s).*\\n(\\d+)\\s*$", "$1")))
                    .isLessThanOrEqualTo(32 * MIB);
            ExecResult inodes = sh(s, "mkdir d && i=0; while [ $i -lt 5000 ] && true > d/f$i; do i=$((i+1)); done 2>&1;"
                    + " echo made=$i");
            assertThat(inodes.stdout()).as(inodes.toString()).contains("No space left on device");
            assertThat(Integer.parseInt(inodes.stdout().replaceAll("(?s).*made=(\\d+).*", "$1"))).isLessThan(1000);
            // the binaries' volume is the only other place the engine holds: read-only and root's in the sandbox
            ExecResult run = sh(s, "dd if=/dev/zero of=/var/sandbox4j/fill bs=1M count=1 2>&1; "
                    + "dd if=/dev/zero of=/var/sandbox4j/ready/fill bs=1M count=1 2>&1; "
                    + "rm -f /var/sandbox4j/ready/sbx-agent 2>&1");
            assertThat(run.stdout()).as("the binaries' volume cannot be written: " + run)
                    .contains("Read-only file system").doesNotContain("copied");
            assertThat(sh(s, "ls /var/sandbox4j/ready/").stdout()).contains("sbx-agent");
            long[] after = Checks.freeBytesAndInodes(dockerRoot);
            System.out.printf("[quota] engine fs of %s: available %d -> %d bytes, free inodes %d -> %d%n", dockerRoot,
                    before[0], after[0], before[1], after[1]);
            assertThat(before[0] - after[0]).as("engine disk bytes used while the workspace filled").isLessThan(4 * MIB);
            assertThat(before[1] - after[1]).as("engine disk inodes used while the workspace filled").isLessThan(64);
            SandboxException e = null;
            try {
                s.files().write("more.bin", new byte[(int) MIB]);
            } catch (SandboxException ex) {
                e = ex;
            }
            assertThat(e).isNotNull();
            assertThat(e.kind()).as(e.getMessage()).isEqualTo(ErrorKind.NO_SPACE_LEFT);
            ExecResult again = sh(s, "rm -rf big d && echo ok > ok.txt && cat ok.txt");
            assertThat(again.stdout()).isEqualTo("ok\n");
        }
        assertThat(owned()).as("volumes removed at close").isEmpty();
    }
}
