package dev.sandbox4j.kubernetes;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Feature;
import dev.sandbox4j.Language;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Open, shell, code and close of Kubernetes sandboxes on the simulated control plane (real agents in Docker). */
class KubernetesLifecycleTest {
    static ControllerSimulator sim;
    static KubernetesSandboxProvider provider;

    @BeforeAll
    static void start() throws Exception {
        KubernetesTestSupport.assumeDocker();
        sim = new ControllerSimulator();
        provider = sim.provider();
    }

    @AfterAll
    static void stop() {
        if (provider != null) {
            provider.close();
        }
        if (sim != null) {
            sim.close();
        }
    }

    @Test
    void opensRunsAndClosesLeavingNothing() {
        String claim;
        try (Sandbox s = provider.open(SandboxSpec.defaults())) {
            claim = s.id();
            ExecResult r = s.shell().run("echo hello from $(id -u) in $PWD; cat /proc/1/cmdline | tr '\\0' ' '");
            assertThat(r.exitCode()).isZero();
            assertThat(r.stdout()).contains("hello from 10001 in /workspace").contains("sbx-agent --listen=:7070");
            assertThat(s.info().backend()).isEqualTo("kubernetes");
            assertThat(s.info().limits().memoryBytes()).isEqualTo(1L << 30);
            assertThat(s.info().limits().maxProcesses()).isEqualTo(256);
            assertThat(s.info().supports(Feature.NETWORK_ISOLATION)).isTrue();
            assertThat(s.info().details()).containsEntry("warmPool", "sandbox4j-pool")
                    .hasEntrySatisfying("workspaceQuota", q -> assertThat(q).contains("sizeLimit 536870912"));
            var c = sim.client.resources(Crd.SandboxClaim.class).inNamespace(ControllerSimulator.NAMESPACE)
                    .withName(claim).get();
            assertThat(c.getSpec().warmPoolRef().name()).isEqualTo("sandbox4j-pool");
            assertThat(c.getSpec().lifecycle().shutdownPolicy()).isEqualTo("Delete");
            assertThat(c.getSpec().lifecycle().shutdownTime()).isNotNull();
            assertThat(c.getSpec().env()).isNull();
            assertThat(c.getMetadata().getLabels()).containsEntry(Cluster.OWNER_LABEL, Cluster.OWNER)
                    .containsEntry(Cluster.MANAGED_BY, "sandbox4j");
        }
        assertThat(sim.client.resources(Crd.SandboxClaim.class).inNamespace(ControllerSimulator.NAMESPACE)
                .withName(claim).get()).isNull();
        KubernetesTestSupport.eventually(() -> ControllerSimulator.leftoverContainers().isEmpty());
    }

    @Test
    void theKeyIsNotReadableInTheSandbox() {
        try (Sandbox s = provider.open(SandboxSpec.defaults())) {
            ExecResult r = s.shell().run("env; cat /proc/1/environ 2>&1 | tr '\\0' '\\n'; echo; ls -l /proc/1/fd 2>&1");
            assertThat(r.stdout()).doesNotContain(sim.keyHex).doesNotContain("SBX4J_AGENT_KEY=");
        }
    }

    @Test
    void runsCode() {
        try (Sandbox s = provider.open(SandboxSpec.defaults())) {
            assertThat(s.code().run(Language.PYTHON, "print(6 * 7)").stdout().strip()).isEqualTo("42");
        }
    }

    @Test
    void refusesLimitsTheTemplateCannotHoldBeforeClaiming() {
        int before = claims();
        SandboxSpec spec = SandboxSpec.builder().limits(dev.sandbox4j.ResourceLimits.DEFAULTS
                .withMemoryBytes(256L << 20)).build();
        assertThatThrownBy(() -> provider.open(spec)).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.kind()).isEqualTo(ErrorKind.UNSUPPORTED)).hasMessageContaining("memory limit");
        assertThat(claims()).isEqualTo(before);
    }

    @Test
    void afterCloseCallsAreClosed() {
        Sandbox s = provider.open(SandboxSpec.builder().lifetime(Duration.ofMinutes(5)).build());
        s.close();
        assertThatThrownBy(() -> s.shell()).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.kind()).isEqualTo(ErrorKind.CLOSED));
    }

    static int claims() {
        return claims(sim);
    }

    static int claims(ControllerSimulator sim) {
        return sim.client.resources(Crd.SandboxClaim.class).inNamespace(ControllerSimulator.NAMESPACE).list()
                .getItems().size();
    }
}
