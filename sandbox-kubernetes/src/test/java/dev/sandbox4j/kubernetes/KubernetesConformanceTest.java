package dev.sandbox4j.kubernetes;

import dev.sandbox4j.Feature;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.testing.SandboxConformance;
import dev.sandbox4j.testing.SandboxFixture;
import org.junit.jupiter.api.AfterAll;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The shared conformance kit against the Kubernetes backend on the simulated control plane (fabric8's mock API
 * server, a controller that runs each claimed pod's agent in a Docker container); skips without Docker unless
 * SANDBOX4J_REQUIRE names docker or kubernetes.
 */
class KubernetesConformanceTest implements SandboxConformance {
    private static final SandboxFixture FIXTURE = new KubernetesFixture();
    private static ControllerSimulator sim;
    private static KubernetesSandboxProvider provider;

    @Override
    public SandboxFixture fixture() {
        return FIXTURE;
    }

    static synchronized KubernetesSandboxProvider provider() {
        if (provider == null) {
            KubernetesTestSupport.assumeDocker();
            try {
                sim = new ControllerSimulator();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            sim.warmPool(3); // as agent-sandbox's warm pool: each claim adopts a started pod, the pool refills
            provider = new KubernetesSandboxProvider(sim.allPools(), sim.client);
        }
        return provider;
    }

    @AfterAll
    static synchronized void stop() {
        if (provider != null) {
            provider.close();
            sim.close();
            provider = null;
            sim = null;
        }
    }

    static final class KubernetesFixture implements SandboxFixture {
        @Override
        public Sandbox open(SandboxSpec spec) {
            return provider().open(spec);
        }

        @Override
        public Set<Feature> features() {
            return provider().features();
        }

        /** Claims and simulated pods still there (each test's sandboxes are closed by then). */
        @Override
        public List<String> leaks() {
            List<String> left = new ArrayList<>();
            if (sim != null) {
                sim.client.resources(Crd.SandboxClaim.class).inNamespace(ControllerSimulator.NAMESPACE).list()
                        .getItems().forEach(c -> left.add("claim " + c.getMetadata().getName()));
                sim.containers.values().forEach(c -> left.add("pod " + c));
            }
            return left;
        }

        @Override
        public AutoCloseable egressForTests(java.util.function.Function<String, java.net.InetAddress> resolver,
                                            java.net.InetSocketAddress... exempt) {
            return dev.sandbox4j.core.AgentEgress.overrideForTests(resolver, exempt);
        }

        @Override
        public AutoCloseable egressForTests(java.util.function.Function<String, java.net.InetAddress> resolver,
                                            javax.net.ssl.SSLContext upstreamTls, java.net.InetSocketAddress... exempt) {
            return dev.sandbox4j.core.AgentEgress.overrideForTests(resolver, upstreamTls, exempt);
        }
    }
}
