package dev.sandbox4j;

/**
 * Resource limits of a sandbox. In a {@link SandboxSpec} they are what is asked for (0 = not asked for); in
 * {@link SandboxInfo} what is really in force, with 0 for a limit the backend does not enforce.
 *
 * <p><b>Workspace quota.</b> {@code workspaceBytes} and {@code workspaceInodes} bound what the workspace holds, files
 * written by commands and through the file API alike: past them a write fails inside the sandbox with {@code ENOSPC}
 * and through the file API with {@link ErrorKind#NO_SPACE_LEFT}; deleting files makes room again. The built-in
 * backends keep the workspace in a memory-backed file system of that size (a sized tmpfs), so <b>its files count
 * against {@code memoryBytes}</b>: with the defaults, a full workspace (512 MiB) leaves 512 MiB for processes. Ask for
 * no quota with {@link #withoutWorkspaceQuota()} (the workspace is then a plain directory or volume on the host's disk,
 * bounded only by that disk).
 *
 * @param memoryBytes     memory of all processes together (and, on memory-backed workspaces, the workspace's files)
 * @param maxProcesses    processes and threads at once (a fork bomb stops here)
 * @param cpus            CPU time, in cores (1.5 = one and a half cores)
 * @param maxFileBytes    largest file a command may write
 * @param tmpBytes        size of the sandbox's {@code /tmp}
 * @param workspaceBytes  bytes the workspace may hold in all
 * @param workspaceInodes files, directories and links the workspace may hold in all
 */
public record ResourceLimits(long memoryBytes, int maxProcesses, double cpus, long maxFileBytes, long tmpBytes,
                             long workspaceBytes, long workspaceInodes) {
    public static final long MIB = 1L << 20;

    /** Default workspace quota in bytes: 512 MiB, half of the default memory limit it counts against. */
    public static final long DEFAULT_WORKSPACE_BYTES = 512 * MIB;

    /** Default workspace quota in files, directories and links: 131,072 (128 Ki). */
    public static final long DEFAULT_WORKSPACE_INODES = 128 * 1024;

    /**
     * 1 GiB of memory, 256 processes, 1 core, 1 GiB files, 256 MiB of /tmp, a 512 MiB workspace of at most 131,072
     * files and directories.
     */
    public static final ResourceLimits DEFAULTS = new ResourceLimits(1024 * MIB, 256, 1.0, 1024 * MIB, 256 * MIB,
            DEFAULT_WORKSPACE_BYTES, DEFAULT_WORKSPACE_INODES);

    /** No limit at all: what {@link SandboxInfo#limits()} reports for a backend that enforces none. */
    public static final ResourceLimits NONE = new ResourceLimits(0, 0, 0, 0, 0, 0, 0);

    public ResourceLimits {
        if (memoryBytes < 0 || maxProcesses < 0 || cpus < 0 || maxFileBytes < 0 || tmpBytes < 0
                || workspaceBytes < 0 || workspaceInodes < 0) {
            throw new IllegalArgumentException("limits must not be negative");
        }
    }

    /** Whether a workspace quota is asked for (or, in {@link SandboxInfo}, in force): bytes or inodes. */
    public boolean hasWorkspaceQuota() {
        return workspaceBytes > 0 || workspaceInodes > 0;
    }

    public ResourceLimits withMemoryBytes(long memoryBytes) {
        return new ResourceLimits(memoryBytes, maxProcesses, cpus, maxFileBytes, tmpBytes, workspaceBytes,
                workspaceInodes);
    }

    public ResourceLimits withMaxProcesses(int maxProcesses) {
        return new ResourceLimits(memoryBytes, maxProcesses, cpus, maxFileBytes, tmpBytes, workspaceBytes,
                workspaceInodes);
    }

    public ResourceLimits withCpus(double cpus) {
        return new ResourceLimits(memoryBytes, maxProcesses, cpus, maxFileBytes, tmpBytes, workspaceBytes,
                workspaceInodes);
    }

    public ResourceLimits withMaxFileBytes(long maxFileBytes) {
        return new ResourceLimits(memoryBytes, maxProcesses, cpus, maxFileBytes, tmpBytes, workspaceBytes,
                workspaceInodes);
    }

    public ResourceLimits withTmpBytes(long tmpBytes) {
        return new ResourceLimits(memoryBytes, maxProcesses, cpus, maxFileBytes, tmpBytes, workspaceBytes,
                workspaceInodes);
    }

    /** The workspace quota: {@code bytes} in all and {@code inodes} files, directories and links (0: not bounded). */
    public ResourceLimits withWorkspaceQuota(long bytes, long inodes) {
        return new ResourceLimits(memoryBytes, maxProcesses, cpus, maxFileBytes, tmpBytes, bytes, inodes);
    }

    /**
     * No workspace quota, asked for explicitly: the workspace is bounded only by the disk it is on (the host's, or the
     * Docker engine host's). Every backend opens such a spec; use it only where something else bounds the disk.
     */
    public ResourceLimits withoutWorkspaceQuota() {
        return withWorkspaceQuota(0, 0);
    }
}
