package dev.sandbox4j.spring;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.spi.SandboxProvider;
import java.util.Optional;

/** Skips unless the backend can run here; fails instead when SANDBOX4J_REQUIRE names it (CI). */
final class Backends {
    private Backends() {
    }

    static void requireOrSkip(String backend) {
        Optional<String> why = Sandboxes.providers().stream().filter(p -> p.name().equals(backend)).findFirst()
                .map(SandboxProvider::unavailableReason).orElse(Optional.of("not on the class path"));
        if (why.isPresent() && System.getenv().getOrDefault("SANDBOX4J_REQUIRE", "").contains(backend)) {
            throw new AssertionError("backend " + backend + " is required (SANDBOX4J_REQUIRE) but unavailable: "
                    + why.get());
        }
        assumeTrue(why.isEmpty(), () -> backend + " unavailable: " + why.get());
    }
}
