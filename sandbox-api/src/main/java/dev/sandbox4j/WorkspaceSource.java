package dev.sandbox4j;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * What a sandbox's workspace starts from. Immutable. The default is {@link #empty()}; the other sources name a host
 * directory, checked when the sandbox opens (it must exist, be a directory, not be a symbolic link and not be a
 * device), and differ in what the sandbox's writes do to it:
 *
 * <ul>
 *   <li>{@link #copyOf(Path)}: a copy is made at open; the host directory is never written. Costs the copy's time
 *       and space, and the sandbox does not see later host changes.
 *   <li>{@link #overlayOf(Path)}: the sandbox sees the directory as it is and writes into a layer of its own
 *       (copy-on-write); the host directory is never written. Opening costs no copy. {@link Sandbox#workspace()}
 *       lists what changed, as a diff, and applies it back when the caller decides to.
 *   <li>{@link #bindReadWrite(Path)}: the sandbox works in the user's own files. Whatever a command does there (an
 *       {@code rm -rf}, a planted {@code .git/hooks} script, a changed build file) is done to the host directory at
 *       once, with nothing to review first. Use it only when that is what is wanted.
 *   <li>{@link #volume(String)}: a workspace the backend keeps under a name: made empty on first use, kept after
 *       close, shared by every sandbox opened on it (at once too: they see each other's writes), removed only when
 *       asked ({@link dev.sandbox4j.spi.SandboxProvider#removeVolume}). No change set: it is nobody's copy.
 * </ul>
 *
 * <p>A backend that cannot honour a source refuses at open with {@link ErrorKind#UNSUPPORTED} naming it; see
 * {@link Feature#WORKSPACE_COPY}, {@link Feature#WORKSPACE_OVERLAY} and {@link Feature#WORKSPACE_BIND}.
 */
public final class WorkspaceSource {
    /** The kind of source. */
    public enum Kind {
        /** An empty workspace (plus the spec's files). */
        EMPTY,
        /** A copy of a host directory. */
        COPY,
        /** A host directory under a copy-on-write layer of the sandbox's own. */
        OVERLAY,
        /** A host directory itself, read-write. */
        BIND,
        /** A named workspace the backend keeps. */
        VOLUME
    }

    private static final WorkspaceSource EMPTY = new WorkspaceSource(Kind.EMPTY, null, null);
    private static final java.util.regex.Pattern VOLUME_NAME = java.util.regex.Pattern.compile(
            "[a-z0-9][a-z0-9_.-]{0,62}");

    private final Kind kind;
    private final Path hostDir;
    private final String volumeName;

    private WorkspaceSource(Kind kind, Path hostDir, String volumeName) {
        this.kind = kind;
        this.hostDir = hostDir;
        this.volumeName = volumeName;
    }

    /** An empty workspace: today's default. */
    public static WorkspaceSource empty() {
        return EMPTY;
    }

    /** A copy of {@code hostDir}, made at open; the host directory is never written. */
    public static WorkspaceSource copyOf(Path hostDir) {
        return new WorkspaceSource(Kind.COPY, absolute(hostDir), null);
    }

    /** {@code hostDir} under a copy-on-write layer; the host directory is never written, changes are reviewable. */
    public static WorkspaceSource overlayOf(Path hostDir) {
        return new WorkspaceSource(Kind.OVERLAY, absolute(hostDir), null);
    }

    /** {@code hostDir} itself, read-write: the sandbox's commands write into the user's files directly. */
    public static WorkspaceSource bindReadWrite(Path hostDir) {
        return new WorkspaceSource(Kind.BIND, absolute(hostDir), null);
    }

    /**
     * The named volume {@code name}: lower-case letters, digits, {@code _ . -}, at most 63 characters, starting with
     * a letter or digit (a name that is safe as a directory and as an engine's volume name).
     *
     * @throws IllegalArgumentException for any other name
     */
    public static WorkspaceSource volume(String name) {
        Objects.requireNonNull(name, "name");
        if (!VOLUME_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a volume name is 1-63 of [a-z0-9_.-], starting with [a-z0-9]: '"
                    + name.replaceAll("\\p{Cntrl}", "?") + "'");
        }
        return new WorkspaceSource(Kind.VOLUME, null, name);
    }

    public Kind kind() {
        return kind;
    }

    /** The host directory, absolute; empty for {@link Kind#EMPTY} and {@link Kind#VOLUME}. */
    public Optional<Path> hostDir() {
        return Optional.ofNullable(hostDir);
    }

    /** The volume's name; empty unless {@link Kind#VOLUME}. */
    public Optional<String> volumeName() {
        return Optional.ofNullable(volumeName);
    }

    /** The feature a backend needs for this source, or null for {@link Kind#EMPTY}. */
    public Feature feature() {
        switch (kind) {
            case COPY:
                return Feature.WORKSPACE_COPY;
            case OVERLAY:
                return Feature.WORKSPACE_OVERLAY;
            case BIND:
                return Feature.WORKSPACE_BIND;
            case VOLUME:
                return Feature.WORKSPACE_VOLUME;
            default:
                return null;
        }
    }

    static Path absolute(Path p) {
        Objects.requireNonNull(p, "hostDir");
        return p.toAbsolutePath().normalize();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WorkspaceSource && ((WorkspaceSource) o).kind == kind
                && Objects.equals(((WorkspaceSource) o).hostDir, hostDir)
                && Objects.equals(((WorkspaceSource) o).volumeName, volumeName);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, hostDir, volumeName);
    }

    /** Such as {@code overlay:/home/me/repo}, {@code volume:cache} or {@code empty}. */
    @Override
    public String toString() {
        return kind.name().toLowerCase(java.util.Locale.ROOT) + (hostDir != null ? ":" + hostDir
                : volumeName != null ? ":" + volumeName : "");
    }
}
