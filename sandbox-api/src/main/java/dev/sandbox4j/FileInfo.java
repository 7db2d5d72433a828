package dev.sandbox4j;

import java.time.Instant;
import java.util.Locale;
import java.util.Objects;

/**
 * What {@link FileSystem#stat} and {@link FileSystem#list} tell about one file, without following links: its path,
 * what it is ({@link #isFile()}, {@link #isDirectory()}, {@link #isSymlink()}, {@link #isOther()}, exactly one of
 * them true, as in {@link java.nio.file.attribute.BasicFileAttributes}), size, permission bits and modification time.
 * Immutable; built by backends through {@link #file}, {@link #directory}, {@link #symlink} and {@link #other}.
 */
public final class FileInfo {
    private enum Kind { FILE, DIRECTORY, SYMLINK, OTHER }

    private final String path;
    private final Kind kind;
    private final long size;
    private final int mode;
    private final Instant modified;
    private final String linkTarget;

    private FileInfo(String path, Kind kind, long size, int mode, Instant modified, String linkTarget) {
        this.path = Objects.requireNonNull(path, "path");
        this.kind = kind;
        this.size = size;
        this.mode = mode;
        this.modified = Objects.requireNonNull(modified, "modified");
        this.linkTarget = linkTarget;
    }

    /**
     * A regular file.
     *
     * @param path     workspace-relative path
     * @param size     size in bytes
     * @param mode     POSIX permission bits, such as {@code 0644}; -1 where the backend has none
     * @param modified last modification time
     */
    public static FileInfo file(String path, long size, int mode, Instant modified) {
        return new FileInfo(path, Kind.FILE, size, mode, modified, null);
    }

    /** A directory; {@code path} is {@code ""} for the workspace root. Parameters as in {@link #file}. */
    public static FileInfo directory(String path, long size, int mode, Instant modified) {
        return new FileInfo(path, Kind.DIRECTORY, size, mode, modified, null);
    }

    /**
     * A symbolic link, not followed.
     *
     * @param target the link's target text, as stored (not resolved)
     * @param size   the size of the link itself
     */
    public static FileInfo symlink(String path, String target, long size, int mode, Instant modified) {
        return new FileInfo(path, Kind.SYMLINK, size, mode, modified, Objects.requireNonNull(target, "target"));
    }

    /** A FIFO, socket or device node: listed and stat'ed, never opened. Parameters as in {@link #file}. */
    public static FileInfo other(String path, long size, int mode, Instant modified) {
        return new FileInfo(path, Kind.OTHER, size, mode, modified, null);
    }

    /** Workspace-relative path, {@code ""} for the workspace root. */
    public String path() {
        return path;
    }

    /** The last path segment, {@code ""} for the workspace root. */
    public String name() {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? path : path.substring(slash + 1);
    }

    public boolean isFile() {
        return kind == Kind.FILE;
    }

    public boolean isDirectory() {
        return kind == Kind.DIRECTORY;
    }

    /** A symbolic link (never followed: {@link #linkTarget()} says where it points). */
    public boolean isSymlink() {
        return kind == Kind.SYMLINK;
    }

    /** A FIFO, socket or device node. */
    public boolean isOther() {
        return kind == Kind.OTHER;
    }

    /** Size in bytes (for a link: of the link itself). */
    public long size() {
        return size;
    }

    /** POSIX permission bits, such as {@code 0644}; -1 where the backend has none. */
    public int mode() {
        return mode;
    }

    public Instant modified() {
        return modified;
    }

    /** The target text of a symbolic link, as stored (not resolved); null for other types. */
    public String linkTarget() {
        return linkTarget;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FileInfo f && path.equals(f.path) && kind == f.kind && size == f.size && mode == f.mode
                && modified.equals(f.modified) && Objects.equals(linkTarget, f.linkTarget);
    }

    @Override
    public int hashCode() {
        return Objects.hash(path, kind, size, mode, modified, linkTarget);
    }

    @Override
    public String toString() {
        return "FileInfo[path=" + path + ", " + kind.name().toLowerCase(Locale.ROOT) + ", size=" + size + ", mode="
                + (mode < 0 ? "none" : Integer.toOctalString(mode)) + ", modified=" + modified
                + (linkTarget == null ? "" : ", linkTarget=" + linkTarget) + "]";
    }
}
