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
 *   <li>{@link #git(String, String)}: a clone of a repository, made by git <em>inside</em> the sandbox (so nothing of
 *       the repository, its hooks or its configuration runs on the host): an {@code https://} or {@code http://}
 *       URL is reached through the spec's network policy, which must allow its host; a host path is mounted
 *       read-only and cloned from. Shallow (one commit) unless {@link #withFullHistory()}.
 *   <li>{@link #snapshot(SnapshotStore, String)}: the workspace another sandbox captured with
 *       {@link Sandbox#snapshot()}; no host directory is involved.
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
        VOLUME,
        /** A clone of a git repository, made inside the sandbox. */
        GIT,
        /** A snapshot of another sandbox's workspace, read from a {@link SnapshotStore}. */
        SNAPSHOT
    }

    private static final WorkspaceSource EMPTY = new WorkspaceSource(Kind.EMPTY, null, null, null, null, true);
    private static final java.util.regex.Pattern GIT_REF = java.util.regex.Pattern.compile(
            "[A-Za-z0-9_][A-Za-z0-9_./-]{0,254}");
    private static final java.util.regex.Pattern VOLUME_NAME = java.util.regex.Pattern.compile(
            "[a-z0-9][a-z0-9_.-]{0,62}");

    private final Kind kind;
    private final Path hostDir;
    private final String volumeName;
    private final String gitRepository;
    private final String gitRef;
    private final boolean shallow;
    private final SnapshotStore snapshotStore;

    private WorkspaceSource(SnapshotStore store, String id) {
        this.kind = Kind.SNAPSHOT;
        this.hostDir = null;
        this.volumeName = id;
        this.gitRepository = null;
        this.gitRef = null;
        this.shallow = true;
        this.snapshotStore = store;
    }

    private WorkspaceSource(Kind kind, Path hostDir, String volumeName, String gitRepository, String gitRef,
                            boolean shallow) {
        this.snapshotStore = null;
        this.kind = kind;
        this.hostDir = hostDir;
        this.volumeName = volumeName;
        this.gitRepository = gitRepository;
        this.gitRef = gitRef;
        this.shallow = shallow;
    }

    private WorkspaceSource(Kind kind, Path hostDir, String volumeName) {
        this(kind, hostDir, volumeName, null, null, true);
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

    /** {@link #git(String, String)} at the repository's default branch. */
    public static WorkspaceSource git(String repository) {
        return git(repository, null);
    }

    /**
     * A clone of {@code repository} at {@code ref} (a branch or tag; null: the default branch), shallow.
     *
     * @param repository an {@code https://} or {@code http://} URL, or an absolute host path of a repository
     * @throws IllegalArgumentException for another kind of repository (ssh, file URLs, options) or a ref that is not
     *                                  a plain branch or tag name
     */
    public static WorkspaceSource git(String repository, String ref) {
        Objects.requireNonNull(repository, "repository");
        boolean url = repository.startsWith("https://") || repository.startsWith("http://");
        if (!url && !repository.startsWith("/") || repository.chars().anyMatch(c -> c < 0x21 || c == 0x7f)) {
            throw new IllegalArgumentException("a git repository is an https:// or http:// URL or an absolute host "
                    + "path, without spaces or control characters: '" + printable(repository) + "'");
        }
        if (url && repository.substring(repository.indexOf("//") + 2).split("[/?#]", 2)[0].contains("@")) {
            throw new IllegalArgumentException("a git URL with credentials in it would reach logs and the sandbox; "
                    + "give the token as a NetworkPolicy credential for its host instead");
        }
        if (ref != null && (!GIT_REF.matcher(ref).matches() || ref.contains("..") || ref.endsWith(".lock"))) {
            throw new IllegalArgumentException("a git ref here is a branch or tag name of [A-Za-z0-9_./-]: '"
                    + printable(ref) + "'");
        }
        Path host = url ? null : absolute(Path.of(repository));
        return new WorkspaceSource(Kind.GIT, host, null, url ? repository : host.toString(), ref, true);
    }

    /**
     * The workspace of the snapshot {@code id} in {@code store} ({@link Sandbox#snapshot()}): its files, modes, links
     * and empty directories. The stream is read and its checksum checked before the sandbox is made, so a missing,
     * cut or altered snapshot fails the open (not_found, invalid_argument) and leaves nothing.
     *
     * @throws IllegalArgumentException for an id {@link SnapshotStore#checkId} refuses
     */
    public static WorkspaceSource snapshot(SnapshotStore store, String id) {
        Objects.requireNonNull(store, "store");
        return new WorkspaceSource(store, SnapshotStore.checkId(id));
    }

    /** A snapshot source's store; empty for other kinds. */
    public Optional<SnapshotStore> snapshotStore() {
        return Optional.ofNullable(snapshotStore);
    }

    /** A snapshot source's id; empty for other kinds. */
    public Optional<String> snapshotId() {
        return kind == Kind.SNAPSHOT ? Optional.of(volumeName) : Optional.empty();
    }

    /** This git source with the whole history instead of one commit. */
    public WorkspaceSource withFullHistory() {
        if (kind != Kind.GIT) {
            throw new IllegalStateException("only a git source has a history");
        }
        return new WorkspaceSource(kind, hostDir, null, gitRepository, gitRef, false);
    }

    /** A git source's repository (the URL, or the host path); empty for other kinds. */
    public Optional<String> gitRepository() {
        return Optional.ofNullable(gitRepository);
    }

    /** A git source's branch or tag; empty for the default branch and for other kinds. */
    public Optional<String> gitRef() {
        return Optional.ofNullable(gitRef);
    }

    /** Whether a git source is cloned with one commit of history (the default). */
    public boolean shallow() {
        return shallow;
    }

    private static String printable(String s) {
        String t = s.length() > 200 ? s.substring(0, 200) + "..." : s;
        return t.replaceAll("\\p{Cntrl}", "?");
    }

    public Kind kind() {
        return kind;
    }

    /**
     * The host directory, absolute: the directory of a copy, overlay or bind, the repository of a git source given
     * as a host path; empty otherwise.
     */
    public Optional<Path> hostDir() {
        return Optional.ofNullable(hostDir);
    }

    /** The volume's name; empty unless {@link Kind#VOLUME}. */
    public Optional<String> volumeName() {
        return kind == Kind.VOLUME ? Optional.of(volumeName) : Optional.empty();
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
            case GIT:
                return Feature.WORKSPACE_GIT;
            case SNAPSHOT:
                return Feature.SNAPSHOT;
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
                && Objects.equals(((WorkspaceSource) o).volumeName, volumeName)
                && Objects.equals(((WorkspaceSource) o).gitRepository, gitRepository)
                && Objects.equals(((WorkspaceSource) o).gitRef, gitRef) && ((WorkspaceSource) o).shallow == shallow
                && Objects.equals(((WorkspaceSource) o).snapshotStore, snapshotStore);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, hostDir, volumeName, gitRepository, gitRef, shallow);
    }

    /** Such as {@code overlay:/home/me/repo}, {@code volume:cache} or {@code empty}. */
    @Override
    public String toString() {
        if (kind == Kind.GIT) {
            return "git:" + gitRepository + (gitRef != null ? "@" + gitRef : "") + (shallow ? "" : " (full history)");
        }
        if (kind == Kind.SNAPSHOT) {
            return "snapshot:" + volumeName + " (" + snapshotStore + ")";
        }
        return kind.name().toLowerCase(java.util.Locale.ROOT) + (hostDir != null ? ":" + hostDir
                : volumeName != null ? ":" + volumeName : "");
    }
}
