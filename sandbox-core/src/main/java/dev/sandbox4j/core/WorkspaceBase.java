package dev.sandbox4j.core;

import dev.sandbox4j.Edit;
import dev.sandbox4j.EditResult;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.FileWatch;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The named variants of {@link FileSystem}'s operations ({@code listVisible}, {@code moveReplacing},
 * {@code deleteRecursively}, {@code previewEdit}, ...) over one primitive each, so a backend writes each operation
 * once, with the variant as a parameter, and every backend maps the names the same way.
 */
public abstract class WorkspaceBase implements FileSystem {
    private volatile WatchHub watches;

    protected WorkspaceBase() {
    }

    /** Makes {@link #watch} and {@link #waitFor} work, over {@code source}'s raw changes; returns the hub. */
    public final WatchHub enableWatches(WatchHub.Source source) {
        WatchHub hub = new WatchHub(source, this);
        watches = hub;
        return hub;
    }

    private WatchHub watches() {
        WatchHub hub = watches;
        if (hub == null) {
            throw WatchHub.unsupported();
        }
        return hub;
    }

    @Override
    public final FileWatch watch(String path, FileWatch.Options options) {
        return watches().watch(path, options);
    }

    @Override
    public final Optional<FileWatch.Event> waitFor(String path, FileWatch.Kind kind, Duration timeout) {
        return watches().waitFor(path, kind, timeout);
    }

    /** Lists {@code path} down to {@code depth} levels, with dot files or without. */
    protected abstract List<FileInfo> list(String path, int depth, boolean includeHidden);

    /** Moves {@code from} to {@code to}, over an existing {@code to} or refusing it. */
    protected abstract void move(String from, String to, boolean overwrite);

    /** Copies {@code from} to {@code to}, over an existing {@code to} or refusing it. */
    protected abstract void copy(String from, String to, boolean overwrite);

    /** Deletes {@code path}; a non-empty directory only when {@code recursive}. */
    protected abstract void delete(String path, boolean recursive);

    /** Applies {@code edits} all or none; a dry run writes nothing. */
    protected abstract EditResult edit(String path, List<Edit> edits, boolean dryRun);

    @Override
    public final List<FileInfo> list(String path, int depth) {
        return list(path, depth, true);
    }

    @Override
    public final List<FileInfo> listVisible(String path, int depth) {
        return list(path, depth, false);
    }

    @Override
    public final void move(String from, String to) {
        move(from, to, false);
    }

    @Override
    public final void moveReplacing(String from, String to) {
        move(from, to, true);
    }

    @Override
    public final void copy(String from, String to) {
        copy(from, to, false);
    }

    @Override
    public final void copyReplacing(String from, String to) {
        copy(from, to, true);
    }

    @Override
    public final void delete(String path) {
        delete(path, false);
    }

    @Override
    public final void deleteRecursively(String path) {
        delete(path, true);
    }

    @Override
    public final EditResult edit(String path, List<Edit> edits) {
        return edit(path, edits, false);
    }

    @Override
    public final EditResult previewEdit(String path, List<Edit> edits) {
        return edit(path, edits, true);
    }
}
