package dev.sandbox4j.memory;

import dev.sandbox4j.Feature;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.spi.SandboxProvider;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code memory} provider: a {@link MemorySandbox} per open. Priority -1, so {@link dev.sandbox4j.Sandboxes}
 * only opens it by name: code never falls back from a real jail to this fake without saying so.
 */
public final class MemorySandboxProvider implements SandboxProvider {
    /** The provider name. */
    public static final String NAME = "memory";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return -1;
    }

    @Override
    public Set<Feature> features() {
        return MemorySandbox.FEATURES;
    }

    @Override
    public Optional<String> unavailableReason() {
        return Optional.empty();
    }

    @Override
    public Sandbox open(SandboxSpec spec) {
        if (!spec.lease().isZero()) {
            throw MemoryErrors.error(dev.sandbox4j.ErrorKind.UNSUPPORTED, "the memory backend cannot "
                    + "lease a sandbox: it lives in this JVM's heap");
        }
        return MemorySandbox.open(spec);
    }
}
