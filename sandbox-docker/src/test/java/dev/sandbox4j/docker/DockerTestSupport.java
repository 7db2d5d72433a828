package dev.sandbox4j.docker;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import java.util.Optional;

/**
 * Skips Docker tests when the engine or the image is missing, and fails them instead when env
 * {@code SANDBOX4J_REQUIRE} contains {@code docker}.
 */
final class DockerTestSupport {
    static final DockerSandboxProvider PROVIDER = new DockerSandboxProvider();
    private static volatile Optional<String> reason;

    private DockerTestSupport() {
    }

    static synchronized void requireDocker() {
        if (reason == null) {
            reason = PROVIDER.unavailableReason();
        }
        if (reason.isPresent()) {
            String require = System.getenv().getOrDefault("SANDBOX4J_REQUIRE", "");
            if (require.contains("docker")) {
                Assertions.fail("SANDBOX4J_REQUIRE=" + require + " but Docker is unavailable: " + reason.get());
            }
            Assumptions.abort("Docker unavailable: " + reason.get());
        }
    }

    static Sandbox open(SandboxSpec spec) {
        requireDocker();
        return PROVIDER.open(spec);
    }

    static Sandbox open() {
        return open(SandboxSpec.defaults());
    }
}
