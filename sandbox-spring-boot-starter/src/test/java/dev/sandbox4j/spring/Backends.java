package dev.sandbox4j.spring;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sandbox4j.ProviderStatus;
import dev.sandbox4j.Sandboxes;
import java.util.Optional;

/** Skips unless the backend can run here; fails instead when SANDBOX4J_REQUIRE names it (CI). */
final class Backends {
    private Backends() {
    }

    static void requireOrSkip(String backend) {
        Optional<ProviderStatus> status = Sandboxes.providers().stream().filter(p -> p.name().equals(backend))
                .findFirst();
        boolean available = status.map(ProviderStatus::available).orElse(false);
        if (!available && System.getenv().getOrDefault("SANDBOX4J_REQUIRE", "").contains(backend)) {
            throw new AssertionError("backend " + backend + " is required (SANDBOX4J_REQUIRE) but unavailable: "
                    + status.map(ProviderStatus::reason).orElse("not on the class path"));
        }
        assumeTrue(available, () -> backend + " unavailable: " + status.map(ProviderStatus::reason).orElse("absent"));
    }
}
