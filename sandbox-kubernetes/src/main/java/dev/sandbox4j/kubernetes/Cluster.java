package dev.sandbox4j.kubernetes;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.kubernetes.Crd.SandboxClaim;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One provider's view of the cluster: its fabric8 client, the pool's key and plan (cached), the claims it makes and
 * deletes, and this JVM's liveness. Every claim carries the labels {@link #MANAGED_BY} and {@link #OWNER_LABEL} (this
 * JVM); while the JVM lives it renews a {@code Lease} named after itself, and the janitor deletes the claims whose
 * owner's Lease is gone or stale (its JVM died without closing them). A claim with a lifetime also carries a
 * {@code shutdownTime}, so the controller removes it even when no JVM is left to run a janitor.
 */
final class Cluster implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Cluster.class);
    static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    static final String MANAGER = "sandbox4j";
    static final String OWNER_LABEL = "sandbox4j.dev/owner";
    static final String SANDBOX_LABEL = "sandbox4j.dev/sandbox";
    /**
     * A leased claim's lease in ms (docs/reattach.md): the janitor leaves it alone, its {@code shutdownTime} is what
     * ends it (renewed by the attached host, set to the lease's end at a detach).
     */
    static final String LEASE_LABEL = "sandbox4j.dev/lease-ms";
    /** Past a leased claim's lease, what the controller waits before it deletes it (the agent has exited by then). */
    static final Duration LEASE_MARGIN = Duration.ofSeconds(60);
    /** How often an attached host moves its leased claim's shutdownTime on (well within {@link #LEASE_MARGIN}). */
    static final Duration LEASE_RENEWAL = Duration.ofSeconds(20);
    /** This JVM, as the owner label and Lease name say. */
    static final String OWNER = "jvm-" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    static final int LEASE_SECONDS = 60;
    /** A Lease not renewed for this long beyond its duration belongs to a JVM that is gone. */
    static final Duration LEASE_GRACE = Duration.ofSeconds(30);
    private static final Duration PLAN_CACHE = Duration.ofSeconds(30);

    final KubernetesClient client;
    final KubernetesOptions options;
    private final boolean ownsClient;
    /** The Lease's renewal and the janitor, on the library's shared timer (their API calls on its workers). */
    private final java.util.List<java.util.concurrent.ScheduledFuture<?>> schedules =
            new java.util.concurrent.CopyOnWriteArrayList<>();
    private final AtomicBoolean started = new AtomicBoolean();
    /** Watches of claims that dropped and were opened again (tests, diagnostics). */
    final java.util.concurrent.atomic.AtomicLong watchesReopened = new java.util.concurrent.atomic.AtomicLong();
    /** The one watch of this JVM's claims, shared by every open waiting for Ready. */
    private final ClaimWatch claimWatch;
    private volatile byte[] key;
    private volatile List<PoolPlan> plans;
    private volatile Instant plansAt = Instant.EPOCH;

    Cluster(KubernetesClient client, KubernetesOptions options, boolean ownsClient) {
        this.client = client;
        this.options = options;
        this.ownsClient = ownsClient;
        this.claimWatch = new ClaimWatch(() -> claims().inNamespace(options.namespace())
                .withLabel(OWNER_LABEL, OWNER));
    }

    MixedOperation<SandboxClaim, io.fabric8.kubernetes.api.model.KubernetesResourceList<SandboxClaim>, Resource<SandboxClaim>> claims() {
        return client.resources(SandboxClaim.class);
    }

    private Resource<SandboxClaim> claim(String name) {
        return claims().inNamespace(options.namespace()).withName(name);
    }

    /** On the first open: this JVM's Lease (renewed from then on) and the janitor (now and every 5 minutes). */
    void startBackground() {
        if (!started.compareAndSet(false, true)) {
            return;
        }
        renewLease(); // before the first claim: another JVM's janitor must find this owner alive
        java.util.concurrent.ScheduledExecutorService timer = dev.sandbox4j.core.Background.timer();
        schedules.add(timer.scheduleWithFixedDelay(() -> dev.sandbox4j.core.Background.execute(this::renewLease),
                LEASE_SECONDS / 3, LEASE_SECONDS / 3, TimeUnit.SECONDS));
        schedules.add(timer.scheduleWithFixedDelay(() -> dev.sandbox4j.core.Background.execute(() -> {
            try {
                janitor(MIN_AGE);
            } catch (RuntimeException e) {
                LOG.debug("sandbox4j: the Kubernetes janitor failed: {}", e.toString());
            }
        }), 5, 300, TimeUnit.SECONDS));
    }

    /** The pool's key, read once from its Secret. */
    byte[] key() {
        byte[] k = key;
        if (k != null) {
            return k;
        }
        Secret s;
        try {
            s = client.secrets().inNamespace(options.namespace()).withName(options.agentKeySecret()).get();
        } catch (KubernetesClientException e) {
            throw KubeErrors.translate("reading the agents' key (Secret " + options.agentKeySecret() + ")", e);
        }
        String text = null;
        if (s != null && s.getData() != null && s.getData().get("key") != null) {
            text = new String(Base64.getDecoder().decode(s.getData().get("key")), StandardCharsets.US_ASCII);
        } else if (s != null && s.getStringData() != null) {
            text = s.getStringData().get("key");
        }
        k = AgentConnector.parseKey(text);
        if (k == null) {
            throw KubeErrors.error(ErrorKind.BACKEND_UNAVAILABLE, "the Secret " + options.namespace() + "/"
                    + options.agentKeySecret() + (s == null ? " does not exist" : " has no 'key' of 64 hex digits")
                    + ": create it as docs/kubernetes.md shows (the pool's agents hold the same key)");
        }
        key = k;
        return k;
    }

    /** What each pool's template gives its sandboxes (cached for 30 s: a template changes rarely), in order. */
    List<PoolPlan> plans() {
        List<PoolPlan> p = plans;
        if (p != null && Instant.now().isBefore(plansAt.plus(PLAN_CACHE))) {
            return p;
        }
        List<PoolPlan> read = new java.util.ArrayList<>();
        for (String pool : options.warmPools()) {
            try {
                read.add(PoolPlan.read(client, options, pool));
            } catch (KubernetesClientException e) {
                throw KubeErrors.translate("reading the warm pool " + pool, e);
            }
        }
        plans = List.copyOf(read);
        plansAt = Instant.now();
        return plans;
    }

    /** Creates the claim {@code name} on the first pool; {@code lifetime} zero or negative: no shutdown time. */
    void createClaim(String name, Duration lifetime) {
        createClaim(name, options.warmPools().get(0), lifetime, Duration.ZERO);
    }

    /**
     * Creates the claim {@code name} on {@code pool}; a leased one ({@code lease} not zero) is labelled so and ends at
     * its lease plus {@link #LEASE_MARGIN} unless its host renews it ({@link #renewLeased}).
     */
    void createClaim(String name, String pool, Duration lifetime, Duration lease) {
        Map<String, String> labels = new HashMap<>(Map.of(MANAGED_BY, MANAGER, OWNER_LABEL, OWNER, SANDBOX_LABEL,
                name));
        String shutdown = null;
        if (!lease.isZero()) {
            labels.put(LEASE_LABEL, Long.toString(lease.toMillis()));
            shutdown = leaseEnd(lease);
        } else if (!lifetime.isZero() && !lifetime.isNegative()) {
            // the sandbox closes itself at its lifetime; the controller's deadline is a backstop for a dead JVM
            shutdown = ZonedDateTime.now(ZoneOffset.UTC).plus(lifetime).plusSeconds(60).withNano(0).toString();
        }
        SandboxClaim c = new SandboxClaim();
        c.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(options.namespace()).withLabels(labels)
                .build());
        c.setSpec(new Crd.ClaimSpec(new Crd.PodMetadata(Map.of(SANDBOX_LABEL, name), null), null,
                new Crd.Lifecycle("Delete", shutdown, null), null, new Crd.Ref(pool)));
        try {
            claims().inNamespace(options.namespace()).resource(c).create();
        } catch (KubernetesClientException e) {
            throw KubeErrors.translate("claiming a sandbox from the pool " + pool, e);
        }
    }

    private static String leaseEnd(Duration lease) {
        return ZonedDateTime.now(ZoneOffset.UTC).plus(lease).plus(LEASE_MARGIN).withNano(0).toString();
    }

    /**
     * Moves the leased claim's {@code shutdownTime} to now + its lease + {@link #LEASE_MARGIN}: at each renewal while
     * a host is attached, and at its detach (the agent waits the lease for a later host, then exits; the controller
     * deletes the claim after the margin). Returns false when the claim is gone or the patch failed.
     */
    boolean renewLeased(String name, Duration lease) {
        for (int attempt = 1; ; attempt++) {
            try {
                return renewLeasedOnce(name, lease);
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt == 3) {
                    LOG.debug("sandbox4j: moving the leased claim {}'s shutdownTime failed: {}", name, e.toString());
                    return false;
                }
                // another writer moved the claim on between the read and the patch: read it again
            } catch (RuntimeException e) {
                LOG.debug("sandbox4j: moving the leased claim {}'s shutdownTime failed: {}", name, e.toString());
                return false;
            }
        }
    }

    private boolean renewLeasedOnce(String name, Duration lease) {
        return claim(name).edit(c -> {
            Crd.Lifecycle l = c.getSpec().lifecycle();
            c.setSpec(new Crd.ClaimSpec(c.getSpec().additionalPodMetadata(), c.getSpec().env(), new Crd.Lifecycle(
                    l == null ? "Delete" : l.shutdownPolicy(), leaseEnd(lease),
                    l == null ? null : l.ttlSecondsAfterFinished()), c.getSpec().volumeClaimTemplates(),
                    c.getSpec().warmPoolRef()));
            return c;
        }) != null;
    }

    /**
     * The leased claim {@code name} as an attach needs it: its lease, pool and Ready sandbox (pod IP).
     *
     * @throws dev.sandbox4j.SandboxException NOT_FOUND when there is none, it has no lease, or it is not Ready
     */
    Leased leased(String name) {
        SandboxClaim c;
        try {
            c = claim(name).get();
        } catch (KubernetesClientException e) {
            throw KubeErrors.translate("reading the claim " + name, e);
        }
        Map<String, String> labels = c == null || c.getMetadata().getLabels() == null ? Map.of()
                : c.getMetadata().getLabels();
        if (c == null || !MANAGER.equals(labels.get(MANAGED_BY)) || !name.equals(labels.get(SANDBOX_LABEL))) {
            throw KubeErrors.error(ErrorKind.NOT_FOUND, "no sandbox " + name + " in the namespace "
                    + options.namespace() + " (never opened, closed, or its lease ran out)");
        }
        long ms;
        try {
            ms = Long.parseLong(labels.getOrDefault(LEASE_LABEL, ""));
        } catch (NumberFormatException e) {
            throw KubeErrors.error(ErrorKind.NOT_FOUND, "sandbox " + name + " has no lease: only a sandbox opened "
                    + "with SandboxSpec.Builder.lease can be attached to");
        }
        Crd.ClaimStatus st = c.getStatus();
        Condition ready = st == null ? null : Crd.condition(st.conditions(), "Ready");
        if (ready == null || !"True".equals(ready.getStatus()) || st.sandbox() == null
                || st.sandbox().podIPs() == null || st.sandbox().podIPs().isEmpty()) {
            throw KubeErrors.error(ErrorKind.NOT_FOUND, "sandbox " + name + " has ended or is not Ready");
        }
        // a shutdownTime patch (renewal) moves the generation on: the sandbox named is the same, so Ready's
        // observedGeneration is not asked for here
        return new Leased(Duration.ofMillis(ms), c.getSpec().warmPoolRef().name(), st.sandbox());
    }

    /** A leased claim: its lease, its pool, its sandbox. */
    record Leased(Duration lease, String pool, Crd.ClaimedSandbox sandbox) {
    }

    /**
     * Waits until the claim is Ready and names its sandbox and pod IP, for at most {@code timeout}, on the one watch
     * of this JVM's claims ({@link ClaimWatch}). When that watch drops, the claim is read again (so no change is
     * missed) and the watch opened again; TIMEOUT names the claim's last condition.
     */
    Crd.ClaimedSandbox awaitReady(String name, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        java.util.concurrent.BlockingQueue<Object> events = new java.util.concurrent.LinkedBlockingQueue<>();
        claimWatch.subscribe(name, events);
        try {
            SandboxClaim last = null;
            Object event = claim(name).get(); // after the watch is up: a change between is in both
            while (true) {
                if (event == ClaimWatch.DROPPED) {
                    watchesReopened.incrementAndGet();
                    Thread.sleep(Math.min(200, Math.max(0, (deadline - System.nanoTime()) / 1_000_000)));
                    claimWatch.ensureOpen();
                    event = claim(name).get();
                    continue;
                }
                if (event == null || event == ClaimWatch.GONE) {
                    throw KubeErrors.error(ErrorKind.BACKEND_UNAVAILABLE, "the claim " + name + " was deleted "
                            + "while this JVM waited for it");
                }
                last = (SandboxClaim) event;
                Crd.ClaimedSandbox ready = readySandbox(last);
                if (ready != null) {
                    return ready;
                }
                long left = deadline - System.nanoTime();
                event = left <= 0 ? null : events.poll(left, TimeUnit.NANOSECONDS);
                if (event == null) {
                    throw notReady(name, last, timeout);
                }
            }
        } catch (InterruptedException e) {
            throw KubeErrors.interrupted("waiting for the claim " + name);
        } catch (KubernetesClientException e) {
            throw KubeErrors.translate("reading the claim " + name, e);
        } finally {
            claimWatch.unsubscribe(name);
        }
    }

    private static Crd.ClaimedSandbox readySandbox(SandboxClaim c) {
        Crd.ClaimStatus st = c.getStatus();
        if (st == null) {
            return null;
        }
        Condition ready = Crd.condition(st.conditions(), "Ready");
        if (ready == null || !"True".equals(ready.getStatus()) || st.sandbox() == null
                || st.sandbox().podIPs() == null || st.sandbox().podIPs().isEmpty()) {
            return null;
        }
        // Ready tracks the claim's generation (agent-sandbox PR#1317): an answer to an older spec is not one
        Long gen = c.getMetadata().getGeneration();
        if (ready.getObservedGeneration() != null && gen != null && ready.getObservedGeneration() < gen) {
            return null;
        }
        return st.sandbox();
    }

    private static RuntimeException notReady(String name, SandboxClaim last, Duration timeout) {
        String why = "no status yet";
        if (last != null && last.getStatus() != null) {
            Condition c = Crd.condition(last.getStatus().conditions(), "Ready");
            if (c != null) {
                why = "Ready=" + c.getStatus() + (c.getReason() != null ? " " + c.getReason() : "")
                        + (c.getMessage() != null ? ": " + c.getMessage() : "");
            }
        }
        return KubeErrors.error(ErrorKind.TIMEOUT, "the claim " + name + " was not Ready within "
                + timeout.toMillis() + " ms (" + why + "); is the pool's controller running and the pool warm?");
    }

    /** Deletes the claim and waits (at most deleteTimeout) until it is gone; never throws. */
    void deleteClaim(String name) {
        try {
            claim(name).delete();
            long deadline = System.nanoTime() + options.deleteTimeout().toNanos();
            long pause = 20;
            while (claim(name).get() != null) {
                if (System.nanoTime() > deadline) {
                    LOG.warn("sandbox4j: the claim {} is still there {} after its deletion; the controller (or the "
                            + "janitor) finishes it", name, options.deleteTimeout());
                    return;
                }
                Thread.sleep(pause);
                pause = Math.min(500, pause * 2);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.warn("sandbox4j: deleting the claim {} failed ({}); its owner label lets the janitor remove it",
                    name, e.toString());
        }
    }

    /** This JVM's Lease, made or renewed now. */
    void renewLease() {
        try {
            String name = "sandbox4j-" + OWNER;
            Lease lease = new LeaseBuilder().withNewMetadata().withName(name).withNamespace(options.namespace())
                    .addToLabels(MANAGED_BY, MANAGER).endMetadata()
                    .withNewSpec().withHolderIdentity(OWNER).withLeaseDurationSeconds(LEASE_SECONDS)
                    .withRenewTime(ZonedDateTime.now(ZoneOffset.UTC)).endSpec().build();
            client.leases().inNamespace(options.namespace()).resource(lease).createOr(r -> r.update());
        } catch (RuntimeException e) {
            LOG.debug("sandbox4j: renewing this JVM's Lease failed: {}", e.toString());
        }
    }

    /** A claim younger than this is never judged (its owner's first Lease may still be on its way). */
    static final Duration MIN_AGE = Duration.ofSeconds(LEASE_SECONDS).plus(LEASE_GRACE);

    /**
     * Deletes this library's claims, older than {@code minAge}, whose owner JVM is gone: no Lease of its name, or one
     * not renewed within its duration plus {@link #LEASE_GRACE}. Returns the names deleted.
     */
    List<String> janitor(Duration minAge) {
        List<SandboxClaim> mine = claims().inNamespace(options.namespace()).withLabel(MANAGED_BY, MANAGER).list()
                .getItems();
        Map<String, Boolean> alive = new HashMap<>();
        alive.put(OWNER, true);
        List<String> deleted = new java.util.ArrayList<>();
        for (SandboxClaim c : mine) {
            String owner = c.getMetadata().getLabels() == null ? null : c.getMetadata().getLabels().get(OWNER_LABEL);
            if (owner == null || !owner.matches("[a-z0-9-]{1,40}") || young(c, minAge)
                    || c.getMetadata().getLabels().containsKey(LEASE_LABEL)) {
                continue; // not ours to judge, not yet, or leased (its shutdownTime ends it)
            }
            if (!alive.computeIfAbsent(owner, this::ownerAlive)) {
                String name = c.getMetadata().getName();
                claims().inNamespace(options.namespace()).withName(name).delete();
                deleted.add(name);
                LOG.info("sandbox4j: deleted the claim {} of {}, a JVM that is gone", name, owner);
            }
        }
        return deleted;
    }

    private static boolean young(SandboxClaim c, Duration minAge) {
        String created = c.getMetadata().getCreationTimestamp();
        if (created == null || minAge.isZero()) {
            return false;
        }
        try {
            return Instant.parse(created).plus(minAge).isAfter(Instant.now());
        } catch (java.time.format.DateTimeParseException e) {
            return true; // an answer this JVM cannot read: leave the claim alone
        }
    }

    private boolean ownerAlive(String owner) {
        Lease l = client.leases().inNamespace(options.namespace()).withName("sandbox4j-" + owner).get();
        if (l == null || l.getSpec() == null || l.getSpec().getRenewTime() == null) {
            return false;
        }
        int seconds = l.getSpec().getLeaseDurationSeconds() == null ? LEASE_SECONDS
                : l.getSpec().getLeaseDurationSeconds();
        return l.getSpec().getRenewTime().toInstant().plusSeconds(seconds).plus(LEASE_GRACE)
                .isAfter(Instant.now());
    }

    /** Closes the claims' watch so that the next wait opens a new one (tests that script the API server). */
    void closeClaimWatchForTests() {
        claimWatch.reset();
    }

    @Override
    public void close() {
        schedules.forEach(f -> f.cancel(false));
        claimWatch.close();
        if (started.get()) {
            try {
                client.leases().inNamespace(options.namespace()).withName("sandbox4j-" + OWNER).delete();
            } catch (RuntimeException e) {
                LOG.debug("sandbox4j: deleting this JVM's Lease failed: {}", e.toString());
            }
        }
        if (ownsClient) {
            client.close();
        }
    }
}
