package dev.sandbox4j.docker;

import dev.sandbox4j.AttachCredential;
import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.testing.LifecycleContract;
import dev.sandbox4j.testing.ForwardingFixture;
import dev.sandbox4j.testing.SandboxFixture;
import dev.sandbox4j.testing.ShellContract;

import java.time.Duration;

/**
 * The kit's lifecycle and shell contracts on Docker sandboxes that were opened leased, detached, and attached to again
 * (docs/reattach.md): every sandbox a test gets is a reattached one, driven by a second host over the relay. A spec
 * with a network policy cannot be leased and is opened plain (neither contract asks for one). FileSystemContract
 * passes too (159 tests with the two, 0 failed, 6 skipped by feature, 346 s on a loaded 2-core machine): it is left
 * out here for CI's time, since a reattached sandbox's file API is the same agent's FILE operations over the relay.
 */
class ReattachedDockerConformanceTest implements LifecycleContract, ShellContract {
    private static final SandboxFixture FIXTURE = new ReattachedFixture(new DockerConformanceTest.DockerFixture());

    @Override
    public SandboxFixture fixture() {
        return FIXTURE;
    }

    static final class ReattachedFixture extends ForwardingFixture {
        ReattachedFixture(SandboxFixture plain) {
            super(plain);
        }

        @Override
        public Sandbox open(SandboxSpec spec) {
            if (spec.network().mode() != NetworkPolicy.Mode.NONE) {
                return delegate().open(spec);
            }
            Sandbox first = delegate().open(spec.toBuilder().lease(Duration.ofMinutes(10)).build());
            String id = first.id();
            AttachCredential credential = first.detach();
            SandboxSpec settings = SandboxSpec.builder().commandTimeout(spec.commandTimeout())
                    .lifetime(spec.lifetime()).outputLimit(spec.outputLimit()).env(spec.env())
                    .fileRules(spec.fileRules()).build();
            return DockerTestSupport.PROVIDER.attach(id, credential, settings);
        }

        @Override
        public Sandbox openWithContexts(SandboxSpec spec) {
            return open(spec);
        }
    }
}
