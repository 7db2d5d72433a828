package dev.sandbox4j.kubernetes;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Where and how the Kubernetes backend claims its sandboxes. Immutable; start from {@link #defaults()} and change
 * what differs with the {@code with} methods.
 *
 * @param namespace      the namespace of the pool, the claims and the key's Secret
 * @param warmPools      the {@code SandboxWarmPool}s a claim may name ({@code replicas: 0} for cold starts): of those
 *                       whose template holds the spec's limits, the one whose limits match them most closely (the
 *                       first on a tie), so pools of a few sizes serve specs of those sizes
 * @param connector      how this JVM reaches the agent in the pod
 * @param agentPort      the port the agent listens on in the pod ({@code sbx-agent --listen=:PORT})
 * @param agentKeySecret the Secret whose {@code key} (64 hex digits) the pool's agents hold
 * @param claimTimeout   how long a claim may take to become Ready before the open fails with TIMEOUT
 * @param deleteTimeout  how long close waits for the claim to be gone (it is deleted anyway; the controller finishes)
 * @param connectTimeout how long connecting to the agent and its handshake may take
 * @param kubeconfig     a kubeconfig file, or null for fabric8's defaults (KUBECONFIG, ~/.kube/config, in-cluster)
 * @param acceptOtherSeccomp whether a pool whose template runs a seccomp profile other than sandbox4j's allow-list
 *                       ({@code RuntimeDefault}, a Localhost profile of your own) may serve specs that ask for no
 *                       syscall sets; false (the default): only templates naming sandbox4j's profile do, and an open
 *                       with none fails UNSUPPORTED. A template with no filter ({@code Unconfined}, or unset) never
 *                       serves (docs/kubernetes.md#seccomp)
 */
public record KubernetesOptions(String namespace, List<String> warmPools, Connector connector, int agentPort,
                                String agentKeySecret, Duration claimTimeout, Duration deleteTimeout,
                                Duration connectTimeout, Path kubeconfig, boolean acceptOtherSeccomp) {
    /** How the JVM reaches the agent. */
    public enum Connector {
        /** The pod's IP from the claim's status: the JVM runs in the cluster (or routes to its pod network). */
        POD_IP,
        /** The API server's port-forward to the pod (the JVM runs outside; needs {@code pods/portforward}). */
        PORT_FORWARD
    }

    /** The port of the guide's template (docs/kubernetes.md). */
    public static final int DEFAULT_AGENT_PORT = 7070;

    public KubernetesOptions {
        requireName(namespace, "namespace");
        warmPools = List.copyOf(warmPools);
        if (warmPools.isEmpty()) {
            throw new IllegalArgumentException("warmPools must name at least one pool");
        }
        warmPools.forEach(p -> requireName(p, "warmPools"));
        requireName(agentKeySecret, "agentKeySecret");
        Objects.requireNonNull(connector, "connector");
        if (agentPort < 1 || agentPort > 65535) {
            throw new IllegalArgumentException("agentPort must be 1-65535: " + agentPort);
        }
        requirePositive(claimTimeout, "claimTimeout");
        requirePositive(deleteTimeout, "deleteTimeout");
        requirePositive(connectTimeout, "connectTimeout");
    }

    /**
     * Namespace {@code sandbox4j}, pool {@code sandbox4j-pool}, pod IP, port 7070, Secret {@code sandbox4j-agent-key},
     * 60 s to be Ready, 30 s to delete, 10 s to connect, fabric8's configuration, sandbox4j's seccomp profile only.
     */
    public static KubernetesOptions defaults() {
        return new KubernetesOptions("sandbox4j", List.of("sandbox4j-pool"), Connector.POD_IP, DEFAULT_AGENT_PORT,
                "sandbox4j-agent-key", Duration.ofSeconds(60), Duration.ofSeconds(30), Duration.ofSeconds(10), null,
                false);
    }

    public KubernetesOptions withNamespace(String namespace) {
        return new KubernetesOptions(namespace, warmPools, connector, agentPort, agentKeySecret, claimTimeout,
                deleteTimeout, connectTimeout, kubeconfig, acceptOtherSeccomp);
    }

    /** One pool for every spec. */
    public KubernetesOptions withWarmPool(String warmPool) {
        return withWarmPools(List.of(warmPool));
    }

    public KubernetesOptions withWarmPools(List<String> warmPools) {
        return new KubernetesOptions(namespace, warmPools, connector, agentPort, agentKeySecret, claimTimeout,
                deleteTimeout, connectTimeout, kubeconfig, acceptOtherSeccomp);
    }

    public KubernetesOptions withConnector(Connector connector) {
        return new KubernetesOptions(namespace, warmPools, connector, agentPort, agentKeySecret, claimTimeout,
                deleteTimeout, connectTimeout, kubeconfig, acceptOtherSeccomp);
    }

    public KubernetesOptions withAgentPort(int agentPort) {
        return new KubernetesOptions(namespace, warmPools, connector, agentPort, agentKeySecret, claimTimeout,
                deleteTimeout, connectTimeout, kubeconfig, acceptOtherSeccomp);
    }

    public KubernetesOptions withAgentKeySecret(String agentKeySecret) {
        return new KubernetesOptions(namespace, warmPools, connector, agentPort, agentKeySecret, claimTimeout,
                deleteTimeout, connectTimeout, kubeconfig, acceptOtherSeccomp);
    }

    public KubernetesOptions withClaimTimeout(Duration claimTimeout) {
        return new KubernetesOptions(namespace, warmPools, connector, agentPort, agentKeySecret, claimTimeout,
                deleteTimeout, connectTimeout, kubeconfig, acceptOtherSeccomp);
    }

    public KubernetesOptions withDeleteTimeout(Duration deleteTimeout) {
        return new KubernetesOptions(namespace, warmPools, connector, agentPort, agentKeySecret, claimTimeout,
                deleteTimeout, connectTimeout, kubeconfig, acceptOtherSeccomp);
    }

    public KubernetesOptions withConnectTimeout(Duration connectTimeout) {
        return new KubernetesOptions(namespace, warmPools, connector, agentPort, agentKeySecret, claimTimeout,
                deleteTimeout, connectTimeout, kubeconfig, acceptOtherSeccomp);
    }

    public KubernetesOptions withKubeconfig(Path kubeconfig) {
        return new KubernetesOptions(namespace, warmPools, connector, agentPort, agentKeySecret, claimTimeout,
                deleteTimeout, connectTimeout, kubeconfig, acceptOtherSeccomp);
    }

    /** See {@link #acceptOtherSeccomp()}: the templates' own filters, for pools made before sandbox4j's profiles. */
    public KubernetesOptions withAcceptOtherSeccomp(boolean acceptOtherSeccomp) {
        return new KubernetesOptions(namespace, warmPools, connector, agentPort, agentKeySecret, claimTimeout,
                deleteTimeout, connectTimeout, kubeconfig, acceptOtherSeccomp);
    }

    private static void requireName(String s, String what) {
        // a DNS-1123 label or subdomain, as Kubernetes names are
        if (s == null || !s.matches("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?")) {
            throw new IllegalArgumentException(what + " must be a Kubernetes name (lower case, digits, '-', '.'): "
                    + s);
        }
    }

    private static void requirePositive(Duration d, String what) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive: " + d);
        }
    }
}
