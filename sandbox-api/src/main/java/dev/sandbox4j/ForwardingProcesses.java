package dev.sandbox4j;

import java.time.Duration;
import java.util.List;

/**
 * A {@link Processes} that forwards every call, the convenience overloads included, to another one. See
 * {@link ForwardingSandbox} for why defaults are forwarded too.
 */
public abstract class ForwardingProcesses implements Processes {
    protected ForwardingProcesses() {
    }

    /** The registry calls are forwarded to. */
    protected abstract Processes delegate();

    @Override
    public ProcessInfo start(ExecRequest request) {
        return delegate().start(request);
    }

    @Override
    public List<ProcessInfo> list() {
        return delegate().list();
    }

    @Override
    public ProcessInfo info(String id) {
        return delegate().info(id);
    }

    @Override
    public ProcessOutput read(String id, long cursor, Duration wait) {
        return delegate().read(id, cursor, wait);
    }

    @Override
    public void writeStdin(String id, byte[] bytes) {
        delegate().writeStdin(id, bytes);
    }

    @Override
    public void writeStdin(String id, String text) {
        delegate().writeStdin(id, text);
    }

    @Override
    public void closeStdin(String id) {
        delegate().closeStdin(id);
    }

    @Override
    public void resize(String id, int cols, int rows) {
        delegate().resize(id, cols, rows);
    }

    @Override
    public ProcessInfo kill(String id) {
        return delegate().kill(id);
    }

    @Override
    public String toString() {
        return delegate().toString();
    }
}
