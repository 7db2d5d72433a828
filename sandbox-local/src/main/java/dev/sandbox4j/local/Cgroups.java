package dev.sandbox4j.local;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import java.util.stream.Stream;

/**
 * The cgroups of one sandbox: its limits, a group per command (so a tree kill reaches every process the command
 * started, however it forked), and their removal. Which kind a sandbox gets is decided once per JVM by
 * {@link CgroupSetting}: {@link CgroupsV1} (cgroup v1, root), {@link CgroupsV2} (cgroup v2, root or a delegated
 * subtree), or {@link #none()} (no group can be made here: limits then come from rlimits where those are honest,
 * and the per-command reaper kills trees).
 */
abstract class Cgroups {
    static final Path ROOT = Path.of("/sys/fs/cgroup");
    static final String PARENT = "sandbox4j";
    /**
     * Memory and tasks the jail's own processes need on top of the commands' limits: the native agent (at most 1 MiB
     * of output, 16 MiB of stdin and 4 MiB of frames queued), the outer bwrap process, and each command's reaper for
     * the moment before it is moved into its command's group.
     */
    static final long AGENT_MEMORY = 64L << 20;
    static final int AGENT_TASKS = 128;

    final String id;
    final boolean memory;
    final boolean pids;
    final boolean cpu;

    Cgroups(String id, boolean memory, boolean pids, boolean cpu) {
        this.id = id;
        this.memory = memory;
        this.pids = pids;
        this.cpu = cpu;
    }

    /** No groups at all. */
    static Cgroups none() {
        return new Cgroups("", false, false, false) {
            @Override
            boolean perCommand() {
                return false;
            }

            @Override
            String placeLauncher() {
                return "";
            }

            @Override
            List<Long> sandboxPids() {
                return List.of();
            }

            @Override
            boolean placeCommand(long hostPid, int cmd) {
                return false;
            }

            @Override
            boolean hasCommandGroup(int cmd) {
                return false;
            }

            @Override
            void signal(int cmd, boolean kill) {
            }

            @Override
            void pruneCommandGroups(IntPredicate live) {
            }

            @Override
            long oomKills() {
                return -1;
            }

            @Override
            long pidsDenied() {
                return -1;
            }

            @Override
            void destroy() {
            }

            @Override
            public String toString() {
                return "none";
            }
        };
    }

    /**
     * The file that freezes the whole jail (v1 {@code freezer.state}, v2 {@code cgroup.freeze}), or null where the
     * sandbox has no freezer over all of it.
     */
    Path freezeFile() {
        return null;
    }

    /** Whether the kernel reports the whole jail frozen ({@code true}) or thawed, as asked. */
    boolean isFrozen(boolean frozen) {
        return false;
    }

    /**
     * Freezes or thaws every process of the jail (the agent too) and waits, at most 5 s, until the kernel says so;
     * a freeze that does not complete (a task stuck in the kernel) is undone.
     *
     * @return null when done, else why not
     */
    final String freeze(boolean frozen) {
        Path file = freezeFile();
        if (file == null) {
            return "this sandbox has no cgroup freezer (" + this + "): pausing needs cgroups, as root or with a "
                    + "delegated cgroup v2 subtree";
        }
        String value = file.getFileName().toString().equals("cgroup.freeze") ? (frozen ? "1" : "0")
                : (frozen ? "FROZEN" : "THAWED");
        if (!write(file, value)) {
            return "could not write " + file.getFileName();
        }
        long deadline = System.nanoTime() + 5_000_000_000L;
        for (long wait = 100_000; !isFrozen(frozen); wait = pause(wait, 20_000_000)) {
            if (System.nanoTime() > deadline) {
                if (frozen) {
                    freeze(false);
                }
                return "the kernel did not report the jail " + (frozen ? "frozen" : "thawed") + " within 5 s";
            }
        }
        return null;
    }

    /** What the launcher runs under before its shell (a transient systemd scope), or nothing. */
    List<String> launchPrefix() {
        return List.of();
    }

    /** Called once the launcher runs (before any command): groups that could only be made then are made now. */
    void bind(Process launcher) throws IOException {
    }

    /** Whether each command gets a group of its own (placement at the gate, kill by group). */
    abstract boolean perCommand();

    /** Shell lines placing the launcher ({@code $$}) in the sandbox's groups before it execs bwrap. */
    abstract String placeLauncher();

    /** Host pids of processes that may be a new command's gate (the agent's group). */
    abstract List<Long> sandboxPids();

    /** Moves a command's first process (host pid) into its groups; false when a move failed (it must not run). */
    abstract boolean placeCommand(long hostPid, int cmd);

    abstract boolean hasCommandGroup(int cmd);

    /** TERM (or, with kill, SIGKILL by group) to every process of a command, or with cmd &lt; 0 of the sandbox. */
    abstract void signal(int cmd, boolean kill);

    /** Removes the groups of finished commands ({@code live} = commands still running); busy groups stay. */
    abstract void pruneCommandGroups(IntPredicate live);

    /** The commands' OOM-kill count (or -1). */
    abstract long oomKills();

    /** Forks the process limit refused in the commands' group (or -1). */
    abstract long pidsDenied();

    /** Kills everything left and removes all groups of this sandbox (retrying while tasks exit). */
    abstract void destroy();

    /** Leftover sandbox4j groups of this JVM's sandboxes (for leak checks). */
    static List<String> leftovers() {
        CgroupSetting s = CgroupSetting.current();
        return s == null ? List.of() : s.leftovers("sbx-" + BwrapHost.OWNER);
    }

    // ---------------------------------------------------------------- small file helpers shared by v1 and v2

    static boolean mkdir(Path dir) {
        try {
            Files.createDirectories(dir);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static boolean write(Path file, String value) {
        try {
            Files.write(file, value.getBytes(StandardCharsets.US_ASCII));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** The number after {@code key} in a flat-keyed file such as memory.events, or -1. */
    static long keyed(Path file, String key) {
        for (String line : read(file).split("\n")) {
            if (line.startsWith(key + " ")) {
                try {
                    return Long.parseLong(line.substring(key.length() + 1).trim());
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        return -1;
    }

    static List<Long> procs(Path d) {
        List<Long> list = new ArrayList<>();
        for (String line : read(d.resolve("cgroup.procs")).split("\n")) {
            if (!line.isBlank()) {
                try {
                    list.add(Long.parseLong(line.trim()));
                } catch (NumberFormatException ignored) {
                    // not a pid
                }
            }
        }
        return list;
    }

    /** The groups directly below {@code dir} (not following links); empty when there is none or no dir. */
    static List<Path> subgroups(Path dir) {
        if (dir == null) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)).toList();
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    /** The processes of a group and of all groups below it (iteratively: a deep tree cannot overflow the stack). */
    static List<Long> procsDeep(Path d) {
        List<Long> all = new ArrayList<>();
        for (Path g : groupsBottomUp(d)) {
            all.addAll(procs(g));
        }
        return all;
    }

    /** A group and its descendants, children before parents. */
    static List<Path> groupsBottomUp(Path d) {
        List<Path> order = new ArrayList<>();
        List<Path> todo = new ArrayList<>(List.of(d));
        while (!todo.isEmpty()) {
            Path g = todo.remove(todo.size() - 1);
            if (!Files.isDirectory(g)) {
                continue;
            }
            order.add(g);
            try (Stream<Path> s = Files.list(g)) {
                s.filter(Files::isDirectory).forEach(todo::add);
            } catch (IOException | RuntimeException ignored) {
                // gone
            }
        }
        java.util.Collections.reverse(order);
        return order;
    }

    /**
     * Removes a group tree (children first), retrying while tasks exit; true when it is gone. The first retries come
     * after a fraction of a millisecond (a killed task leaves its group within about one), backing off to 20 ms.
     */
    static boolean removeTreeRetrying(Path d, long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        long pause = FIRST_PAUSE_NANOS;
        while (true) {
            for (Path g : groupsBottomUp(d)) {
                try {
                    Files.deleteIfExists(g);
                } catch (IOException ignored) {
                    // busy: tasks still exiting
                }
            }
            if (!Files.isDirectory(d)) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            pause = pause(pause, 20_000_000L);
        }
    }

    /** The first pause of a wait for exiting tasks: a SIGKILLed task is usually out of its groups within 1 ms. */
    static final long FIRST_PAUSE_NANOS = 250_000;

    /** Parks for {@code nanos}; returns the next pause, doubled up to {@code max}. */
    static long pause(long nanos, long max) {
        java.util.concurrent.locks.LockSupport.parkNanos(nanos);
        return Math.min(max, nanos * 2);
    }

    /**
     * Waits until no task is left under {@code group} or about {@code millis} ms have passed (polling from a quarter
     * millisecond on, rather than one fixed sleep: the tasks of a closing sandbox exit within a millisecond or two).
     */
    static void awaitEmpty(Path group, long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        long pause = FIRST_PAUSE_NANOS;
        while (!procsDeep(group).isEmpty() && System.nanoTime() < deadline) {
            pause = pause(Math.min(pause, Math.max(1, deadline - System.nanoTime())), 2_000_000L);
        }
    }

    /**
     * SIGKILL to every task under {@code group} while it is frozen (so none forks between the listing and the kill),
     * then thawed (a frozen task cannot die); repeated until the group is empty, at most {@code rounds} times.
     */
    static void freezeAndKill(Path group, Path freezeFile, String frozen, String thawed, int rounds) {
        for (int round = 0; round < rounds; round++) {
            List<Long> pids = procsDeep(group);
            if (pids.isEmpty()) {
                return;
            }
            write(freezeFile, frozen);
            for (long pid : pids) {
                kill9(pid);
            }
            write(freezeFile, thawed);
            awaitEmpty(group, 10);
        }
    }

    static void kill9(long pid) {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
