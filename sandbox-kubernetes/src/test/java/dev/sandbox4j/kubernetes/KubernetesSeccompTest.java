package dev.sandbox4j.kubernetes;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.Feature;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.core.seccomp.SeccompPolicy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Kubernetes sandboxes run sandbox4j's seccomp allow-list: the template names the profile the nodes hold
 * (Localhost sandbox4j/NAME.json, docs/kubernetes.md#seccomp), the simulated kubelet applies that file from
 * docs/kubernetes/seccomp/, a spec's syscall sets choose the pool whose profile has them, and a pool with another
 * filter is refused, typed, before anything is claimed, unless the options accept it (never one with no filter).
 */
class KubernetesSeccompTest {
    static ControllerSimulator sim;
    static final String ARCH = "aarch64".equals(System.getProperty("os.arch")) ? "aarch64" : "x86_64";

    @BeforeAll
    static void start() throws Exception {
        KubernetesTestSupport.assumeDocker();
        sim = new ControllerSimulator();
        sim.addPool("sandbox4j-debug", "          type: Localhost\n          localhostProfile: sandbox4j/debug.json\n");
        sim.addPool("sandbox4j-runtime", "          type: RuntimeDefault\n");
        sim.addPool("sandbox4j-unconfined", null);
    }

    @AfterAll
    static void stop() {
        if (sim != null) {
            sim.close();
        }
    }

    /** ptrace(PTRACE_TRACEME) and an unknown syscall number, by number, from python: "ptrace RC ERRNO unknown RC ERRNO". */
    static String probe(Sandbox s) {
        String code = "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nout = []\n"
                + "for name, nr in (('ptrace', " + SeccompPolicy.number(ARCH, "ptrace") + "), ('unknown', 1000)):\n"
                + "    ctypes.set_errno(0)\n    r = libc.syscall(nr, 0, 0, 0, 0)\n"
                + "    out.append('%s %d %d' % (name, r, ctypes.get_errno()))\nprint(' '.join(out))\n";
        return s.shell().run(ExecRequest.argv("python3", "-c", code)).stdout().strip();
    }

    private static KubernetesSandboxProvider provider(KubernetesOptions o) {
        return new KubernetesSandboxProvider(o, sim.client);
    }

    private static int claims() {
        return sim.client.resources(Crd.SandboxClaim.class).inNamespace(ControllerSimulator.NAMESPACE).list()
                .getItems().size();
    }

    @Test
    void theGuidesPool_runsTheAllowList_unknownCallsAreEnosys_deniedOnesTheirErrno() {
        try (KubernetesSandboxProvider p = provider(sim.options());
             Sandbox s = p.open(SandboxSpec.defaults())) {
            assertThat(s.info().details()).containsEntry("warmPool", "sandbox4j-pool")
                    .hasEntrySatisfying("seccomp", v -> assertThat(v).startsWith("allow-list")
                            .contains("Localhost sandbox4j/default.json"));
            assertThat(s.info().supports(Feature.TERMINAL)).isTrue();
            int eperm = SeccompPolicy.explicitDenials().get("ptrace");
            assertThat(probe(s)).isEqualTo("ptrace -1 " + eperm + " unknown -1 38");
        }
    }

    @Test
    void aSpecsSyscallSets_chooseThePoolWhoseProfileHasThem() {
        try (KubernetesSandboxProvider p = provider(sim.options().withWarmPools(List.of("sandbox4j-pool",
                "sandbox4j-debug")))) {
            try (Sandbox s = p.open(SandboxSpec.builder().syscallSet("debug").build())) {
                assertThat(s.info().details()).containsEntry("warmPool", "sandbox4j-debug")
                        .hasEntrySatisfying("seccomp", v -> assertThat(v).startsWith("allow-list +debug"));
                assertThat(probe(s)).as("debug allows ptrace").isEqualTo("ptrace 0 0 unknown -1 38");
            }
            try (Sandbox s = p.open(SandboxSpec.defaults())) {
                assertThat(s.info().details()).containsEntry("warmPool", "sandbox4j-pool");
            }
            int before = claims();
            assertThatThrownBy(() -> p.open(SandboxSpec.builder().syscallSet("io_uring").build()))
                    .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind())
                            .isEqualTo(ErrorKind.UNSUPPORTED))
                    .hasMessageContaining("sandbox4j/io_uring.json").hasMessageContaining("sandbox4j-debug: Localhost "
                            + "sandbox4j/debug.json");
            assertThat(claims()).as("nothing claimed").isEqualTo(before);
        }
    }

    @Test
    void poolsWithAnotherFilter_areRefusedTyped_untilAccepted_andOneWithNoneNever() {
        KubernetesOptions others = sim.options().withWarmPools(List.of("sandbox4j-unconfined", "sandbox4j-runtime"));
        int before = claims();
        try (KubernetesSandboxProvider p = provider(others)) {
            assertThatThrownBy(() -> p.open(SandboxSpec.defaults()))
                    .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind())
                            .isEqualTo(ErrorKind.UNSUPPORTED))
                    .hasMessageContaining("sandbox4j-unconfined: unset").hasMessageContaining("sandbox4j-runtime: "
                            + "RuntimeDefault").hasMessageContaining("docs/kubernetes.md#seccomp")
                    .hasMessageContaining("withAcceptOtherSeccomp");
        }
        assertThat(claims()).as("nothing claimed").isEqualTo(before);
        try (KubernetesSandboxProvider p = provider(others.withAcceptOtherSeccomp(true))) {
            try (Sandbox s = p.open(SandboxSpec.defaults())) {
                assertThat(s.info().details()).as("never the pool with no filter")
                        .containsEntry("warmPool", "sandbox4j-runtime")
                        .containsEntry("seccomp", "the template's own: RuntimeDefault (not sandbox4j's allow-list)");
                assertThat(s.info().supports(Feature.TERMINAL)).as("terminals rely on sandbox4j's TIOCSTI refusal")
                        .isFalse();
                assertThat(probe(s)).as("the runtime's default lets ptrace through: the simulated kubelet applies "
                        + "the template's profile").startsWith("ptrace 0 0");
            }
            assertThatThrownBy(() -> p.open(SandboxSpec.builder().syscallSet("debug").build()))
                    .as("syscall sets are sandbox4j's profile's; another filter cannot add them")
                    .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind())
                            .isEqualTo(ErrorKind.UNSUPPORTED));
        }
        try (KubernetesSandboxProvider p = provider(sim.options().withWarmPool("sandbox4j-unconfined")
                .withAcceptOtherSeccomp(true))) {
            assertThatThrownBy(() -> p.open(SandboxSpec.defaults()))
                    .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind())
                            .isEqualTo(ErrorKind.UNSUPPORTED)).hasMessageContaining("unset");
        }
    }
}
