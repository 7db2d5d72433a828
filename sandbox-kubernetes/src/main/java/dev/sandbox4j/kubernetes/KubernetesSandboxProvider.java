package dev.sandbox4j.kubernetes;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Feature;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.spi.SandboxProvider;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

import java.io.IOException;
import java.nio.file.Files;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code kubernetes} backend: each sandbox is a pod claimed from a kubernetes-sigs/agent-sandbox
 * {@code SandboxWarmPool} ({@code SandboxClaim}, shutdown policy Delete), whose first process is sandbox4j's agent
 * listening on TCP; this JVM drives it over the pod IP or a port-forward, after a handshake under the pool's key.
 * Never chosen by {@code Sandboxes.open()} on its own (negative priority): open it by name, or construct it with
 * {@link KubernetesOptions}. Needs the cluster set up as docs/kubernetes.md shows (agent-sandbox, the template and
 * pool, the key's Secret, the RBAC).
 */
public final class KubernetesSandboxProvider implements SandboxProvider, AutoCloseable {
    static final String NAME = "kubernetes";
    static final Set<Feature> FEATURES = Set.copyOf(EnumSet.of(Feature.SHELL, Feature.BACKGROUND_PROCESSES,
            Feature.PROCESS_REGISTRY,
            Feature.SHARED_PROCESS_SPACE, Feature.CODE_EXECUTION, Feature.CODE_CONTEXTS, Feature.ISOLATION,
            Feature.NETWORK_ISOLATION, Feature.MEMORY_LIMIT, Feature.PROCESS_LIMIT, Feature.CPU_LIMIT,
            Feature.FILE_WATCH, Feature.SYMLINKS, Feature.POSIX_PERMISSIONS, Feature.PORTS, Feature.TERMINAL,
            Feature.REATTACH, Feature.SNAPSHOT, Feature.WORKSPACE_COPY, Feature.WORKSPACE_OVERLAY));

    private final KubernetesOptions options;
    private final KubernetesClient given;
    private volatile Cluster cluster;

    /** A provider with {@link KubernetesOptions#defaults()}; what {@link java.util.ServiceLoader} uses. */
    public KubernetesSandboxProvider() {
        this(KubernetesOptions.defaults());
    }

    public KubernetesSandboxProvider(KubernetesOptions options) {
        this(options, null);
    }

    /** Over a client the caller owns (tests: fabric8's mock server); it is not closed by {@link #close()}. */
    KubernetesSandboxProvider(KubernetesOptions options, KubernetesClient client) {
        this.options = Objects.requireNonNull(options, "options");
        this.given = client;
    }

    public KubernetesOptions options() {
        return options;
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Negative: only ever opened by name (a cluster is never where a sandbox lands by accident). */
    @Override
    public int priority() {
        return -10;
    }

    @Override
    public Set<Feature> features() {
        return FEATURES;
    }

    /** Whether a cluster is configured (a kubeconfig or the in-cluster service account); no call to it. */
    @Override
    public Optional<String> unavailableReason() {
        if (given != null) {
            return Optional.empty();
        }
        if (options.kubeconfig() != null) {
            return Files.isReadable(options.kubeconfig()) ? Optional.empty()
                    : Optional.of("the kubeconfig " + options.kubeconfig() + " is not readable");
        }
        Config c = Config.autoConfigure(null);
        return c.getMasterUrl() == null || c.getMasterUrl().isBlank()
                ? Optional.of("no Kubernetes cluster configured (KUBECONFIG, ~/.kube/config or in-cluster)")
                : Optional.empty();
    }

    @Override
    public Sandbox open(SandboxSpec spec) {
        String refused = dev.sandbox4j.core.HostDirs.unsupported(Objects.requireNonNull(spec, "spec"), features(),
                "kubernetes");
        if (refused != null) {
            throw KubeErrors.error(dev.sandbox4j.ErrorKind.UNSUPPORTED, refused);
        }
        Cluster c = cluster();
        return dev.sandbox4j.core.AgentSandbox.openFromSnapshot(spec, s -> KubernetesHost.open(c, s));
    }

    /** Attaches to a leased sandbox of this namespace by id and credential (docs/reattach.md). */
    @Override
    public Sandbox attach(String id, dev.sandbox4j.AttachCredential credential, SandboxSpec settings) {
        String refused = dev.sandbox4j.core.HostDirs.attachRefused(Objects.requireNonNull(settings, "settings"));
        if (refused != null) {
            throw KubeErrors.error(ErrorKind.INVALID_ARGUMENT, refused);
        }
        return KubernetesHost.attach(cluster(), Objects.requireNonNull(id, "id"),
                Objects.requireNonNull(credential, "credential"), settings);
    }

    /** Deletes the JVM's Lease and, unless it was given, closes the client; sandboxes still open stay open. */
    @Override
    public void close() {
        Cluster c = cluster;
        if (c != null) {
            c.close();
        }
    }

    /** The cluster view, made on the first open. */
    Cluster cluster() {
        Cluster c = cluster;
        if (c != null) {
            return c;
        }
        synchronized (this) {
            if (cluster == null) {
                cluster = given != null ? new Cluster(given, options, false) : new Cluster(client(), options, true);
            }
            return cluster;
        }
    }

    private KubernetesClient client() {
        try {
            Config config = options.kubeconfig() == null ? Config.autoConfigure(null)
                    : Config.fromKubeconfig(Files.readString(options.kubeconfig()));
            return new KubernetesClientBuilder().withConfig(config).build();
        } catch (IOException e) {
            throw KubeErrors.error(ErrorKind.BACKEND_UNAVAILABLE, "reading the kubeconfig " + options.kubeconfig()
                    + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw KubeErrors.translate("configuring the Kubernetes client", e);
        }
    }
}
