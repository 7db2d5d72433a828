package dev.sandbox4j;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Rules the file API ({@link Sandbox#files()}) holds for a sandbox beyond the workspace boundary: paths that are
 * readable but never changed through it, and whether it refuses symbolic links inside the workspace.
 *
 * <p>A <b>protected</b> path (a workspace-relative glob: {@code SOUL.md}, {@code config/**}, {@code *.pem}; a glob
 * without a slash matches a name at any depth) cannot be written, appended to, edited, created, moved, renamed onto,
 * copied over or deleted through any {@link FileSystem} call, nor through a directory that holds it (moving or
 * deleting its parent), nor through a symbolic link that resolves to it. Matching ignores case, so a workspace on a
 * case-insensitive file system is covered too. Such a call fails with {@link ErrorKind#PERMISSION_DENIED} and changes
 * nothing.
 *
 * <p>With {@link #refuseSymlinks()}, every file call whose path passes through a symbolic link inside the workspace
 * (or names one, for calls that would follow it) fails with {@link ErrorKind#PERMISSION_DENIED}.
 *
 * <p>These are rules of the file API, not of the sandbox: code running in the sandbox (a shell, {@code exec}, a code
 * context) can still change a protected file, as it can any file of its workspace. Use a read-only
 * {@link Mount} where the sandbox itself must not change a file.
 *
 * @param protectedPaths globs of the paths that are read-only through the file API
 * @param refuseSymlinks whether file calls refuse symbolic links inside the workspace
 */
public record FileRules(List<String> protectedPaths, boolean refuseSymlinks) {
    /** No protected path, symbolic links followed inside the workspace: the default. */
    public static final FileRules NONE = new FileRules(List.of(), false);

    /** Spacebot's rule: its identity files are read-only and symbolic links are refused. */
    public static final FileRules SPACEBOT = new FileRules(List.of("SOUL.md", "IDENTITY.md", "USER.md"), true);

    /** At most this many globs; each at most 1,024 characters. */
    public static final int MAX_PATTERNS = 256;

    public FileRules {
        Objects.requireNonNull(protectedPaths, "protectedPaths");
        if (protectedPaths.size() > MAX_PATTERNS) {
            throw new IllegalArgumentException("at most " + MAX_PATTERNS + " protected paths, got "
                    + protectedPaths.size());
        }
        for (String glob : protectedPaths) {
            Objects.requireNonNull(glob, "protected path");
            if (glob.isBlank() || glob.length() > 1024 || glob.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("protected path '" + glob.replace('\0', '?')
                        + "' must be a non-blank glob of at most 1024 characters without NUL");
            }
        }
        protectedPaths = List.copyOf(protectedPaths);
    }

    /** Rules protecting {@code globs}, symbolic links followed. */
    public static FileRules protect(String... globs) {
        return new FileRules(List.of(globs), false);
    }

    /** These rules with symbolic links refused ({@code true}) or followed inside the workspace. */
    public FileRules withRefuseSymlinks(boolean refuse) {
        return new FileRules(protectedPaths, refuse);
    }

    /** Both rules' protected paths, and symbolic links refused when either refuses them. */
    public FileRules and(FileRules other) {
        List<String> all = new ArrayList<>(protectedPaths);
        other.protectedPaths.stream().filter(g -> !all.contains(g)).forEach(all::add);
        return new FileRules(all, refuseSymlinks || other.refuseSymlinks);
    }

    /** Whether these rules restrict nothing. */
    public boolean isEmpty() {
        return protectedPaths.isEmpty() && !refuseSymlinks;
    }
}
