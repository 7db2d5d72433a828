package dev.sandbox4j.tools;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.spi.SandboxProvider;
import java.util.Optional;

/** Opens a real backend, or skips (fails instead when SANDBOX4J_REQUIRE names it). */
final class Backends {
    private Backends() {
    }

    static Sandbox open(String backend) {
        Optional<String> why = Sandboxes.providers().stream().filter(p -> p.name().equals(backend)).findFirst()
                .map(SandboxProvider::unavailableReason).orElse(Optional.of("not on the class path"));
        dev.sandbox4j.testing.Required.orSkip(backend, why);
        return Sandboxes.open(backend, SandboxSpec.defaults());
    }
}
