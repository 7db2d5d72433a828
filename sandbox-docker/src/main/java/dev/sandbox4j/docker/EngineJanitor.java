package dev.sandbox4j.docker;

import com.github.dockerjava.api.model.Container;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Removal on one engine: this JVM's containers and volumes (with the leftovers of removals that failed, tried again
 * in the background and at exit), and the janitor that removes what a dead JVM or an expired sandbox left, by the
 * labels {@link ContainerConfig#labels} puts on them.
 */
final class EngineJanitor {
    private static final Logger LOG = LoggerFactory.getLogger(Engine.class); // the log names Engine, as before the split

    private final Engine engine;

    EngineJanitor(Engine engine) {
        this.engine = engine;
    }


    /** Minimum time between two janitor runs against the same engine in one JVM. */
    static final Duration JANITOR_INTERVAL = Duration.ofSeconds(2);
    private static final Map<String, Long> JANITOR_LAST = new java.util.concurrent.ConcurrentHashMap<>();
    /** Janitor runs one at a time (each on its own connection), on the library's shared workers. */
    private static final java.util.concurrent.Executor JANITORS = dev.sandbox4j.core.Background.serial();

    /**
     * Runs the janitor in the background, on its own connection, at most once per {@link #JANITOR_INTERVAL} per engine
     * and JVM; never on the caller's path.
     */
    void janitorInBackground() {
        long now = System.nanoTime();
        boolean[] due = new boolean[1];
        JANITOR_LAST.compute(engine.host, (k, last) -> {
            if (last == null || now - last >= JANITOR_INTERVAL.toNanos()) {
                due[0] = true;
                return now;
            }
            return last;
        });
        if (!due[0]) {
            return;
        }
        try {
            JANITORS.execute(() -> {
                try (Engine e = Engine.connect(engine.options, engine.options.requestTimeout())) {
                    new EngineJanitor(e).janitor();
                } catch (RuntimeException ex) {
                    LOG.debug("sandbox4j janitor failed", ex);
                }
            });
        } catch (RuntimeException ex) {
            LOG.debug("sandbox4j janitor not scheduled", ex);
        }
    }

    /**
     * Removes containers and volumes of sandbox4j whose owner JVM on this host is gone or whose expiry passed.
     * Best effort: errors are logged, never thrown.
     */
    void janitor() {
        Leftovers mine = LEFTOVERS.get(engine.host);
        if (mine != null) {
            removeLeftovers(mine);
        }
        try {
            long now = Instant.now().getEpochSecond();
            List<Container> containers = engine.control.listContainersCmd().withShowAll(true)
                    .withLabelFilter(Map.of(Engine.LABEL, "1")).exec();
            List<String> live = new ArrayList<>();
            for (Container c : containers) {
                Map<String, String> labels = c.getLabels() == null ? Map.of() : c.getLabels();
                if (removable(labels, c.getState(), now)) {
                    LOG.info("sandbox4j janitor: removing stale container {}", c.getId());
                    removeContainerQuietly(c.getId());
                } else if (labels.get(Engine.LABEL_ID) != null) {
                    live.add(labels.get(Engine.LABEL_ID));
                }
            }
            var volumes = engine.control.listVolumesCmd().withFilter("label", List.of(Engine.LABEL + "=1")).exec().getVolumes();
            if (volumes != null) {
                for (var v : volumes) {
                    Map<String, String> labels = v.getLabels() == null ? Map.of() : v.getLabels();
                    boolean leftover = ContainerLease.leased(labels) || stale(labels, now);
                    if (leftover && !live.contains(labels.get(Engine.LABEL_ID))) {
                        LOG.info("sandbox4j janitor: removing stale volume {}", v.getName());
                        removeVolumeQuietly(v.getName());
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.debug("sandbox4j janitor failed", e);
        }
    }

    /**
     * Whether a container is a leftover: one whose owner JVM died or whose expiry passed; a leased one (docs/reattach.md)
     * outlives its owner and its expiry while its agent runs (it ends itself when its lease runs out with no host), and
     * is a leftover once it stopped. Its volume goes once no container of its id is left.
     */
    static boolean removable(Map<String, String> labels, String state, long nowEpoch) {
        if (!ContainerLease.leased(labels)) {
            return stale(labels, nowEpoch);
        }
        if ("exited".equals(state) || "dead".equals(state)) {
            return true;
        }
        // created and never started (its JVM died in between): as any other, by the JVM that opened it
        String opener = labels.get(ContainerLease.LABEL_OPENER);
        return "created".equals(state) && opener != null && stale(Map.of(Engine.LABEL_OWNER, opener), nowEpoch);
    }

    static boolean stale(Map<String, String> labels, long nowEpoch) {
        String expires = labels.get(Engine.LABEL_EXPIRES);
        if (expires != null) {
            try {
                if (Long.parseLong(expires) < nowEpoch) {
                    return true;
                }
            } catch (NumberFormatException ignored) {
                // not ours to judge
            }
        }
        String owner = labels.get(Engine.LABEL_OWNER);
        if (owner == null) {
            return false;
        }
        String[] parts = owner.split(":");
        if (parts.length != 3 || !parts[0].equals(Engine.OWNER.split(":")[0])) {
            return false; // another host's sandbox: only its expiry counts
        }
        try {
            long pid = Long.parseLong(parts[1]);
            long start = Long.parseLong(parts[2]);
            Optional<ProcessHandle> p = ProcessHandle.of(pid);
            if (p.isEmpty()) {
                return true;
            }
            Optional<Instant> started = p.get().info().startInstant();
            return started.isPresent() && Math.abs(started.get().toEpochMilli() - start) > 2000;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** Removes one of this JVM's containers; when the engine cannot be asked now, it is {@linkplain #leave left} for later. */
    void removeContainerQuietly(String id) {
        if (!removeContainer(id)) {
            leave(id, null);
        }
    }

    /** Whether the container is gone (removed now, or not there). */
    private boolean removeContainer(String id) {
        try {
            engine.control.removeContainerCmd(id).withForce(true).withRemoveVolumes(true).exec();
            return true;
        } catch (com.github.dockerjava.api.exception.NotFoundException e) {
            return true;
        } catch (RuntimeException e) {
            LOG.debug("removing container {} failed: {}", id, e.toString());
            return false;
        }
    }

    /** Removes a volume of this JVM's own sandbox; when that fails, it is {@linkplain #leave left} for later. */
    void removeOwnVolumeQuietly(String name) {
        if (!removeVolumeQuietly(name)) {
            leave(null, name);
        }
    }

    /** Whether the volume is gone; a volume still in use stays (and false is returned) after a few tries. */
    boolean removeVolumeQuietly(String name) {
        for (int i = 0; i < 5; i++) {
            try {
                engine.control.removeVolumeCmd(name).exec();
                return true;
            } catch (com.github.dockerjava.api.exception.NotFoundException e) {
                return true;
            } catch (RuntimeException e) {
                LOG.debug("removing volume {} failed: {}", name, e.toString());
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return false;
    }


    /**
     * This JVM's containers and volumes whose removal failed, by engine address: the engine was unreachable for a
     * moment, or the JVM had no file descriptor left for a connection (an open that failed at the fd limit could not
     * remove the container it had made). They are tried again in the background with growing pauses, by every
     * janitor run against the same engine, and once more as the JVM exits; otherwise they would stay until this JVM
     * died and another one's janitor found them.
     */
    private static final Map<String, Leftovers> LEFTOVERS = new java.util.concurrent.ConcurrentHashMap<>();
    private static final java.util.concurrent.atomic.AtomicBoolean EXIT_HOOK = new java.util.concurrent.atomic.AtomicBoolean();
    private static final java.util.concurrent.atomic.AtomicBoolean RETRYING = new java.util.concurrent.atomic.AtomicBoolean();
    /** The longest pause between two background tries. */
    private static final long RETRY_MAX_MS = 60_000;

    private record Leftovers(DockerOptions options, java.util.Set<String> containers, java.util.Set<String> volumes) {
        boolean isEmpty() {
            return containers.isEmpty() && volumes.isEmpty();
        }
    }

    private void leave(String container, String volume) {
        Leftovers l = LEFTOVERS.computeIfAbsent(engine.host, h -> new Leftovers(engine.options,
                java.util.concurrent.ConcurrentHashMap.newKeySet(), java.util.concurrent.ConcurrentHashMap.newKeySet()));
        if (container != null) {
            l.containers.add(container);
        }
        if (volume != null) {
            l.volumes.add(volume);
        }
        LOG.debug("sandbox4j: left for later: container {} volume {}", container, volume);
        if (EXIT_HOOK.compareAndSet(false, true)) {
            try {
                dev.sandbox4j.core.Background.atExit(EngineJanitor::removeLeftovers);
            } catch (IllegalStateException alreadyExiting) {
                // the JVM is exiting: the janitor of the next JVM removes them (their owner is gone by then)
            }
        }
        if (RETRYING.compareAndSet(false, true)) {
            scheduleRetry(500);
        }
    }

    private static boolean anyLeftover() {
        return LEFTOVERS.values().stream().anyMatch(l -> !l.isEmpty());
    }

    private static void scheduleRetry(long delayMs) {
        try {
            // the timer only hands the try to a worker: a removal waits on the engine
            dev.sandbox4j.core.Background.timer().schedule(() -> dev.sandbox4j.core.Background.execute(() -> {
                removeLeftovers();
                if (anyLeftover()) {
                    scheduleRetry(Math.min(delayMs * 2, RETRY_MAX_MS));
                } else {
                    RETRYING.set(false);
                    if (anyLeftover() && RETRYING.compareAndSet(false, true)) {
                        scheduleRetry(500); // one was left while this try ended
                    }
                }
            }), delayMs, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException ignored) {
            // shutting down: the exit hook tries
        }
    }

    /** Tries every leftover once, on a connection of its own per engine. */
    static void removeLeftovers() {
        for (Map.Entry<String, Leftovers> e : LEFTOVERS.entrySet()) {
            Leftovers l = e.getValue();
            if (l.isEmpty()) {
                continue;
            }
            try (Engine engine = Engine.connect(l.options, l.options.requestTimeout())) {
                new EngineJanitor(engine).removeLeftovers(l);
            } catch (RuntimeException ex) {
                LOG.debug("sandbox4j: removing leftovers failed", ex);
            }
        }
    }

    private void removeLeftovers(Leftovers l) {
        for (String c : List.copyOf(l.containers)) {
            if (removeContainer(c)) {
                l.containers.remove(c);
            }
        }
        for (String v : List.copyOf(l.volumes)) {
            if (removeVolumeQuietly(v)) {
                l.volumes.remove(v);
            }
        }
    }
}
