package dev.sandbox4j;

import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/** A {@link Ports} that forwards every call to another one. See {@link ForwardingSandbox}. */
public abstract class ForwardingPorts implements Ports {
    protected ForwardingPorts() {
    }

    /** The ports calls are forwarded to. */
    protected abstract Ports delegate();

    @Override
    public PortForward open(int sandboxPort) {
        return delegate().open(sandboxPort);
    }

    @Override
    public PortForward open(int sandboxPort, int hostPort) {
        return delegate().open(sandboxPort, hostPort);
    }

    @Override
    public List<PortForward> list() {
        return delegate().list();
    }

    @Override
    public void waitForPort(int sandboxPort, Duration timeout) {
        delegate().waitForPort(sandboxPort, timeout);
    }

    @Override
    public String waitForLog(String processId, Pattern pattern, Duration timeout) {
        return delegate().waitForLog(processId, pattern, timeout);
    }

    @Override
    public String toString() {
        return delegate().toString();
    }
}
