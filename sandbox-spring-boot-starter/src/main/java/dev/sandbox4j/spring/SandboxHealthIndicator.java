package dev.sandbox4j.spring;

import java.util.Locale;
import java.util.stream.Collectors;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health {@code sandbox4j}: UP when the configured backend can open sandboxes here, DOWN with the reason (what to
 * install or change) when it cannot. Details: {@code backend}, {@code features}, {@code openSandboxes} (all that the
 * factory opened), {@code sessionSandboxes} and {@code maxSessionSandboxes} (those of the agent tools).
 */
final class SandboxHealthIndicator extends AbstractHealthIndicator {
    private final SandboxFactory factory;
    private final SandboxSessions sessions;

    SandboxHealthIndicator(SandboxFactory factory, SandboxSessions sessions) {
        super("sandbox4j health check failed");
        this.factory = factory;
        this.sessions = sessions;
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
                .withDetail("maxSessionSandboxes", sessions.maxSandboxes());
    }
}
