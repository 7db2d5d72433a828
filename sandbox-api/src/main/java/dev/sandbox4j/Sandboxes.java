package dev.sandbox4j;

import dev.sandbox4j.spi.SandboxProvider;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/**
 * The entry point: opens sandboxes on the backends found on the class path.
 *
 * <pre>{@code
 * try (Sandbox sandbox = Sandboxes.open()) {                 // the best backend available here
 *     System.out.println(sandbox.shell().run("uname -a").stdout());
 * }
 * try (Sandbox sandbox = Sandboxes.open("docker", spec)) { ... }  // a backend by name
 * }</pre>
 *
 * <p>Without a name, the provider named by the system property {@code sandbox4j.provider} or the environment
 * variable {@code SANDBOX4J_PROVIDER} is used, else the available provider with the highest priority. Providers
 * with a negative priority (the in-memory fake) are only ever opened by name, so code never falls back from a real
 * jail to a fake one without saying so.
 */
public final class Sandboxes {
    /** System property naming the default provider. */
    public static final String PROVIDER_PROPERTY = "sandbox4j.provider";
    /** Environment variable naming the default provider. */
    public static final String PROVIDER_ENV = "SANDBOX4J_PROVIDER";

    private Sandboxes() {
    }

    /** Opens a sandbox with default settings on the default provider. */
    public static Sandbox open() {
        return open(SandboxSpec.defaults());
    }

    /** Opens a sandbox on the default provider. */
    public static Sandbox open(SandboxSpec spec) {
        String named = configuredProvider();
        if (named != null) {
            return open(named, spec);
        }
        List<SandboxProvider> candidates = load().values().stream()
                .filter(p -> p.priority() >= 0)
                .sorted(Comparator.comparingInt(SandboxProvider::priority).reversed())
                .collect(Collectors.toList());
        List<String> reasons = new ArrayList<>();
        for (SandboxProvider provider : candidates) {
            Optional<String> reason = provider.unavailableReason();
            if (reason.isEmpty()) {
                return provider.open(spec);
            }
            reasons.add(provider.name() + ": " + reason.get());
        }
        throw new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, candidates.isEmpty()
                ? "no sandbox backend on the class path; add sandbox-local or sandbox-docker"
                : "no sandbox backend available here; " + String.join("; ", reasons));
    }

    /** Opens a sandbox with default settings on the named provider. */
    public static Sandbox open(String provider) {
        return open(provider, SandboxSpec.defaults());
    }

    /** Opens a sandbox on the named provider. */
    public static Sandbox open(String provider, SandboxSpec spec) {
        SandboxProvider p = provider(provider);
        Optional<String> reason = p.unavailableReason();
        if (reason.isPresent()) {
            throw new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, "backend '" + provider + "' is not available: "
                    + reason.get());
        }
        return p.open(spec);
    }

    /**
     * Attaches to a leased sandbox by id ({@link Sandbox#id()}) and its {@link Sandbox#credential()}, from any JVM
     * that reaches the same backend (docs/reattach.md).
     *
     * <pre>{@code
     * Sandbox s = Sandboxes.open("docker", SandboxSpec.builder().lease(Duration.ofMinutes(10)).build());
     * String id = s.id(), secret = s.credential().reveal();   // store both; the secret as a secret
     * s.detach();                                              // or this JVM dies
     * try (Sandbox again = Sandboxes.attach("docker", id, AttachCredential.parse(secret))) { ... }
     * }</pre>
     *
     * @throws SandboxException see {@link SandboxProvider#attach}
     */
    public static Sandbox attach(String provider, String id, AttachCredential credential) {
        return attach(provider, id, credential, SandboxSpec.defaults());
    }

    /**
     * {@link #attach(String, String, AttachCredential)} with this host's command settings (timeouts, lifetime, output
     * cap, environment, file rules; the rest of {@code settings} must be left at its defaults).
     */
    public static Sandbox attach(String provider, String id, AttachCredential credential, SandboxSpec settings) {
        java.util.Objects.requireNonNull(settings, "settings");
        java.util.Objects.requireNonNull(id, "id");
        java.util.Objects.requireNonNull(credential, "credential");
        SandboxProvider p = provider(provider);
        Optional<String> reason = p.unavailableReason();
        if (reason.isPresent()) {
            throw new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, "backend '" + provider + "' is not available: "
                    + reason.get());
        }
        return p.attach(id, credential, settings);
    }

    /**
     * Every provider on the class path, highest priority first, for diagnostics: its {@code name()},
     * {@code priority()}, {@code features()}, and {@code unavailableReason()} (empty when it can run here, else why
     * not and what to install; it may probe the host, so call it once).
     *
     * <pre>{@code
     * for (SandboxProvider p : Sandboxes.providers()) {
     *     System.out.println(p.name() + ": " + p.unavailableReason().orElse("available"));
     * }
     * }</pre>
     */
    public static List<SandboxProvider> providers() {
        return load().values().stream()
                .sorted(Comparator.comparingInt(SandboxProvider::priority).reversed())
                .collect(Collectors.toList());
    }

    /**
     * The provider with this name.
     *
     * @throws SandboxException {@code backend_unavailable} when no provider has that name
     */
    public static SandboxProvider provider(String name) {
        SandboxProvider p = load().get(name);
        if (p == null) {
            throw SandboxException.permanent(ErrorKind.BACKEND_UNAVAILABLE, "no sandbox backend named '" + name
                    + "' on the class path; known: " + load().keySet(), null);
        }
        return p;
    }

    private static String configuredProvider() {
        String name = System.getProperty(PROVIDER_PROPERTY);
        if (name == null || name.isBlank()) {
            name = System.getenv(PROVIDER_ENV);
        }
        return name == null || name.isBlank() ? null : name.trim();
    }

    private static Map<String, SandboxProvider> load() {
        Map<String, SandboxProvider> byName = new LinkedHashMap<>();
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        if (context != null) {
            ServiceLoader.load(SandboxProvider.class, context).forEach(p -> byName.putIfAbsent(p.name(), p));
        }
        ServiceLoader.load(SandboxProvider.class, Sandboxes.class.getClassLoader())
                .forEach(p -> byName.putIfAbsent(p.name(), p));
        return byName;
    }
}
