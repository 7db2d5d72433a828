package dev.sandbox4j.local;

import java.nio.file.Path;
import java.util.Objects;

/** Host-side settings of the local (bubblewrap) backend. Immutable; {@link #defaults()} suits most hosts. */
public final class LocalOptions {
    private final String bwrap;
    private final Path tempDir;
    private final int uidBase;
    private final Path cgroupParent;
    /** Null: the policy's filter. Package-private on purpose: no user can weaken the jail's seccomp through it. */
    private final byte[] seccompProgram;
    private final Path volumesDir;

    private LocalOptions(String bwrap, Path tempDir, int uidBase, Path cgroupParent, byte[] seccompProgram,
                         Path volumesDir) {
        this.bwrap = bwrap;
        this.tempDir = tempDir;
        this.uidBase = uidBase;
        this.cgroupParent = cgroupParent;
        this.seccompProgram = seccompProgram;
        this.volumesDir = volumesDir;
    }

    /** bwrap from PATH, temp directories under {@code java.io.tmpdir}, jail uids from 200000 when the JVM is root. */
    public static LocalOptions defaults() {
        return new LocalOptions(null, Path.of(System.getProperty("java.io.tmpdir")), 200_000, null, null,
                defaultVolumesDir());
    }

    /** The bwrap executable to use instead of the one found on PATH. */
    public LocalOptions withBwrap(String path) {
        return new LocalOptions(Objects.requireNonNull(path, "path"), tempDir, uidBase, cgroupParent, seccompProgram,
                volumesDir);
    }

    /** Where workspaces and control directories are created (must be on a local, POSIX file system). */
    public LocalOptions withTempDir(Path dir) {
        return new LocalOptions(bwrap, Objects.requireNonNull(dir, "dir"), uidBase, cgroupParent, seccompProgram,
                volumesDir);
    }

    /**
     * The first host uid given to jails when the JVM runs as root; each sandbox gets its own uid (and gid) in
     * {@code [base, base + 1_000_000)}.
     */
    public LocalOptions withUidBase(int base) {
        if (base < 1000) {
            throw new IllegalArgumentException("uid base (" + base + ") must be at least 1000");
        }
        return new LocalOptions(bwrap, tempDir, base, cgroupParent, seccompProgram, volumesDir);
    }

    /**
     * On cgroup v2, the group under which sandboxes' groups are made (absolute, or relative to /sys/fs/cgroup), for
     * example one a service manager delegated; it must be writable and delegate memory, pids and cpu. By default
     * sandbox4j uses {@code /sys/fs/cgroup/sandbox4j} as root, else the JVM's own delegated cgroup.
     */
    public LocalOptions withCgroupParent(Path parent) {
        return new LocalOptions(bwrap, tempDir, uidBase, Objects.requireNonNull(parent, "parent"), seccompProgram,
                volumesDir);
    }

    /**
     * Where named volumes ({@code WorkspaceSource.volume}) are kept, one directory each; by default
     * {@code /var/lib/sandbox4j/volumes} for root, else {@code $XDG_DATA_HOME/sandbox4j/volumes} (or
     * {@code ~/.local/share/sandbox4j/volumes}). Must be on a local file system.
     */
    public LocalOptions withVolumesDir(Path dir) {
        return new LocalOptions(bwrap, tempDir, uidBase, cgroupParent, seccompProgram,
                Objects.requireNonNull(dir, "dir").toAbsolutePath().normalize());
    }

    public Path volumesDir() {
        return volumesDir;
    }

    private static Path defaultVolumesDir() {
        if ("root".equals(System.getProperty("user.name"))) {
            return Path.of("/var/lib/sandbox4j/volumes");
        }
        String xdg = System.getenv("XDG_DATA_HOME");
        Path base = xdg != null && xdg.startsWith("/") ? Path.of(xdg)
                : Path.of(System.getProperty("user.home"), ".local", "share");
        return base.resolve("sandbox4j").resolve("volumes");
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

    /** The configured cgroup v2 parent, or null for the default. */
    public Path cgroupParent() {
        return cgroupParent;
    }

    /**
     * A classic BPF program to install instead of the policy's: for the seccomp cost measure (test scope, same
     * package), which times the old deny-list against the allow-list in one JVM, interleaved. Null: the policy's.
     */
    LocalOptions withSeccompProgram(byte[] program) {
        return new LocalOptions(bwrap, tempDir, uidBase, cgroupParent, program == null ? null : program.clone(),
                volumesDir);
    }

    /** The jail's filter for this JVM's architecture and the spec's opt-in sets. */
    byte[] seccompProgram(java.util.Set<String> syscallSets) {
        return seccompProgram != null ? seccompProgram.clone() : Seccomp.program(syscallSets);
    }
}
