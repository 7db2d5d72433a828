package dev.sandbox4j.local;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.SandboxException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The workspace's byte and inode quota (issue 16): a tmpfs of {@code size=<workspaceBytes>} and
 * {@code nr_inodes=<workspaceInodes + 3>} mounted on the sandbox's host workspace directory, so the host path keeps
 * working for the file API and bwrap binds a directory of it at {@code /workspace}. Layout of the mount:
 * <pre>
 *   &lt;ws&gt;/     the tmpfs root, root:root 0711 (the sandbox uid may pass through it, not list it)
 *   &lt;ws&gt;/w    the workspace, owned by the sandbox uid, bound at /workspace
 *   &lt;ws&gt;/s    the file API's staging directory, root 0700 (same file system, so its renames stay atomic;
 *               never bound into the jail)
 * </pre>
 * Writes past the quota fail with ENOSPC inside the jail and through the file API ({@code NO_SPACE_LEFT}). The pages
 * are memory: those written by commands are charged to the sandbox's memory cgroup, those written through the file
 * API to the JVM's. The host's disk is not touched (no blocks, no inodes).
 *
 * <p>That is root's way (the mount is undone at close, and by the {@link Janitor} for sandboxes of a JVM that died).
 * A JVM that is not root cannot mount on the host, but it owns the jail's user namespace: {@link #holdInJail} runs
 * the agent binary as a host-side helper that joins that namespace, mounts the same tmpfs (size and inodes) in a
 * mount namespace of its own and clones only its {@code w} onto the jail's {@code /workspace}. The file API reaches
 * the tmpfs through the helper's working directory ({@code /proc/<helper>/cwd}, see {@link #HOLDER_LINK}); the
 * staging directory is out of the jail's reach as on root's way. Nothing is mounted on the host: when the helper and
 * the jail are gone, so is the tmpfs, and no janitor is needed.
 */
final class WorkspaceQuota {
    /** tmpfs inodes that are not the workspace's own: the tmpfs root, the workspace dir, the staging dir. */
    static final int OWN_INODES = 3;
    /** The device name of every workspace mount, so the mount table says what it is. */
    static final String DEVICE = "sandbox4j-workspace";

    private WorkspaceQuota() {
    }

    /** Why a workspace quota cannot hold for this JVM, or null when it may (root with mount(8); any other user). */
    static String unavailableReason(Host host) {
        if (!host.root) {
            return null; // the jail's own mount namespace: tried at open, refused there if the kernel says no
        }
        if (Host.which("mount") == null || Host.which("umount") == null) {
            return "mount(8) and umount(8) (util-linux) are not on PATH";
        }
        return null;
    }

    /**
     * What of the spec's quota holds here: its bytes and inodes, or none. Refuses (UNSUPPORTED) a quota that cannot
     * hold unless {@code bestEffort}.
     */
    static ResourceLimits decide(Host host, ResourceLimits want, boolean bestEffort) {
        if (!want.hasWorkspaceQuota()) {
            return want;
        }
        String why = unavailableReason(host);
        if (why == null) {
            return want;
        }
        if (bestEffort) {
            return want.withoutWorkspaceQuota();
        }
        throw refused(want, why);
    }

    static SandboxException refused(ResourceLimits want, String why) {
        return LocalErrors.error(ErrorKind.UNSUPPORTED, "the local backend cannot enforce the workspace quota ("
                + want.workspaceBytes() + " bytes, " + want.workspaceInodes() + " inodes) here: " + why
                + ". Ask for no quota explicitly (ResourceLimits.withoutWorkspaceQuota(): the workspace is then "
                + "bounded only by the host's disk), or SandboxSpec.builder().bestEffortLimits(true) to open with "
                + "what holds (info().limits() reports it)");
    }

    /**
     * Mounts the quota tmpfs on {@code ws} (an empty directory) and makes the workspace and staging directories in it.
     * On failure nothing stays mounted.
     */
    /**
     * Whether the kernel has transparent huge pages for tmpfs (the file exists only then; without them tmpfs refuses
     * the {@code huge} option). With {@code huge=within_size} a file of 2 MiB and more is kept in large pages, never
     * beyond its size: measured on this project's build host (kernel 6.18), 64 MiB written in 1 MiB writes took 6 ms
     * and read 4-5 ms, against 31-43 and 17-21 ms on the same tmpfs without it and 15 and 4 ms on ext4.
     */
    static final boolean HUGE = Files.exists(Path.of("/sys/kernel/mm/transparent_hugepage/shmem_enabled"));

    static void mount(Path ws, ResourceLimits limits, int uid, int gid) throws IOException {
        List<String> opts = new ArrayList<>(List.of("nosuid", "nodev", "mode=0711", "uid=0", "gid=0"));
        if (HUGE) {
            opts.add("huge=within_size");
        }
        // a size of 0 would mean "no limit" to tmpfs: the spec's 0 (not asked) becomes the largest tmpfs allows
        opts.add("size=" + (limits.workspaceBytes() > 0 ? limits.workspaceBytes() : "50%"));
        if (limits.workspaceInodes() > 0) {
            opts.add("nr_inodes=" + (limits.workspaceInodes() + OWN_INODES));
        }
        run(List.of("mount", "-t", "tmpfs", "-o", String.join(",", opts), DEVICE, ws.toString()));
        try {
            Path w = Files.createDirectory(ws.resolve("w"),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Files.setAttribute(w, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(w, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
            Files.createDirectory(ws.resolve("s"),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (IOException | RuntimeException e) {
            unmount(ws);
            throw e;
        }
    }

    /**
     * The link in the sandbox's control directory that {@link #holdInJail} points at the helper's tmpfs; the file
     * API's workspace is {@code <link>/w}, its staging {@code <link>/s}. The link is the host's own (the control
     * directory is not in the jail), and only the helper's working directory, never a path of the jail, is followed.
     */
    static final String HOLDER_LINK = "wsq";
    /** How long the helper may take to mount (it takes milliseconds). */
    static final long HOLD_TIMEOUT_MS = 10_000;

    /**
     * Points {@code ctl/}{@link #HOLDER_LINK} at empty stand-ins until the jail runs and {@link #holdInJail} turns
     * it to the tmpfs (the file API is built before, and used only after).
     */
    static void linkStandIn(Path ctl) throws IOException {
        Path standIn = Files.createDirectory(ctl.resolve("wsq-stand-in"));
        Files.createDirectory(standIn.resolve("w"));
        Files.createDirectory(standIn.resolve("s"));
        Files.createSymbolicLink(ctl.resolve(HOLDER_LINK), standIn.getFileName());
    }

    private static final java.util.regex.Pattern CHILD_PID =
            java.util.regex.Pattern.compile("\"child-pid\"\\s*:\\s*(\\d+)");

    /**
     * {@link #holdInJail(Path, long, ResourceLimits, Path)} for the jail whose bwrap wrote its child's pid to
     * {@code ctl/info} (on {@code --info-fd}, before it ran the agent, which has said READY).
     */
    static Process holdInJail(Path agent, ResourceLimits limits, Path ctl) throws IOException {
        java.util.regex.Matcher m = CHILD_PID.matcher(Files.readString(ctl.resolve("info")));
        if (!m.find()) {
            throw new IOException("bwrap did not report its child's pid");
        }
        return holdInJail(agent, Long.parseLong(m.group(1)), limits, ctl);
    }

    /**
     * Mounts the quota tmpfs on {@code /workspace} in the jail whose bwrap child is {@code jailPid}, with the
     * {@code agent} binary as a helper that holds it; links {@code ctl/}{@link #HOLDER_LINK} to the tmpfs. Returns
     * the helper: the tmpfs lives until its stdin is closed (or the JVM dies) and the jail has ended.
     */
    static Process holdInJail(Path agent, long jailPid, ResourceLimits limits, Path ctl) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(agent.toString(), "--workspace-tmpfs=" + jailPid + ","
                + limits.workspaceBytes() + "," + limits.workspaceInodes() + (HUGE ? ",huge" : ""));
        pb.environment().clear();
        pb.redirectErrorStream(true);
        pb.directory(ctl.toFile());
        Process p = Host.launch(pb);
        String answer = firstLine(p, HOLD_TIMEOUT_MS);
        if (!answer.equals("ready")) {
            p.destroyForcibly();
            throw new IOException(answer.isEmpty() ? "the workspace helper exited without a word" : answer
                    .replace("sbx-agent: ", ""));
        }
        Path next = ctl.resolve(HOLDER_LINK + ".next");
        Files.deleteIfExists(next);
        Files.createSymbolicLink(next, Path.of("/proc", Long.toString(p.pid()), "cwd"));
        Files.move(next, ctl.resolve(HOLDER_LINK), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return p;
    }

    /** The helper's first line (at most 1000 bytes), or all it said before it exited; kills it after the timeout. */
    private static String firstLine(Process p, long timeoutMs) throws IOException {
        java.util.concurrent.ScheduledFuture<?> kill = dev.sandbox4j.core.Background.timer().schedule(p::destroyForcibly, timeoutMs,
                TimeUnit.MILLISECONDS);
        try {
            java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();
            java.io.InputStream in = p.getInputStream();
            int b;
            while (line.size() < 1000 && (b = in.read()) >= 0 && b != '\n') {
                line.write(b);
            }
            return line.toString(StandardCharsets.UTF_8).strip();
        } finally {
            kill.cancel(false);
        }
    }

    static Path workspace(Path ws) {
        return ws.resolve("w");
    }

    static Path staging(Path ws) {
        return ws.resolve("s");
    }

    /**
     * Unmounts whatever is mounted on {@code ws} (our tmpfs: its memory is freed); lazily when it is still busy (a
     * process of a jail that has not died yet). Whether nothing is mounted there any more.
     */
    static boolean unmount(Path ws) {
        if (!isMountPoint(ws)) {
            return true;
        }
        try {
            run(List.of("umount", ws.toString()));
        } catch (IOException e) {
            try {
                run(List.of("umount", "-l", ws.toString()));
            } catch (IOException ignored) {
                // reported below
            }
        }
        return !isMountPoint(ws);
    }

    /** Whether a workspace tmpfs of ours ({@link #DEVICE}) is mounted on {@code dir}, per this process's mount table. */
    static boolean isMountPoint(Path dir) {
        String want = escape(dir.toAbsolutePath().normalize().toString());
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"), StandardCharsets.UTF_8)) {
                String[] f = line.split(" ");
                int dash = line.indexOf(" - ");
                if (f.length > 4 && f[4].equals(want) && dash > 0) {
                    String[] tail = line.substring(dash + 3).split(" ");
                    if (tail.length > 1 && tail[0].equals("tmpfs") && tail[1].equals(DEVICE)) {
                        return true;
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
        return false;
    }

    /** mountinfo's octal escapes of space, tab, newline and backslash. */
    private static String escape(String path) {
        return path.replace("\\", "\\134").replace(" ", "\\040").replace("\t", "\\011").replace("\n", "\\012");
    }

    /**
     * Runs a mount tool with as few descriptors as a process start allows (stdin from /dev/null, output into a file),
     * so a JVM near its descriptor limit can still open a sandbox (L-NOFILE).
     */
    private static void run(List<String> cmd) throws IOException {
        java.io.File out = java.io.File.createTempFile("sandbox4j-mount", ".txt");
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectOutput(ProcessBuilder.Redirect.to(out));
            pb.environment().clear();
            pb.environment().put("PATH", "/usr/bin:/bin:/usr/sbin:/sbin");
            pb.environment().put("LC_ALL", "C");
            Process p = pb.start();
            try {
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IOException(cmd.get(0) + " did not finish in 10 s");
                }
                if (p.exitValue() != 0) {
                    byte[] said = Files.readAllBytes(out.toPath());
                    throw new IOException(String.join(" ", cmd) + " failed (exit " + p.exitValue() + "): "
                            + new String(said, 0, Math.min(said.length, 4096), StandardCharsets.UTF_8).trim());
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while running " + cmd.get(0), e);
            }
        } finally {
            Files.deleteIfExists(out.toPath());
        }
    }
}
