package dev.sandbox4j;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * A sandbox's workspace as a change set over where it came from ({@link WorkspaceSource}): what the sandbox
 * created, modified and deleted, so a person (or a model) can review it and apply it back to a host directory.
 * Offered for {@link WorkspaceSource.Kind#OVERLAY} and {@link WorkspaceSource.Kind#COPY} sources; for the others
 * (nothing to compare against, or the host is written already) the calls fail with {@link ErrorKind#UNSUPPORTED}.
 */
public interface Workspace {
    /** What the workspace started from. */
    WorkspaceSource source();

    /**
     * What differs from the source as it was at open, sorted by path: a directory created or deleted is listed with
     * what it holds. Modes and symbolic links (their targets, never followed) count; timestamps do not.
     */
    List<Change> changes();

    /**
     * The changes as a unified diff ({@code git apply}-able for text): binary files are named
     * ({@code Binary files a/x and b/x differ}), not dumped; mode changes and symbolic links as git writes them.
     */
    String diff();

    /**
     * Applies the changes to {@code hostDir}, each file atomically (written beside it, then renamed over it). First
     * checks every change against the host's current content: a file changed on the host since the sandbox opened, or
     * created there at a path the sandbox also created, is a conflict; then nothing is applied and the call fails with
     * {@link ErrorKind#CONFLICT} naming the files.
     *
     * @return the changes applied
     */
    List<Change> applyTo(Path hostDir);

    /**
     * One change. {@code before} is null for a created path, {@code after} null for a deleted one; both are set for
     * a modification (content, mode, or a symbolic link's target or type).
     *
     * @param kind   created, modified or deleted
     * @param path   workspace-relative POSIX path
     * @param before the source's entry
     * @param after  the workspace's entry
     */
    record Change(Kind kind, String path, FileInfo before, FileInfo after) {
        /** What happened to the path. */
        public enum Kind {
            CREATED,
            MODIFIED,
            DELETED
        }

        public Change {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(path, "path");
            if ((before == null) != (kind == Kind.CREATED) || (after == null) != (kind == Kind.DELETED)) {
                throw new IllegalArgumentException(kind + " " + path + ": before " + before + ", after " + after);
            }
        }
    }
}
