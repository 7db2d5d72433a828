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
        dev.sandbox4j.testing.Required.orSkip(backend, available ? java.util.Optional.empty()
                : java.util.Optional.of(status.map(ProviderStatus::reason).orElse("not on the class path")));
        return Sandboxes.open(backend, SandboxSpec.defaults());
    }
}
