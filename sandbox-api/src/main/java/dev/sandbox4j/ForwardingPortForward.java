package dev.sandbox4j;

import java.net.InetSocketAddress;

/** A {@link PortForward} that forwards every call to another one. See {@link ForwardingSandbox}. */
public abstract class ForwardingPortForward implements PortForward {
    protected ForwardingPortForward() {
    }

    /** The forward calls are forwarded to. */
    protected abstract PortForward delegate();

    @Override
    public int sandboxPort() {
        return delegate().sandboxPort();
    }

    @Override
    public InetSocketAddress address() {
        return delegate().address();
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
