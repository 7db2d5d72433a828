package dev.sandbox4j;

import java.time.Duration;

/**
 * A {@link CodeContext} that forwards every call, the convenience overloads included, to another one. See
 * {@link ForwardingSandbox} for why defaults are forwarded too.
 */
public abstract class ForwardingCodeContext implements CodeContext {
    protected ForwardingCodeContext() {
    }

    /** The context calls are forwarded to. */
    protected abstract CodeContext delegate();

    @Override
    public String id() {
        return delegate().id();
    }

    @Override
    public Language language() {
        return delegate().language();
    }

    @Override
    public CodeResult run(String code) {
        return delegate().run(code);
    }

    @Override
    public CodeResult run(String code, Duration timeout) {
        return delegate().run(code, timeout);
    }

    @Override
    public CodeResult run(CodeRequest request) {
        return delegate().run(request);
    }

    @Override
    public boolean isOpen() {
        return delegate().isOpen();
    }

    @Override
    public void close() {
        delegate().close();
    }

    @Override
    public String toString() {
        return delegate().toString();
    }
}
