package dev.sandbox4j.core;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.Workspace;
import dev.sandbox4j.WorkspaceSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * The change set of a copied workspace the host has no path to: each call downloads the workspace into a private host
 * directory (a container engine's archive through its hardened reader, or the file API through the snapshot reader:
 * hostile content, bounded), compares it with the host directory by the shared {@link ChangeSet} (the same rules as
 * the local backend's copy: content compared byte for byte, the ctime fence for apply-back) and deletes the download.
 * A call costs a download of the workspace; nothing of it is kept between calls, so what is reported is what the
 * sandbox holds at the call.
 */
public final class DownloadedChangeSet implements Workspace {
    /** Fills the empty directory it is given with the sandbox's workspace tree; never follows what it wrote. */
    @FunctionalInterface
    public interface Download {
        void into(Path emptyDir) throws IOException;
    }

    private final WorkspaceSource source;
    private final Path real;
    private final Runnable pinned;
    private final Instant opened;
    private final Duration margin;
    private final Set<String> hidden;
    private final Download download;
    private final Runnable guard;

    public DownloadedChangeSet(WorkspaceSource source, Path real, Runnable pinned, Instant opened, Duration margin,
                        Set<String> hidden, Download download, Runnable guard) {
        this.source = source;
        this.real = real;
        this.pinned = pinned;
        this.opened = opened;
        this.margin = margin;
        this.hidden = hidden;
        this.download = download;
        this.guard = guard;
    }

    @Override
    public WorkspaceSource source() {
        return source;
    }

    @Override
    public List<Change> changes() {
        return withTree(ChangeSet::changes);
    }

    @Override
    public String diff() {
        return withTree(ChangeSet::diff);
    }

    @Override
    public List<Change> applyTo(Path hostDir) {
        return withTree(cs -> cs.applyTo(hostDir));
    }

    private <T> T withTree(Function<ChangeSet, T> f) {
        guard.run();
        pinned.run();
        Path tmp = null;
        try {
            tmp = Files.createTempDirectory("sandbox4j-changes-");
            Path tree = Files.createDirectory(tmp.resolve("workspace"));
            download.into(tree);
            // mount points under the workspace are left out by hiding(), not deleted here: a path under one may lead
            // through a link the sandbox made above it, and a delete must never follow one out of the download
            return f.apply(new ChangeSet(source, real, tree, ChangeSet.Layout.FULL_TREE,
                    ChangeSet.unchangedSince(opened, margin), guard).hiding(hidden));
        } catch (IOException e) {
            throw new SandboxException(ErrorKind.IO_ERROR, "reading the sandbox's workspace for its change set: "
                    + e.getMessage(), e);
        } finally {
            if (tmp != null) {
                delete(tmp);
            }
        }
    }

    private static void delete(Path dir) {
        try {
            NioWorkspace.deleteTree(dir);
        } catch (IOException e) {
            // a leftover in the temp directory; nothing of the sandbox's
        }
    }
}
