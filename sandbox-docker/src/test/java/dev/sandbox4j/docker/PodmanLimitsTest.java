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
 * What is Podman's own: sandbox4j's seccomp profile reaches the container though Podman takes only a path, and
 * what the Docker backend does on a Podman engine with a spec asking for cgroup limits the engine cannot apply (env
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

    private static final String SECCOMP_PROBE = "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
            + "print('n2h', libc.syscall(303, -100, b'/', None, None, 0), ctypes.get_errno())\n"
            + "print('mbind', libc.syscall(237, 0, 0, 0, 0, 0, 0), ctypes.get_errno())\n";

    /**
     * name_to_handle_at and mbind are allowed by Podman's default profile (measured on 4.3.1: EOPNOTSUPP and 0) and
     * denied (EPERM) by sandbox4j's: the container runs under sandbox4j's.
     */
    @Test
    void sandbox4jsSeccompProfileIsTheOneApplied() {
        org.junit.jupiter.api.Assumptions.assumeTrue(PodmanTestSupport.traits().architecture().matches("x86_64|amd64"),
                "syscall numbers of x86_64");
        try (Sandbox s = PodmanTestSupport.open(SandboxSpec.defaults())) {
            ExecResult r = s.shell().run(dev.sandbox4j.ExecRequest.argv("python3", "-c", SECCOMP_PROBE));
            assertThat(r.stdout()).as(r.toString()).isEqualTo("n2h -1 1\nmbind -1 1\n");
        }
    }

    /** {@code podman volume prune} removes the profile's volume (no container uses it): the next open writes it again. */
    @Test
    void seccompVolumeRemovedBehindOurBack_isWrittenAgain() {
        try (Sandbox first = PodmanTestSupport.open(SandboxSpec.defaults())) {
            assertThat(first.shell().run("true").exitCode()).isZero();
        }
        try (Engine e = Engine.connect(PodmanTestSupport.OPTIONS, java.time.Duration.ofSeconds(10))) {
            var vols = e.control.listVolumesCmd().withFilter("label", java.util.List.of("dev.sandbox4j.seccomp"))
                    .exec().getVolumes();
            assertThat(vols).isNotEmpty();
            vols.forEach(v -> e.control.removeVolumeCmd(v.getName()).exec());
        }
        try (Sandbox again = PodmanTestSupport.open(SandboxSpec.defaults())) {
            ExecResult r = again.shell().run(dev.sandbox4j.ExecRequest.argv("python3", "-c", SECCOMP_PROBE));
            assertThat(r.stdout()).as(r.toString()).isEqualTo("n2h -1 1\nmbind -1 1\n");
        }
    }
}
