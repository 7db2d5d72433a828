package dev.sandbox4j.kubernetes;

import dev.sandbox4j.AttachCredential;
import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.testing.ForwardingFixture;
import dev.sandbox4j.testing.LifecycleContract;
import dev.sandbox4j.testing.SandboxFixture;
import dev.sandbox4j.testing.ShellContract;

import java.time.Duration;

/**
 * The kit's lifecycle and shell contracts on Kubernetes sandboxes that were opened leased, detached, and attached to
 * again over the pod network (docs/reattach.md): every sandbox a test gets is a reattached one. A spec with a network
 * policy cannot be leased and is opened plain (neither contract asks for one).
 */
class ReattachedKubernetesConformanceTest implements LifecycleContract, ShellContract {
    private static final SandboxFixture FIXTURE = new ForwardingFixture(new KubernetesConformanceTest.KubernetesFixture()) {
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
            return KubernetesConformanceTest.provider().attach(id, credential, settings);
        }

        @Override
        public Sandbox openWithContexts(SandboxSpec spec) {
            return open(spec);
        }
    };

    @Override
    public SandboxFixture fixture() {
        return FIXTURE;
    }

    @org.junit.jupiter.api.AfterAll
    static void stop() {
        KubernetesConformanceTest.stop();
    }
}
