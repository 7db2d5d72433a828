package dev.sandbox4j.local;

import dev.sandbox4j.ErrorKind;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;

/**
 * The local backend's named volumes ({@code WorkspaceSource.volume}): one directory each under
 * {@link LocalOptions#volumesDir()}, bound read-write at {@code /workspace} like {@code bindReadWrite}. A sandbox on a
 * volume holds a shared lock on {@code NAME.lock} beside it for its lifetime (an fcntl lock, so other JVMs see it);
 * removal takes the exclusive lock or refuses with {@code conflict}. In one JVM the lock is counted (the JVM holds
 * one lock per file). The store's root is the owner's alone ({@code 0711}): a jail sees only the volume it binds.
 */
final class VolumeStore {
    /** Per JVM: the volume's lock file's channel and shared lock, and how many open sandboxes use it. */
    private static final Map<Path, Held> HELD = new HashMap<>();

    private record Held(FileChannel channel, FileLock lock, int users) {
    }

    /** A sandbox's use of a volume: its directory, given back at close. */
    record Lease(Path dir, boolean made, Path lockFile) implements AutoCloseable {
        @Override
        public void close() {
            release(lockFile);
        }
    }

    private VolumeStore() {
    }

    /** Takes a lease on {@code name}, making the volume (owned by uid:gid when root) on first use. */
    static Lease acquire(LocalOptions options, String name, boolean root, int uid, int gid) {
        Path dir = options.volumesDir().resolve(name);
        Path lockFile = options.volumesDir().resolve(name + ".lock");
        synchronized (HELD) {
            try {
                makeRoot(options.volumesDir());
                // the lock first: a removal in another process then either went before (the volume is made anew) or
                // waits for this sandbox
                Held h = HELD.get(lockFile);
                if (h == null) {
                    FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.READ,
                            StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
                    h = new Held(ch, ch.lock(0, Long.MAX_VALUE, true), 0);
                }
                HELD.put(lockFile, new Held(h.channel(), h.lock(), h.users() + 1));
                boolean made = false;
                try {
                    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(
                                PosixFilePermissions.fromString("rwx------")));
                        if (root) {
                            LocalWorkspace.chown(dir, uid, gid);
                        }
                        made = true;
                    }
                    BasicFileAttributes a = Files.readAttributes(dir, BasicFileAttributes.class,
                            LinkOption.NOFOLLOW_LINKS);
                    if (!a.isDirectory()) {
                        throw LocalErrors.error(ErrorKind.CONFLICT, "the volume " + name + " at " + dir + " is not a "
                                + "directory (a link or a file was put there); remove it by hand");
                    }
                } catch (IOException | RuntimeException e) {
                    release(lockFile);
                    throw e;
                }
                return new Lease(dir, made, lockFile);
            } catch (IOException e) {
                throw LocalErrors.error(ErrorKind.IO_ERROR, "cannot open the volume " + name + " in "
                        + options.volumesDir() + ": " + e.getMessage(), e);
            }
        }
    }

    private static void release(Path lockFile) {
        synchronized (HELD) {
            Held h = HELD.get(lockFile);
            if (h == null) {
                return;
            }
            if (h.users() > 1) {
                HELD.put(lockFile, new Held(h.channel(), h.lock(), h.users() - 1));
                return;
            }
            HELD.remove(lockFile);
            try {
                h.channel().close(); // releases the lock
            } catch (IOException e) {
                // the descriptor is gone either way
            }
        }
    }

    /** Removes the volume and its content; refuses while a sandbox (of any JVM) is open on it. */
    static void remove(LocalOptions options, String name) {
        dev.sandbox4j.WorkspaceSource.volume(name); // the same name rules
        Path dir = options.volumesDir().resolve(name);
        Path lockFile = options.volumesDir().resolve(name + ".lock");
        synchronized (HELD) {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                throw LocalErrors.error(ErrorKind.NOT_FOUND, "there is no volume " + name + " in "
                        + options.volumesDir());
            }
            if (HELD.containsKey(lockFile)) {
                throw LocalErrors.error(ErrorKind.CONFLICT, "the volume " + name + " is in use by an open sandbox");
            }
            try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS)) {
                FileLock lock = ch.tryLock();
                if (lock == null) {
                    throw LocalErrors.error(ErrorKind.CONFLICT, "the volume " + name + " is in use by a sandbox of "
                            + "another process");
                }
                // rm -rf without following links, as root too (a sandbox may have made directories unwritable)
                Process p = new ProcessBuilder("rm", "-rf", "--one-file-system", "--", dir.toString())
                        .redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                if (p.waitFor() != 0) {
                    throw LocalErrors.error(ErrorKind.IO_ERROR, "removing the volume " + name + ": " + out.strip());
                }
                // the lock file stays: deleting it would let a waiting opener hold a lock on a file nobody else sees
            } catch (IOException e) {
                throw LocalErrors.error(ErrorKind.IO_ERROR, "removing the volume " + name + ": " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw LocalErrors.error(ErrorKind.INTERRUPTED, "removing the volume " + name);
            }
        }
    }

    private static void makeRoot(Path root) throws IOException {
        if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(root);
            Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx--x--x"));
        }
    }
}
