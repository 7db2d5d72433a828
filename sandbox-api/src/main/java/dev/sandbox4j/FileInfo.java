package dev.sandbox4j;

import java.time.Instant;
import java.util.Objects;

/**
 * What {@link FileSystem#stat} and {@link FileSystem#list} tell about one file, without following links.
 *
 * @param path       workspace-relative path, {@code ""} for the workspace root
 * @param type       file, directory, symbolic link or other
 * @param size       size in bytes (for a link: of the link itself)
 * @param mode       POSIX permission bits, such as {@code 0644}; -1 where the backend has none
 * @param modified   last modification time
 * @param linkTarget the target text of a symbolic link, as stored (not resolved); null for other types
 */
public record FileInfo(String path, FileType type, long size, int mode, Instant modified, String linkTarget) {
    public FileInfo {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(modified, "modified");
    }

    /** The last path segment, {@code ""} for the workspace root. */
    public String name() {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? path : path.substring(slash + 1);
    }

    public boolean isDirectory() {
        return type == FileType.DIRECTORY;
    }

    public boolean isFile() {
        return type == FileType.FILE;
    }
}
