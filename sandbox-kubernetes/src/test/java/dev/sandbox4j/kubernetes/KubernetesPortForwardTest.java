package dev.sandbox4j.kubernetes;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The port-forward connector (for a JVM outside the cluster) through the API server's port-forward stream: the
 * simulated API server bridges the Kubernetes port-forward WebSocket protocol to the pod's agent, as a kubelet does,
 * with fabric8's real {@code LocalPortForward} on this side. A stream that breaks mid-command ends the command and the
 * sandbox typed, and leaves no claim, container or forward behind.
 */
class KubernetesPortForwardTest {
    static ControllerSimulator sim;
    static KubernetesSandboxProvider provider;

    @BeforeAll
    static void start() throws Exception {
        KubernetesTestSupport.assumeDocker();
        sim = new ControllerSimulator();
        provider = new KubernetesSandboxProvider(sim.options().withConnector(KubernetesOptions.Connector.PORT_FORWARD),
                sim.client);
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
        KubernetesTestSupport.eventually(() -> KubernetesLifecycleTest.claims(sim) == 0
                && ControllerSimulator.leftoverContainers().isEmpty() && sim.pods.isEmpty());
    }

    @Test
    void commandsAndFilesGoThroughTheApiServersPortForward() {
        int before = sim.forwards.size();
        try (Sandbox s = provider.open(SandboxSpec.defaults())) {
            assertThat(sim.forwards.size()).as("the connection went through a port-forward stream")
                    .isGreaterThan(before);
            assertThat(s.shell().run("echo through the API server").stdout()).isEqualTo("through the API server\n");
            byte[] big = new byte[3 << 20];
            new java.util.Random(3).nextBytes(big);
            s.files().write("big.bin", big);
            assertThat(s.files().readBytes("big.bin")).isEqualTo(big);
        }
    }

    @Test
    void aStreamThatBreaksMidCommandEndsItTypedAndTheSandboxIsGone() throws Exception {
        Sandbox s = provider.open(SandboxSpec.defaults());
        try {
            String container = sim.containers.get(s.id());
            ExecHandle running = s.shell().start(ExecRequest.shell("sleep 60"));
            sim.forwards.forEach(PortForwardBridge::cut); // the API server's stream broke
            ExecResult r = running.await(Duration.ofSeconds(20)).orElseThrow();
            assertThat(r.status()).isEqualTo(ExecStatus.KILLED);
            assertThat(r.toString()).contains("died");
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
}
