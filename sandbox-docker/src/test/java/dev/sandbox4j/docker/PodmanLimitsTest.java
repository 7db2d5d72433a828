package dev.sandbox4j.docker;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Feature;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * What the Docker backend does on a Podman engine with a spec asking for cgroup limits the engine cannot apply (env
 * {@code SANDBOX4J_PODMAN_HOST}; in CI rootless Podman on cgroup v1, which applies none): {@code open()} refuses,
 * typed, naming the limits, and leaves nothing behind; with {@code bestEffortLimits(true)} it opens and
 * {@code info()} reports what holds. Also what the engine is, read from its {@code /info}.
 */
class PodmanLimitsTest {
    @BeforeEach
    void engine() {
        PodmanTestSupport.requirePodman();
    }

    private static boolean noneApply() {
        Engine.Traits t = PodmanTestSupport.traits();
        return !t.memory() && !t.pids() && !t.cpu();
    }

    @Test
    void theEngineIsReadAsPodmanWithItsCgroupSetting() {
        Engine.Traits t = PodmanTestSupport.traits();
        assertThat(t.podman()).isTrue();
        assertThat(t.version()).matches("\\d+\\.\\d+.*");
        if (t.rootless() && t.cgroupVersion().equals("1")) {
            assertThat(noneApply()).as("rootless on cgroup v1 applies no cgroup limit").isTrue();
            assertThat(t.why()).contains("cgroup v1");
        }
    }

    @Test
    void theDefaultLimitsAreRefusedNamingEachAndNothingIsLeft() {
        org.junit.jupiter.api.Assumptions.assumeTrue(noneApply(), "this engine applies cgroup limits");
        SandboxException e = catchThrowableOfType(() -> PodmanTestSupport.openAsIs(SandboxSpec.defaults()).close(),
                SandboxException.class);
        assertThat(e).isNotNull();
        assertThat(e.kind()).isEqualTo(ErrorKind.UNSUPPORTED);
        assertThat(e.getMessage()).contains("memory (1073741824 bytes)").contains("processes (256)")
                .contains("CPU (1.0 cores)").contains("rootless").contains("cgroup v1");
        assertThat(PodmanTestSupport.ownedResources()).isEmpty();
        for (ResourceLimits one : new ResourceLimits[] {
                ResourceLimits.DEFAULTS.withMaxProcesses(0).withCpus(0),
                ResourceLimits.DEFAULTS.withMemoryBytes(0).withCpus(0),
                ResourceLimits.DEFAULTS.withMemoryBytes(0).withMaxProcesses(0)}) {
            SandboxException each = catchThrowableOfType(() -> PodmanTestSupport.openAsIs(SandboxSpec.builder()
                    .limits(one).build()).close(), SandboxException.class);
            assertThat(each).as(one.toString()).isNotNull();
            assertThat(each.kind()).isEqualTo(ErrorKind.UNSUPPORTED);
            assertThat(each.getMessage()).contains(" limit: ");
        }
    }

    @Test
    void bestEffortOpensAndReportsWhatHolds() {
        org.junit.jupiter.api.Assumptions.assumeTrue(noneApply(), "this engine applies cgroup limits");
        try (Sandbox s = PodmanTestSupport.openAsIs(SandboxSpec.builder().bestEffortLimits(true)
                .limits(ResourceLimits.DEFAULTS.withWorkspaceQuota(16 * ResourceLimits.MIB, 1000)).build())) {
            ResourceLimits l = s.info().limits();
            assertThat(l.memoryBytes()).isZero();
            assertThat(l.maxProcesses()).isZero();
            assertThat(l.cpus()).isZero();
            assertThat(l.maxFileBytes()).isEqualTo(ResourceLimits.DEFAULTS.maxFileBytes());
            assertThat(l.workspaceBytes()).isEqualTo(16 * ResourceLimits.MIB);
            assertThat(s.info().features()).doesNotContain(Feature.MEMORY_LIMIT, Feature.PROCESS_LIMIT,
                    Feature.CPU_LIMIT).contains(Feature.WORKSPACE_QUOTA);
            assertThat(s.info().details().get("engineKind")).startsWith("Podman ");
            assertThat(s.info().details().get("limitsNotApplied")).contains("cgroup v1");
            // the quota holds: a sized tmpfs of 16 MiB and 1000 files (+ its root)
            ExecResult r = s.shell().run("stat -f -c '%t %b %S %c' /workspace");
            assertThat(r.stdout()).isEqualTo("1021994 4096 4096 1001\n");
        }
    }
}
