package dev.sandbox4j.local;

import java.nio.file.Path;
import java.util.Objects;

/** Host-side settings of the local (bubblewrap) backend. Immutable; {@link #defaults()} suits most hosts. */
public final class LocalOptions {
    private final String bwrap;
    private final Path tempDir;
    private final int uidBase;

    private LocalOptions(String bwrap, Path tempDir, int uidBase) {
        this.bwrap = bwrap;
        this.tempDir = tempDir;
        this.uidBase = uidBase;
    }

    /** bwrap from PATH, temp directories under {@code java.io.tmpdir}, jail uids from 200000 when the JVM is root. */
    public static LocalOptions defaults() {
        return new LocalOptions(null, Path.of(System.getProperty("java.io.tmpdir")), 200_000);
    }

    /** The bwrap executable to use instead of the one found on PATH. */
    public LocalOptions withBwrap(String path) {
        return new LocalOptions(Objects.requireNonNull(path, "path"), tempDir, uidBase);
    }

    /** Where workspaces and control directories are created (must be on a local, POSIX file system). */
    public LocalOptions withTempDir(Path dir) {
        return new LocalOptions(bwrap, Objects.requireNonNull(dir, "dir"), uidBase);
    }

    /**
     * The first host uid given to jails when the JVM runs as root; each sandbox gets its own uid (and gid) in
     * {@code [base, base + 1_000_000)}.
     */
    public LocalOptions withUidBase(int base) {
        if (base < 1000) {
            throw new IllegalArgumentException("uid base (" + base + ") must be at least 1000");
        }
        return new LocalOptions(bwrap, tempDir, base);
    }

    public String bwrap() {
        return bwrap;
    }

    public Path tempDir() {
        return tempDir;
    }

    public int uidBase() {
        return uidBase;
    }
}
