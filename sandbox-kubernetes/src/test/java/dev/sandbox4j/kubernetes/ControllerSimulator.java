package dev.sandbox4j.kubernetes;

import dev.sandbox4j.core.AgentBinary;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The simulated control plane of the tests: fabric8's mock API server in CRUD mode (with expectations first, for the
 * failure cases) and a controller that plays agent-sandbox's part. On a new {@code SandboxClaim} it reads the claim's
 * pool and template (the guide's docs/kubernetes/pool.yaml) and runs the template's agent container as a real Docker
 * container of {@code sandbox4j/runtime:bookworm} on an internal network (no route out; the JVM reaches it), with the
 * template's command, key from its Secret, memory and CPU limits and emptyDir sizes, then writes the {@code Sandbox} and
 * the claim's Ready condition with the container's IP. On the claim's deletion it removes both.
 */
final class ControllerSimulator implements AutoCloseable {
    static final String NAMESPACE = "sandbox4j";
    static final String IMAGE = "sandbox4j/runtime:bookworm";
    static final String NETWORK = "sandbox4j-k8s-sim";
    static final String LABEL = "sandbox4j.test=k8s-sim";
    static final Path POOL_YAML = Path.of("../docs/kubernetes/pool.yaml");

    /** The mock server logs every request at INFO (java.util.logging): kept, and quiet. */
    private static final java.util.logging.Logger MOCK_LOG = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

    static {
        MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    final KubernetesMockServer server;
    final KubernetesClient client;
    final String keyHex;
    private final Path bin;
    private final Watch watch;
    private final ExecutorService work = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "k8s-sim");
        t.setDaemon(true);
        return t;
    });
    /** The pods of claimed sandboxes (the agent containers) and their addresses, for port-forward streams. */
    final Map<String, String> pods = new ConcurrentHashMap<>();
    /** The port-forward streams open now. */
    final java.util.List<PortForwardBridge> forwards = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** The API server's answer to a pod's port-forward request: a stream bridged to its agent; null otherwise. */
    private io.fabric8.mockwebserver.http.MockResponse portForward(String path) {
        var m = java.util.regex.Pattern.compile("/api/v1/namespaces/" + NAMESPACE
                + "/pods/([^/?]+)/portforward\\?ports=(\\d+)").matcher(path == null ? "" : path);
        if (!m.matches()) {
            return null;
        }
        String ip = pods.get(m.group(1));
        if (ip == null) {
            return new io.fabric8.mockwebserver.http.MockResponse().setResponseCode(404);
        }
        PortForwardBridge bridge = new PortForwardBridge(ip, Integer.parseInt(m.group(2)));
        forwards.add(bridge);
        return new io.fabric8.mockwebserver.http.MockResponse().withWebSocketUpgrade(bridge);
    }

    /** When this controller saw each claim's ADDED and when its status write returned (System.nanoTime). */
    final Map<String, long[]> handling = new ConcurrentHashMap<>();
    /** The claims handled once already (a watch that reconnects delivers ADDED again). */
    private final java.util.Set<String> handled = ConcurrentHashMap.newKeySet();
    /** Claim name to container name. */
    final Map<String, String> containers = new ConcurrentHashMap<>();
    /** Started pods no claim holds yet (a warm pool), with their IPs: name to IP. */
    private final java.util.concurrent.BlockingQueue<String[]> warm = new java.util.concurrent.LinkedBlockingQueue<>();
    /** The template the warm pods are of (the guide's). */
    static final String WARM_TEMPLATE = "sandbox4j";
    /** The test's extra pools (test-pools.yaml): a small one and one without a workspace limit. */
    static final Path TEST_POOLS = Path.of("src/test/resources/test-pools.yaml");
    private volatile int replicas;
    private volatile boolean closed;
    /** Whether a claimed warm pod is replaced at once (KubernetesMeasure turns it off while it times an open). */
    volatile boolean refills = true;
    /** The names of this JVM's simulated pods start with it. */
    static final String POD_PREFIX = "sandbox4j-k8ssim-" + ProcessHandle.current().pid() + "-";
    private final java.util.concurrent.atomic.AtomicInteger made = new java.util.concurrent.atomic.AtomicInteger();
    /** When false the controller leaves new claims alone (a claim that never becomes Ready). */
    volatile boolean serving = true;

    ControllerSimulator() throws IOException {
        var responses = new HashMap<io.fabric8.mockwebserver.ServerRequest,
                java.util.Queue<io.fabric8.mockwebserver.ServerResponse>>();
        server = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
                new KubernetesMixedDispatcher(responses) {
                    @Override
                    public io.fabric8.mockwebserver.http.MockResponse dispatch(
                            io.fabric8.mockwebserver.http.RecordedRequest request) {
                        var forward = portForward(request.getPath());
                        return forward != null ? forward : super.dispatch(request);
                    }
                }, false);
        server.init();
        client = server.createClient();
        keyHex = java.util.HexFormat.of().formatHex(randomKey());
        bin = Files.createTempDirectory("sbx-k8s-sim-bin");
        for (String name : List.of(AgentBinary.AGENT, AgentBinary.REAPER, AgentBinary.RELAY)) {
            Path p = bin.resolve(name);
            Files.write(p, AgentBinary.bytes(name));
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("r-xr-xr-x"));
        }
        Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwxr-xr-x"));
        docker("network", "inspect", NETWORK).orElseGet(() -> docker("network", "create", "--internal", "--label",
                LABEL, NETWORK).orElseThrow());
        client.secrets().inNamespace(NAMESPACE).resource(secret(keyHex)).create();
        List<HasMetadata> objects = new ArrayList<>(client.load(Files.newInputStream(POOL_YAML)).items());
        // from the class path: the reliability suite runs this simulator from another module's directory
        try (var pools = ControllerSimulator.class.getResourceAsStream("/test-pools.yaml")) {
            objects.addAll(client.load(pools).items());
        }
        objects.forEach(this::createTyped);
        watch = client.resources(Crd.SandboxClaim.class).inNamespace(NAMESPACE).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, Crd.SandboxClaim c) {
                String name = c.getMetadata().getName();
                if (action == Action.ADDED && serving && handled.add(name)) {
                    long seen = System.nanoTime();
                    work.execute(() -> {
                        claimed(name);
                        handling.put(name, new long[] {seen, System.nanoTime()});
                    });
                } else if (action == Action.DELETED) {
                    work.execute(() -> released(name));
                }
            }

            @Override
            public void onClose(WatcherException cause) {
            }
        });
    }

    static byte[] randomKey() {
        byte[] k = new byte[32];
        new java.security.SecureRandom().nextBytes(k);
        return k;
    }

    static Secret secret(String hex) {
        return new SecretBuilder().withNewMetadata().withName("sandbox4j-agent-key").endMetadata()
                .addToData("key", Base64.getEncoder().encodeToString(hex.getBytes(StandardCharsets.US_ASCII)))
                .build();
    }

    /** The provider's options on this control plane. */
    KubernetesOptions options() {
        return KubernetesOptions.defaults().withNamespace(NAMESPACE);
    }

    /** The options with the guide's pool first, then the test's small and unbounded-workspace pools. */
    KubernetesOptions allPools() {
        return options().withWarmPools(List.of("sandbox4j-pool", "sandbox4j-small", "sandbox4j-noquota"));
    }

    KubernetesSandboxProvider provider() {
        return new KubernetesSandboxProvider(options(), client);
    }

    private void claimed(String name) {
        try {
            Crd.SandboxClaim claim = client.resources(Crd.SandboxClaim.class).inNamespace(NAMESPACE).withName(name)
                    .get();
            Crd.SandboxWarmPool pool = client.resources(Crd.SandboxWarmPool.class).inNamespace(NAMESPACE)
                    .withName(claim.getSpec().warmPoolRef().name()).get();
            Crd.SandboxTemplate t = client.resources(Crd.SandboxTemplate.class).inNamespace(NAMESPACE)
                    .withName(pool.getSpec().sandboxTemplateRef().name()).get();
            String[] pod = pool.getSpec().sandboxTemplateRef().name().equals(WARM_TEMPLATE) ? warm.poll() : null;
            if (pod == null) {
                pod = startPod(t.getSpec()); // a cold start
            } else {
                work.execute(() -> refill(t.getSpec()));
            }
            String container = pod[0];
            String ip = pod[1];
            containers.put(name, container);
            pods.put(container, ip);
            client.pods().inNamespace(NAMESPACE).resource(new io.fabric8.kubernetes.api.model.PodBuilder()
                    .withNewMetadata().withName(container).addToLabels(Cluster.SANDBOX_LABEL, name).endMetadata()
                    .withNewStatus().withPodIP(ip).withPhase("Running").endStatus().build()).create();
            Crd.Sandbox sb = new Crd.Sandbox();
            sb.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(NAMESPACE).build());
            sb.setSpec(new Crd.SandboxSpec(t.getSpec().podTemplate(), "Running", null, "Delete", null, null));
            sb.setStatus(new Crd.SandboxStatus(List.of(ready()), "sim-node", List.of(ip), null, null, null));
            try {
                client.resource(sb).inNamespace(NAMESPACE).create();
            } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                // the client retried a create whose answer was late (a loaded mock server): it is there, go on
                if (e.getCode() != 409) {
                    throw e;
                }
            }
            setReady(name, ip);
        } catch (RuntimeException e) {
            System.err.println("k8s-sim: claim " + name + ": " + e);
        }
    }

    /** Keeps {@code n} pods of the pool's template started ahead of claims, as a warm pool does; waits for them. */
    void warmPool(int n) {
        replicas = n;
        Crd.SandboxTemplate t = client.resources(Crd.SandboxTemplate.class).inNamespace(NAMESPACE)
                .withName(WARM_TEMPLATE).get();
        while (warm.size() < n) {
            warm.add(startPod(t.getSpec()));
        }
    }

    private void refill(Crd.TemplateSpec t) {
        if (!closed && refills && warm.size() < replicas) {
            warm.add(startPod(t));
        }
    }

    /** Starts a pod of the template: its container's name and IP. */
    private String[] startPod(Crd.TemplateSpec t) {
        if (closed) {
            throw new IllegalStateException("the simulator is closed");
        }
        String container = POD_PREFIX + made.incrementAndGet();
        docker(runArgs(container, t)).orElseThrow();
        String ip = docker("inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}",
                container).orElseThrow().strip();
        startupProbe(ip);
        return new String[] {container, ip};
    }

    private final List<String> measurePods = new ArrayList<>();

    /** A started pod of the template no claim will get (KubernetesMeasure's direct baseline): its IP. */
    String startWarmPodForMeasure() {
        String[] pod = startPod(client.resources(Crd.SandboxTemplate.class).inNamespace(NAMESPACE)
                .withName("sandbox4j").get().getSpec());
        measurePods.add(pod[0]);
        return pod[1];
    }

    void removeMeasurePods() {
        measurePods.forEach(c -> docker("rm", "-f", c));
        measurePods.clear();
    }

    /** The template's startupProbe (tcpSocket 7070), as the kubelet runs it: the pod is Ready once the port takes one. */
    private static void startupProbe(String ip) {
        for (int i = 0; i < 200; i++) {
            try (java.net.Socket probe = new java.net.Socket()) {
                probe.connect(new java.net.InetSocketAddress(ip, 7070), 1000);
                return; // closed at once: the agent drops it and listens on
            } catch (IOException e) {
                try {
                    Thread.sleep(10);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Writes the claim's Ready condition and status.sandbox, as the controller does once the pod is ready. */
    void setReady(String name, String ip) {
        client.resources(Crd.SandboxClaim.class).inNamespace(NAMESPACE).withName(name).editStatus(c -> {
            c.setStatus(new Crd.ClaimStatus(List.of(ready()), new Crd.ClaimedSandbox(name, List.of(ip))));
            return c;
        });
    }

    private static Condition ready() {
        return new ConditionBuilder().withType("Ready").withStatus("True").withReason("SandboxReady")
                .withMessage("ready").withLastTransitionTime(ZonedDateTime.now(ZoneOffset.UTC).withNano(0).toString())
                .build();
    }

    private void released(String name) {
        String c = containers.remove(name);
        if (c != null) {
            docker("rm", "-f", c);
            pods.remove(c);
            client.pods().inNamespace(NAMESPACE).withName(c).delete();
        }
        client.resources(Crd.Sandbox.class).inNamespace(NAMESPACE).withName(name).delete();
    }

    /** {@code docker run} of the template's agent container, as the kubelet would run it (the parts that matter). */
    private List<String> runArgs(String name, Crd.TemplateSpec t) {
        Container c = t.podTemplate().spec().getContainers().get(0);
        var sc = t.podTemplate().spec().getSecurityContext();
        List<String> a = new ArrayList<>(List.of("run", "-d", "--name", name, "--label", LABEL, "--network", NETWORK,
                "--read-only", "--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--user",
                sc.getRunAsUser() + ":" + sc.getRunAsGroup(), "--workdir", c.getWorkingDir(),
                "--log-driver", "none", "--stop-signal", "SIGKILL"));
        Map<String, Quantity> limits = c.getResources().getLimits();
        if (limits.containsKey("memory")) {
            long m = Quantity.getAmountInBytes(limits.get("memory")).longValue();
            a.addAll(List.of("--memory", Long.toString(m), "--memory-swap", Long.toString(m)));
        }
        if (limits.containsKey("cpu")) {
            a.addAll(List.of("--cpus", limits.get("cpu").getNumericalAmount().toPlainString()));
        }
        for (EnvVar e : c.getEnv()) {
            String v = e.getValueFrom() != null ? keyHex : e.getValue(); // the one secretKeyRef: the pool's key
            a.addAll(List.of("-e", e.getName() + "=" + v));
        }
        Map<String, Volume> volumes = new HashMap<>();
        t.podTemplate().spec().getVolumes().forEach(v -> volumes.put(v.getName(), v));
        for (VolumeMount m : c.getVolumeMounts()) {
            Volume v = volumes.get(m.getName());
            if (m.getMountPath().equals(KubernetesHost.AGENT_DIR)) {
                a.addAll(List.of("-v", bin + ":" + m.getMountPath() + ":ro")); // what the init container copies
                continue;
            }
            // an emptyDir is exec (Docker's --tmpfs alone would be noexec): a script in the workspace runs, as in a pod
            long size = v.getEmptyDir().getSizeLimit() == null ? 0
                    : Quantity.getAmountInBytes(v.getEmptyDir().getSizeLimit()).longValue();
            a.addAll(List.of("--tmpfs", m.getMountPath() + ":rw,exec,nosuid,nodev,mode=" + (m.getMountPath()
                    .equals("/tmp") ? "1777" : "0755,uid=" + sc.getRunAsUser() + ",gid=" + sc.getRunAsGroup())
                    + (size > 0 ? ",size=" + size : "")));
        }
        a.addAll(seccompArgs(t.podTemplate().spec(), c));
        a.addAll(List.of("--entrypoint", c.getCommand().get(0), IMAGE));
        a.addAll(c.getArgs());
        return a;
    }

    /** Where this simulated node's kubelet finds Localhost profiles: the repository's, for this machine's arch. */
    static final Path SECCOMP_ROOT = Path.of("../docs/kubernetes/seccomp");

    /**
     * The container's seccomp profile as the kubelet applies it (the container's securityContext over the pod's):
     * Localhost reads {@code <root>/<localhostProfile>} (here: docs/kubernetes/seccomp/ARCH/ for sandbox4j/, as
     * seccomp-installer.yaml lays it out on a node), RuntimeDefault is the runtime's default, Unconfined none; unset is
     * Unconfined, as a kubelet without --seccomp-default runs it.
     */
    static List<String> seccompArgs(io.fabric8.kubernetes.api.model.PodSpec pod, Container c) {
        var profile = c.getSecurityContext() != null && c.getSecurityContext().getSeccompProfile() != null
                ? c.getSecurityContext().getSeccompProfile()
                : pod.getSecurityContext() == null ? null : pod.getSecurityContext().getSeccompProfile();
        String type = profile == null ? "Unconfined" : profile.getType();
        if ("RuntimeDefault".equals(type)) {
            return List.of();
        }
        if (!"Localhost".equals(type)) {
            return List.of("--security-opt", "seccomp=unconfined");
        }
        String name = profile.getLocalhostProfile();
        if (!name.startsWith(PoolPlan.PROFILE_DIR) || name.contains("..")) {
            throw new IllegalStateException("k8s-sim: no Localhost profile " + name + " on this node");
        }
        String arch = "aarch64".equals(System.getProperty("os.arch")) ? "aarch64" : "x86_64";
        Path file = SECCOMP_ROOT.resolve(arch).resolve(name.substring(PoolPlan.PROFILE_DIR.length()));
        if (!Files.isRegularFile(file)) {
            // as a kubelet: the pod does not start (CreateContainerError)
            throw new IllegalStateException("k8s-sim: the Localhost profile " + name + " is not on this node ("
                    + file.toAbsolutePath() + ")");
        }
        return List.of("--security-opt", "seccomp=" + file.toAbsolutePath().normalize());
    }

    /**
     * Adds a pool of {@code replicas: 0} (every claim a cold start) named {@code name}, whose template is the test's
     * small one with the pod's seccomp profile replaced by {@code seccompYaml} (the lines under {@code seccompProfile:},
     * indented as in the file), or removed when it is null.
     */
    void addPool(String name, String seccompYaml) throws IOException {
        String all;
        try (var in = ControllerSimulator.class.getResourceAsStream("/test-pools.yaml")) {
            all = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String[] docs = all.split("\n---\n");
        String template = docs[0].substring(docs[0].indexOf("apiVersion:")).replace("name: sandbox4j-small", "name: " + name);
        String block = "        seccompProfile:\n          type: Localhost\n          localhostProfile: sandbox4j/default.json\n";
        if (!template.contains(block)) {
            throw new IllegalStateException("test-pools.yaml's first template lost its seccomp block");
        }
        template = template.replace(block, seccompYaml == null ? "" : "        seccompProfile:\n" + seccompYaml);
        String pool = docs[1].replace("name: sandbox4j-small", "name: " + name).replaceAll("replicas: \\d+", "replicas: 0");
        for (String doc : List.of(template, pool)) {
            client.load(new java.io.ByteArrayInputStream(doc.getBytes(StandardCharsets.UTF_8))).items()
                    .forEach(this::createTyped);
        }
    }

    /** A generic object of a manifest as its typed one, in the namespace (the API server stores what is sent). */
    private void createTyped(HasMetadata o) {
        String yaml = client.getKubernetesSerialization().asYaml(o);
        Class<? extends HasMetadata> type = o.getKind().equals("SandboxTemplate") ? Crd.SandboxTemplate.class
                : Crd.SandboxWarmPool.class;
        HasMetadata typed = client.getKubernetesSerialization().unmarshal(yaml, type);
        typed.getMetadata().setNamespace(NAMESPACE);
        client.resource(typed).inNamespace(NAMESPACE).create();
    }

    /** Runs docker with {@code args}: its stdout, or empty when it failed. */
    static java.util.Optional<String> docker(String... args) {
        return docker(List.of(args));
    }

    static java.util.Optional<String> docker(List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add("docker");
        cmd.addAll(args);
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                if (!args.get(0).equals("inspect") && !(args.size() > 1 && args.get(1).equals("inspect"))) {
                    System.err.println("k8s-sim: docker " + String.join(" ", args) + ": " + err.strip());
                }
                return java.util.Optional.empty();
            }
            return java.util.Optional.of(out);
        } catch (IOException e) {
            return java.util.Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return java.util.Optional.empty();
        }
    }

    /** This JVM's simulated pods that are still there (of every simulator: the tests make one after another). */
    static List<String> leftoverContainers() {
        String out = docker("ps", "-aq", "--filter", "label=" + LABEL, "--filter", "name=" + POD_PREFIX).orElse("");
        return out.isBlank() ? List.of() : List.of(out.strip().split("\\s+"));
    }

    @Override
    public void close() {
        closed = true;
        replicas = 0;
        watch.close();
        work.shutdown();
        try {
            work.awaitTermination(60, TimeUnit.SECONDS); // a pod being started is removed below, not left behind
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (String c : new ArrayList<>(containers.values())) {
            docker("rm", "-f", c);
        }
        for (String[] pod : warm) {
            docker("rm", "-f", pod[0]);
        }
        docker("network", "rm", NETWORK); // fails, harmlessly, while a container of another run is on it
        client.close();
        server.destroy();
        try (var s = Files.list(bin)) {
            for (Path p : s.toList()) {
                Files.delete(p);
            }
            Files.delete(bin);
        } catch (IOException ignored) {
            // a temp dir
        }
    }
}
