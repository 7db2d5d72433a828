package dev.sandbox4j.local;

import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.SandboxSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A jail's host directories and where its workspace quota holds: the control directory ({@code rwx--x--x}: the
 * launcher's files, a staging directory for the file API's writes), the workspace ({@code rwx------}, the jail's user's
 * when root), and, with a quota, its tmpfs: mounted here on the host (root), or later in the jail's own mount namespace
 * (not root: then the file API reaches it through a link the quota's helper provides).
 *
 * @param ctl         the control directory
 * @param wsRoot      the directory made for the workspace: the workspace itself, or the quota tmpfs's mount point
 * @param workspace   the workspace as the file API reaches it
 * @param staging     where the file API stages writes
 * @param granted     the limits, without the quota when it could not hold (best effort)
 * @param noQuota     why there is no quota (best effort), or null
 * @param quotaInJail the quota's tmpfs is mounted in the running jail (not root)
 */
record JailDirs(Path ctl, Path wsRoot, Path workspace, Path staging, ResourceLimits granted, String noQuota,
                boolean quotaInJail) {
    /**
     * Makes the directories in {@code tempDir} (named with {@link BwrapHost#PREFIX} and this JVM's owner) and, as
     * root, mounts the quota; removes what it made when it fails.
     */
    static JailDirs make(Host host, LocalOptions options, SandboxSpec spec, ResourceLimits granted,
                         String quotaFailed, int uid, int gid) throws IOException {
        Path ctl = null;
        Path ws = null;
        try {
            Files.createDirectories(options.tempDir());
            ctl = Files.createTempDirectory(options.tempDir(), BwrapHost.PREFIX + BwrapHost.OWNER + "ctl-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x")));
            Files.setPosixFilePermissions(ctl, PosixFilePermissions.fromString("rwx--x--x"));
            Files.createDirectory(ctl.resolve("staging"),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            ws = Files.createTempDirectory(options.tempDir(), BwrapHost.PREFIX + BwrapHost.OWNER + "ws-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            if (host.root) {
                Files.setAttribute(ws, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
                Files.setAttribute(ws, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
            }
            Phases.mark("open: ctl and workspace dirs");
            JailDirs dirs = withQuota(host, spec, granted, quotaFailed, uid, gid, ctl, ws);
            Phases.mark("open: workspace quota mount");
            return dirs;
        } catch (IOException | RuntimeException | Error e) {
            Leftovers.deleteOrRemember(ws);
            Leftovers.deleteOrRemember(ctl);
            throw e;
        }
    }

    private static JailDirs withQuota(Host host, SandboxSpec spec, ResourceLimits granted, String quotaFailed,
                                      int uid, int gid, Path ctl, Path ws) throws IOException {
        String noQuota = quotaFailed != null ? quotaFailed : WorkspaceQuota.unavailableReason(host);
        if (granted.hasWorkspaceQuota() && host.root) {
            try {
                WorkspaceQuota.mount(ws, granted, uid, gid);
            } catch (IOException e) {
                // root without CAP_SYS_ADMIN (a container), or no tmpfs: the quota cannot hold here
                if (!spec.bestEffortLimits()) {
                    throw WorkspaceQuota.refused(granted, e.getMessage());
                }
                granted = granted.withoutWorkspaceQuota();
                noQuota = e.getMessage();
            }
        }
        if (!host.root && granted.hasWorkspaceQuota()) {
            // not root: the quota's tmpfs is mounted in the jail's own mount namespace once the jail runs
            WorkspaceQuota.linkStandIn(ctl);
            return new JailDirs(ctl, ws, ctl.resolve(WorkspaceQuota.HOLDER_LINK).resolve("w"),
                    ctl.resolve(WorkspaceQuota.HOLDER_LINK).resolve("s"), granted, noQuota, true);
        }
        if (granted.hasWorkspaceQuota()) {
            return new JailDirs(ctl, ws, WorkspaceQuota.workspace(ws), WorkspaceQuota.staging(ws), granted, noQuota,
                    false);
        }
        return new JailDirs(ctl, ws, ws, ctl.resolve("staging"), granted, noQuota, false);
    }

    /** What the jail binds at {@code /workspace}: the mount point itself when the jail mounts the quota. */
    Path bound() {
        return quotaInJail ? wsRoot : workspace;
    }

    /** Removes both directories (or leaves them to {@link Leftovers}). */
    void delete() {
        Leftovers.deleteOrRemember(wsRoot);
        Leftovers.deleteOrRemember(ctl);
    }
}
