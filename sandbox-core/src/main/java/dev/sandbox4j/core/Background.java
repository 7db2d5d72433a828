package dev.sandbox4j.core;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The library's background work, in one place: one timer thread, one elastic pool of daemon workers, and one JVM
 * shutdown hook. Before, each backend kept its own executors (eleven) and shutdown hooks (four), so a JVM running
 * two backends held a dozen idle threads and ran its exit work in an order nobody chose.
 *
 * <ul>
 *   <li>{@link #timer()}: deadlines and retries. Its task must return at once (close a stream, signal, hand the real
 *   work to {@link #execute}): one slow task would delay every deadline of every sandbox.</li>
 *   <li>{@link #execute}: blocking work nobody waits for (a close after a death, an unmount, a janitor's sweep).
 *   Threads are daemons and end after a few idle seconds, so an idle library holds only the timer thread.</li>
 *   <li>{@link #serial}: an executor over the same workers that runs its tasks one at a time, in order (a janitor
 *   that must not sweep twice at once, a launcher that forks from one thread).</li>
 *   <li>{@link #atExit}: work that must run when the JVM exits (removing a backend's leftovers); all of it runs on
 *   the one hook, in parallel, each task bounded by {@link #EXIT_BUDGET} so a hung engine cannot hold the exit.</li>
 * </ul>
 */
public final class Background {
    /** How long the exit hook waits for all of its tasks together. */
    static final Duration EXIT_BUDGET = Duration.ofSeconds(10);

    private static final ScheduledThreadPoolExecutor TIMER = timer("sandbox4j-timer");
    private static final ExecutorService WORKERS = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 5, TimeUnit.SECONDS,
            new SynchronousQueue<>(), r -> daemon(r, "sandbox4j-worker"));
    private static final List<Runnable> AT_EXIT = new ArrayList<>();
    private static boolean hookAdded;

    private Background() {
    }

    /** The shared timer: for tasks that return at once. */
    public static ScheduledExecutorService timer() {
        return TIMER;
    }

    /** Runs {@code task} on a daemon worker; exceptions are swallowed (the work belongs to nobody waiting). */
    public static void execute(Runnable task) {
        WORKERS.execute(() -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                // background work reports through its owner's state, never by throwing here
            }
        });
    }

    /**
     * The shared workers as an {@link Executor} for {@code CompletableFuture}s whose caller waits (an upload's
     * producer, an inspect beside a start); not an {@code ExecutorService}, so no caller can shut it down.
     */
    public static Executor workers() {
        return WORKERS;
    }

    /** An executor that runs its tasks one at a time, in submission order, on the shared workers. */
    public static Executor serial() {
        return new Serial();
    }

    /**
     * Runs {@code task} when the JVM exits, on the library's one shutdown hook. Tasks must be idempotent and
     * bounded: the hook waits at most {@link #EXIT_BUDGET} for all of them.
     */
    public static void atExit(Runnable task) {
        synchronized (AT_EXIT) {
            AT_EXIT.add(task);
            if (!hookAdded) {
                hookAdded = true;
                Runtime.getRuntime().addShutdownHook(new Thread(() -> runExitTasks(EXIT_BUDGET), "sandbox4j-exit"));
            }
        }
    }

    /** Runs every exit task at once and returns when all ended or {@code budget} passed. */
    static void runExitTasks(Duration budget) {
        List<Runnable> tasks;
        synchronized (AT_EXIT) {
            tasks = List.copyOf(AT_EXIT);
        }
        CountDownLatch done = new CountDownLatch(tasks.size());
        for (Runnable task : tasks) {
            Thread t = daemon(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    // the JVM is exiting: nothing to report to
                } finally {
                    done.countDown();
                }
            }, "sandbox4j-exit-task");
            t.start();
        }
        try {
            done.await(budget.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static ScheduledThreadPoolExecutor timer(String name) {
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> daemon(r, name));
        t.setRemoveOnCancelPolicy(true);
        return t;
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** One task at a time over the shared workers (no thread of its own while idle). */
    private static final class Serial implements Executor {
        private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
        private boolean running;

        @Override
        public void execute(Runnable task) {
            synchronized (queue) {
                queue.add(task);
                if (running) {
                    return;
                }
                running = true;
            }
            Background.execute(this::drain);
        }

        private void drain() {
            while (true) {
                Runnable next;
                synchronized (queue) {
                    next = queue.poll();
                    if (next == null) {
                        running = false;
                        return;
                    }
                }
                try {
                    next.run();
                } catch (RuntimeException e) {
                    // as Background.execute: the task's owner keeps its own state
                }
            }
        }
    }
}
