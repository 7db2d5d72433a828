package dev.sandbox4j;

/**
 * One isolated machine for untrusted commands, code and files: its processes share namespaces for its whole life
 * (a server one command starts is reachable by the next), and its workspace is the commands' working directory.
 *
 * <p>Closing it kills every process in it and removes everything it created: processes, mounts, containers,
 * volumes, temporary directories. {@code close()} is idempotent; any call after it fails with
 * {@link ErrorKind#CLOSED}. A sandbox is safe to use from several threads at once.
 */
public interface Sandbox extends AutoCloseable {
    /** A unique id, stable for the sandbox's life. */
    String id();

    Shell shell();

    CodeRunner code();

    FileSystem files();

    /**
     * The workspace as a change set over its {@link SandboxSpec#workspace() source}: what the sandbox changed, as a
     * list and a diff, and its application back to a host directory.
     *
     * @throws SandboxException {@link ErrorKind#UNSUPPORTED} when the backend has no change sets
     */
    default Workspace workspace() {
        throw new SandboxException(ErrorKind.UNSUPPORTED, "this sandbox (" + getClass().getName()
                + ") offers no workspace change set");
    }

    /**
     * Its TCP ports opened on the host's loopback, and readiness helpers ({@link Feature#PORTS}).
     *
     * @throws SandboxException {@link ErrorKind#UNSUPPORTED} when the backend cannot carry connections
     */
    default Ports ports() {
        throw new SandboxException(ErrorKind.UNSUPPORTED, "this sandbox (" + getClass().getName()
                + ") cannot open its ports on the host");
    }

    /**
     * Stops every process of the sandbox where it stands, memory kept, until {@link #resume()}: a sandbox between an
     * agent's turns costs no CPU. While paused, calls on the sandbox and its components fail with
     * {@link ErrorKind#PAUSED} except {@link #id()}, {@link #info()}, {@link #isOpen()}, {@link #resume()} and
     * {@link #close()} (which closes it as usual). Clocks keep running: the {@link SandboxSpec#lifetime() lifetime}
     * (a sandbox whose lifetime ends while paused is closed) and the timeouts of commands already running (one whose
     * timeout passes is killed on resume). Idempotent.
     *
     * @throws SandboxException {@link ErrorKind#UNSUPPORTED} without {@link Feature#PAUSE} (or, on a backend that has
     *                          it, where this sandbox has no freezer: the message says why), {@link ErrorKind#CLOSED}
     */
    default void pause() {
        throw new SandboxException(ErrorKind.UNSUPPORTED, "this sandbox (" + getClass().getName()
                + ") cannot be paused");
    }

    /**
     * Lets a {@link #pause() paused} sandbox's processes run on; nothing if it is not paused.
     *
     * @throws SandboxException {@link ErrorKind#UNSUPPORTED} without {@link Feature#PAUSE}, {@link ErrorKind#CLOSED}
     */
    default void resume() {
        throw new SandboxException(ErrorKind.UNSUPPORTED, "this sandbox (" + getClass().getName()
                + ") cannot be paused or resumed");
    }

    /**
     * Captures the workspace into {@link SnapshotStore#defaultStore()}: see {@link #snapshot(SnapshotStore)}.
     *
     * @throws SandboxException {@link ErrorKind#UNSUPPORTED} without {@link Feature#SNAPSHOT}
     */
    default Snapshot snapshot() {
        return snapshot(SnapshotStore.defaultStore());
    }

    /**
     * Captures the workspace's file system (contents, modes, symbolic links as links, empty directories; FIFOs,
     * sockets and devices are skipped and counted) into {@code store}, streamed. Each file is captured whole as it
     * was at one moment; files are read one after another while commands may go on writing, so the set is not one
     * instant of the whole tree: {@link #pause()} first for that.
     *
     * @throws SandboxException {@link ErrorKind#UNSUPPORTED} without {@link Feature#SNAPSHOT},
     *                          {@link ErrorKind#NO_SPACE_LEFT} past the store's {@link SnapshotStore#maxBytes()},
     *                          {@link ErrorKind#TOO_LARGE} past the entry bound, {@link ErrorKind#IO_ERROR} when the
     *                          store fails; nothing is stored then
     */
    default Snapshot snapshot(SnapshotStore store) {
        throw new SandboxException(ErrorKind.UNSUPPORTED, "this sandbox (" + getClass().getName()
                + ") cannot take snapshots");
    }

    /**
     * A new sandbox of the same spec whose workspace starts as this one's now: {@link #snapshot()} then an open from
     * it. The two are independent from then on; the caller closes both.
     *
     * @throws SandboxException as {@link #snapshot()} and the open
     */
    default Sandbox fork() {
        throw new SandboxException(ErrorKind.UNSUPPORTED, "this sandbox (" + getClass().getName()
                + ") cannot be forked");
    }

    /**
     * The secret another host needs to {@linkplain Sandboxes#attach attach} to this leased sandbox
     * ({@link SandboxSpec#lease()}); store it before this JVM may die.
     *
     * @throws SandboxException {@link ErrorKind#UNSUPPORTED} when the sandbox has no lease, {@link ErrorKind#CLOSED}
     */
    default AttachCredential credential() {
        throw new SandboxException(ErrorKind.UNSUPPORTED, "this sandbox (" + getClass().getName()
                + ") has no lease: open it with SandboxSpec.Builder.lease on a backend with REATTACH");
    }

    /**
     * Lets go of a leased sandbox without removing it: this object is closed from here on (calls fail with
     * {@link ErrorKind#CLOSED}), the sandbox's commands are killed, its files and installed software stay, and it waits
     * for a host to {@linkplain Sandboxes#attach attach} until its lease runs out, then it is removed. Idempotent
     * while open; returns the credential.
     *
     * @throws SandboxException {@link ErrorKind#UNSUPPORTED} when the sandbox has no lease, {@link ErrorKind#CLOSED}
     */
    default AttachCredential detach() {
        throw new SandboxException(ErrorKind.UNSUPPORTED, "this sandbox (" + getClass().getName()
                + ") has no lease and cannot be detached");
    }

    /** The backend, its features and the limits really in force. */
    SandboxInfo info();

    /** Whether the sandbox is still open (not closed, not expired). */
    boolean isOpen();

    /** Kills everything in the sandbox and removes what it created. Idempotent; throws nothing checked. */
    @Override
    void close();
}
