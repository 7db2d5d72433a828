package dev.sandbox4j;

/**
 * A capability a backend may offer. Code and tests branch on features, never on backend names.
 *
 * <p>A call that needs a feature the sandbox lacks fails with {@link ErrorKind#UNSUPPORTED} and changes nothing.
 */
public enum Feature {
    /** Commands run in a real POSIX shell ({@code sh -c}) with real processes; otherwise they are scripted. */
    SHELL,
    /** {@link Shell#start} runs a background command whose handle streams output and takes stdin. */
    BACKGROUND_PROCESSES,
    /**
     * {@link Shell#processes()}: background commands have ids; running ones are listed, their output is read again
     * from a cursor by any caller, stdin is written and they are killed by id; finished ones' results are kept a while.
     */
    PROCESS_REGISTRY,
    /**
     * {@link ExecRequest#withTerminal}: commands run under a pseudo-terminal allocated inside the sandbox, with a size,
     * a {@code TERM}, input typed to it, {@link ExecHandle#resize} and their output as text or raw bytes.
     */
    TERMINAL,
    /** Processes of one sandbox share a machine: a server started by one command is reachable by the next. */
    SHARED_PROCESS_SPACE,
    /** Code snippets run in real interpreters ({@link CodeRunner}); otherwise they are scripted. */
    CODE_EXECUTION,
    /**
     * {@link CodeRunner#createContext} makes long-lived interpreters whose state (variables, imports, working
     * directory) lasts across runs; with {@link #CODE_EXECUTION} they are real interpreters, else scripted.
     */
    CODE_CONTEXTS,
    /** Commands cannot see or touch the host outside the workspace (a jail or a container). */
    ISOLATION,
    /** Commands have no network unless the spec grants it. */
    NETWORK_ISOLATION,
    /** The memory limit of the spec is enforced; going over it kills the command. */
    MEMORY_LIMIT,
    /** The process-count limit of the spec is enforced; a fork bomb ends without harming the sandbox. */
    PROCESS_LIMIT,
    /** The CPU limit of the spec is enforced. */
    CPU_LIMIT,
    /**
     * The workspace quota of the spec ({@link ResourceLimits#workspaceBytes()}, {@link ResourceLimits#workspaceInodes()})
     * is enforced: past it, writes fail inside the sandbox ({@code ENOSPC}) and through the file API
     * ({@link ErrorKind#NO_SPACE_LEFT}).
     */
    WORKSPACE_QUOTA,
    /** {@link FileSystem#watch} records changes, those commands make included ({@link FileWatch}). */
    FILE_WATCH,
    /** The workspace holds symbolic links (created by commands); the file API never follows them out. */
    SYMLINKS,
    /** Files carry POSIX permission bits, reported by {@link FileSystem#stat}. */
    POSIX_PERMISSIONS,
    /** File names may be arbitrary bytes (not UTF-8), as on Linux file systems. */
    BYTE_FILE_NAMES,
    /** {@link WorkspaceSource#copyOf}: the workspace starts as a copy of a host directory, with a change set. */
    WORKSPACE_COPY,
    /**
     * {@link WorkspaceSource#overlayOf}: the workspace is a host directory under a copy-on-write layer; the host is
     * never written, and {@link Sandbox#workspace()} gives the change set.
     */
    WORKSPACE_OVERLAY,
    /** {@link WorkspaceSource#bindReadWrite}: the workspace is a host directory itself, written in place. */
    WORKSPACE_BIND,
    /** {@link Mount#readOnly}: host paths read-only at chosen paths; writes fail (EROFS, permission_denied). */
    READ_ONLY_MOUNTS,
    /** {@link Mount#scratch}: empty read-write directories at chosen paths, gone with the sandbox. */
    SCRATCH_MOUNTS,
    /**
     * {@link WorkspaceSource#volume}: a named workspace made on first use, kept after close (and across restarts of
     * the JVM), shared by sandboxes opened on it at once, removed only by
     * {@link dev.sandbox4j.spi.SandboxProvider#removeVolume}.
     */
    WORKSPACE_VOLUME,
    /**
     * {@link WorkspaceSource#git}: the workspace starts as a clone of a git repository, made by git inside the
     * sandbox (a URL through the network policy, a host path through a read-only mount); no git runs on the host.
     */
    WORKSPACE_GIT,
    /**
     * {@link Sandbox#pause()} and {@link Sandbox#resume()}: every process stopped where it stands, memory kept (a
     * cgroup freezer, a container engine's pause).
     */
    PAUSE,
    /**
     * {@link Sandbox#ports()}: a TCP port of the sandbox opened on the host's loopback, carried through the sandbox's
     * agent (each connection made inside the sandbox to its own loopback), with readiness helpers.
     */
    PORTS,
    /**
     * {@link Sandbox#snapshot()}, {@link Sandbox#fork()} and {@link WorkspaceSource#snapshot}: the workspace's file
     * system captured into a {@link SnapshotStore} and a new sandbox started from it.
     */
    SNAPSHOT,
    /**
     * {@link SandboxSpec#lease()}: a sandbox outlives the JVM that opened it (or {@link Sandbox#detach()}) for its
     * lease, and another host {@linkplain Sandboxes#attach attaches} to it by id and {@link AttachCredential}.
     */
    REATTACH,
}
