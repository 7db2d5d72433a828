package dev.sandbox4j;

import java.time.Duration;

/**
 * A {@link Shell} that forwards every call, the convenience overloads included, to another one. See
 * {@link ForwardingSandbox} for why defaults are forwarded too, and what that means for a decorator.
 */
public abstract class ForwardingShell implements Shell {
    protected ForwardingShell() {
    }

    /** The shell calls are forwarded to. */
    protected abstract Shell delegate();

    @Override
    public ExecResult run(String command) {
        return delegate().run(command);
    }

    @Override
    public ExecResult run(String command, Duration timeout) {
        return delegate().run(command, timeout);
    }

    @Override
    public ExecResult run(ExecRequest request) {
        return delegate().run(request);
    }

    @Override
    public ExecHandle start(ExecRequest request, OutputListener listener) {
        return delegate().start(request, listener);
    }

    @Override
    public ExecHandle start(ExecRequest request) {
        return delegate().start(request);
    }

    @Override
    public Processes processes() {
        return delegate().processes();
    }

    @Override
    public String toString() {
        return delegate().toString();
    }
}
