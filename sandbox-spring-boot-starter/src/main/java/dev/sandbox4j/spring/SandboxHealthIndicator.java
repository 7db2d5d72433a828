package dev.sandbox4j.spring;

import dev.sandbox4j.tools.StatusBoard;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health {@code sandbox4j}: UP when the configured backend can open sandboxes here, DOWN with the reason (what to
 * install or change) when it cannot. Details: {@code backend}, {@code features}, {@code openSandboxes} (all that the
 * factory opened), {@code sessionSandboxes} and {@code maxSessionSandboxes} (those of the agent tools), and
 * {@code workerStatuses}: the {@value #STATUSES_SHOWN} most recent {@code set_status} lines, each with its worker and
 * time (already bounded and sanitized by the board).
 */
final class SandboxHealthIndicator extends AbstractHealthIndicator {
    private final SandboxFactory factory;
    private final SandboxSessions sessions;
    private final StatusBoard statuses;
    static final int STATUSES_SHOWN = 20;

    SandboxHealthIndicator(SandboxFactory factory, SandboxSessions sessions, StatusBoard statuses) {
        super("sandbox4j health check failed");
        this.factory = factory;
        this.sessions = sessions;
        this.statuses = statuses;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        SandboxFactory.Status status = factory.status();
        if (status.available()) {
            builder.up();
        } else {
            builder.down().withDetail("reason", status.reason());
        }
        builder.withDetail("backend", status.name())
                .withDetail("features", status.features().stream().map(f -> f.name().toLowerCase(Locale.ROOT))
                        .sorted().collect(Collectors.toList()))
                .withDetail("openSandboxes", factory.openSandboxes())
                .withDetail("sessionSandboxes", sessions.openCount())
                .withDetail("maxSessionSandboxes", sessions.maxSandboxes())
                .withDetail("workerStatuses", statuses.all().stream().limit(STATUSES_SHOWN)
                        .map(st -> Map.of("worker", st.workerId(), "status", st.status(), "at", st.at().toString()))
                        .collect(Collectors.toList()));
    }
}
