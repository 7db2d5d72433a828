package dev.sandbox4j.kubernetes;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Feature;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.Language;
import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxInfo;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.core.AgentEgress;
import dev.sandbox4j.core.AgentRunner;
import dev.sandbox4j.core.AgentSandbox;
import dev.sandbox4j.core.AgentWorkspace;
import dev.sandbox4j.core.SandboxHost;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.LocalPortForward;

import java.io.IOException;
import java.net.Socket;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * What a Kubernetes sandbox is beyond the shared {@link AgentSandbox}: a {@code SandboxClaim} on the configured warm
 * pool, whose pod runs the native agent as its first process, listening on TCP ({@code sbx-agent --listen}); this
 * host connects to it (pod IP or port-forward), proves it holds the pool's key and hands the socket's two streams to
 * {@link AgentSandbox}. Close deletes the claim (the controller deletes the sandbox and its pod:
 * {@code shutdownPolicy: Delete}).
 */
final class KubernetesHost implements SandboxHost {
    /** The fixed environment of the backend's own commands (probes, file operations): nothing of the user's. */
    static final List<String> FIXED_ENV = List.of("PATH=/usr/bin:/bin", "LC_ALL=C", "LANG=C", "HOME=/",
            "BASH_ENV=", "ENV=", "CDPATH=", "LD_PRELOAD=", "LD_LIBRARY_PATH=", "LD_AUDIT=", "GLIBC_TUNABLES=");
    /** Where the guide's init container puts the agent's binaries (an emptyDir, read-only in the workload). */
    static final String AGENT_DIR = "/opt/sandbox4j";

    private final String id;
    private final Cluster cluster;
    private final SandboxSpec spec;
    /** The lease (docs/reattach.md), or null: the sandbox ends with this host. */
    private final Lease lease;
    /** The leased sandbox this host attaches to, or null: this host claims its own. */
    private final Cluster.Leased attaching;
    /** Whether the agent took this host (an attach that failed before then changes nothing at close). */
    private volatile boolean connected;
    /** Whether the connection ended under the open sandbox (a leased one then waits for its lease, not deleted). */
    private volatile boolean lost;
    private volatile java.util.concurrent.ScheduledFuture<?> renewal;
    private PoolPlan plan;
    /** The workspace source (a copy streamed in at ready; its change set). */
    private final PodSources sources;
    /** The file API over the agent, once made (the change set downloads through it). */
    private volatile FileSystem files;
    private ResourceLimits granted;
    private boolean claimed;
    private volatile Crd.ClaimedSandbox sandbox;
    private volatile Socket socket;
    private volatile LocalPortForward forward;
    private Map<Language, String> interpreters = Map.of();
    /** The open's parts in ns (plan and key, create claim, until Ready, connect and handshake), then the nanoTime
     * when the claim was created and when it was seen Ready (for the measure). */
    volatile long[] phases;

    KubernetesHost(Cluster cluster, SandboxSpec spec) {
        this(cluster, spec, "sbx-" + UUID.randomUUID().toString().replace("-", "").substring(0, 12),
                spec.lease().isZero() ? null : new Lease(dev.sandbox4j.AttachCredential.generate(), spec.lease(),
                        cluster.options.agentPort(), true), null);
    }

    private KubernetesHost(Cluster cluster, SandboxSpec spec, String id, Lease lease, Cluster.Leased attaching) {
        this.cluster = cluster;
        this.spec = spec;
        this.id = id;
        this.lease = lease;
        this.attaching = attaching;
        this.sources = PodSources.prepare(spec); // typed refusals of the source before anything is claimed
    }

    static Sandbox open(Cluster cluster, SandboxSpec spec) {
        if (!spec.lease().isZero() && spec.network().mode() != NetworkPolicy.Mode.NONE) {
            throw KubeErrors.error(ErrorKind.UNSUPPORTED, "a leased sandbox cannot have a network policy yet: its "
                    + "egress proxy runs in the JVM that opened it and ends with it (docs/reattach.md)");
        }
        try {
            return AgentSandbox.open(new KubernetesHost(cluster, spec), spec); // closes the host when it fails
        } catch (RuntimeException e) {
            throw KubeErrors.translate("opening a Kubernetes sandbox", e);
        }
    }

    /**
     * Attaches to the leased sandbox {@code id} (docs/reattach.md): its claim names the pod, the agent's lease
     * listener takes the credential's handshake on the agent's port. Nothing changes in the sandbox when this fails.
     */
    static Sandbox attach(Cluster cluster, String id, dev.sandbox4j.AttachCredential credential,
                          SandboxSpec settings) {
        if (!id.matches("sbx-[0-9a-f]{12}")) {
            throw KubeErrors.error(ErrorKind.INVALID_ARGUMENT, "'" + id.replaceAll("[^A-Za-z0-9_.-]", "?")
                    + "' is not a Kubernetes sandbox id (sbx- and 12 hexadecimal digits)");
        }
        try {
            Cluster.Leased found = cluster.leased(id);
            PoolPlan plan = PoolPlan.read(cluster.client, cluster.options, found.pool());
            SandboxSpec spec = settings.toBuilder().limits(plan.grant(dev.sandbox4j.ResourceLimits.NONE, true))
                    .lease(found.lease()).build();
            KubernetesHost h = new KubernetesHost(cluster, spec, id, new Lease(credential, found.lease(),
                    cluster.options.agentPort(), false), found);
            h.plan = plan;
            return AgentSandbox.open(h, spec);
        } catch (RuntimeException e) {
            throw KubeErrors.translate("attaching to Kubernetes sandbox " + id, e);
        }
    }

    /** The host under a sandbox of this backend (tests). */
    static KubernetesHost of(Sandbox sandbox) {
        return (KubernetesHost) ((AgentSandbox) sandbox).host();
    }

    @Override
    public String id() {
        return id;
    }

    /** The claim's name (the sandbox's id). */
    String claimName() {
        return id;
    }

    /** The claimed sandbox: its name and pod IPs (null before the claim is Ready). */
    Crd.ClaimedSandbox claimedSandbox() {
        return sandbox;
    }

    /** The connection to the agent (tests break it). */
    Socket socket() {
        return socket;
    }

    @Override
    public Lease lease() {
        return lease;
    }

    @Override
    public AgentStreams start(Context context) {
        if (attaching != null) {
            return reconnect();
        }
        long t0 = System.nanoTime();
        plan = PoolPlan.choose(cluster.plans(), spec.limits(), spec.syscallSets(),
                cluster.options.acceptOtherSeccomp(), spec.bestEffortLimits());
        granted = plan.grant(spec.limits(), true);
        byte[] key = cluster.key();
        cluster.startBackground();
        claimed = true;
        long t1 = System.nanoTime();
        cluster.createClaim(id, plan.pool(), spec.lifetime(), spec.lease());
        long t2 = System.nanoTime();
        Crd.ClaimedSandbox s = cluster.awaitReady(id, cluster.options.claimTimeout());
        long t3 = System.nanoTime();
        sandbox = s;
        try {
            Socket sock = connect(s, key);
            phases = new long[] {t1 - t0, t2 - t1, t3 - t2, System.nanoTime() - t3, t2, t3};
            socket = sock;
            connected = true;
            renewWhileAttached();
            return new AgentStreams(sock.getInputStream(), sock.getOutputStream());
        } catch (AgentConnector.Refused e) {
            throw KubeErrors.error(e.kind, "sandbox " + id + " (" + s.name() + "): " + e.getMessage(), e);
        } catch (IOException e) {
            throw KubeErrors.error(ErrorKind.BACKEND_UNAVAILABLE, "sandbox " + id + ": the agent's connection: "
                    + e.getMessage(), e);
        }
    }

    /** An attach's connection: the leased agent's listener, under the credential's key. */
    private AgentStreams reconnect() {
        granted = plan.grant(spec.limits(), true);
        sandbox = attaching.sandbox();
        byte[] key = lease.credential().keyBytes();
        long deadline = System.nanoTime() + HELD_WAIT.toNanos();
        try {
            for (long pause = 50; ; pause = Math.min(400, pause * 2)) {
                try {
                    Socket sock = connect(sandbox, key);
                    socket = sock;
                    connected = true;
                    renewWhileAttached();
                    return new AgentStreams(sock.getInputStream(), sock.getOutputStream());
                } catch (AgentConnector.Refused e) {
                    if (!held(e) || System.nanoTime() + pause * 1_000_000 > deadline) {
                        throw refused(e);
                    }
                    Thread.sleep(pause); // a host letting go: the agent is still ending its commands
                }
            }
        } catch (IOException e) {
            throw KubeErrors.error(ErrorKind.BACKEND_UNAVAILABLE, "sandbox " + id + ": the agent's connection: "
                    + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw KubeErrors.interrupted("attaching to sandbox " + id);
        } finally {
            java.util.Arrays.fill(key, (byte) 0);
        }
    }

    /**
     * How long an attach waits while the agent closes its connections before greeting (a host is attached): a host
     * that has just detached is still ending its commands (the agent gives them up to 5 s), and only then listens.
     */
    static final java.time.Duration HELD_WAIT = java.time.Duration.ofSeconds(8);

    /** The agent closed the connection before its greeting: a host holds the sandbox (or is letting go of it). */
    private static boolean held(AgentConnector.Refused e) {
        return e.kind != ErrorKind.PERMISSION_DENIED
                && e.getCause() instanceof dev.sandbox4j.core.AgentHandshake.Refused r
                && r.getCause() instanceof java.io.EOFException;
    }

    private SandboxException refused(AgentConnector.Refused e) {
        if (e.kind == ErrorKind.PERMISSION_DENIED) {
            return KubeErrors.error(ErrorKind.PERMISSION_DENIED, "the credential does not open sandbox " + id
                    + " (nothing was changed in it)");
        }
        if (held(e)) {
            return KubeErrors.error(ErrorKind.CONFLICT, "another host is attached to sandbox " + id + " (waited "
                    + HELD_WAIT.toSeconds() + " s for it to let go): it must detach (or its JVM end) first");
        }
        return KubeErrors.error(e.kind, "cannot reach sandbox " + id + "'s agent: " + e.getMessage(), e);
    }

    /** A leased claim's shutdownTime moves on while this host is attached (Cluster.renewLeased). */
    private void renewWhileAttached() {
        if (lease == null) {
            return;
        }
        long every = Cluster.LEASE_RENEWAL.toMillis();
        renewal = dev.sandbox4j.core.Background.timer().scheduleWithFixedDelay(() -> dev.sandbox4j.core.Background
                .execute(() -> cluster.renewLeased(id, lease.duration())), every, every,
                java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    private Socket connect(Crd.ClaimedSandbox s, byte[] key) throws IOException {
        KubernetesOptions o = cluster.options;
        if (o.connector() == KubernetesOptions.Connector.POD_IP) {
            return AgentConnector.connect(s.podIPs().get(0), o.agentPort(), key, o.connectTimeout());
        }
        Pod pod = cluster.client.pods().inNamespace(o.namespace()).withLabel(Cluster.SANDBOX_LABEL, id).list()
                .getItems().stream().findFirst().orElse(null);
        if (pod == null) {
            throw new AgentConnector.Refused(ErrorKind.BACKEND_UNAVAILABLE, "no pod labelled "
                    + Cluster.SANDBOX_LABEL + "=" + id + " to forward to", null);
        }
        LocalPortForward f = cluster.client.pods().inNamespace(o.namespace()).withName(pod.getMetadata().getName())
                .portForward(o.agentPort());
        forward = f;
        return AgentConnector.connect("127.0.0.1", f.getLocalPort(), key, o.connectTimeout());
    }

    @Override
    public SandboxException agentDidNotStart(String why) {
        return KubeErrors.error(ErrorKind.BACKEND_UNAVAILABLE, "the agent of sandbox " + id + " (pod of "
                + (sandbox == null ? "?" : sandbox.name()) + ") did not say READY: " + why);
    }

    @Override
    public List<String> internalEnv() {
        return FIXED_ENV;
    }

    @Override
    public String agentDir() {
        return AGENT_DIR;
    }

    @Override
    public SandboxInfo ready(AgentRunner runner, Map<Language, String> interpreters) {
        this.interpreters = interpreters;
        sources.seed(runner, plan.workspaceBytes());
        return info();
    }

    @Override
    public dev.sandbox4j.Workspace changeSet(Context context) {
        return sources.changeSet(files, context::checkOpen);
    }

    /** A fork's sandbox (its spec's workspace a snapshot source), as the provider opens it. */
    @Override
    public Sandbox openAnother(SandboxSpec another) {
        return AgentSandbox.openFromSnapshot(another, s -> open(cluster, s));
    }

    private SandboxInfo info() {
        Set<Feature> features = EnumSet.copyOf(KubernetesSandboxProvider.FEATURES);
        Map<String, String> details = new LinkedHashMap<>();
        details.put("namespace", cluster.options.namespace());
        details.put("warmPool", plan.pool());
        details.put("template", plan.template());
        details.put("claim", id);
        details.put("sandbox", sandbox.name());
        details.put("podIP", sandbox.podIPs().get(0));
        details.put("connector", cluster.options.connector().name());
        details.put("workspace source", sources.detail() != null ? sources.detail() : "empty");
        if (lease != null) {
            details.put("lease", lease.duration() + (attaching != null ? " (attached)" : ""));
        }
        details.put("limitsNotApplied", "file size, /tmp size and workspace inodes (a pod has none of these)");
        if (plan.syscallSets() != null) {
            details.put("seccomp", dev.sandbox4j.core.seccomp.SeccompPolicy.of(plan.syscallSets()).describe(null)
                    + " (sandbox4j profile, the template's " + plan.seccomp() + ")");
        } else {
            // the template's own filter (KubernetesOptions.acceptOtherSeccomp): the kit's TIOCSTI refusal, which
            // terminals rely on, is sandbox4j's profile's
            details.put("seccomp", "the template's own: " + plan.seccomp() + " (not sandbox4j's allow-list)");
            features.remove(Feature.TERMINAL);
        }
        if (granted.memoryBytes() == 0) {
            features.remove(Feature.MEMORY_LIMIT);
        }
        if (granted.maxProcesses() == 0) {
            features.remove(Feature.PROCESS_LIMIT);
        }
        if (granted.cpus() == 0) {
            features.remove(Feature.CPU_LIMIT);
        }
        if (interpreters.isEmpty()) {
            features.remove(Feature.CODE_EXECUTION);
            features.remove(Feature.CODE_CONTEXTS);
        }
        // a pod has no inode limit: the kit's WORKSPACE_QUOTA (bytes and inodes) is never claimed
        details.put("workspaceQuota", plan.workspaceBytes() == 0 ? "none (the template's workspace emptyDir has "
                + "no sizeLimit)" : "emptyDir sizeLimit " + plan.workspaceBytes() + " bytes, no inode limit" + (plan
                .workspaceInMemory() ? " (medium Memory: a full workspace is ENOSPC)"
                : " (on the node's disk: the kubelet evicts the pod past it)"));
        if (!plan.egressDenied() || spec.network().mode() != NetworkPolicy.Mode.NONE) {
            features.remove(Feature.NETWORK_ISOLATION);
        }
        details.put("networkPolicy", plan.egressDenied() ? "the template's managed NetworkPolicy denies all egress"
                : "the template does not deny egress: the pod's network is the cluster's");
        if (spec.network().mode() != NetworkPolicy.Mode.NONE) {
            details.put("egress", spec.network() + " through the host's egress proxy (127.0.0.1:" + AgentEgress.PORT
                    + " in the sandbox)");
        }
        return new SandboxInfo(id, KubernetesSandboxProvider.NAME, features, granted, details);
    }

    @Override
    public FileSystem workspace(AgentRunner runner, Context context) {
        FileSystem fs = new AgentWorkspace(runner, PoolPlan.WORKSPACE, context, this::error, granted.maxFileBytes());
        files = fs;
        return fs;
    }

    @Override
    public java.util.function.Predicate<String> hiddenFromWatches() {
        return AgentWorkspace::isTemporary;
    }

    @Override
    public String death(String why) {
        lost = true;
        return "the sandbox's agent connection ended (" + why + "): its pod " + (sandbox == null ? "?"
                : sandbox.name()) + " was deleted or restarted, or the network between broke" + (lease == null ? ""
                : "; leased, it waits " + lease.duration() + " for a host: attach again with its credential");
    }

    @Override
    public SandboxException error(ErrorKind kind, String message, Throwable cause) {
        return KubeErrors.error(kind, message, cause);
    }

    /** Ends this host's connection (the agent waits its lease for a later host) and leaves the claim to its lease. */
    @Override
    public void detach() {
        disconnect();
        if (connected) {
            cluster.renewLeased(id, lease.duration()); // the lease's end from now, plus the margin
        }
    }

    @Override
    public void close() {
        if (attaching != null && !connected) {
            disconnect(); // an attach that failed: the sandbox stays as it was, for a host with the right credential
            return;
        }
        if (lease != null && lost && connected) {
            detach(); // the connection broke, not the pod: it waits for its lease, as after a detach
            return;
        }
        disconnect();
        if (claimed || attaching != null) {
            cluster.deleteClaim(id);
        }
    }

    private void disconnect() {
        var r = renewal;
        if (r != null) {
            r.cancel(false);
        }
        Socket s = socket;
        if (s != null) {
            try {
                s.close(); // the agent reads the end: it kills every command and exits
            } catch (IOException ignored) {
                // closed either way
            }
        }
        LocalPortForward f = forward;
        if (f != null) {
            try {
                f.close();
            } catch (IOException ignored) {
                // closed either way
            }
        }
    }

    @Override
    public String toString() {
        return "KubernetesHost[" + id + "]";
    }
}
