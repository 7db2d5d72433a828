package dev.sandbox4j.spi;

import dev.sandbox4j.Feature;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import java.util.Optional;
import java.util.Set;

/**
 * A backend, found through {@link java.util.ServiceLoader} ({@code META-INF/services/dev.sandbox4j.spi.SandboxProvider}).
 * Implementations need a public no-argument constructor and must be cheap to construct: probing the host belongs in
 * {@link #unavailableReason()}.
 */
public interface SandboxProvider {
    /** A short lower-case name, such as {@code local}; unique among providers. */
    String name();

    /** Higher wins when no provider is named. Negative: never picked automatically, only by name. */
    int priority();

    /** The features sandboxes of this provider offer. */
    Set<Feature> features();

    /** Empty when this host can run the backend, else why not and what to install. May probe the host. */
    Optional<String> unavailableReason();

    /**
     * Opens a sandbox, ready for commands when this returns.
     *
     * @throws dev.sandbox4j.SandboxException {@code backend_unavailable} when the host cannot run it, with what to
     *                                        install; {@code unsupported} for a spec it cannot honour
     */
    Sandbox open(SandboxSpec spec);

    /**
     * Attaches to a leased sandbox ({@link SandboxSpec#lease()}) that this backend opened, in this JVM or another, by
     * its id and the credential it gave; the sandbox is ready for commands when this returns. {@code settings} are
     * this host's: command timeout, lifetime (counted from the attach), output cap, environment, file rules; what the
     * sandbox is (limits, workspace, mounts, network, files, syscall sets) was set at open and must be left at its
     * default here, else {@code invalid_argument}.
     *
     * @throws dev.sandbox4j.SandboxException {@code not_found} when there is no leased sandbox of that id (never
     *                                        was, or its lease ran out), {@code permission_denied} for a wrong
     *                                        credential (nothing changes), {@code conflict} while another host is
     *                                        attached, {@code unsupported} without {@link Feature#REATTACH}
     */
    default Sandbox attach(String id, dev.sandbox4j.AttachCredential credential, SandboxSpec settings) {
        throw new dev.sandbox4j.SandboxException(dev.sandbox4j.ErrorKind.UNSUPPORTED, "the " + name()
                + " backend cannot keep a sandbox alive without the JVM that opened it");
    }

    /**
     * Removes the named volume ({@link dev.sandbox4j.WorkspaceSource#volume}) and everything in it. Nothing happens
     * to a volume by itself: this is the one way it goes.
     *
     * @throws dev.sandbox4j.SandboxException {@code not_found} when there is no such volume, {@code conflict} while a
     *                                        sandbox is open on it, {@code unsupported} when the backend keeps none
     */
    default void removeVolume(String name) {
        throw new dev.sandbox4j.SandboxException(dev.sandbox4j.ErrorKind.UNSUPPORTED, "the " + name()
                + " backend keeps no named volumes");
    }
}
