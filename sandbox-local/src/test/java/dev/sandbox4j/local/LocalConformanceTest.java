package dev.sandbox4j.local;

import dev.sandbox4j.Feature;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.testing.SandboxConformance;
import dev.sandbox4j.testing.SandboxFixture;
import java.util.List;
import java.util.Set;

/** The conformance kit on the local backend. */
class LocalConformanceTest implements SandboxConformance {
    static final class LocalFixture implements SandboxFixture {
        @Override
        public Sandbox open(SandboxSpec spec) {
            return Jail.open(spec);
        }

        @Override
        public void removeVolume(String name) {
            Jail.PROVIDER.removeVolume(name);
        }

        @Override
        public Set<Feature> features() {
            Jail.assumeAvailable();
            return Jail.PROVIDER.features();
        }

        @Override
        public List<String> leaks() {
            return Jail.leaks();
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

    @Override
    public SandboxFixture fixture() {
        return new LocalFixture();
    }
}
