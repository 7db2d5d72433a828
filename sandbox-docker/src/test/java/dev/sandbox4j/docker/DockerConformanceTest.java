package dev.sandbox4j.docker;

import dev.sandbox4j.Feature;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.testing.SandboxConformance;
import dev.sandbox4j.testing.SandboxFixture;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** The shared conformance kit against the Docker backend; skips without an engine unless SANDBOX4J_REQUIRE=docker. */
class DockerConformanceTest implements SandboxConformance {
    private static final SandboxFixture FIXTURE = new DockerFixture();

    @Override
    public SandboxFixture fixture() {
        return FIXTURE;
    }

    static final class DockerFixture implements SandboxFixture {
        @Override
        public Sandbox open(SandboxSpec spec) {
            return DockerTestSupport.open(spec);
        }

        @Override
        public void removeVolume(String name) {
            DockerTestSupport.PROVIDER.removeVolume(name);
        }

        @Override
        public Set<Feature> features() {
            return DockerTestSupport.PROVIDER.features();
        }

        @Override
        public List<String> leaks() {
            return DockerTestSupport.ownedResources();
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
