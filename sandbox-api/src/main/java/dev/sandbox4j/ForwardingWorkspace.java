package dev.sandbox4j;

import java.nio.file.Path;
import java.util.List;

/** A {@link Workspace} that forwards every call to another one; see {@link ForwardingSandbox}. */
public abstract class ForwardingWorkspace implements Workspace {
    protected ForwardingWorkspace() {
    }

    /** The workspace calls are forwarded to. */
    protected abstract Workspace delegate();

    @Override
    public WorkspaceSource source() {
        return delegate().source();
    }

    @Override
    public List<Change> changes() {
        return delegate().changes();
    }

    @Override
    public String diff() {
        return delegate().diff();
    }

    @Override
    public List<Change> applyTo(Path hostDir) {
        return delegate().applyTo(hostDir);
    }

    @Override
    public String toString() {
        return delegate().toString();
    }
}
