package dev.sandbox4j.tools;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sandbox4j.ProviderStatus;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Sandboxes;
import java.util.Optional;

/** Opens a real backend, or skips (fails instead when SANDBOX4J_REQUIRE names it). */
final class Backends {
    private Backends() {
    }

    static Sandbox open(String backend) {
        Optional<ProviderStatus> status = Sandboxes.providers().stream().filter(p -> p.name().equals(backend))
                .findFirst();
        boolean available = status.map(ProviderStatus::available).orElse(false);
        if (!available && System.getenv().getOrDefault("SANDBOX4J_REQUIRE", "").contains(backend)) {
            throw new AssertionError("backend " + backend + " is required (SANDBOX4J_REQUIRE) but unavailable: "
                    + status.map(ProviderStatus::reason).orElse("not on the class path"));
        }
        assumeTrue(available, backend + " unavailable");
        return Sandboxes.open(backend, SandboxSpec.defaults());
    }
}
