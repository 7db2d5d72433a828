package dev.sandbox4j.testing;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.function.Function;
import org.junit.jupiter.api.Assumptions;

import dev.sandbox4j.Feature;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import java.util.List;
import java.util.Set;

/**
 * The one hook a backend gives the conformance kit: how to open a fresh sandbox, what it supports, and what it
 * leaves behind.
 */
public interface SandboxFixture {
    /** Opens a fresh sandbox with this spec. */
    Sandbox open(SandboxSpec spec);

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
     * For {@link NetworkPolicyContract}: makes sandboxes opened until the returned handle is closed resolve names
     * outside the sandbox as the test says (the kit's loopback fixtures stand in for the internet) and exempt exactly
     * {@code exempt} from the address deny-list. Backends without a network policy leave the default, which skips
     * those tests.
     */
    default AutoCloseable egressForTests(Function<String, InetAddress> resolver, InetSocketAddress... exempt) {
        return Assumptions.abort("this backend has no network policy to test");
    }
}
