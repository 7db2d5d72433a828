package dev.sandbox4j.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reaps what sandboxes of dead JVMs (kill -9) left behind: their cgroups ({@code <controller>/sandbox4j/sbx-<pid>-*})
 * and temp dirs ({@code $TMPDIR/sandbox4j-local-<pid>-{ws,ctl,bin}-*}), when the owner pid is not a live process.
 * Started by open, at most once per JVM every 2 s, so what a crashed JVM left goes at the next open; it runs on a
 * background thread, like Docker's, because a run lists the temp dir and may wait up to 2 s for a dead group to
 * empty, which the open path should not.
 */
final class Janitor {
    private static final Pattern CGROUP = Pattern.compile("sbx-(\\d+)-.*");
    private static final Pattern TEMP = Pattern.compile(Pattern.quote(BwrapHost.PREFIX) + "(\\d+)-(ws|ctl|bin)-.*");
    private static final long INTERVAL_NANOS = 2_000_000_000L;
    private static final AtomicLong LAST = new AtomicLong(System.nanoTime() - INTERVAL_NANOS - 1);
    /** Runs never overlap (the interval gate admits one at a time; the serial executor keeps it so). */
    private static final java.util.concurrent.Executor RUNNER = dev.sandbox4j.core.Background.serial();

    private Janitor() {
    }

    /** Starts a reap in the background if the last one started more than 2 s ago (never throws). */
    static void maybeReap(Path tempDir) {
        long now = System.nanoTime();
        long last = LAST.get();
        if (now - last < INTERVAL_NANOS || !LAST.compareAndSet(last, now)) {
            return;
        }
        RUNNER.execute(() -> {
            try {
                reap(tempDir);
            } catch (RuntimeException ignored) {
                // best effort
            }
        });
    }

    /** Reaps now; returns how many groups and dirs were removed. */
    static int reap(Path tempDir) {
        int n = 0;
        CgroupSetting cg = CgroupSetting.current();
        if (cg != null) {
            n += cg.reap(name -> deadOwner(CGROUP.matcher(name)));
        }
        if (tempDir != null) {
            for (Path d : list(tempDir)) {
                if (deadOwner(TEMP.matcher(d.getFileName().toString()))
                        && Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)) {
                    Leftovers.deleteTree(d);
                    if (!Files.exists(d, LinkOption.NOFOLLOW_LINKS)) {
                        n++;
                    }
                }
            }
        }
        return n;
    }

    private static boolean deadOwner(Matcher m) {
        if (!m.matches()) {
            return false;
        }
        long pid;
        try {
            pid = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            return true; // more digits than any pid: no live owner
        }
        return pid != ProcessHandle.current().pid() && ProcessHandle.of(pid).isEmpty();
    }

    private static List<Path> list(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.toList();
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }
}
