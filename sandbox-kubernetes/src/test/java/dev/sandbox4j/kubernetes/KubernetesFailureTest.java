package dev.sandbox4j.kubernetes;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.WatchEventBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The failure cases of the Kubernetes backend, each typed and leaving no claim and no container behind. */
class KubernetesFailureTest {
    static ControllerSimulator sim;
    static KubernetesSandboxProvider provider;
    static final String CLAIMS = "/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/" + ControllerSimulator.NAMESPACE
            + "/sandboxclaims";

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

    @AfterEach
    void nothingLeftBehind() {
        sim.serving = true;
        KubernetesTestSupport.eventually(() -> KubernetesLifecycleTest.claims(sim) == 0
                && ControllerSimulator.leftoverContainers().isEmpty());
    }

    @Test
    void aClaimThatNeverBecomesReadyTimesOutAndIsDeleted() {
        sim.serving = false;
        KubernetesSandboxProvider p = new KubernetesSandboxProvider(sim.options()
                .withClaimTimeout(Duration.ofMillis(800)), sim.client);
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> p.open(SandboxSpec.defaults())).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.kind()).isEqualTo(ErrorKind.TIMEOUT)).hasMessageContaining("was not Ready within");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
        p.close();
    }

    @Test
    void anApiServerRefusalIsPermissionDenied() {
        sim.server.expect().post().withPath(CLAIMS).andReturn(403, new StatusBuilder().withCode(403)
                .withReason("Forbidden").withMessage("sandboxclaims is forbidden: User \"system:serviceaccount:x:y\" "
                        + "cannot create resource").build()).once();
        assertThatThrownBy(() -> provider.open(SandboxSpec.defaults())).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.kind()).isEqualTo(ErrorKind.PERMISSION_DENIED)).hasMessageContaining("RBAC");
    }

    @Test
    void aWatchThatDropsIsOpenedAgain() throws Exception {
        sim.serving = false;
        Cluster cluster = provider.cluster();
        String name = "sbx-watchdrop";
        // the one watch of this JVM's claims (by its owner label): make sure the next one opened is the test's
        cluster.closeClaimWatchForTests();
        sim.server.expect().get().withPath(CLAIMS + "?allowWatchBookmarks=true&labelSelector="
                        + java.net.URLEncoder.encode(Cluster.OWNER_LABEL + "=" + Cluster.OWNER,
                        java.nio.charset.StandardCharsets.UTF_8) + "&watch=true").andUpgradeToWebSocket().open().waitFor(100)
                .andEmit(new WatchEventBuilder().withType("ERROR").withObject(new StatusBuilder().withCode(410)
                        .withReason("Expired").withMessage("too old resource version").build()).build())
                .done().once();
        cluster.createClaim(name, Duration.ZERO);
        long reopened = cluster.watchesReopened.get();
        try {
            Thread ready = new Thread(() -> {
                try {
                    Thread.sleep(1000); // after the first watch dropped
                } catch (InterruptedException e) {
                    return;
                }
                sim.setReady(name, "10.1.2.3");
            });
            ready.start();
            Crd.ClaimedSandbox s = cluster.awaitReady(name, Duration.ofSeconds(15));
            assertThat(s.podIPs()).containsExactly("10.1.2.3");
            assertThat(cluster.watchesReopened.get()).isEqualTo(reopened + 1);
            ready.join();
        } finally {
            cluster.deleteClaim(name);
        }
    }

    @Test
    void theAgentRefusesAWrongKey() {
        sim.client.secrets().inNamespace(ControllerSimulator.NAMESPACE).resource(new io.fabric8.kubernetes.api.model
                .SecretBuilder(ControllerSimulator.secret(java.util.HexFormat.of().formatHex(ControllerSimulator
                .randomKey()))).editMetadata().withName("wrong-key").endMetadata().build()).createOr(r -> r.update());
        KubernetesSandboxProvider p = new KubernetesSandboxProvider(sim.options().withAgentKeySecret("wrong-key")
                .withConnectTimeout(Duration.ofSeconds(8)), sim.client);
        assertThatThrownBy(() -> p.open(SandboxSpec.defaults())).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.kind()).isEqualTo(ErrorKind.PERMISSION_DENIED)).hasMessageContaining("key");
        p.close();
    }

    @Test
    void noSecondConnectionReachesAnAgentInUse() throws Exception {
        try (Sandbox s = provider.open(SandboxSpec.defaults())) {
            String ip = KubernetesHost.of(s).claimedSandbox().podIPs().get(0);
            byte[] key = java.util.HexFormat.of().parseHex(sim.keyHex);
            assertThatThrownBy(() -> AgentConnector.connect(ip, 7070, key, Duration.ofSeconds(3)))
                    .isInstanceOf(AgentConnector.Refused.class).hasMessageContaining("cannot connect");
            assertThat(s.shell().run("echo still").stdout()).contains("still");
        }
    }

    @Test
    void aPodThatDiesMidCommandEndsItTypedAndTheSandboxIsGone() {
        Sandbox s = provider.open(SandboxSpec.defaults());
        try {
            var h = s.shell().start(ExecRequest.shell("sleep 60"));
            String container = sim.containers.get(s.id());
            ControllerSimulator.docker("rm", "-f", container).orElseThrow(); // the node lost the pod
            ExecResult r = h.await(Duration.ofSeconds(20)).orElseThrow();
            assertThat(r.status()).isEqualTo(ExecStatus.KILLED);
            assertThat(r.toString()).contains("died");
            KubernetesTestSupport.eventually(() -> !s.isOpen());
            assertThatThrownBy(() -> s.shell().run("true")).isInstanceOfSatisfying(SandboxException.class,
                    e -> assertThat(e.kind()).isEqualTo(ErrorKind.BACKEND_UNAVAILABLE));
        } finally {
            s.close();
        }
    }

    @Test
    void aBrokenConnectionEndsTheAgentAndTheSandbox() throws Exception {
        Sandbox s = provider.open(SandboxSpec.defaults());
        try {
            String container = sim.containers.get(s.id());
            KubernetesHost.of(s).socket().close(); // the network between broke
            KubernetesTestSupport.eventually(() -> !s.isOpen());
            assertThatThrownBy(() -> s.shell().run("true")).isInstanceOfSatisfying(SandboxException.class,
                    e -> assertThat(e.kind()).isEqualTo(ErrorKind.BACKEND_UNAVAILABLE));
            // the agent saw its connection end: it killed its commands and exited (the pod's container stops)
            KubernetesTestSupport.eventually(() -> ControllerSimulator.docker("inspect", "-f", "{{.State.Running}}",
                    container).map(o -> !o.strip().equals("true")).orElse(true));
        } finally {
            s.close();
        }
    }

    @Test
    void theJanitorDeletesTheClaimsOfJvmsThatAreGone() {
        Cluster cluster = provider.cluster();
        sim.serving = false;
        String ns = ControllerSimulator.NAMESPACE;
        sim.client.leases().inNamespace(ns).resource(new LeaseBuilder().withNewMetadata().withName("sandbox4j-jvm-alive")
                .endMetadata().withNewSpec().withHolderIdentity("jvm-alive").withLeaseDurationSeconds(60)
                .withRenewTime(ZonedDateTime.now(ZoneOffset.UTC)).endSpec().build()).createOr(r -> r.update());
        sim.client.leases().inNamespace(ns).resource(new LeaseBuilder().withNewMetadata().withName("sandbox4j-jvm-stale")
                .endMetadata().withNewSpec().withHolderIdentity("jvm-stale").withLeaseDurationSeconds(60)
                .withRenewTime(ZonedDateTime.now(ZoneOffset.UTC).minusMinutes(10)).endSpec().build())
                .createOr(r -> r.update());
        for (String owner : new String[] {"jvm-alive", "jvm-stale", "jvm-gone"}) {
            Crd.SandboxClaim c = new Crd.SandboxClaim();
            c.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName("c-" + owner)
                    .withLabels(Map.of(Cluster.MANAGED_BY, Cluster.MANAGER, Cluster.OWNER_LABEL, owner)).build());
            c.setSpec(new Crd.ClaimSpec(null, null, new Crd.Lifecycle("Delete", null, null), null,
                    new Crd.Ref("sandbox4j-pool")));
            sim.client.resources(Crd.SandboxClaim.class).inNamespace(ns).resource(c).create();
        }
        cluster.createClaim("c-mine", Duration.ZERO);
        assertThat(cluster.janitor(Cluster.MIN_AGE)).as("claims just made are not judged yet").isEmpty();
        assertThat(cluster.janitor(Duration.ZERO)).containsExactlyInAnyOrder("c-jvm-stale", "c-jvm-gone");
        assertThat(sim.client.resources(Crd.SandboxClaim.class).inNamespace(ns).list().getItems())
                .extracting(c -> c.getMetadata().getName()).containsExactlyInAnyOrder("c-jvm-alive", "c-mine");
        cluster.deleteClaim("c-jvm-alive");
        cluster.deleteClaim("c-mine");
    }
}
