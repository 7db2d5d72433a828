package dev.sandbox4j;

/**
 * A {@link Sandbox} that forwards every call to another one, for decorators (metrics, tracing, policy checks) that
 * override only what they change, in the style of Guava's {@code Forwarding*} classes.
 *
 * <p>Every method is forwarded, interface defaults included, so a decorator never falls back to an interface
 * default the delegate overrides (a hand-written {@code CodeRunner} that forgot {@code createContext} answered
 * {@code unsupported} for a backend that has contexts). The flip side: a decorator that overrides one overload does
 * not see calls of the others, which go straight to the delegate; override each one it must see. The components
 * ({@link #shell()}, {@link #code()}, {@link #files()}) are the delegate's unless overridden; wrap them with
 * {@link ForwardingShell}, {@link ForwardingCodeRunner}, {@link ForwardingFileSystem} and
 * {@link ForwardingWorkspace}.
 */
public abstract class ForwardingSandbox implements Sandbox {
    protected ForwardingSandbox() {
    }

    /** The sandbox calls are forwarded to. */
    protected abstract Sandbox delegate();

    @Override
    public String id() {
        return delegate().id();
    }

    @Override
    public Shell shell() {
        return delegate().shell();
    }

    @Override
    public CodeRunner code() {
        return delegate().code();
    }

    @Override
    public FileSystem files() {
        return delegate().files();
    }

    @Override
    public Workspace workspace() {
        return delegate().workspace();
    }

    @Override
    public Ports ports() {
        return delegate().ports();
    }

    @Override
    public AttachCredential credential() {
        return delegate().credential();
    }

    @Override
    public AttachCredential detach() {
        return delegate().detach();
    }

    @Override
    public void pause() {
        delegate().pause();
    }

    @Override
    public void resume() {
        delegate().resume();
    }

    @Override
    public Snapshot snapshot() {
        return delegate().snapshot();
    }

    @Override
    public Snapshot snapshot(SnapshotStore store) {
        return delegate().snapshot(store);
    }

    @Override
    public Sandbox fork() {
        return delegate().fork();
    }

    @Override
    public SandboxInfo info() {
        return delegate().info();
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
