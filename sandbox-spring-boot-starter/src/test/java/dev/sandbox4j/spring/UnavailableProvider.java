package dev.sandbox4j.spring;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Feature;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.spi.SandboxProvider;
import java.util.Optional;
import java.util.Set;

/** A backend that is never available here, for the DOWN health and the refused open. Opened only by name. */
public final class UnavailableProvider implements SandboxProvider {
    static final String REASON = "test backend: never available (install nothing, it is a test)";

    @Override
    public String name() {
        return "unavailable";
    }

    @Override
    public int priority() {
        return -10;
    }

    @Override
    public Set<Feature> features() {
        return Set.of();
    }

    @Override
    public Optional<String> unavailableReason() {
        return Optional.of(REASON);
    }

    @Override
    public Sandbox open(SandboxSpec spec) {
        throw new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, REASON);
    }
}
