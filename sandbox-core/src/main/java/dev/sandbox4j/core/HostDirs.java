package dev.sandbox4j.core;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The open-time checks of a host path a user names for a workspace source or a mount: it exists, it is a directory
 * (or, for a mount, a regular file), it is not itself a symbolic link (a link would let whoever can write the link's
 * directory swap what the sandbox sees), and it is not a device, FIFO or socket. The directories above it are the
 * user's own and are resolved once, here: the sandbox gets the real path, so a later rename or a link swapped in
 * above it does not change what it sees. Typed errors; nothing is changed.
 */
public final class HostDirs {
    private HostDirs() {
    }

    /**
     * The real path of {@code named}, checked.
     *
     * @param fileAllowed a regular file is accepted too (a read-only mount of one file)
     */
    public static Path check(Path named, String what, boolean fileAllowed) {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(named, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw new SandboxException(ErrorKind.NOT_FOUND, what + " " + named + " does not exist");
        } catch (IOException e) {
            throw new SandboxException(ErrorKind.PERMISSION_DENIED, what + " " + named + " cannot be read: " + e, e);
        }
        if (a.isSymbolicLink()) {
            throw new SandboxException(ErrorKind.PERMISSION_DENIED, what + " " + named + " is a symbolic link; name "
                    + "the directory it points to instead (a link can be swapped while the sandbox runs)");
        }
        if (a.isOther()) {
            throw new SandboxException(ErrorKind.PERMISSION_DENIED, what + " " + named
                    + " is a device, FIFO or socket");
        }
        if (!a.isDirectory() && !(fileAllowed && a.isRegularFile())) {
            throw new SandboxException(ErrorKind.NOT_A_DIRECTORY, what + " " + named + " is not a directory");
        }
        try {
            Path real = named.toRealPath();
            Object key = Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
            if (key != null && !key.equals(a.fileKey())) {
                throw new SandboxException(ErrorKind.CONFLICT, what + " " + named + " changed while it was checked");
            }
            return real;
        } catch (IOException e) {
            throw new SandboxException(ErrorKind.NOT_FOUND, what + " " + named + " cannot be resolved: " + e, e);
        }
    }

    /**
     * The directory's identity (its file key, not following a link), to tell at a change set's call whether the path
     * still names the directory a sandbox was opened on; a fresh object, never equal, when it is gone.
     */
    public static Object fileKey(Path p) {
        try {
            Object k = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
            return k != null ? k : p;
        } catch (IOException e) {
            return new Object(); // gone: never equal
        }
    }

    /**
     * Why a backend offering {@code features} cannot open {@code spec}'s workspace source or mounts (naming them and
     * the feature missing), or null when it can. Backends throw it as {@link ErrorKind#UNSUPPORTED} at open.
     */
    public static String unsupported(dev.sandbox4j.SandboxSpec spec, java.util.Set<dev.sandbox4j.Feature> features,
                                     String backend) {
        dev.sandbox4j.Feature need = spec.workspace().feature();
        if (need != null && !features.contains(need)) {
            return "the " + backend + " backend cannot open the workspace source " + spec.workspace() + " (it lacks "
                    + need + ")";
        }
        if (!spec.lease().isZero() && !features.contains(dev.sandbox4j.Feature.REATTACH)) {
            return "the " + backend + " backend cannot lease a sandbox (it lacks REATTACH: its sandboxes end with "
                    + "the JVM that opened them)";
        }
        for (dev.sandbox4j.Mount m : spec.mounts()) {
            dev.sandbox4j.Feature f = m.kind() == dev.sandbox4j.Mount.Kind.READ_ONLY
                    ? dev.sandbox4j.Feature.READ_ONLY_MOUNTS : dev.sandbox4j.Feature.SCRATCH_MOUNTS;
            if (!features.contains(f)) {
                return "the " + backend + " backend cannot make the mount " + m + " (it lacks " + f + ")";
            }
        }
        return null;
    }

    /**
     * Null when {@code settings} hold only what a host that attaches may set (command timeout, lifetime, output cap,
     * environment, file rules), else what was set at open and cannot change (docs/reattach.md).
     */
    public static String attachRefused(dev.sandbox4j.SandboxSpec settings) {
        dev.sandbox4j.SandboxSpec d = dev.sandbox4j.SandboxSpec.defaults();
        java.util.List<String> fixed = new java.util.ArrayList<>();
        if (!settings.limits().equals(d.limits()) || settings.bestEffortLimits()) {
            fixed.add("limits");
        }
        if (settings.workspace().kind() != dev.sandbox4j.WorkspaceSource.Kind.EMPTY) {
            fixed.add("workspace");
        }
        if (!settings.mounts().isEmpty()) {
            fixed.add("mounts");
        }
        if (settings.network().mode() != dev.sandbox4j.NetworkPolicy.Mode.NONE) {
            fixed.add("network");
        }
        if (!settings.files().isEmpty()) {
            fixed.add("files");
        }
        if (!settings.syscallSets().isEmpty()) {
            fixed.add("syscallSets");
        }
        if (!settings.lease().isZero()) {
            fixed.add("lease");
        }
        return fixed.isEmpty() ? null : "an attach takes this host's command settings only; " + fixed
                + " were set when the sandbox was opened and cannot change: leave them at their defaults";
    }

    /** Whether {@code path} still is the directory or file {@code checked} was (same device and inode). */
    public static boolean same(Path path, Path checked) {
        try {
            Object a = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
            Object b = Files.readAttributes(checked, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
            return a != null && a.equals(b);
        } catch (IOException e) {
            return false;
        }
    }
}
