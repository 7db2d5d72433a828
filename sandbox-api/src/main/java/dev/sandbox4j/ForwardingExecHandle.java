package dev.sandbox4j;

import java.time.Duration;
import java.util.Optional;

/**
 * An {@link ExecHandle} that forwards every call, the convenience overloads included, to another one. See
 * {@link ForwardingSandbox} for why defaults are forwarded too.
 */
public abstract class ForwardingExecHandle implements ExecHandle {
    protected ForwardingExecHandle() {
    }

    /** The handle calls are forwarded to. */
    protected abstract ExecHandle delegate();

    @Override
    public String command() {
        return delegate().command();
    }

    @Override
    public void writeStdin(byte[] bytes) {
        delegate().writeStdin(bytes);
    }

    @Override
    public void writeStdin(String text) {
        delegate().writeStdin(text);
    }

    @Override
    public void closeStdin() {
        delegate().closeStdin();
    }

    @Override
    public Optional<ExecResult> await(Duration timeout) {
        return delegate().await(timeout);
    }

    @Override
    public boolean isAlive() {
        return delegate().isAlive();
    }

    @Override
    public ExecResult kill() {
        return delegate().kill();
    }

    @Override
    public void resize(int cols, int rows) {
        delegate().resize(cols, rows);
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
