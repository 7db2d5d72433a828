package dev.sandbox4j.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.testing.TerminalLatency;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Issue 32's keystroke-to-echo target (median ≤ 2 ms local), measured, not asserted: a byte typed into {@code cat}
 * under a jail's terminal until its echo is back, against the same through {@code script}'s pty on the host, in one
 * run (host, jail, host). Runs only with {@code -Dsandbox4j.measure=true}; prints to stdout; docs/benchmarks.md has
 * the figures.
 */
@EnabledIfSystemProperty(named = "sandbox4j.measure", matches = "true")
class TerminalLatencyMeasure {
    @Test
    void keystrokeToEcho() throws Exception {
        Jail.assumeAvailable();
        double[] host1 = TerminalLatency.host(100, 1000);
        double[] jail;
        try (Sandbox s = Jail.open(SandboxSpec.defaults())) {
            jail = TerminalLatency.sandbox(s, 100, 1000);
        }
        double[] host2 = TerminalLatency.host(100, 1000);
        System.out.println("[terminal] load " + Files.readString(Path.of("/proc/loadavg")).trim());
        System.out.println("[terminal] host script pty (before): " + (host1 == null ? "n/a" : TerminalLatency.summary(host1)));
        System.out.println("[terminal] local jail:               " + TerminalLatency.summary(jail));
        System.out.println("[terminal] host script pty (after):  " + (host2 == null ? "n/a" : TerminalLatency.summary(host2)));
        assertThat(jail).hasSize(1000);
    }
}
