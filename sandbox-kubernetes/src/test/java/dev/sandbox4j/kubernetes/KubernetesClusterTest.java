package dev.sandbox4j.kubernetes;

import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Language;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Against a real cluster set up as docs/kubernetes.md shows (agent-sandbox, docs/kubernetes/pool.yaml, the key's
 * Secret, rbac.yaml): runs when SANDBOX4J_KUBECONFIG names a kubeconfig (namespace SANDBOX4J_K8S_NAMESPACE, default
 * sandbox4j; connector SANDBOX4J_K8S_CONNECTOR, default PORT_FORWARD as a test runs outside the cluster), skips
 * otherwise.
 */
class KubernetesClusterTest {
    static KubernetesSandboxProvider provider;

    @BeforeAll
    static void connect() {
        String kubeconfig = System.getenv("SANDBOX4J_KUBECONFIG");
        Assumptions.assumeTrue(kubeconfig != null && !kubeconfig.isBlank(), "SANDBOX4J_KUBECONFIG is not set");
        provider = new KubernetesSandboxProvider(KubernetesOptions.defaults()
                .withKubeconfig(Path.of(kubeconfig))
                .withNamespace(System.getenv().getOrDefault("SANDBOX4J_K8S_NAMESPACE", "sandbox4j"))
                .withConnector(KubernetesOptions.Connector.valueOf(System.getenv()
                        .getOrDefault("SANDBOX4J_K8S_CONNECTOR", "PORT_FORWARD"))));
        assertThat(provider.unavailableReason()).isEmpty();
    }

    @AfterAll
    static void close() {
        if (provider != null) {
            provider.close();
        }
    }

    @Test
    void opensRunsWritesAndDeletesItsClaim() {
        String id;
        try (Sandbox s = provider.open(SandboxSpec.defaults())) {
            id = s.id();
            ExecResult r = s.shell().run("id -u; cat /proc/1/cmdline | tr '\\0' ' '; env | grep -c SBX4J || true");
            assertThat(r.stdout()).contains("10001").contains("sbx-agent --listen=").endsWith("0\n");
            s.files().write("hello.txt", "hi from the cluster");
            assertThat(s.shell().run("cat hello.txt").stdout()).isEqualTo("hi from the cluster");
            assertThat(s.code().run(Language.PYTHON, "print(6 * 7)").stdout().strip()).isEqualTo("42");
        }
        assertThat(provider.cluster().client.resources(Crd.SandboxClaim.class)
                .inNamespace(provider.options().namespace()).withName(id).get()).isNull();
    }

    /** The node's kubelet applies sandbox4j's profile: ptrace is EPERM, an unknown number ENOSYS (KubernetesSeccompTest). */
    @Test
    void podsRunSandbox4jsSeccompProfile() {
        try (Sandbox s = provider.open(SandboxSpec.defaults())) {
            assertThat(s.info().details().get("seccomp")).startsWith("allow-list");
            assertThat(KubernetesSeccompTest.probe(s)).isEqualTo("ptrace -1 "
                    + dev.sandbox4j.core.seccomp.SeccompPolicy.explicitDenials().get("ptrace") + " unknown -1 38");
        }
    }

    /** Detach, then attach from a second provider (docs/reattach.md#kubernetes); close removes the claim. */
    @Test
    void aLeasedSandboxIsAttachedAgainFromAnotherProvider() {
        Sandbox s = provider.open(SandboxSpec.builder().lease(java.time.Duration.ofMinutes(5)).build());
        String id = s.id();
        s.files().write("kept.txt", "kept");
        dev.sandbox4j.AttachCredential credential = s.detach();
        try (KubernetesSandboxProvider other = new KubernetesSandboxProvider(provider.options());
             Sandbox again = other.attach(id, credential, SandboxSpec.defaults())) {
            assertThat(again.files().readText("kept.txt")).isEqualTo("kept");
        }
        assertThat(provider.cluster().client.resources(Crd.SandboxClaim.class)
                .inNamespace(provider.options().namespace()).withName(id).get()).isNull();
    }
}
