package dev.sandbox4j.local;

import dev.sandbox4j.core.AgentBinary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent's binaries, written once per JVM and temp dir into {@code <tempDir>/sandbox4j-local-<pid>-bin-*} and bound
 * read-only at {@code /opt/sandbox4j} in every jail, instead of 1.5-2 MB written into, and deleted from, each
 * sandbox's control directory on every open and close. {@code net/} holds agent, reaper and relay, {@code base/} hard
 * links to the first two only: a jail without a network policy still has no relay, as before.
 *
 * <p>Nothing in a jail can change them: the directory and files are {@code r-xr-xr-x}, owned by this JVM's user;
 * a root JVM's jails run as other (random) uids, and a non-root JVM's jail, though of this JVM's uid, sees only
 * bwrap's read-only bind of the directory (the host path is not in the jail's mount namespace). Before each use the
 * files are checked (owner, mode, size); a directory that fails the check is replaced. Deleted at this JVM's exit; the
 * {@link Janitor} reaps the directory of a JVM that died.
 */
final class AgentFiles {
    private static final Set<PosixFilePermission> READ_EXEC = PosixFilePermissions.fromString("r-xr-xr-x");
    private static final List<String> NAMES = List.of(AgentBinary.REAPER, AgentBinary.AGENT, AgentBinary.RELAY);
    /** Temp dir -> this JVM's binaries directory there. */
    private static final Map<Path, Path> DIRS = new ConcurrentHashMap<>();
    /** Every directory this JVM wrote (a replaced one too): deleted at exit. */
    private static final Set<Path> MADE = ConcurrentHashMap.newKeySet();

    static {
        dev.sandbox4j.core.Background.atExit(() -> MADE.forEach(AgentFiles::delete));
    }

    private AgentFiles() {
    }

    /** The agent's binaries could not be read from this jar (the local backend cannot run here). */
    static final class Missing extends IOException {
        Missing(IOException cause) {
            super(cause.getMessage(), cause);
        }
    }

    /**
     * The directory to bind at {@code /opt/sandbox4j} (with the relay or without), written now if this JVM has none
     * under {@code tempDir} or it was changed.
     */
    static Path dir(Path tempDir, boolean relay) throws IOException {
        return root(tempDir).resolve(relay ? "net" : "base");
    }

    private static Path root(Path tempDir) throws IOException {
        Path d = DIRS.get(tempDir);
        if (d != null && intact(d)) {
            return d;
        }
        synchronized (AgentFiles.class) {
            d = DIRS.get(tempDir);
            if (d != null && intact(d)) {
                return d;
            }
            Path made = write(tempDir);
            DIRS.put(tempDir, made);
            if (d != null && delete(d)) {
                MADE.remove(d); // changed under us: not used again
            }
            return made;
        }
    }

    /** The directories this JVM uses (its leak checks allow these). */
    static Set<Path> dirs() {
        return Set.copyOf(DIRS.values());
    }

    private static Path write(Path tempDir) throws IOException {
        Map<String, byte[]> bytes = new java.util.LinkedHashMap<>();
        try {
            for (String name : NAMES) {
                bytes.put(name, AgentBinary.bytes(name));
            }
        } catch (IOException e) {
            throw new Missing(e);
        }
        Files.createDirectories(tempDir);
        Path d = Files.createTempDirectory(tempDir, BwrapHost.PREFIX + BwrapHost.OWNER + "bin-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        MADE.add(d);
        try {
            Path net = Files.createDirectory(d.resolve("net"));
            Path base = Files.createDirectory(d.resolve("base"));
            for (Map.Entry<String, byte[]> b : bytes.entrySet()) {
                Path f = net.resolve(b.getKey());
                Files.write(f, b.getValue());
                Files.setPosixFilePermissions(f, READ_EXEC);
                if (!b.getKey().equals(AgentBinary.RELAY)) {
                    Files.createLink(base.resolve(b.getKey()), f);
                }
            }
            // writable by nobody (and traversable by the jails' uids) only once complete
            for (Path dir : List.of(net, base, d)) {
                Files.setPosixFilePermissions(dir, READ_EXEC);
            }
        } catch (IOException | RuntimeException e) {
            delete(d);
            throw e;
        }
        bytes.forEach((k, v) -> SIZES.put(k, (long) v.length));
        return d;
    }

    private static final Map<String, Long> SIZES = new ConcurrentHashMap<>();

    /**
     * Deletes a binaries directory (this JVM's, or a dead JVM's for the {@link Janitor}); whether it is gone. Its
     * read-only directories are made writable first by the shared delete, as any a sandbox locked up.
     */
    static boolean delete(Path d) {
        return Leftovers.deleteTree(d);
    }

    /** The directory and files are as written: this JVM's uid's, r-xr-xr-x, not links, of the binaries' sizes. */
    private static boolean intact(Path d) {
        try {
            if (!ours(d, true, -1) || !ours(d.resolve("net"), true, -1) || !ours(d.resolve("base"), true, -1)) {
                return false;
            }
            for (String name : NAMES) {
                if (!ours(d.resolve("net").resolve(name), false, SIZES.getOrDefault(name, -2L))
                        || !name.equals(AgentBinary.RELAY)
                        && !ours(d.resolve("base").resolve(name), false, SIZES.getOrDefault(name, -2L))) {
                    return false;
                }
            }
            // base/ holds exactly the agent and the reaper
            try (java.util.stream.Stream<Path> s = Files.list(d.resolve("base"))) {
                return s.count() == NAMES.size() - 1;
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static boolean ours(Path p, boolean dir, long size) throws IOException {
        Map<String, Object> a = Files.readAttributes(p, "unix:uid,mode,size,isDirectory,isRegularFile",
                LinkOption.NOFOLLOW_LINKS);
        boolean type = dir ? (boolean) a.get("isDirectory")
                : (boolean) a.get("isRegularFile") && (long) a.get("size") == size;
        return type && (int) a.get("uid") == Host.currentUid() && ((int) a.get("mode") & 07777) == 0555;
    }
}
