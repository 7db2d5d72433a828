package dev.sandbox4j.kubernetes;

import dev.sandbox4j.AttachCredential;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.Feature;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Leases and reattach on Kubernetes (docs/reattach.md), on the simulated control plane: a detached sandbox keeps its
 * pod and files and is attached to again by id and credential from another provider (another JVM's view), over the
 * pod network to the agent's lease listener on its port; a wrong credential gets nothing and changes nothing; a second
 * host while one is attached is a conflict; the leased claim is left to its shutdownTime (now + lease + margin at a
 * detach), never to the janitor; when the lease runs out with no host the agent ends.
 */
class KubernetesReattachTest {
    static ControllerSimulator sim;
    static KubernetesSandboxProvider opener;
    /** A second provider on the same cluster: what another JVM's attach goes through. */
    static KubernetesSandboxProvider other;
    static final SandboxSpec LEASED = SandboxSpec.builder().lease(Duration.ofMinutes(5)).build();

    @BeforeAll
    static void start() throws Exception {
        KubernetesTestSupport.assumeDocker();
        sim = new ControllerSimulator();
        opener = sim.provider();
        other = new KubernetesSandboxProvider(sim.options().withConnectTimeout(Duration.ofSeconds(3)), sim.client);
    }

    @AfterAll
    static void stop() {
        if (opener != null) {
            opener.close();
            other.close();
        }
        if (sim != null) {
            sim.close();
        }
    }

    private static Crd.SandboxClaim claim(String id) {
        return sim.client.resources(Crd.SandboxClaim.class).inNamespace(ControllerSimulator.NAMESPACE).withName(id)
                .get();
    }

    @Test
    void detach_thenAttachFromAnotherProvider_keepsFiles_killsCommands_andTheClaimWaitsForItsLease() throws Exception {
        Sandbox first = opener.open(LEASED);
        String id = first.id();
        AttachCredential credential = first.credential();
        try {
            assertThat(first.info().features()).contains(Feature.REATTACH);
            assertThat(claim(id).getMetadata().getLabels()).containsEntry(Cluster.LEASE_LABEL, "300000");
            first.files().write("kept.txt", "still here\n");
            ExecHandle bg = first.shell().start(ExecRequest.shell("echo started; exec sleep 1000"));
            assertThat(first.detach()).isEqualTo(credential);
            assertThat(bg.await(Duration.ofSeconds(30)).orElseThrow().exitCode()).isNotZero();
            Instant end = Instant.parse(claim(id).getSpec().lifecycle().shutdownTime());
            assertThat(end).as("the lease's end plus the margin, from the detach")
                    .isBetween(Instant.now().plus(Duration.ofMinutes(5)), Instant.now().plus(Duration.ofMinutes(7)));
            assertThat(opener.cluster().janitor(Duration.ZERO)).as("the janitor leaves a leased claim alone")
                    .doesNotContain(id);

            Sandbox again = other.attach(id, credential, SandboxSpec.builder().env("HOST_SETTING", "mine").build());
            try {
                assertThat(again.id()).isEqualTo(id);
                assertThat(again.files().readText("kept.txt")).isEqualTo("still here\n");
                assertThat(again.shell().run("echo $HOST_SETTING $((6*7))").stdout()).isEqualTo("mine 42\n");
                assertThat(again.shell().run("ps -eo comm= | grep -c '^sleep$' || true").stdout().strip())
                        .as("commands running at the detach were killed").isEqualTo("0");
                assertThat(again.info().details()).hasEntrySatisfying("lease", l -> assertThat(l).contains("attached"))
                        .containsEntry("warmPool", "sandbox4j-pool");
                assertThat(again.info().limits().memoryBytes()).as("the pool's limits").isEqualTo(1L << 30);
                assertThatThrownBy(() -> opener.attach(id, credential, SandboxSpec.defaults()))
                        .as("a second host while one is attached").isInstanceOfSatisfying(SandboxException.class,
                                e -> assertThat(e.kind()).isEqualTo(ErrorKind.CONFLICT));
                assertThat(again.shell().run("echo still mine").stdout()).isEqualTo("still mine\n");
                again.detach();
                Sandbox third = opener.attach(id, credential, SandboxSpec.defaults());
                assertThat(third.files().readText("kept.txt")).isEqualTo("still here\n");
                third.close();
                first = null;
            } finally {
                if (again.isOpen()) {
                    again.close();
                }
            }
            KubernetesTestSupport.eventually(() -> claim(id) == null);
        } finally {
            if (first != null && first.isOpen()) {
                first.close();
            }
            if (claim(id) != null) {
                opener.cluster().deleteClaim(id);
            }
        }
    }

    @Test
    void attach_wrongCredential_isRefused_andChangesNothing() {
        try (Sandbox s = opener.open(LEASED)) {
            String id = s.id();
            AttachCredential credential = s.credential();
            s.detach();
            String before = claim(id).getSpec().lifecycle().shutdownTime();
            AttachCredential wrong = AttachCredential.generate();
            assertThatThrownBy(() -> other.attach(id, wrong, SandboxSpec.defaults()))
                    .isInstanceOfSatisfying(SandboxException.class, e -> {
                        assertThat(e.kind()).isEqualTo(ErrorKind.PERMISSION_DENIED);
                        assertThat(e.getMessage()).doesNotContain(wrong.reveal().substring(6, 20))
                                .doesNotContain(credential.reveal().substring(6, 20));
                    });
            assertThat(claim(id)).as("still there").isNotNull();
            assertThat(claim(id).getSpec().lifecycle().shutdownTime()).as("its clock untouched").isEqualTo(before);
            try (Sandbox again = other.attach(id, credential, SandboxSpec.defaults())) {
                assertThat(again.shell().run("echo ok").stdout()).isEqualTo("ok\n");
            }
            assertThat(claim(id)).as("the attached host's close removes it").isNull();
        }
    }

    @Test
    void attach_unknownMalformedOrUnleased_isTyped_andOpenWithANetworkPolicyIsUnsupported() {
        AttachCredential any = AttachCredential.generate();
        assertThatThrownBy(() -> other.attach("sbx-0123456789ab", any, SandboxSpec.defaults()))
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind())
                        .isEqualTo(ErrorKind.NOT_FOUND));
        assertThatThrownBy(() -> other.attach("../etc", any, SandboxSpec.defaults()))
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind())
                        .isEqualTo(ErrorKind.INVALID_ARGUMENT));
        try (Sandbox plain = opener.open(SandboxSpec.defaults())) {
            assertThatThrownBy(() -> other.attach(plain.id(), any, SandboxSpec.defaults()))
                    .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind())
                            .isEqualTo(ErrorKind.NOT_FOUND)).hasMessageContaining("no lease");
        }
        assertThatThrownBy(() -> opener.open(LEASED.toBuilder().network(dev.sandbox4j.NetworkPolicy.allowAll())
                .build())).isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind())
                        .isEqualTo(ErrorKind.UNSUPPORTED));
    }

    @Test
    void theOpenersDeath_leavesTheClaimToItsLease_notToTheJanitor_andTheAgentEndsWhenItRunsOut() throws Exception {
        Sandbox s = opener.open(SandboxSpec.builder().lease(Duration.ofSeconds(2)).build());
        String id = s.id();
        AttachCredential credential = s.credential();
        String container = sim.containers.get(id);
        // the opener's JVM "dies": its connection ends with no detach (the sandbox learns it is gone, and leaves the
        // leased claim to its lease), and its owner label names a JVM with no Lease
        KubernetesHost.of(s).socket().close();
        KubernetesTestSupport.eventually(() -> !s.isOpen());
        s.close(); // returns once the close the death began has finished
        assertThat(claim(id)).as("a broken connection does not delete a leased claim").isNotNull();
        sim.client.resources(Crd.SandboxClaim.class).inNamespace(ControllerSimulator.NAMESPACE).withName(id)
                .edit(c -> {
                    c.getMetadata().setLabels(new java.util.HashMap<>(Map.of(Cluster.MANAGED_BY, Cluster.MANAGER,
                            Cluster.OWNER_LABEL, "jvm-gone", Cluster.SANDBOX_LABEL, id, Cluster.LEASE_LABEL, "2000")));
                    return c;
                });
        try {
            assertThat(opener.cluster().janitor(Duration.ZERO)).doesNotContain(id);
            KubernetesTestSupport.eventually(() -> "false".equals(ControllerSimulator.docker("inspect", "-f",
                    "{{.State.Running}}", container).orElse("").strip()));
            assertThatThrownBy(() -> other.attach(id, credential, SandboxSpec.defaults()))
                    .as("the agent ended with its lease").isInstanceOfSatisfying(SandboxException.class,
                            e -> assertThat(e.kind()).isEqualTo(ErrorKind.BACKEND_UNAVAILABLE));
        } finally {
            opener.cluster().deleteClaim(id);
        }
    }
}
