package dev.sandbox4j.docker;

import dev.sandbox4j.Feature;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.testing.SandboxConformance;
import dev.sandbox4j.testing.SandboxFixture;

import java.util.List;
import java.util.Set;

/**
 * The shared conformance kit against the Docker backend on a Podman engine (env {@code SANDBOX4J_PODMAN_HOST}; CI:
 * rootless Podman started by scripts/podman-service.sh). Every spec goes without the cgroup limits the engine cannot
 * apply (all three on cgroup v1 rootless), and the features say so, so the kit runs their "undeclared" twins; what
 * the backend does with a spec that asks for them is {@link PodmanLimitsTest}'s. Skips without the engine unless
 * {@code SANDBOX4J_REQUIRE} contains {@code podman}.
 */
class PodmanConformanceTest implements SandboxConformance {
    private static final SandboxFixture FIXTURE = new PodmanFixture();

    /**
     * Without the engine the whole class skips here (fails when required): an abort from the fixture would reach
     * JUnit through the kit's execution condition or parameter resolver as an error, not a skip.
     */
    @org.junit.jupiter.api.BeforeAll
    static void podman() {
        PodmanTestSupport.requirePodman();
    }

    @Override
    public SandboxFixture fixture() {
        return FIXTURE;
    }

    static final class PodmanFixture implements SandboxFixture {
        @Override
        public Sandbox open(SandboxSpec spec) {
            return PodmanTestSupport.open(spec);
        }

        @Override
        public void removeVolume(String name) {
            PodmanTestSupport.PROVIDER.removeVolume(name);
        }

        @Override
        public Set<Feature> features() {
            return PodmanTestSupport.features();
        }

        @Override
        public List<String> leaks() {
            return PodmanTestSupport.ownedResources();
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
