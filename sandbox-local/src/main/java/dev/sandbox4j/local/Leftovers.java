package dev.sandbox4j.local;

import dev.sandbox4j.core.NioWorkspace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The removal of a sandbox's host directories, and of those that could not be deleted when their sandbox failed to
 * open or closed (for example out of file descriptors mid-walk), with the number of attempts so far. They are retried
 * on a background thread, never on the thread of an open or close: one sandbox's leftovers must not slow another's
 * close. A retry pass runs at most once every {@link #RETRY_MILLIS} ms; a directory is given up after
 * {@link #ATTEMPTS} attempts (this JVM's exit tries once more, and the janitor of a later JVM reaps it).
 */
final class Leftovers {
    static final long RETRY_MILLIS = 5_000;
    static final int ATTEMPTS = 12;
    private static final Map<Path, Integer> LEFT = new ConcurrentHashMap<>();
    private static final AtomicBoolean RETRY_PENDING = new AtomicBoolean();
    private static final AtomicBoolean EXIT_HOOK = new AtomicBoolean();

    private Leftovers() {
    }

    /**
     * Deletes {@code root} and everything under it, of any depth, never following links (links are removed, never
     * their targets); whether nothing is left. Iterative and descriptor-relative, holding a bounded number of
     * directory descriptors (see {@link NioWorkspace#deleteTree(Path)}), so a tree sandboxed code nested thousands of
     * levels deep is deleted too, and a JVM at its descriptor limit still cleans up a failed open.
     */
    static boolean deleteTree(Path root) {
        if (root == null) {
            return true;
        }
        // an overlay source's merged view goes first (deleting through it would only whiteout, but slowly), then a
        // workspace quota's tmpfs (its memory with it); then the mount points are empty directories
        Overlay.unmount(root.resolve("merged"));
        WorkspaceQuota.unmount(root);
        try {
            NioWorkspace.deleteTree(root);
        } catch (IOException | RuntimeException ignored) {
            // reported by the return value: the caller remembers the directory and retries
        }
        return !Files.exists(root, LinkOption.NOFOLLOW_LINKS);
    }

    /** Deletes {@code dir} (null: nothing), or remembers it for the background retries. */
    static void deleteOrRemember(Path dir) {
        if (dir != null && !deleteTree(dir)) {
            LEFT.putIfAbsent(dir, 1);
            if (EXIT_HOOK.compareAndSet(false, true)) {
                // a JVM that never opens or closes another sandbox still tries once more on its way out
                dev.sandbox4j.core.Background.atExit(Leftovers::retryNow);
            }
            retry();
        }
    }

    /** Schedules a background retry pass of the leftovers, unless one is pending; returns at once. */
    static void retry() {
        if (!LEFT.isEmpty() && RETRY_PENDING.compareAndSet(false, true)) {
            // the timer hands the pass to a worker: deleting a tree may take long
            dev.sandbox4j.core.Background.timer().schedule(() -> dev.sandbox4j.core.Background.execute(() -> {
                RETRY_PENDING.set(false);
                retryNow();
                retry();
            }), RETRY_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** One retry pass, on the calling thread: deletes what it can, forgets what was tried too often. */
    static void retryNow() {
        for (Path dir : List.copyOf(LEFT.keySet())) {
            if (deleteTree(dir)) {
                LEFT.remove(dir);
            } else if (LEFT.merge(dir, 1, Integer::sum) > ATTEMPTS) {
                LEFT.remove(dir); // left to the janitor of a later JVM
            }
        }
    }

    /** The directories waiting for a retry (for tests). */
    static Set<Path> all() {
        return Set.copyOf(LEFT.keySet());
    }
}
