package dev.sandbox4j.docker;

import com.github.dockerjava.api.model.MountType;
import com.github.dockerjava.api.model.TmpfsOptions;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Mount;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Workspace;
import dev.sandbox4j.WorkspaceSource;
import dev.sandbox4j.core.HostDirs;
import dev.sandbox4j.core.TreeCopy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Issue 35 on Docker and Podman: a workspace from a host directory and host paths mounted beside it, as an engine
 * can make them. A copy (and an overlay, which the engine cannot mount for an unprivileged container, so it is a
 * copy with the same promises: the host directory is never written, the changes are reviewable) is uploaded through
 * the archive endpoint once the agent runs, so a remote engine works; its change set compares a download of the
 * container's workspace with the host directory ({@link dev.sandbox4j.core.DownloadedChangeSet}). Read-only mounts
 * and a read-write workspace ({@code bindReadWrite}) are bind mounts, which name a path on the engine's host:
 * refused, typed, when the engine is not on this machine. Scratch mounts are tmpfs mounts, charged to the container's
 * memory.
 */
final class ContainerSources {
    /** Named volumes' engine names: this prefix and the name; labelled so, never with the janitor's label. */
    static final String VOLUME_PREFIX = "sandbox4j-vol-";
    static final String LABEL_VOLUME = "dev.sandbox4j.volume";

    /** Margin of the ctime fence: as the local backend's (the kernel's coarse clock can stamp a tick late). */
    static final java.time.Duration FENCE_MARGIN = java.time.Duration.ofMillis(50);

    final WorkspaceSource source;
    /** The checked real path of the source directory, or null for an empty workspace. */
    final Path real;
    private final Object realKey;
    /** The engine's mounts for the spec's mounts (and a bound workspace). */
    final List<com.github.dockerjava.api.model.Mount> mounts;
    /** Mount points under /workspace, relative: not the sandbox's changes. */
    final Set<String> mountPoints;
    final String mountsDetail;
    private String sourceDetail;
    private Instant opened;

    private ContainerSources(WorkspaceSource source, Path real, Object realKey,
                             List<com.github.dockerjava.api.model.Mount> mounts, Set<String> mountPoints,
                             String mountsDetail) {
        this.source = source;
        this.real = real;
        this.realKey = realKey;
        this.mounts = List.copyOf(mounts);
        this.mountPoints = Set.copyOf(mountPoints);
        this.mountsDetail = mountsDetail;
        this.sourceDetail = source.kind() == WorkspaceSource.Kind.EMPTY ? "empty" : null;
    }

    /** Checks every host path of the spec (typed errors, nothing made) and decides the mounts. */
    static ContainerSources prepare(DockerOptions options, SandboxSpec spec) {
        WorkspaceSource source = spec.workspace();
        boolean bind = source.kind() == WorkspaceSource.Kind.BIND;
        boolean hostPaths = bind || spec.mounts().stream().anyMatch(m -> m.kind() == Mount.Kind.READ_ONLY);
        String remote = hostPaths ? remoteEngine(options) : null;
        if (remote != null) {
            throw DockerErrors.error(ErrorKind.UNSUPPORTED, "bind mounts name paths on the engine's host, and the "
                    + "engine at " + remote + " is not on this machine; use WorkspaceSource.copyOf (uploaded "
                    + "through the engine's API) instead of " + (bind ? source : "a read-only mount"));
        }
        boolean volume = source.kind() == WorkspaceSource.Kind.VOLUME;
        if (volume && spec.limits().hasWorkspaceQuota()) {
            throw DockerErrors.error(ErrorKind.UNSUPPORTED, "the workspace source " + source + " is a volume kept "
                    + "across sandboxes, which the workspace quota (a tmpfs volume per sandbox) cannot bound; ask for "
                    + "no quota (ResourceLimits.withoutWorkspaceQuota)");
        }
        if (bind && spec.limits().hasWorkspaceQuota()) {
            throw DockerErrors.error(ErrorKind.UNSUPPORTED, "the workspace source " + source + " is the host "
                    + "directory itself, which a workspace quota (a tmpfs volume) cannot bound; ask for no quota "
                    + "(ResourceLimits.withoutWorkspaceQuota)");
        }
        Path real = null;
        Object key = null;
        if (source.hostDir().isPresent() && source.kind() != WorkspaceSource.Kind.GIT) {
            real = HostDirs.check(source.hostDir().orElseThrow(), "the workspace source", false);
            key = HostDirs.fileKey(real);
        }
        List<com.github.dockerjava.api.model.Mount> mounts = new ArrayList<>();
        Set<String> points = new LinkedHashSet<>();
        List<String> detail = new ArrayList<>();
        if (bind) {
            mounts.add(new com.github.dockerjava.api.model.Mount().withType(MountType.BIND)
                    .withSource(real.toString()).withTarget(WorkspaceScripts.WORKSPACE));
        } else if (volume) {
            mounts.add(new com.github.dockerjava.api.model.Mount().withType(MountType.VOLUME)
                    .withSource(VOLUME_PREFIX + source.volumeName().orElseThrow())
                    .withTarget(WorkspaceScripts.WORKSPACE));
        }
        long scratchBytes = spec.limits().tmpBytes() > 0 ? spec.limits().tmpBytes() : 256 * ResourceLimits.MIB;
        for (Mount m : spec.mounts()) {
            var em = new com.github.dockerjava.api.model.Mount().withTarget(m.path());
            if (m.kind() == Mount.Kind.READ_ONLY) {
                Path host = HostDirs.check(m.hostPath(), "the read-only mount", true);
                mounts.add(em.withType(MountType.BIND).withSource(host.toString()).withReadOnly(true));
                detail.add("ro " + host + " -> " + m.path());
            } else {
                mounts.add(em.withType(MountType.TMPFS).withTmpfsOptions(new TmpfsOptions()
                        .withSizeBytes(scratchBytes).withMode(01777)));
                detail.add("rw tmpfs (" + scratchBytes + " bytes, the container's memory) -> " + m.path());
            }
            if (m.path().startsWith(WorkspaceScripts.WORKSPACE + "/")) {
                points.add(m.path().substring(WorkspaceScripts.WORKSPACE.length() + 1));
            }
        }
        return new ContainerSources(source, real, key, mounts, points, detail.isEmpty() ? "none"
                : String.join("; ", detail));
    }

    /** The engine's address when it is not on this machine (tcp, ssh), or null for a local socket. */
    static String remoteEngine(DockerOptions options) {
        String h = options.dockerHost() != null ? options.dockerHost() : System.getenv("DOCKER_HOST");
        return h == null || h.isBlank() || h.startsWith("unix://") || h.startsWith("npipe://") ? null : h;
    }

    /** Whether the sandbox's own workspace volume is replaced (by the host directory or a named volume). */
    boolean bindsWorkspace() {
        return source.kind() == WorkspaceSource.Kind.BIND || source.kind() == WorkspaceSource.Kind.VOLUME;
    }

    /**
     * Makes a named volume on first use, labelled as sandbox4j's and never with the janitor's label (the janitor
     * removes what dead sandboxes left; a volume outlives them on purpose). Empty, it takes the image's
     * {@code /workspace} (its owner, the sandbox user) when the container first mounts it.
     */
    void makeVolume(com.github.dockerjava.api.DockerClient control) {
        if (source.kind() != WorkspaceSource.Kind.VOLUME) {
            return;
        }
        String name = source.volumeName().orElseThrow();
        try {
            control.inspectVolumeCmd(VOLUME_PREFIX + name).exec();
            sourceDetail = "volume " + name + " (kept: engine volume " + VOLUME_PREFIX + name + ")";
        } catch (com.github.dockerjava.api.exception.NotFoundException e) {
            control.createVolumeCmd().withName(VOLUME_PREFIX + name).withLabels(java.util.Map.of(LABEL_VOLUME, name))
                    .exec();
            sourceDetail = "volume " + name + " (made now: engine volume " + VOLUME_PREFIX + name + ")";
        }
    }

    /** Removes a named volume the engine keeps for sandbox4j. */
    static void removeVolume(com.github.dockerjava.api.DockerClient control, String name) {
        WorkspaceSource.volume(name); // the same name rules
        String what = "removing the volume " + name;
        try {
            var v = control.inspectVolumeCmd(VOLUME_PREFIX + name).exec();
            if (v.getLabels() == null || !name.equals(v.getLabels().get(LABEL_VOLUME))) {
                throw DockerErrors.error(ErrorKind.NOT_FOUND, what + ": the engine volume " + VOLUME_PREFIX + name
                        + " is not one sandbox4j made; left alone");
            }
            control.removeVolumeCmd(VOLUME_PREFIX + name).exec();
        } catch (RuntimeException e) {
            throw DockerErrors.volume(what, name, e);
        }
    }

    /**
     * Uploads a copy or overlay source into the running container's workspace (before the spec's files, which win),
     * owned by the sandbox user. Special files are skipped and counted; links are kept as links, never followed.
     */
    void seed(com.github.dockerjava.api.DockerClient control, String containerId, int uid, int gid,
              ResourceLimits limits, java.util.function.Function<List<String>, dev.sandbox4j.core.AgentRunner.Ran> run) {
        if (source.kind() == WorkspaceSource.Kind.VOLUME) {
            return;
        }
        if (source.kind() == WorkspaceSource.Kind.BIND) {
            sourceDetail = "bind " + real + " (read-write: the sandbox writes the host's files, as uid " + uid + ")";
            return;
        }
        if (real == null) {
            return;
        }
        opened = Instant.now();
        Walked w = walk(real);
        if (limits.workspaceBytes() > 0 && w.bytes > limits.workspaceBytes()) {
            throw DockerErrors.error(ErrorKind.NO_SPACE_LEFT, "the workspace source " + real + " holds " + w.bytes
                    + " bytes, more than the workspace quota of " + limits.workspaceBytes());
        }
        if (!w.entries.isEmpty()) {
            TarUpload.upload(control, containerId, WorkspaceScripts.WORKSPACE, w.entries, uid, gid);
        }
        links(w.links, run);
        String copied = (w.entries.size() + w.links.size() / 2) + " entries, " + w.bytes + " bytes"
                + (w.skipped > 0 ? ", " + w.skipped + " FIFOs/devices/sockets skipped" : "");
        sourceDetail = source.kind() == WorkspaceSource.Kind.COPY ? "copy " + real + " (uploaded: " + copied + ")"
                : "overlay " + real + " as a copy (an unprivileged container cannot mount an overlay; uploaded: "
                + copied + ")";
    }

    /** What {@code info().details()} says under {@code workspace source}. */
    String sourceDetail() {
        return sourceDetail;
    }

    /** The change set of a copy or overlay source, or null (none: empty or bound). */
    Workspace changeSet(ContainerHost host, Runnable guard) {
        if (real == null || bindsWorkspace() || opened == null) {
            return null;
        }
        return new dev.sandbox4j.core.DownloadedChangeSet(source, real, () -> {
            if (!realKey.equals(HostDirs.fileKey(real))) {
                throw DockerErrors.error(ErrorKind.CONFLICT, "the source directory " + real + " is no longer the "
                        + "directory the sandbox opened on (moved, or a link swapped in above it); no change set");
            }
        }, opened, FENCE_MARGIN, mountPoints, dir -> {
            try (java.io.InputStream in = host.downloadWorkspace()) {
                ArchiveTree.extract(in, dir, ArchiveTree.Limits.DEFAULT);
            } catch (dev.sandbox4j.SandboxException e) {
                throw e;
            } catch (RuntimeException e) {
                throw DockerErrors.translate("reading the sandbox's workspace for its change set", e);
            }
        }, guard);
    }

    /** Targets and names of the tree's links, in pairs. */
    private record Walked(List<TarUpload.Entry> entries, List<String> links, long bytes, long skipped) {
    }

    /** Links per command: well under the argument limits of a container's exec. */
    private static final int LINKS_PER_COMMAND = 400;

    /**
     * Symbolic links are made by the sandbox user with {@code ln -s}, not in the archive: the engine refuses a whole
     * archive holding a link whose target leaves the directory it extracts into ({@code ../x}), which a repository
     * may well have; inside the container such a link leads into the container's own file system, never the host's.
     */
    private static void links(List<String> pairs, java.util.function.Function<List<String>,
            dev.sandbox4j.core.AgentRunner.Ran> run) {
        for (int i = 0; i < pairs.size(); i += 2 * LINKS_PER_COMMAND) {
            List<String> cmd = new ArrayList<>(List.of("/bin/sh", "-c", "cd " + WorkspaceScripts.WORKSPACE
                    + " || exit 1; while [ $# -gt 0 ]; do ln -s -- \"$1\" \"$2\" || exit 1; shift 2; done", "sh"));
            cmd.addAll(pairs.subList(i, Math.min(pairs.size(), i + 2 * LINKS_PER_COMMAND)));
            dev.sandbox4j.core.AgentRunner.Ran r = run.apply(cmd);
            if (r.exitCode() != 0) {
                throw DockerErrors.error(ErrorKind.IO_ERROR, "making the workspace source's links in the sandbox: "
                        + r.err().strip());
            }
        }
    }

    /** The tree as upload entries, parents first, by the shared walk's rules ({@link TreeCopy#walk}). */
    private static Walked walk(Path root) {
        List<TarUpload.Entry> entries = new ArrayList<>();
        List<String> links = new ArrayList<>();
        TreeCopy.Result r;
        try {
            r = TreeCopy.walk(root, new TreeCopy.Visitor() {
                @Override
                public void directory(Path dir, Path rel) throws IOException {
                    if (!dir.equals(root)) {
                        entries.add(new TarUpload.Entry(name(root, dir), TreeCopy.mode(dir), 0, null));
                    }
                }

                @Override
                public void file(Path file, Path rel, long size) throws IOException {
                    entries.add(new TarUpload.Entry(name(root, file), TreeCopy.mode(file), size,
                            () -> Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)));
                }

                @Override
                public void link(Path link, Path rel, Path target) {
                    if (!Path.of(target.toString()).equals(target)) {
                        throw DockerErrors.error(ErrorKind.INVALID_PATH, "the link " + name(root, link) + " in the "
                                + "workspace source has a target this JVM cannot decode");
                    }
                    links.add(target.toString());
                    links.add(name(root, link));
                }
            });
        } catch (IOException e) {
            throw DockerErrors.error(ErrorKind.IO_ERROR, "reading the workspace source " + root + ": "
                    + e.getMessage(), e);
        }
        return new Walked(entries, links, r.bytes(), r.skipped());
    }

    /**
     * The entry's name. Java gives a file name its charset cannot decode (not UTF-8, or not ASCII under the POSIX
     * locale) only as a lossy string, which the archive would carry as another name: such a tree is refused (typed)
     * rather than copied with files renamed.
     */
    private static String name(Path root, Path p) {
        String n = root.relativize(p).toString();
        if (!root.resolve(n).equals(p)) { // the string does not lead back to the same bytes
            throw DockerErrors.error(ErrorKind.INVALID_PATH, "the workspace source holds a name this JVM cannot decode ("
                    + n.replaceAll("\\p{Cntrl}", "?") + "), which the engine's archive API cannot carry from Java "
                    + "unchanged; rename it, or use the local backend");
        }
        return n;
    }

}
