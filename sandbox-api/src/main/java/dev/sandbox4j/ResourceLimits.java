package dev.sandbox4j;

/**
 * Resource limits of a sandbox. In a {@link SandboxSpec} they are what is asked for; in {@link SandboxInfo} what is
 * really in force, with 0 for a limit the backend does not enforce.
 *
 * @param memoryBytes  memory of all processes together
 * @param maxProcesses processes and threads at once (a fork bomb stops here)
 * @param cpus         CPU time, in cores (1.5 = one and a half cores)
 * @param maxFileBytes largest file a command may write
 * @param tmpBytes     size of the sandbox's {@code /tmp}
 */
public record ResourceLimits(long memoryBytes, int maxProcesses, double cpus, long maxFileBytes, long tmpBytes) {
    public static final long MIB = 1L << 20;

    /** 1 GiB of memory, 256 processes, 1 core, 1 GiB files, 256 MiB of /tmp. */
    public static final ResourceLimits DEFAULTS = new ResourceLimits(1024 * MIB, 256, 1.0, 1024 * MIB, 256 * MIB);

    /** No limit at all: what {@link SandboxInfo#limits()} reports for a backend that enforces none. */
    public static final ResourceLimits NONE = new ResourceLimits(0, 0, 0, 0, 0);

    public ResourceLimits {
        if (memoryBytes < 0 || maxProcesses < 0 || cpus < 0 || maxFileBytes < 0 || tmpBytes < 0) {
            throw new IllegalArgumentException("limits must not be negative");
        }
    }

    public ResourceLimits withMemoryBytes(long memoryBytes) {
        return new ResourceLimits(memoryBytes, maxProcesses, cpus, maxFileBytes, tmpBytes);
    }

    public ResourceLimits withMaxProcesses(int maxProcesses) {
        return new ResourceLimits(memoryBytes, maxProcesses, cpus, maxFileBytes, tmpBytes);
    }

    public ResourceLimits withCpus(double cpus) {
        return new ResourceLimits(memoryBytes, maxProcesses, cpus, maxFileBytes, tmpBytes);
    }

    public ResourceLimits withMaxFileBytes(long maxFileBytes) {
        return new ResourceLimits(memoryBytes, maxProcesses, cpus, maxFileBytes, tmpBytes);
    }

    public ResourceLimits withTmpBytes(long tmpBytes) {
        return new ResourceLimits(memoryBytes, maxProcesses, cpus, maxFileBytes, tmpBytes);
    }
}
