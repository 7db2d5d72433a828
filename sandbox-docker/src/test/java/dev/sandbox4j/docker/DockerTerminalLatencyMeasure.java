package dev.sandbox4j.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.testing.TerminalLatency;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Issue 32's keystroke-to-echo target (median ≤ 5 ms on Docker), measured, not asserted: a byte typed into {@code cat}
 * under a container's terminal until its echo is back, against {@code script}'s pty on the host in the same run.
 * Runs only with {@code -Dsandbox4j.measure=true}; docs/benchmarks.md has the figures.
 */
@EnabledIfSystemProperty(named = "sandbox4j.measure", matches = "true")
class DockerTerminalLatencyMeasure {
    @Test
    void keystrokeToEcho() throws Exception {
        double[] host1 = TerminalLatency.host(100, 1000);
        double[] container;
        try (Sandbox s = DockerTestSupport.open(SandboxSpec.defaults())) {
            container = TerminalLatency.sandbox(s, 100, 1000);
        }
        double[] host2 = TerminalLatency.host(100, 1000);
        System.out.println("[terminal] load " + Files.readString(Path.of("/proc/loadavg")).trim());
        System.out.println("[terminal] host script pty (before): " + (host1 == null ? "n/a" : TerminalLatency.summary(host1)));
        System.out.println("[terminal] docker container:         " + TerminalLatency.summary(container));
        System.out.println("[terminal] host script pty (after):  " + (host2 == null ? "n/a" : TerminalLatency.summary(host2)));
        assertThat(container).hasSize(1000);
    }
}
