package dev.sandbox4j.core;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.Language;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxInfo;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;
import java.util.function.Predicate;

/**
 * What a backend supplies to {@link AgentSandbox}: an isolation (a jail, a container, a pod) whose first process is
 * the native agent, the agent's two byte streams, what only it knows (its limits as they hold, its process groups, why
 * it died) and its removal. Everything else, from the command slots to the close order, is {@link AgentSandbox}'s and
 * is written once. The methods are called in this order: {@link #start}, {@link #ready}, {@link #workspace}, then
 * any of the rest while the sandbox is open, and {@link #close} once, last, also after a failed start.
 *
 * <p>Errors: every exception a host throws or hands back is already a {@link SandboxException} of the backend's own
 * translation point ({@link #error}); {@link AgentSandbox} raises none of its own.
 */
public interface SandboxHost {
    /** What {@link AgentSandbox} hands its host: the sandbox's open state, as the host's facets must check it. */
    interface Context {
        /** Throws the host's closed (or gone) error when the sandbox is closed or its isolation is gone. */
        void checkOpen();

        boolean isClosed();
    }

    /** The agent's stdout (frames from it) and stdin (frames to it). */
    record AgentStreams(InputStream fromAgent, OutputStream toAgent) {
    }

    /** The sandbox's id (the names of what the host makes carry it). */
    String id();

    /** Starts the isolation with the agent as its first process; called once. */
    AgentStreams start(Context context);

    /** The error for an agent that did not say READY ({@code why}), with what the host knows (its stderr, exit). */
    SandboxException agentDidNotStart(String why);

    /**
     * The interpreters of the sandbox's languages when the host answers itself: without asking the agent (a jail that
     * binds the host's own {@code /usr} sees the host's files), or by running {@link LanguageProbe#PROBE} with its own
     * checks in the same command; or empty: then {@link AgentSandbox} runs the probe (one round trip on the open's
     * path, about a millisecond on a jail, a few on a container).
     */
    default java.util.Optional<Map<Language, String>> interpreters(AgentRunner runner) {
        return java.util.Optional.empty();
    }

    /** The environment of the backend's own commands (probes, file scripts): fixed, nothing of the user's. */
    List<String> internalEnv();

    /**
     * Where commands see the workspace: {@value WorkspacePaths#WORKSPACE} in every isolation that mounts it there (the
     * API's paths say so); a host without a mount namespace of its own (the bare test host) gives its directory.
     * Characters {@code [A-Za-z0-9/._-]} only (it is written into the code runner's scripts).
     */
    default String workspaceRoot() {
        return WorkspacePaths.WORKSPACE;
    }

    /** Where the agent's binaries are inside the sandbox (the egress relay starts from there). */
    String agentDir();

    /**
     * The agent is up: the host's checks through it, then what the sandbox is ({@code interpreters}: the languages
     * the probe found in the sandbox, with their paths).
     */
    SandboxInfo ready(AgentRunner runner, Map<Language, String> interpreters);

    /** The file API: the host's own (a path on the host) or through {@code runner}; checks {@code context} itself. */
    FileSystem workspace(AgentRunner runner, Context context);

    /**
     * The workspace's change set ({@link dev.sandbox4j.Sandbox#workspace()}) for a copy or overlay source, or null:
     * then the sandbox answers with a workspace without one ({@link NoChangeSet}).
     */
    default dev.sandbox4j.Workspace changeSet(Context context) {
        return null;
    }

    /** Paths of the workspace a watch must not report (the host's temporary files). */
    default Predicate<String> hiddenFromWatches() {
        return p -> false;
    }

    /** Process control beyond the agent's: cgroups and their counters. Defaults: none. */
    interface ProcessControl {
        /** Called between SPAWNED and GO with the agent's pid of the command; null, or why it must not run. */
        default String place(int agentPid, int id) {
            return null;
        }

        default boolean hasGroup(int id) {
            return false;
        }

        default void signalGroup(int id, boolean kill) {
        }

        default void pruneGroups(IntPredicate live) {
        }

        /** The OOM-kill count, or -1 for the agent's own report (containers: the agent reads its cgroup). */
        default long oomKills() {
            return -1;
        }

        default long pidsDenied() {
            return -1;
        }
    }

    default ProcessControl processControl() {
        return new ProcessControl() {
        };
    }

    /** Why the isolation is gone though nobody closed the sandbox (the jail exited), or null; called often: cheap. */
    default String whyGone() {
        return null;
    }

    /** Why the agent's channel ended under an open sandbox ({@code why}: the channel's reason), for people. */
    String death(String why);

    /** Why a command that ended with 137 was killed from outside (its container stopped), or null. */
    default String killedFromOutside() {
        return null;
    }

    /**
     * The error of a call after close; {@code deathDetail} is why the sandbox closed itself, or null. By default,
     * made by {@link #error}: CLOSED after a close, BACKEND_UNAVAILABLE when the isolation died under the sandbox
     * (the backend failed, not the caller: open a new sandbox).
     */
    default SandboxException closedError(String deathDetail) {
        if (deathDetail != null) {
            return error(ErrorKind.BACKEND_UNAVAILABLE, "sandbox " + id() + " is gone: " + deathDetail, null);
        }
        return error(ErrorKind.CLOSED, "sandbox " + id() + " is closed", null);
    }

    /** The backend's error translation point, for what {@link AgentSandbox} must report. */
    SandboxException error(ErrorKind kind, String message, Throwable cause);

    /**
     * Freezes ({@code true}) or thaws every process of the isolation, the agent included, memory kept; returns once
     * the kernel or engine says it is done. The only part of pause and resume a backend supplies ({@link AgentSandbox}
     * does the rest). Default: {@link ErrorKind#UNSUPPORTED}; a backend that can freeze only some sandboxes (those
     * with a cgroup) refuses the others the same way, saying why.
     */
    default void freeze(boolean frozen) {
        throw error(ErrorKind.UNSUPPORTED, "this backend cannot pause a sandbox", null);
    }

    /**
     * Bulk I/O for snapshots: copies the workspace's tree (files with their modes, directories, links as links; no
     * special files) into the empty host directory {@code into} by the host's own faster path (a container engine's
     * archive endpoint), and returns how many special files it left out; -1 when the host has none (the default): the
     * file API then serves, as on every backend. The capture then checks each file against the live workspace's
     * listing and reads again, through the file API, any that changed meanwhile.
     */
    default long copyWorkspaceTo(java.nio.file.Path into) {
        return -1;
    }

    /**
     * Opens another sandbox of this backend, as its provider would ({@link dev.sandbox4j.Sandbox#fork()}: the spec's
     * workspace is then a snapshot source). Default: {@link ErrorKind#UNSUPPORTED}.
     */
    default dev.sandbox4j.Sandbox openAnother(dev.sandbox4j.SandboxSpec spec) {
        throw error(ErrorKind.UNSUPPORTED, "this backend cannot fork a sandbox", null);
    }

    /**
     * A leased sandbox's lease (docs/reattach.md): its credential, how long the agent outlives a host that let go, the
     * loopback port it listens on for a later host, and whether this host opened it ({@code tell}: the agent is sent
     * LEASE after READY; a host that attached finds it leased already).
     */
    record Lease(dev.sandbox4j.AttachCredential credential, java.time.Duration duration, int port, boolean tell) {
    }

    /** The lease, or null (the default: the sandbox ends with its host). */
    default Lease lease() {
        return null;
    }

    /**
     * Lets go of a leased isolation without removing it (instead of {@link #close}, once, after every command ended):
     * ends the agent's channel so the agent waits for a later host. Must not throw.
     */
    default void detach() {
        close();
    }

    /** Before the agent's channel closes (a host whose pipe can block a sender releases it here). */
    default void beforeChannelClose() {
    }

    /** Removes everything {@link #start} made; called once, after every command ended; must not throw. */
    void close();
}
