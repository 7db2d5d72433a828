package dev.sandbox4j;

import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A {@link FileSystem} that forwards every call, the defaults included ({@link #readToUnchanged}, the overloads), to
 * another one: a backend's own {@code readToUnchanged} is kept, not replaced by the generic default. See
 * {@link ForwardingSandbox} for what that means for a decorator.
 */
public abstract class ForwardingFileSystem implements FileSystem {
    protected ForwardingFileSystem() {
    }

    /** The file system calls are forwarded to. */
    protected abstract FileSystem delegate();

    @Override
    public String readText(String path) {
        return delegate().readText(path);
    }

    @Override
    public String readText(String path, int fromLine, int toLine) {
        return delegate().readText(path, fromLine, toLine);
    }

    @Override
    public byte[] readBytes(String path) {
        return delegate().readBytes(path);
    }

    @Override
    public byte[] readBytes(String path, long offset, int length) {
        return delegate().readBytes(path, offset, length);
    }

    @Override
    public void readTo(String path, OutputStream sink) {
        delegate().readTo(path, sink);
    }

    @Override
    public FileInfo readToUnchanged(String path, OutputStream sink) {
        return delegate().readToUnchanged(path, sink);
    }

    @Override
    public void write(String path, String text) {
        delegate().write(path, text);
    }

    @Override
    public void write(String path, byte[] content) {
        delegate().write(path, content);
    }

    @Override
    public void write(String path, InputStream content) {
        delegate().write(path, content);
    }

    @Override
    public void append(String path, String text) {
        delegate().append(path, text);
    }

    @Override
    public void append(String path, byte[] content) {
        delegate().append(path, content);
    }

    @Override
    public FileInfo stat(String path) {
        return delegate().stat(path);
    }

    @Override
    public boolean exists(String path) {
        return delegate().exists(path);
    }

    @Override
    public List<FileInfo> list(String path) {
        return delegate().list(path);
    }

    @Override
    public List<FileInfo> list(String path, int depth) {
        return delegate().list(path, depth);
    }

    @Override
    public List<FileInfo> listVisible(String path, int depth) {
        return delegate().listVisible(path, depth);
    }

    @Override
    public List<String> find(String glob, String path, List<String> excludes) {
        return delegate().find(glob, path, excludes);
    }

    @Override
    public GrepResult grep(String regex, String path, GrepOptions options) {
        return delegate().grep(regex, path, options);
    }

    @Override
    public GrepResult grep(String regex, String path) {
        return delegate().grep(regex, path);
    }

    @Override
    public void mkdirs(String path) {
        delegate().mkdirs(path);
    }

    @Override
    public void move(String from, String to) {
        delegate().move(from, to);
    }

    @Override
    public void moveReplacing(String from, String to) {
        delegate().moveReplacing(from, to);
    }

    @Override
    public void copy(String from, String to) {
        delegate().copy(from, to);
    }

    @Override
    public void copyReplacing(String from, String to) {
        delegate().copyReplacing(from, to);
    }

    @Override
    public void delete(String path) {
        delegate().delete(path);
    }

    @Override
    public void deleteRecursively(String path) {
        delegate().deleteRecursively(path);
    }

    @Override
    public EditResult replace(String path, String oldText, String newText) {
        return delegate().replace(path, oldText, newText);
    }

    @Override
    public EditResult edit(String path, List<Edit> edits) {
        return delegate().edit(path, edits);
    }

    @Override
    public EditResult previewEdit(String path, List<Edit> edits) {
        return delegate().previewEdit(path, edits);
    }

    @Override
    public FileWatch watch(String path, FileWatch.Options options) {
        return delegate().watch(path, options);
    }

    @Override
    public FileWatch watch(String path) {
        return delegate().watch(path);
    }

    @Override
    public Optional<FileWatch.Event> waitFor(String path, FileWatch.Kind kind, Duration timeout) {
        return delegate().waitFor(path, kind, timeout);
    }

    @Override
    public String toString() {
        return delegate().toString();
    }
}
