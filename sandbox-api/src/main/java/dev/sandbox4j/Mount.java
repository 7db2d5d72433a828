package dev.sandbox4j;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * An extra directory in the sandbox beside its workspace: a host path read-only ({@link #readOnly}, for inputs,
 * toolchains and caches the sandbox must not change) or an empty read-write scratch directory ({@link #scratch}),
 * removed with the sandbox. The host path is checked at open like a workspace source's (exists, not a symbolic link,
 * not a device); writes to a read-only mount fail inside ({@code EROFS}) and through the file API
 * ({@link ErrorKind#PERMISSION_DENIED}). Both kinds are listed in {@link SandboxInfo#details()} ({@code mounts}).
 *
 * @param kind     read-only host path or scratch
 * @param hostPath the host directory or file (absolute), null for scratch
 * @param path     where the sandbox sees it: an absolute POSIX path, such as {@code /workspace/data} or
 *                 {@code /data}; not the workspace itself, nor under a system directory
 */
public record Mount(Kind kind, Path hostPath, String path) {
    /** The kind of mount. */
    public enum Kind {
        /** A host directory or file, read-only. */
        READ_ONLY,
        /** An empty directory, read-write, gone with the sandbox. */
        SCRATCH
    }

    private static final List<String> RESERVED = List.of("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
            "/libx32", "/etc", "/proc", "/dev", "/sys", "/tmp", "/opt/sandbox4j", "/run");

    public Mount {
        Objects.requireNonNull(kind, "kind");
        if ((kind == Kind.READ_ONLY) != (hostPath != null)) {
            throw new IllegalArgumentException(kind + " mount " + (hostPath == null ? "needs" : "takes no")
                    + " host path");
        }
        hostPath = hostPath == null ? null : WorkspaceSource.absolute(hostPath);
        path = checkPath(path);
    }

    /** {@code hostPath}, read-only, seen at {@code path} in the sandbox. */
    public static Mount readOnly(Path hostPath, String path) {
        return new Mount(Kind.READ_ONLY, hostPath, path);
    }

    /** An empty read-write directory at {@code path}, removed with the sandbox. */
    public static Mount scratch(String path) {
        return new Mount(Kind.SCRATCH, null, path);
    }

    private static String checkPath(String path) {
        Objects.requireNonNull(path, "path");
        if (!path.startsWith("/") || path.length() < 2 || path.endsWith("/") || path.contains("//")
                || path.contains("\0") || path.contains("'") || (path + "/").contains("/./")
                || (path + "/").contains("/../")) {
            throw new IllegalArgumentException("mount path '" + path + "' must be absolute and normal, without a "
                    + "trailing slash");
        }
        if (path.equals("/workspace")) {
            throw new IllegalArgumentException("a mount cannot replace the workspace; use a WorkspaceSource");
        }
        for (String r : RESERVED) {
            if (path.equals(r) || path.startsWith(r + "/") || r.startsWith(path + "/")) {
                throw new IllegalArgumentException("mount path '" + path + "' is, holds or is under the system "
                        + "directory " + r);
            }
        }
        return path;
    }

    /** Such as {@code ro:/data/set -> /data} or {@code scratch:/cache}. */
    @Override
    public String toString() {
        return kind == Kind.READ_ONLY ? "ro:" + hostPath + " -> " + path
                : kind.name().toLowerCase(Locale.ROOT) + ":" + path;
    }
}
