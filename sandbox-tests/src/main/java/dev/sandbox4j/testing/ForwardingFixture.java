package dev.sandbox4j.testing;

import dev.sandbox4j.Feature;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import javax.net.ssl.SSLContext;

/**
 * A fixture that forwards every call to another, for fixtures that change how sandboxes reach the kit (handed out by a
 * pool, paused and resumed first) and nothing else: override {@link #open} and {@link #openWithContexts} and, where they
 * hold sandboxes of their own, {@link #leaks()}. {@code ForwardingFixtureTest} checks that every method of {@link SandboxFixture} is
 * forwarded, so one added later cannot be forgotten.
 */
public abstract class ForwardingFixture implements SandboxFixture {
    private final SandboxFixture delegate;

    protected ForwardingFixture(SandboxFixture delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    protected final SandboxFixture delegate() {
        return delegate;
    }

    @Override
    public Sandbox open(SandboxSpec spec) {
        return delegate.open(spec);
    }

    @Override
    public void removeVolume(String name) {
        delegate.removeVolume(name);
    }

    @Override
    public Sandbox openWithContexts(SandboxSpec spec) {
        return delegate.openWithContexts(spec);
    }

    @Override
    public Set<Feature> features() {
        return delegate.features();
    }

    @Override
    public List<String> leaks() {
        return delegate.leaks();
    }

    @Override
    public String workspaceRoot(Sandbox sandbox) {
        return delegate.workspaceRoot(sandbox);
    }

    @Override
    public AutoCloseable egressForTests(Function<String, InetAddress> resolver, InetSocketAddress... exempt) {
        return delegate.egressForTests(resolver, exempt);
    }

    @Override
    public AutoCloseable egressForTests(Function<String, InetAddress> resolver, SSLContext upstreamTls,
                                        InetSocketAddress... exempt) {
        return delegate.egressForTests(resolver, upstreamTls, exempt);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "(" + delegate + ")";
    }
}
