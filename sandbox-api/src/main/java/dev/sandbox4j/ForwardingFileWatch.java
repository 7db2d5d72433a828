package dev.sandbox4j;

import java.time.Duration;

/** A {@link FileWatch} that forwards every call to another one. See {@link ForwardingSandbox}. */
public abstract class ForwardingFileWatch implements FileWatch {
    protected ForwardingFileWatch() {
    }

    /** The watch calls are forwarded to. */
    protected abstract FileWatch delegate();

    @Override
    public String id() {
        return delegate().id();
    }

    @Override
    public String path() {
        return delegate().path();
    }

    @Override
    public Batch poll(long cursor, Duration wait) {
        return delegate().poll(cursor, wait);
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
