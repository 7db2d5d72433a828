package dev.sandbox4j.spring;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/**
 * Micrometer meters of the sandboxes a {@link SandboxFactory} opens:
 * <ul>
 *   <li>{@code sandbox4j.sandboxes.open} (gauge): sandboxes open now;</li>
 *   <li>{@code sandbox4j.sandboxes.opened} (counter, tag {@code backend});</li>
 *   <li>{@code sandbox4j.commands} (timer, tags {@code backend}, {@code kind} shell|code, {@code status}
 *       completed|timeout|killed|error_runtime|error_setup|failed): command latency;</li>
 *   <li>{@code sandbox4j.commands.timeouts} and {@code sandbox4j.commands.kills} (counters, tags {@code backend},
 *       {@code kind}): commands that ran out of time, and those killed (a memory limit, an explicit kill);</li>
 *   <li>{@code sandbox4j.status.workers} (gauge) and {@code sandbox4j.status.updates} (counter): workers with a
 *       {@code set_status} line, and the lines set.</li>
 * </ul>
 */
final class SandboxMetrics implements CommandObserver {
    private final MeterRegistry registry;

    SandboxMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    void bind(SandboxFactory factory) {
        Gauge.builder("sandbox4j.sandboxes.open", factory, SandboxFactory::openSandboxes)
                .description("Sandboxes open now").register(registry);
    }

    /** Counts the status lines set on {@code board} and gauges how many workers have one. */
    void bind(dev.sandbox4j.tools.StatusBoard board) {
        Gauge.builder("sandbox4j.status.workers", board, dev.sandbox4j.tools.StatusBoard::size)
                .description("Workers with a status line (set_status)").register(registry);
        Counter updates = Counter.builder("sandbox4j.status.updates").description("Status lines set (set_status)")
                .register(registry);
        board.subscribe(s -> updates.increment());
    }

    @Override
    public void opened(String backend) {
        Counter.builder("sandbox4j.sandboxes.opened").description("Sandboxes opened").tag("backend", backend)
                .register(registry).increment();
    }

    @Override
    public void commandFinished(String backend, String kind, String status, Duration duration) {
        Timer.builder("sandbox4j.commands").description("Commands and code runs, by how they ended")
                .tag("backend", backend).tag("kind", kind).tag("status", status).register(registry).record(duration);
        if (status.equals("timeout")) {
            Counter.builder("sandbox4j.commands.timeouts").description("Commands that ran out of time")
                    .tag("backend", backend).tag("kind", kind).register(registry).increment();
        } else if (status.equals("killed")) {
            Counter.builder("sandbox4j.commands.kills").description("Commands killed (a limit, an explicit kill)")
                    .tag("backend", backend).tag("kind", kind).register(registry).increment();
        }
    }
}
