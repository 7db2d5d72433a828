package dev.sandbox4j.local;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * cgroup v1 control for one sandbox (the layout on these hosts, as root). Per sandbox:
 * <ul>
 *   <li>{@code memory/sandbox4j/<id>} (agent + overhead) and {@code memory/sandbox4j/<id>/work} (commands, limit);</li>
 *   <li>{@code pids/sandbox4j/<id>} and {@code pids/sandbox4j/<id>/work} (commands, pids.max);</li>
 *   <li>{@code cpu/sandbox4j/<id>} (cfs quota for the whole jail);</li>
 *   <li>{@code freezer/sandbox4j/<id>} and {@code freezer/sandbox4j/<id>/c<n>} per command (tree kill).</li>
 * </ul>
 */
final class Cgroups {
    static final Path ROOT = Path.of("/sys/fs/cgroup");
    static final String PARENT = "sandbox4j";
    /** Memory and tasks the agent JVM and bwrap need on top of the commands' limits. */
    static final long AGENT_MEMORY = 160L << 20;
    static final int AGENT_TASKS = 512;

    final String id;
    final boolean memory;
    final boolean pids;
    final boolean cpu;
    final boolean freezer;
    final boolean memsw;
    /** Ids of the per-command freezer groups made and not yet removed. */
    private final java.util.Set<Integer> commandGroups = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private Cgroups(String id, boolean memory, boolean pids, boolean cpu, boolean freezer, boolean memsw) {
        this.id = id;
        this.memory = memory;
        this.pids = pids;
        this.cpu = cpu;
        this.freezer = freezer;
        this.memsw = memsw;
    }

    /** Whether cgroup v1 controllers are usable here (v1 mounted and we may create groups: root). */
    static boolean usable(String controller) {
        Path dir = ROOT.resolve(controller);
        return Files.isDirectory(dir) && Files.exists(dir.resolve("tasks")) && Files.isWritable(dir)
                && "root".equals(System.getProperty("user.name"));
    }

    /** Creates the groups and sets limits; what could not be made is off. */
    static Cgroups create(String id, long memoryBytes, int maxProcesses, double cpus) {
        boolean mem = memoryBytes > 0 && usable("memory") && mk("memory", id) && mk("memory", id + "/work");
        boolean memsw = false;
        if (mem) {
            mem = write("memory", id, "memory.limit_in_bytes", Long.toString(memoryBytes + AGENT_MEMORY))
                    && write("memory", id + "/work", "memory.limit_in_bytes", Long.toString(memoryBytes));
            if (Files.exists(dir("memory", id).resolve("memory.memsw.limit_in_bytes"))) {
                memsw = write("memory", id, "memory.memsw.limit_in_bytes", Long.toString(memoryBytes + AGENT_MEMORY))
                        && write("memory", id + "/work", "memory.memsw.limit_in_bytes", Long.toString(memoryBytes));
            }
        }
        boolean pid = maxProcesses > 0 && usable("pids") && mk("pids", id) && mk("pids", id + "/work")
                && write("pids", id, "pids.max", Integer.toString(maxProcesses + AGENT_TASKS))
                && write("pids", id + "/work", "pids.max", Integer.toString(maxProcesses));
        boolean cp = false;
        if (cpus > 0 && usable("cpu") && mk("cpu", id)) {
            long period = 100_000;
            cp = write("cpu", id, "cpu.cfs_period_us", Long.toString(period))
                    && write("cpu", id, "cpu.cfs_quota_us", Long.toString(Math.max(1000, (long) (cpus * period))));
        }
        boolean frz = usable("freezer") && mk("freezer", id);
        return new Cgroups(id, mem, pid, cp, frz, memsw);
    }

    /** Shell lines placing the launcher ({@code $$}) in the sandbox's groups before it execs bwrap. */
    String placeLauncher() {
        StringBuilder sb = new StringBuilder();
        for (String c : controllers()) {
            sb.append("echo $$ > '").append(dir(c, id).resolve("cgroup.procs")).append("' || exit 121\n");
        }
        return sb.toString();
    }

    List<String> controllers() {
        List<String> list = new ArrayList<>();
        if (memory) {
            list.add("memory");
        }
        if (pids) {
            list.add("pids");
        }
        if (cpu) {
            list.add("cpu");
        }
        if (freezer) {
            list.add("freezer");
        }
        return list;
    }

    /** Host pids of the processes in this sandbox (from the freezer group, else empty). */
    List<Long> sandboxPids() {
        return freezer ? procs(dir("freezer", id)) : List.of();
    }

    /**
     * Moves a command's process (host pid) into work groups and a fresh freezer group for the command; false when a
     * move failed (the caller must then not let the command run).
     */
    boolean placeCommand(long hostPid, int cmd) {
        String p = Long.toString(hostPid);
        boolean ok = true;
        if (memory) {
            ok = write("memory", id + "/work", "cgroup.procs", p);
        }
        if (pids) {
            ok &= write("pids", id + "/work", "cgroup.procs", p);
        }
        if (freezer) {
            commandGroups.add(cmd);
            ok &= mk("freezer", id + "/c" + cmd) && write("freezer", id + "/c" + cmd, "cgroup.procs", p);
        }
        return ok;
    }

    boolean hasCommandGroup(int cmd) {
        return freezer && Files.isDirectory(dir("freezer", id + "/c" + cmd));
    }

    List<Long> commandPids(int cmd) {
        return freezer ? procs(dir("freezer", id + "/c" + cmd)) : List.of();
    }

    /** Signals every process of a command (or, with cmd < 0, of the sandbox); for SIGKILL freezes the group first. */
    void signal(int cmd, boolean kill) {
        if (!freezer) {
            return;
        }
        String rel = cmd < 0 ? id : id + "/c" + cmd;
        Path d = dir("freezer", rel);
        if (!Files.isDirectory(d)) {
            return;
        }
        if (!kill) {
            for (long pid : procsDeep(d)) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
            }
            return;
        }
        for (int round = 0; round < 20; round++) {
            List<Long> pids = procsDeep(d);
            if (pids.isEmpty()) {
                return;
            }
            write("freezer", rel, "freezer.state", "FROZEN");
            for (long pid : pids) {
                kill9(pid);
            }
            write("freezer", rel, "freezer.state", "THAWED");
            sleep(10);
        }
    }

    private static void kill9(long pid) {
        // ProcessHandle.destroyForcibly() refuses nothing for root; it sends SIGKILL by pid
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }

    /**
     * Removes the per-command freezer groups of finished commands ({@code live} = commands still running). rmdir is
     * refused (EBUSY) while a group has tasks, so a group whose command left processes behind stays until they end.
     */
    void pruneCommandGroups(java.util.function.IntPredicate live) {
        if (!freezer) {
            return;
        }
        for (Integer cmd : commandGroups) {
            if (live.test(cmd)) {
                continue;
            }
            Path d = dir("freezer", id + "/c" + cmd);
            try {
                Files.deleteIfExists(d);
                commandGroups.remove(cmd);
            } catch (IOException ignored) {
                // busy: tasks still there
            }
        }
    }

    /** The OOM-kill count of the commands' memory group (or -1). */
    long oomKills() {
        if (!memory) {
            return -1;
        }
        try {
            for (String line : Files.readAllLines(dir("memory", id + "/work").resolve("memory.oom_control"))) {
                if (line.startsWith("oom_kill ")) {
                    return Long.parseLong(line.substring(9).trim());
                }
            }
            String failcnt = Files.readString(dir("memory", id + "/work").resolve("memory.failcnt")).trim();
            return Long.parseLong(failcnt);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Pids cgroup fork failures of the commands' group (or -1). */
    long pidsDenied() {
        if (!pids) {
            return -1;
        }
        try {
            String events = Files.readString(dir("pids", id + "/work").resolve("pids.events"));
            for (String line : events.split("\n")) {
                if (line.startsWith("max ")) {
                    return Long.parseLong(line.substring(4).trim());
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // not there
        }
        return -1;
    }

    /** Kills everything left and removes all groups of this sandbox (retrying while tasks exit). */
    void destroy() {
        signal(-1, true);
        long deadline = System.nanoTime() + 3_000_000_000L;
        for (String c : List.of("memory", "pids", "cpu", "freezer")) {
            Path d = dir(c, id);
            while (Files.isDirectory(d)) {
                removeTree(d);
                if (!Files.isDirectory(d) || System.nanoTime() > deadline) {
                    break;
                }
                sleep(20);
            }
        }
    }

    /** Kills every task under a freezer group (FROZEN, SIGKILL, THAWED; a few rounds). */
    static void killAll(Path freezerGroup) {
        for (int round = 0; round < 20; round++) {
            List<Long> pids = procsDeep(freezerGroup);
            if (pids.isEmpty()) {
                return;
            }
            writeTo(freezerGroup.resolve("freezer.state"), "FROZEN");
            for (long pid : pids) {
                kill9(pid);
            }
            writeTo(freezerGroup.resolve("freezer.state"), "THAWED");
            sleep(10);
        }
    }

    /** Removes a group tree (children first), retrying while tasks exit; true when it is gone. */
    static boolean removeTreeRetrying(Path d, long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (true) {
            removeTree(d);
            if (!Files.isDirectory(d)) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            sleep(20);
        }
    }

    private static void writeTo(Path file, String value) {
        try {
            Files.write(file, value.getBytes(StandardCharsets.US_ASCII));
        } catch (IOException ignored) {
            // gone
        }
    }

    private static void removeTree(Path d) {
        try (Stream<Path> s = Files.list(d)) {
            s.filter(Files::isDirectory).forEach(Cgroups::removeTree);
        } catch (IOException ignored) {
            // gone
        }
        rmdir(d);
    }

    private static void rmdir(Path d) {
        try {
            Files.deleteIfExists(d);
        } catch (IOException ignored) {
            // busy: tasks still exiting
        }
    }

    private static List<Long> procsDeep(Path d) {
        List<Long> all = new ArrayList<>(procs(d));
        try (Stream<Path> s = Files.list(d)) {
            s.filter(Files::isDirectory).forEach(sub -> all.addAll(procsDeep(sub)));
        } catch (IOException ignored) {
            // gone
        }
        return all;
    }

    private static List<Long> procs(Path d) {
        List<Long> list = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(d.resolve("cgroup.procs"))) {
                if (!line.isBlank()) {
                    list.add(Long.parseLong(line.trim()));
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // gone
        }
        return list;
    }

    /** Leftover sandbox4j groups of this JVM's sandboxes (for leak checks). */
    static List<String> leftovers() {
        String mine = "sbx-" + LocalSandbox.OWNER;
        List<String> list = new ArrayList<>();
        for (String c : List.of("memory", "pids", "cpu", "freezer")) {
            Path d = ROOT.resolve(c).resolve(PARENT);
            try (Stream<Path> s = Files.list(d)) {
                s.filter(Files::isDirectory).filter(p -> p.getFileName().toString().startsWith(mine))
                        .forEach(p -> list.add("cgroup " + c + "/" + PARENT + "/" + p.getFileName()));
            } catch (IOException ignored) {
                // none
            }
        }
        return list;
    }

    static Path dir(String controller, String rel) {
        return ROOT.resolve(controller).resolve(PARENT).resolve(rel);
    }

    private static boolean mk(String controller, String rel) {
        try {
            Files.createDirectories(dir(controller, rel));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean write(String controller, String rel, String file, String value) {
        try {
            Files.write(dir(controller, rel).resolve(file), value.getBytes(StandardCharsets.US_ASCII));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "cgroup v1 memory=%s pids=%s cpu=%s freezer=%s", memory, pids, cpu, freezer);
    }
}
