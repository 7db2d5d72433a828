package dev.sandbox4j.docker;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Kills commands' process trees in one sandbox, with as few execs as possible. The kill is itself an exec, so a busy
 * engine makes it slow: callers wait for it only up to a bound, and the kill goes on here after they returned.
 *
 * <p>One worker thread per sandbox, started on demand and gone when idle, runs the killer. Each killer exec takes
 * every marker pending when it starts, so commands timing out together share one exec. A request is served by the
 * first killer attempt that starts after it. A {@link Task} repeats the kill until the command's output stream ends,
 * which it does once every process holding it exited, because under load the command's process may start only after a
 * first kill found nothing.
 */
final class Killer {
    private static final Logger LOG = LoggerFactory.getLogger(Killer.class);
    /**
     * How long past its deadline a timed-out command's caller waits for the kill to be confirmed before getting
     * TIMEOUT anyway. The documented bound is timeout + 2 s; the rest is slack for the deadline check itself.
     */
    static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(1500);
    /** Kill rounds that found the command (or could not run) before a task gives up on a stream that does not end. */
    static final int ROUNDS = 8;
    /** How long a task looks for a command whose process never shows up before giving up. */
    private static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** How long a request retries a killer that cannot start (a fork bomb holding every pid, a paused container). */
    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(3);
    private static final Duration KILLER_TIMEOUT = Duration.ofSeconds(5);

    private final DockerSandbox sandbox;
    private final Object lock = new Object();
    private final List<Request> pending = new ArrayList<>();
    private final List<Task> tasks = new ArrayList<>();
    private Thread worker;
    private boolean closed;
    /** Killer execs started, for tests. */
    final AtomicInteger execs = new AtomicInteger();

    Killer(DockerSandbox sandbox) {
        this.sandbox = sandbox;
    }

    /** Markers to kill in one killer attempt; done with true when a killer exited 0, false when it gave up. */
    private static final class Request {
        final Set<String> markers;
        final boolean sweep;
        final long giveUpAt;
        final CompletableFuture<Boolean> done = new CompletableFuture<>();
        volatile long doneAt;
        /** Whether the killer found a process carrying one of the markers. */
        volatile boolean hit;

        Request(boolean sweep, List<String> markers) {
            this.sweep = sweep;
            this.markers = new LinkedHashSet<>(markers);
            this.giveUpAt = System.nanoTime() + RETRY_NANOS;
        }

        void complete(boolean ok) {
            doneAt = System.nanoTime();
            done.complete(ok);
        }
    }

    /** A command being killed until its output stream ends. */
    final class Task {
        final Engine.Exec exec;
        final boolean sweep;
        final List<String> markers;
        /** True once the stream ended; false when the sandbox closed or the rounds ran out first. */
        final CompletableFuture<Boolean> done = new CompletableFuture<>();
        private final long started = System.nanoTime();
        private int rounds;
        private int misses;
        private Request current;
        private long nextAt = started;

        Task(Engine.Exec exec, boolean sweep, List<String> markers) {
            this.exec = exec;
            this.sweep = sweep;
            this.markers = markers;
        }

        /** Waits until the stream ended or {@code untilNanos}; true when it ended (or the sandbox closed). */
        boolean awaitEnd(long untilNanos) throws InterruptedException {
            try {
                return done.get(Math.max(0, untilNanos - System.nanoTime()), TimeUnit.NANOSECONDS)
                        || sandbox.closed();
            } catch (TimeoutException e) {
                return false;
            } catch (ExecutionException e) {
                return false;
            }
        }
    }

    /** Starts killing the command behind {@code exec} until its output stream ends; the caller waits as it sees fit. */
    Task killUntilEnded(Engine.Exec exec, boolean sweep, String... markers) {
        Task t = new Task(exec, sweep, List.of(markers));
        exec.end.whenComplete((v, e) -> {
            t.done.complete(true);
            wake();
        });
        synchronized (lock) {
            if (closed) {
                t.done.complete(false);
                return t;
            }
            tasks.add(t);
            startWorker();
            lock.notifyAll();
        }
        return t;
    }

    /**
     * Kills every process carrying one of the markers (and unmarked strays when sweep) once, waiting up to
     * {@code wait} for a killer that started after this call. Best effort: false when that could not be seen.
     */
    boolean kill(boolean sweep, Duration wait, String... markers) {
        Request r = new Request(sweep, List.of(markers));
        synchronized (lock) {
            if (closed) {
                return false;
            }
            pending.add(r);
            startWorker();
            lock.notifyAll();
        }
        try {
            return r.done.get(wait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            // The worker kills anyway; the caller just stops waiting.
            Thread.currentThread().interrupt();
            return false;
        } catch (TimeoutException | ExecutionException e) {
            return false;
        }
    }

    private void wake() {
        synchronized (lock) {
            lock.notifyAll();
        }
    }

    private void startWorker() {
        if (worker == null) {
            worker = new Thread(this::work, "sandbox4j-docker-kill-" + sandbox.id);
            worker.setDaemon(true);
            worker.start();
        }
    }

    private void work() {
        int failures = 0;
        boolean idle = false;
        try {
            while (true) {
                List<Request> batch;
                synchronized (lock) {
                    batch = nextBatch();
                    if (batch == null) {
                        idle = true;
                        return;
                    }
                }
                Set<String> found = runKiller(batch);
                boolean ok = found != null;
                long now = System.nanoTime();
                List<Request> retry = new ArrayList<>();
                for (Request r : batch) {
                    if (ok) {
                        r.hit = r.markers.stream().anyMatch(found::contains);
                    }
                    if (ok || now - r.giveUpAt >= 0) {
                        r.complete(ok);
                    } else {
                        retry.add(r);
                    }
                }
                failures = ok ? 0 : failures + 1;
                synchronized (lock) {
                    pending.addAll(0, retry);
                    if (!retry.isEmpty() && !closed) {
                        // Back off a little: a paused container or a full pid table will not change in a millisecond.
                        lock.wait(Math.min(400, 50L << Math.min(failures, 4)));
                    }
                }
            }
        } catch (InterruptedException e) {
            // closing
        } catch (RuntimeException e) {
            LOG.warn("sandbox4j: the kill worker of {} failed", sandbox.id, e);
        } finally {
            synchronized (lock) {
                worker = null;
                if (closed || !idle) {
                    for (Request r : pending) {
                        r.complete(false);
                    }
                    pending.clear();
                } else if (!pending.isEmpty() || !tasks.isEmpty()) {
                    startWorker(); // work arrived while this thread was leaving
                }
            }
        }
    }

    /**
     * Under the lock: retires ended tasks, queues the tasks due for another round, and returns every pending request
     * for one killer attempt; waits while nothing is due, and returns null when there is nothing left to do.
     */
    private List<Request> nextBatch() throws InterruptedException {
        while (true) {
            if (closed) {
                return null;
            }
            long now = System.nanoTime();
            long wake = Long.MAX_VALUE;
            for (Iterator<Task> it = tasks.iterator(); it.hasNext(); ) {
                Task t = it.next();
                if (t.done.isDone()) {
                    it.remove();
                    t.exec.closeStream();
                    continue;
                }
                if (t.current != null) {
                    Request c = t.current;
                    if (!c.done.isDone()) {
                        continue;
                    }
                    t.current = null;
                    if (c.done.getNow(false) && !c.hit) {
                        // No process carried the marker: the exec starts asynchronously, late on a busy engine, so
                        // its process may not exist yet. Look again soon, backing off.
                        t.misses++;
                        long backoff = Math.min(1000, 50L << Math.min(t.misses, 5));
                        t.nextAt = c.doneAt + TimeUnit.MILLISECONDS.toNanos(backoff);
                    } else {
                        // Killed (or the killer could not run): give the stream time to end, longer the first time.
                        t.rounds++;
                        t.nextAt = c.doneAt + TimeUnit.MILLISECONDS.toNanos(t.rounds == 1 ? 1000 : 500);
                    }
                }
                if (now - t.nextAt >= 0) {
                    if (t.rounds >= ROUNDS || now - t.started > GIVE_UP_NANOS) {
                        it.remove();
                        LOG.warn("sandbox4j: the processes of a timed-out command in {} were still running after {} "
                                + "kill rounds ({} without finding it)", sandbox.id, t.rounds, t.misses);
                        t.exec.closeStream();
                        t.done.complete(false);
                        continue;
                    }
                    t.current = new Request(t.sweep, t.markers);
                    pending.add(t.current);
                } else {
                    wake = Math.min(wake, t.nextAt);
                }
            }
            if (!pending.isEmpty()) {
                List<Request> batch = new ArrayList<>(pending);
                pending.clear();
                return batch;
            }
            if (tasks.isEmpty()) {
                return null;
            }
            long waitNanos = wake == Long.MAX_VALUE ? TimeUnit.MILLISECONDS.toNanos(100) : Math.max(1, wake - now);
            TimeUnit.NANOSECONDS.timedWait(lock, waitNanos);
        }
    }

    /** One killer exec for every marker in the batch; the markers it found on a process, or null when it failed. */
    private Set<String> runKiller(List<Request> batch) {
        Set<String> markers = new LinkedHashSet<>();
        boolean sweep = false;
        for (Request r : batch) {
            markers.addAll(r.markers);
            sweep |= r.sweep;
        }
        List<String> cmd = new ArrayList<>(List.of("/bin/bash", "-c", WorkspaceScripts.KILLER, "sandbox4j-kill",
                sweep ? "1" : "0"));
        cmd.addAll(markers);
        try {
            execs.incrementAndGet();
            Engine.Ran r = sandbox.engine.run(sandbox.containerId, cmd, sandbox.user,
                    DockerSandbox.fixedEnv("killer"), null, 1 << 16, KILLER_TIMEOUT);
            if (r.exitCode() == 0) {
                Set<String> found = new java.util.HashSet<>();
                for (String line : r.out().split("\n")) {
                    if (!line.isBlank()) {
                        found.add(line.strip());
                    }
                }
                return found;
            }
            LOG.debug("sandbox4j: the killer in {} exited {}: {}", sandbox.id, r.exitCode(),
                    new String(r.stderr(), StandardCharsets.UTF_8));
        } catch (SandboxException e) {
            if (e.kind() == ErrorKind.INTERRUPTED) {
                Thread.interrupted(); // closing: the loop sees it
            }
            if (!sandbox.closed()) {
                LOG.debug("sandbox4j: the killer in {} failed: {}", sandbox.id, e.toString());
            }
        } catch (RuntimeException e) {
            LOG.debug("sandbox4j: the killer in {} failed: {}", sandbox.id, e.toString());
        }
        return null;
    }

    /** Stops every kill in progress (the container is about to be removed, which ends every process). */
    void close() {
        synchronized (lock) {
            closed = true;
            for (Task t : tasks) {
                t.done.complete(false);
                t.exec.closeStream();
            }
            tasks.clear();
            for (Request r : pending) {
                r.complete(false);
            }
            pending.clear();
            if (worker != null) {
                worker.interrupt();
            }
            lock.notifyAll();
        }
    }

    /** Waits (bounded) for the worker thread to be gone after {@link #close()}. */
    void awaitClosed(long millis) {
        Thread w;
        synchronized (lock) {
            w = worker;
        }
        if (w == null) {
            return;
        }
        try {
            w.join(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (w.isAlive()) {
            LOG.debug("sandbox4j: the kill worker of {} is still finishing an engine call", sandbox.id);
        }
    }
}
