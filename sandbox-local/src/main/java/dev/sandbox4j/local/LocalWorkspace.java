package dev.sandbox4j.local;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Mount;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Workspace;
import dev.sandbox4j.WorkspaceSource;
import dev.sandbox4j.core.ChangeSet;
import dev.sandbox4j.core.HostDirs;
import dev.sandbox4j.core.TreeCopy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A local sandbox's workspace source and mounts, made ready at open (after {@link JailDirs}, before the jail starts).
 *
 * <ul>
 *   <li>copy: the tree is copied into the sandbox's workspace directory (its quota's tmpfs when there is one),
 *       owned by the jail's user; changes are the workspace against the host directory.
 *   <li>overlay, as root: an overlayfs mounted by the JVM on the host ({@code nodev,nosuid,userxattr}), lower = the
 *       host directory's real path, upper = the workspace directory, work beside it on the same file system, the
 *       merged view in the control directory, bound at {@code /workspace}. bwrap 0.8.0 has no {@code --overlay}
 *       (it came in 0.9.0) and the jail drops every capability, so the jail cannot mount it itself. The jail runs as
 *       the directory's owner (when not root): overlayfs checks the caller against the lower files' owners.
 *   <li>overlay otherwise (not root; a root-owned directory; a path overlayfs's option string cannot carry; the
 *       kernel refusing the mount): the copy, with overlay semantics (the host never written, the change set), and
 *       {@code info()} says why.
 *   <li>bind: the host directory's real path itself, read-write.
 * </ul>
 *
 * @param bound      what the jail binds at {@code /workspace}
 * @param viaAgent   the file API must go through the agent: the workspace the jail sees is not a host directory the
 *                   JVM can stage writes beside (an overlay, a bound user directory, mounts inside the workspace)
 * @param detail     what {@code info()} reports as {@code workspace source}
 * @param changes    the change set, or null (empty, bind)
 * @param merged     the overlay's mount point on the host (unmounted at close), or null
 * @param binds      the mounts' binds
 * @param volume     the lease on a named volume (given back at close), or null
 */
record LocalWorkspace(Path bound, boolean viaAgent, String detail, Workspace changes, Path merged,
                      List<JailCommandLine.Bind> binds, String mountsDetail, VolumeStore.Lease volume)
        implements AutoCloseable {
    /** ctime granularity margin of the conflict fence (the kernel's coarse clock is a tick late at most). */
    static final Duration FENCE_MARGIN = Duration.ofMillis(50);

    /** The uid the jail runs as when root: the source directory's owner for overlay and bind, when not root. */
    static int ownerUid(SandboxSpec spec, LocalOptions options) {
        WorkspaceSource s = spec.workspace();
        Path real;
        if (s.kind() == WorkspaceSource.Kind.VOLUME) {
            real = options.volumesDir().resolve(s.volumeName().orElseThrow()); // its maker's uid, once made
        } else if (s.kind() == WorkspaceSource.Kind.OVERLAY || s.kind() == WorkspaceSource.Kind.BIND) {
            real = HostDirs.check(s.hostDir().orElseThrow(), "the workspace source", false);
        } else {
            return -1;
        }
        try {
            int uid = (Integer) Files.getAttribute(real, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            return uid == 0 ? -1 : uid;
        } catch (IOException e) {
            return -1;
        }
    }

    /** Gives back the volume's lease, if any (the overlay is unmounted by the host's close, before). */
    @Override
    public void close() {
        if (volume != null) {
            volume.close();
        }
    }

    static LocalWorkspace prepare(Host host, LocalOptions options, SandboxSpec spec, JailDirs dirs, int uid, int gid,
                                  Runnable guard)
            throws IOException {
        WorkspaceSource source = spec.workspace();
        if (source.hostDir().isPresent()) {
            HostDirs.check(source.hostDir().orElseThrow(), "the workspace source", false); // typed errors first
        }
        List<JailCommandLine.Bind> binds = new ArrayList<>();
        Set<String> mountPoints = new LinkedHashSet<>();
        boolean mountInWorkspace = mounts(spec, dirs, uid, gid, binds, mountPoints);
        // a git source is cloned once the jail runs, into whatever holds /workspace then: the quota's tmpfs too
        boolean before = source.kind() != WorkspaceSource.Kind.EMPTY && source.kind() != WorkspaceSource.Kind.GIT;
        if (dirs.quotaInJail() && (before || mountInWorkspace)) {
            throw LocalErrors.error(ErrorKind.UNSUPPORTED, "the workspace source " + source + (mountInWorkspace
                    ? " and mounts under /workspace" : "") + " cannot be combined with a workspace quota when the "
                    + "JVM is not root (the quota's tmpfs is mounted over /workspace inside the running jail, after "
                    + "them); ask for no quota (ResourceLimits.withoutWorkspaceQuota) or run as root");
        }
        String mountsDetail = spec.mounts().isEmpty() ? "none" : String.join("; ", binds.stream()
                .map(b -> (b.readOnly() ? "ro " : "rw ") + b.host() + " -> " + b.dest()).toList());
        Instant opened = Instant.now();
        Path ws = dirs.workspace();
        switch (source.kind()) {
            case EMPTY:
                return new LocalWorkspace(dirs.bound(), mountInWorkspace, "empty", null, null, binds, mountsDetail, null);
            case GIT:
                return new LocalWorkspace(dirs.bound(), mountInWorkspace, source + " (to be cloned in the jail)", null,
                        null, binds, mountsDetail, null);
            case VOLUME: {
                if (dirs.granted().hasWorkspaceQuota()) {
                    throw LocalErrors.error(ErrorKind.UNSUPPORTED, "the workspace source " + source + " is a "
                            + "directory kept across sandboxes, which the workspace quota (a tmpfs per sandbox) cannot "
                            + "bound; ask for no quota (ResourceLimits.withoutWorkspaceQuota)");
                }
                VolumeStore.Lease lease = VolumeStore.acquire(options, source.volumeName().orElseThrow(), host.root,
                        uid, gid);
                return new LocalWorkspace(lease.dir(), true, "volume " + source.volumeName().orElseThrow() + " ("
                        + (lease.made() ? "made now" : "kept") + " in " + lease.dir() + "; read-write, shared with every "
                        + "sandbox on it)", null, null, binds, mountsDetail, lease);
            }
            case BIND: {
                Path real = HostDirs.check(source.hostDir().orElseThrow(), "the workspace source", false);
                return new LocalWorkspace(real, true, "bind " + real + " (read-write: the sandbox writes the host's "
                        + "files, as uid " + uid + ")", null, null, binds, mountsDetail, null);
            }
            default:
                break;
        }
        Path real = HostDirs.check(source.hostDir().orElseThrow(), "the workspace source", false);
        String why = source.kind() == WorkspaceSource.Kind.COPY ? null : overlayRefused(host, real, uid);
        Path merged = null;
        if (source.kind() == WorkspaceSource.Kind.OVERLAY && why == null) {
            try {
                merged = Overlay.mount(real, ws, dirs, uid, gid);
            } catch (IOException e) {
                why = "the kernel refused the overlay: " + e.getMessage();
                Overlay.discard(dirs);
            }
        }
        if (merged != null) {
            ChangeSet cs = new ChangeSet(source, real, ws, ChangeSet.Layout.OVERLAY_UPPER,
                    ChangeSet.unchangedSince(opened, FENCE_MARGIN), guard).hiding(mountPoints).pinLower();
            return new LocalWorkspace(merged, true, "overlay " + real + " (overlayfs mounted by the JVM; upper "
                    + "layer in the sandbox's workspace directory" + (dirs.granted().hasWorkspaceQuota()
                    ? ", under its quota" : "") + "; jail uid " + uid + ")", cs, merged, binds, mountsDetail, null);
        }
        TreeCopy.Result r = TreeCopy.copy(real, ws, host.root ? p -> chown(p, uid, gid) : null);
        ChangeSet cs = new ChangeSet(source, real, ws, ChangeSet.Layout.FULL_TREE,
                ChangeSet.unchangedSince(opened, FENCE_MARGIN), guard).hiding(mountPoints).pinLower();
        String copied = r.files() + " entries, " + r.bytes() + " bytes"
                + (r.skipped() > 0 ? ", " + r.skipped() + " FIFOs/devices/sockets skipped" : "");
        return new LocalWorkspace(dirs.bound(), mountInWorkspace, (why == null ? "copy " + real + " ("
                : "overlay " + real + " as a copy (" + why + "; ") + copied + ")", cs, null, binds, mountsDetail,
                null);
    }

    /** Why the overlay cannot be mounted here, or null. */
    private static String overlayRefused(Host host, Path real, int uid) {
        if (!host.root) {
            return "an overlay needs root here: bwrap 0.8.0 has no --overlay and the jail has no capabilities";
        }
        try {
            int owner = (Integer) Files.getAttribute(real, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            if (owner == 0) {
                return "the directory is root's and the jail never runs as uid 0 (overlayfs would check its writes "
                        + "against root's files)";
            }
            if (owner != uid) {
                return "the directory's owner changed during the open";
            }
        } catch (IOException e) {
            return "its owner cannot be read: " + e.getMessage();
        }
        String s = real.toString();
        if (s.contains(",") || s.contains(":") || s.contains("\\")) {
            return "its path holds a character overlayfs's options cannot carry";
        }
        return null;
    }

    /** Adds the mounts' binds; whether one lies in the workspace (then the file API goes through the agent). */
    private static boolean mounts(SandboxSpec spec, JailDirs dirs, int uid, int gid,
                                  List<JailCommandLine.Bind> binds, Set<String> mountPoints) throws IOException {
        boolean inWorkspace = false;
        int n = 0;
        for (Mount m : spec.mounts()) {
            Path host;
            if (m.kind() == Mount.Kind.READ_ONLY) {
                host = HostDirs.check(m.hostPath(), "the read-only mount", true);
            } else {
                host = Files.createDirectory(dirs.ctl().resolve("scratch-" + n++),
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                chown(host, uid, gid);
            }
            binds.add(new JailCommandLine.Bind(host, m.path(), m.kind() == Mount.Kind.READ_ONLY));
            if (m.path().startsWith("/workspace/")) {
                inWorkspace = true;
                mountPoints.add(m.path().substring("/workspace/".length()));
            }
        }
        return inWorkspace;
    }

    static void chown(Path p, int uid, int gid) {
        try {
            Files.setAttribute(p, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(p, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
