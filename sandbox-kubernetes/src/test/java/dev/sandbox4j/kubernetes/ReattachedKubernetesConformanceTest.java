package dev.sandbox4j.kubernetes;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.testing.ForwardingFixture;
import dev.sandbox4j.testing.LifecycleContract;
import dev.sandbox4j.testing.ReattachedFixture;
import dev.sandbox4j.testing.SandboxFixture;
import dev.sandbox4j.testing.ShellContract;

/**
 * The kit's lifecycle and shell contracts on Kubernetes sandboxes that were opened leased, detached, and attached to
 * again over the pod network (docs/reattach.md): every sandbox a test gets is a reattached one.
 */
class ReattachedKubernetesConformanceTest implements LifecycleContract, ShellContract {
    /** The provider is made on the first open (it needs Docker, and skips without it). */
    private static final SandboxFixture FIXTURE = new ForwardingFixture(new KubernetesConformanceTest.KubernetesFixture()) {
        @Override
        public Sandbox open(SandboxSpec spec) {
            return new ReattachedFixture(delegate(), KubernetesConformanceTest.provider()).open(spec);
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
