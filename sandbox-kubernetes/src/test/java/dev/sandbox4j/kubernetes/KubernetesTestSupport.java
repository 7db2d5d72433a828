package dev.sandbox4j.kubernetes;

import org.junit.jupiter.api.Assumptions;

import java.util.function.BooleanSupplier;

/** What the Kubernetes tests share: Docker (for the simulator's agents) and waiting for a condition. */
final class KubernetesTestSupport {
    private KubernetesTestSupport() {
    }

    /** Skips without a Docker engine and the runtime image (fails instead with SANDBOX4J_REQUIRE naming docker). */
    static void assumeDocker() {
        boolean ok = ControllerSimulator.docker("image", "inspect", ControllerSimulator.IMAGE).isPresent();
        String require = System.getenv().getOrDefault("SANDBOX4J_REQUIRE", "");
        if (!ok && (require.contains("docker") || require.contains("kubernetes"))) {
            throw new AssertionError("no Docker engine with " + ControllerSimulator.IMAGE);
        }
        Assumptions.assumeTrue(ok, "no Docker engine with " + ControllerSimulator.IMAGE);
    }

    static void eventually(BooleanSupplier condition) {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 20 s");
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
