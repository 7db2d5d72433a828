package dev.sandbox4j.testing;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.function.Function;
import org.junit.jupiter.api.Assumptions;

import dev.sandbox4j.Feature;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.spi.SandboxProvider;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The one hook a backend gives the conformance kit: how to open a fresh sandbox, what it supports, and what it
 * leaves behind.
 */
public interface SandboxFixture {
    /**
     * The whole wiring of a backend whose provider needs nothing more: its sandboxes, its declared features, no leak
     * check, no network override. A third-party backend's conformance test is then
     * <pre>{@code
     * class MyBackendConformanceTest implements SandboxConformance {
     *     public SandboxFixture fixture() {
     *         return SandboxFixture.of(new MyBackendProvider());
     *     }
     * }}</pre>
     * and overrides {@link #leaks()} or {@link #egressForTests} on its own fixture when it has them.
     */
    static SandboxFixture of(SandboxProvider provider) {
        Objects.requireNonNull(provider, "provider");
        return new SandboxFixture() {
            @Override
            public Sandbox open(SandboxSpec spec) {
                return provider.open(spec);
            }

            @Override
            public Set<Feature> features() {
                return provider.features();
            }

            @Override
            public void removeVolume(String name) {
                provider.removeVolume(name);
            }

            @Override
            public String toString() {
                return "SandboxFixture.of(" + provider.name() + ")";
            }
        };
    }

    /** Opens a fresh sandbox with this spec. */
    Sandbox open(SandboxSpec spec);

    /**
     * For {@link WorkspaceVolumeContract}: the provider's {@link SandboxProvider#removeVolume}. A backend with
     * {@link Feature#WORKSPACE_VOLUME} forwards it.
     */
    default void removeVolume(String name) {
        throw new UnsupportedOperationException("this fixture cannot remove volumes");
    }

    /**
     * For {@link CodeContextContract}'s lifecycle test, which runs on every backend with
     * {@link Feature#CODE_CONTEXTS}: opens a sandbox where python code contexts can be created. Real backends keep
     * the default (their contexts are real interpreters); a scripted backend scripts python contexts that understand
     * {@code NAME = INTEGER}, {@code NAME} and {@code NAME + INTEGER}, give the expression's value as text, and fail
     * with {@code NameError} on stderr for a name the context has not set.
     */
    default Sandbox openWithContexts(SandboxSpec spec) {
        return open(spec);
    }

    /** The features the backend declares; the kit runs exactly the tests they allow, and the twins of the rest. */
    Set<Feature> features();

    /**
     * Resources of this backend still alive on the host (processes, mounts, containers, volumes, temp directories),
     * one line each; called after a test closed its sandbox, and must be empty then. Override when the backend
     * creates anything outside the JVM heap.
     */
    default List<String> leaks() {
        return List.of();
    }

    /**
     * Where the sandbox's commands see the workspace ({@code pwd} in it). Every backend that isolates its commands
     * mounts it at {@code /workspace}, as the API's paths name it; a test host without a mount namespace (the bare
     * host of sandbox4j's own tests) runs commands in its host directory and says which.
     */
    default String workspaceRoot(Sandbox sandbox) {
        return "/workspace";
    }

    /**
     * For {@link NetworkPolicyContract}: makes sandboxes opened until the returned handle is closed resolve names
     * outside the sandbox as the test says (the kit's loopback fixtures stand in for the internet) and exempt exactly
     * {@code exempt} from the address deny-list. Backends without a network policy leave the default, which skips
     * those tests.
     */
    default AutoCloseable egressForTests(Function<String, InetAddress> resolver, InetSocketAddress... exempt) {
        return Assumptions.abort("this backend has no network policy to test");
    }

    /**
     * For {@link CredentialContract}: as {@link #egressForTests(Function, InetSocketAddress...)}, and brokered requests
     * call their hosts with {@code upstreamTls} (which trusts the kit's HTTPS fixture). Backends without a network
     * policy leave the default, which skips those tests.
     */
    default AutoCloseable egressForTests(Function<String, InetAddress> resolver, javax.net.ssl.SSLContext upstreamTls,
            InetSocketAddress... exempt) {
        return Assumptions.abort("this backend has no network policy to test");
    }
}
