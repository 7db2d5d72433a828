package dev.sandbox4j.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The overlay of an overlay source, mounted by the JVM as root: {@code lowerdir} the host directory, {@code upperdir}
 * the sandbox's workspace directory (its quota's tmpfs when there is one), {@code workdir} beside it on the same file
 * system, the merged view at {@code ctl/merged}. Options: {@code userxattr} (opaque directories marked with
 * {@code user.overlay.opaque}, readable from Java; {@code trusted.*} is not), {@code nodev} (a device node in the
 * user's tree opens nothing), {@code nosuid}.
 */
final class Overlay {
    private Overlay() {
    }

    static Path mount(Path lower, Path upper, JailDirs dirs, int uid, int gid) throws IOException {
        Path work = (dirs.granted().hasWorkspaceQuota() ? dirs.wsRoot() : dirs.ctl()).resolve("ovl-work");
        Files.createDirectory(work);
        Path merged = Files.createDirectory(dirs.ctl().resolve("merged"));
        // the merged root shows the upper root's owner and mode: the lower's, with the jail's uid as owner
        Files.setAttribute(upper, "unix:mode", (Integer) Files.getAttribute(lower, "unix:mode",
                LinkOption.NOFOLLOW_LINKS) & 07777, LinkOption.NOFOLLOW_LINKS);
        LocalWorkspace.chown(upper, uid, gid);
        run(List.of("mount", "-t", "overlay", "overlay", "-o", "lowerdir=" + lower + ",upperdir=" + upper
                + ",workdir=" + work + ",userxattr,nodev,nosuid", merged.toString()));
        return merged;
    }

    /** Unmounts the overlay of the sandbox with these directories, if there is one; removes its directories. */
    static void discard(JailDirs dirs) {
        Path merged = dirs.ctl().resolve("merged");
        if (Files.isDirectory(merged, LinkOption.NOFOLLOW_LINKS)) {
            unmount(merged);
            try {
                Files.deleteIfExists(merged);
            } catch (IOException ignored) {
                // the control directory's deletion tries again
            }
        }
        for (Path work : List.of(dirs.ctl().resolve("ovl-work"), dirs.wsRoot().resolve("ovl-work"))) {
            Leftovers.deleteTree(work);
        }
    }

    /** Unmounts an overlay mounted at {@code merged} (lazily when busy); whether none is left there. */
    static boolean unmount(Path merged) {
        if (!isOverlay(merged)) {
            return true;
        }
        try {
            run(List.of("umount", merged.toString()));
        } catch (IOException e) {
            try {
                run(List.of("umount", "-l", merged.toString()));
            } catch (IOException ignored) {
                // reported by the return value
            }
        }
        return !isOverlay(merged);
    }

    private static boolean isOverlay(Path dir) {
        String want = dir.toAbsolutePath().normalize().toString().replace("\\", "\\134").replace(" ", "\\040")
                .replace("\t", "\\011").replace("\n", "\\012");
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
                String[] f = line.split(" ");
                int dash = line.indexOf(" - ");
                if (f.length > 4 && f[4].equals(want) && dash > 0 && line.startsWith("overlay ", dash + 3)) {
                    return true;
                }
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
        return false;
    }

    private static void run(List<String> cmd) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.environment().clear();
        pb.environment().put("PATH", "/usr/bin:/bin:/usr/sbin:/sbin");
        pb.environment().put("LC_ALL", "C");
        Process p = pb.start();
        try {
            String out = new String(p.getInputStream().readNBytes(4000), java.nio.charset.StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("mount did not finish in 10 s");
            }
            if (p.exitValue() != 0) {
                throw new IOException(cmd.get(0) + " failed (" + p.exitValue() + "): " + out.trim());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted while mounting the overlay", e);
        }
    }
}
