package dev.sandbox4j.core;

import dev.sandbox4j.Edit;
import dev.sandbox4j.EditResult;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.FileRules;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.FileWatch;
import dev.sandbox4j.ForwardingFileSystem;
import dev.sandbox4j.GrepOptions;
import dev.sandbox4j.GrepResult;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A {@link FileSystem} that holds {@link FileRules} over a backend's: every call that changes a path checks it
 * (as written and as its symbolic links resolve, with its parents, and for a directory everything under it) against
 * the protected globs, and with {@link FileRules#refuseSymlinks()} every call refuses a path that passes through a
 * link. Refusals are {@link dev.sandbox4j.ErrorKind#PERMISSION_DENIED} and change nothing. Every backend's sandbox
 * wraps its file system in one ({@link #of}), so the rules hold the same on each.
 *
 * <p>The checks are made before the call, by {@code stat}; code in the sandbox racing them (swapping a directory
 * for a link in between) gains nothing it could not do directly, since the rules bind the file API, not the sandbox.
 */
public final class GuardedFileSystem extends ForwardingFileSystem {
    private final FileSystem delegate;
    private final PathRules rules;
    private final FileRules fileRules;

    private GuardedFileSystem(FileSystem delegate, FileRules rules) {
        this.delegate = delegate;
        this.fileRules = rules;
        this.rules = new PathRules(delegate, rules);
    }

    /**
     * {@code fs} holding {@code rules}; {@code fs} itself when they restrict nothing.
     *
     * @throws dev.sandbox4j.SandboxException {@link dev.sandbox4j.ErrorKind#INVALID_ARGUMENT} for a malformed glob
     */
    public static FileSystem of(FileSystem fs, FileRules rules) {
        if (rules.isEmpty()) {
            return fs;
        }
        if (fs instanceof GuardedFileSystem g) {
            return new GuardedFileSystem(g.delegate, g.fileRules.and(rules));
        }
        return new GuardedFileSystem(fs, rules);
    }

    /** The rules this file system holds. */
    public FileRules rules() {
        return fileRules;
    }

    @Override
    protected FileSystem delegate() {
        return delegate;
    }

    // ------------------------------------------------------------------ reads: links only

    private String read(String path) {
        if (rules.refuseSymlinks()) {
            rules.resolve(path, true);
        }
        return path;
    }

    /** A call that describes a path without following it: only the links before its last segment count. */
    private String look(String path) {
        if (rules.refuseSymlinks()) {
            rules.resolve(path, false);
        }
        return path;
    }

    @Override
    public String readText(String path) {
        return delegate.readText(read(path));
    }

    @Override
    public String readText(String path, int fromLine, int toLine) {
        return delegate.readText(read(path), fromLine, toLine);
    }

    @Override
    public byte[] readBytes(String path) {
        return delegate.readBytes(read(path));
    }

    @Override
    public byte[] readBytes(String path, long offset, int length) {
        return delegate.readBytes(read(path), offset, length);
    }

    @Override
    public void readTo(String path, OutputStream sink) {
        delegate.readTo(read(path), sink);
    }

    @Override
    public FileInfo readToUnchanged(String path, OutputStream sink) {
        return delegate.readToUnchanged(read(path), sink);
    }

    @Override
    public FileInfo stat(String path) {
        return delegate.stat(look(path));
    }

    @Override
    public boolean exists(String path) {
        return delegate.exists(look(path));
    }

    @Override
    public List<FileInfo> list(String path) {
        return delegate.list(read(path));
    }

    @Override
    public List<FileInfo> list(String path, int depth) {
        return delegate.list(read(path), depth);
    }

    @Override
    public List<FileInfo> listVisible(String path, int depth) {
        return delegate.listVisible(read(path), depth);
    }

    @Override
    public List<String> find(String glob, String path, List<String> excludes) {
        return delegate.find(glob, read(path), excludes);
    }

    @Override
    public GrepResult grep(String regex, String path, GrepOptions options) {
        return delegate.grep(regex, read(path), options);
    }

    @Override
    public GrepResult grep(String regex, String path) {
        return delegate.grep(regex, read(path));
    }

    @Override
    public EditResult previewEdit(String path, List<Edit> edits) {
        return delegate.previewEdit(read(path), edits);
    }

    @Override
    public FileWatch watch(String path, FileWatch.Options options) {
        return delegate.watch(read(path), options);
    }

    @Override
    public FileWatch watch(String path) {
        return delegate.watch(read(path));
    }

    @Override
    public Optional<FileWatch.Event> waitFor(String path, FileWatch.Kind kind, Duration timeout) {
        return delegate.waitFor(look(path), kind, timeout);
    }

    // ------------------------------------------------------------------ changes

    /** A call that changes a file's content, following it: the path as written and where it leads. */
    private String change(String path) {
        String written = WorkspacePaths.normalize(path);
        refuseProtected(path, written);
        if (rules.protects() || rules.refuseSymlinks()) {
            refuseProtected(path, rules.resolve(path, true));
        }
        return path;
    }

    /**
     * A call that removes, moves or replaces the entry at {@code path} itself (never following it), and with it a
     * directory's whole tree, which may land at {@code movedTo}.
     */
    private String structural(String path, String movedTo) {
        String written = WorkspacePaths.normalize(path);
        refuseProtected(path, written);
        String real = rules.resolve(path, false);
        refuseProtected(path, real);
        if (rules.protects() && rules.holdsProtected(real, movedTo, false)) {
            throw PathRules.denied(path, "it holds a protected path"
                    + (movedTo == null ? "" : " or would put one under " + movedTo));
        }
        return path;
    }

    private void refuseProtected(String path, String normalized) {
        if (rules.isProtected(normalized)) {
            throw PathRules.denied(path, (normalized.equals(WorkspacePaths.normalize(path)) ? "it"
                    : "it leads to " + normalized + ", which") + " is protected: readable, but not changed through"
                    + " the file API");
        }
    }

    private void moveChecks(String from, String to) {
        String target = rules.resolve(to, false);
        structural(from, target);
        structural(to, null);
    }

    @Override
    public void write(String path, String text) {
        delegate.write(change(path), text);
    }

    @Override
    public void write(String path, byte[] content) {
        delegate.write(change(path), content);
    }

    @Override
    public void write(String path, InputStream content) {
        delegate.write(change(path), content);
    }

    @Override
    public void append(String path, String text) {
        delegate.append(change(path), text);
    }

    @Override
    public void append(String path, byte[] content) {
        delegate.append(change(path), content);
    }

    @Override
    public void mkdirs(String path) {
        delegate.mkdirs(change(path));
    }

    @Override
    public void move(String from, String to) {
        moveChecks(from, to);
        delegate.move(from, to);
    }

    @Override
    public void moveReplacing(String from, String to) {
        moveChecks(from, to);
        delegate.moveReplacing(from, to);
    }

    @Override
    public void copy(String from, String to) {
        copyChecks(from, to);
        delegate.copy(from, to);
    }

    @Override
    public void copyReplacing(String from, String to) {
        copyChecks(from, to);
        delegate.copyReplacing(from, to);
    }

    private void copyChecks(String from, String to) {
        read(from);
        structural(to, null);
        if (rules.protects() && rules.holdsProtected(rules.resolve(from, false), rules.resolve(to, false), true)) {
            throw PathRules.denied(to, "copying " + from + " there would create a protected path");
        }
    }

    @Override
    public void delete(String path) {
        delegate.delete(structural(path, null));
    }

    @Override
    public void deleteRecursively(String path) {
        delegate.deleteRecursively(structural(path, null));
    }

    @Override
    public EditResult replace(String path, String oldText, String newText) {
        return delegate.replace(change(path), oldText, newText);
    }

    @Override
    public EditResult edit(String path, List<Edit> edits) {
        return delegate.edit(change(path), edits);
    }

    @Override
    public String toString() {
        return delegate + " with " + fileRules;
    }
}
