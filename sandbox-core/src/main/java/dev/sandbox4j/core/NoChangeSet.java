package dev.sandbox4j.core;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.Workspace;
import dev.sandbox4j.WorkspaceSource;
import java.nio.file.Path;
import java.util.List;

/**
 * The workspace of a source with nothing to compare against (empty) or whose host is written already (bind): its
 * change-set calls fail with {@link ErrorKind#UNSUPPORTED}, naming the source.
 */
public final class NoChangeSet implements Workspace {
    private final WorkspaceSource source;
    private final Runnable guard;

    public NoChangeSet(WorkspaceSource source, Runnable guard) {
        this.source = source;
        this.guard = guard;
    }

    @Override
    public WorkspaceSource source() {
        return source;
    }

    @Override
    public List<Change> changes() {
        throw refused();
    }

    @Override
    public String diff() {
        throw refused();
    }

    @Override
    public List<Change> applyTo(Path hostDir) {
        throw refused();
    }

    private SandboxException refused() {
        guard.run();
        return new SandboxException(ErrorKind.UNSUPPORTED, "a workspace from the source " + source
                + " has no change set: only copy and overlay sources keep what to compare against");
    }
}
