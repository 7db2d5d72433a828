package dev.sandbox4j.memory;

import dev.sandbox4j.Feature;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.testing.SandboxConformance;
import dev.sandbox4j.testing.SandboxFixture;
import java.util.Set;

/** The whole conformance kit on the in-memory backend. */
class MemoryConformanceTest implements SandboxConformance {
    private static final SandboxFixture FIXTURE = new SandboxFixture() {
        @Override
        public Sandbox open(SandboxSpec spec) {
            return MemorySandbox.open(spec);
        }

        @Override
        public Set<Feature> features() {
            return new MemorySandboxProvider().features();
        }
    };

    @Override
    public SandboxFixture fixture() {
        return FIXTURE;
    }
}
