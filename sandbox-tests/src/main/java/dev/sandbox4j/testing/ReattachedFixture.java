package dev.sandbox4j.testing;

import dev.sandbox4j.AttachCredential;
import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.spi.SandboxProvider;

import java.time.Duration;

/**
 * The kit on sandboxes that were opened leased, detached, and attached to again (issue 31, docs/reattach.md): every
 * sandbox a test gets is a reattached one, driven by a second host. What a detach and an attach could break (the
 * channel, the command settings, the limits reported) shows up as a contract failing here and not on the plain
 * fixture. A spec with a network policy cannot be leased and is opened plain; the attach gives the host's own
 * settings (command timeout, lifetime, output cap, environment, file rules), as a later host would.
 */
public final class ReattachedFixture extends ForwardingFixture {
    private final SandboxProvider provider;

    /** Over {@code plain}, whose sandboxes {@code provider} can attach to. */
    public ReattachedFixture(SandboxFixture plain, SandboxProvider provider) {
        super(plain);
        this.provider = provider;
    }

    @Override
    public Sandbox open(SandboxSpec spec) {
        if (spec.network().mode() != NetworkPolicy.Mode.NONE) {
            return delegate().open(spec);
        }
        Sandbox first = delegate().open(spec.toBuilder().lease(Duration.ofMinutes(10)).build());
        String id = first.id();
        AttachCredential credential = first.detach();
        SandboxSpec settings = SandboxSpec.builder().commandTimeout(spec.commandTimeout())
                .lifetime(spec.lifetime()).outputLimit(spec.outputLimit()).env(spec.env())
                .fileRules(spec.fileRules()).build();
        return provider.attach(id, credential, settings);
    }

    @Override
    public Sandbox openWithContexts(SandboxSpec spec) {
        return open(spec);
    }
}
