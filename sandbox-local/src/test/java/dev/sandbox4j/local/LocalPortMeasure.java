package dev.sandbox4j.local;

import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.testing.PortThroughput;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Issue 32's port target (100 MiB through an opened port at least 0.5x the host's loopback), measured, not asserted:
 * {@link PortThroughput} on this backend. Runs only with {@code -Dsandbox4j.measure=true}; prints to stdout.
 */
@EnabledIfSystemProperty(named = "sandbox4j.measure", matches = "true")
class LocalPortMeasure {
    @Test
    @Timeout(1800)
    void hundredMebibytes_throughAnOpenedPort_vsHostLoopback() throws Exception {
        PortThroughput.measure(Jail::open, "default spec (one core)");
    }

    /** The same without the default CPU limit: the server, the pump and the agent then share no one-core quota. */
    @Test
    @Timeout(1800)
    void hundredMebibytes_withoutACpuLimit() throws Exception {
        PortThroughput.measure(() -> Jail.open(SandboxSpec.builder()
                .limits(ResourceLimits.DEFAULTS.withCpus(0)).build()), "no CPU limit");
    }
}
