package dev.sandbox4j.kubernetes;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * The simulated control plane (fabric8's mock API server and the tests' controller, which runs each pod's agent in a
 * Docker container) for other modules' tests: the reliability suite opens Kubernetes sandboxes through it. Started on
 * first use, once per JVM, and stopped when the JVM exits. Published in sandbox-kubernetes' test jar.
 */
public final class SimulatedControlPlane {
    private static ControllerSimulator sim;
    private static KubernetesSandboxProvider provider;

    private SimulatedControlPlane() {
    }

    /** Why it cannot run here (no Docker engine with the runtime image), or empty. */
    public static Optional<String> unavailableReason() {
        return ControllerSimulator.docker("image", "inspect", ControllerSimulator.IMAGE).isPresent()
                ? Optional.empty() : Optional.of("no Docker engine with " + ControllerSimulator.IMAGE
                + " (the simulated control plane runs each pod's agent in a container)");
    }

    /** Opens a sandbox through the Kubernetes backend on the simulated control plane. */
    public static Sandbox open(SandboxSpec spec) {
        return provider().open(spec);
    }

    private static synchronized KubernetesSandboxProvider provider() {
        if (provider == null) {
            try {
                sim = new ControllerSimulator();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            sim.warmPool(2);
            provider = sim.provider();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                provider.close();
                sim.close();
            }, "k8s-sim-stop"));
        }
        return provider;
    }
}
