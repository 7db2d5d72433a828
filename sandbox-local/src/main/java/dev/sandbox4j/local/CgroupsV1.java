package dev.sandbox4j.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * cgroup v1 control for one sandbox (the layout on these hosts, as root). Per sandbox:
 * <ul>
 *   <li>{@code memory/sandbox4j/<id>} (agent + overhead) and {@code memory/sandbox4j/<id>/work} (commands, limit);</li>
 *   <li>{@code pids/sandbox4j/<id>} and {@code pids/sandbox4j/<id>/work} (commands, pids.max);</li>
 *   <li>{@code cpu/sandbox4j/<id>} (cfs quota for the whole jail);</li>
 *   <li>{@code freezer/sandbox4j/<id>} and {@code freezer/sandbox4j/<id>/c<n>} per command (tree kill).</li>
 * </ul>
 */
final class CgroupsV1 extends Cgroups {
    final boolean freezer;
    final boolean memsw;
    /** Ids of the per-command freezer groups made and not yet removed. */
    private final java.util.Set<Integer> commandGroups = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private CgroupsV1(String id, boolean memory, boolean pids, boolean cpu, boolean freezer, boolean memsw) {
        super(id, memory, pids, cpu);
        this.freezer = freezer;
        this.memsw = memsw;
    }

    /** Whether cgroup v1 controllers are usable here (v1 mounted and we may create groups: root). */
    static boolean usable(String controller) {
        Path dir = ROOT.resolve(controller);
        return Files.isDirectory(dir) && Files.exists(dir.resolve("tasks")) && Files.isWritable(dir) && Host.isRoot();
    }

    @Override
    boolean perCommand() {
        return freezer;
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
        return new CgroupsV1(id, mem, pid, cp, frz, memsw);
    }

    @Override
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

    @Override
    Path freezeFile() {
        return freezer ? dir("freezer", id).resolve("freezer.state") : null;
    }

    @Override
    boolean isFrozen(boolean frozen) {
        return read(dir("freezer", id).resolve("freezer.state")).trim().equals(frozen ? "FROZEN" : "THAWED");
    }

    @Override
    List<Long> sandboxPids() {
        return freezer ? procs(dir("freezer", id)) : List.of();
    }

    @Override
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

    @Override
    boolean hasCommandGroup(int cmd) {
        return freezer && Files.isDirectory(dir("freezer", id + "/c" + cmd));
    }

    @Override
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
        killAll(d);
    }

    /**
     * Removes the per-command freezer groups of finished commands ({@code live} = commands still running). rmdir is
     * refused (EBUSY) while a group has tasks, so a group whose command left processes behind stays until they end.
     */
    @Override
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

    @Override
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

    @Override
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

    @Override
    void destroy() {
        signal(-1, true);
        long deadline = System.nanoTime() + 3_000_000_000L;
        for (String c : List.of("memory", "pids", "cpu", "freezer")) {
            removeTreeRetrying(dir(c, id), Math.max(0, (deadline - System.nanoTime()) / 1_000_000));
        }
    }

    /** Kills every task under a freezer group (FROZEN, SIGKILL, THAWED; a few rounds). */
    static void killAll(Path freezerGroup) {
        freezeAndKill(freezerGroup, freezerGroup.resolve("freezer.state"), "FROZEN", "THAWED", 20);
    }

    /** Leftover groups whose names start with the prefix, in every v1 controller. */
    static List<String> leftovers(String prefix) {
        List<String> list = new ArrayList<>();
        for (String c : List.of("memory", "pids", "cpu", "freezer")) {
            for (Path p : subgroups(ROOT.resolve(c).resolve(PARENT))) {
                if (p.getFileName().toString().startsWith(prefix)) {
                    list.add("cgroup " + c + "/" + PARENT + "/" + p.getFileName());
                }
            }
        }
        return list;
    }

    /** Kills and removes the groups of dead owners (freezer first, so the others' groups become empty). */
    static int reap(java.util.function.Predicate<String> deadName) {
        int n = 0;
        for (String c : List.of("freezer", "memory", "pids", "cpu")) {
            Path parent = ROOT.resolve(c).resolve(PARENT);
            for (Path g : subgroups(parent)) {
                if (deadName.test(g.getFileName().toString())) {
                    if (c.equals("freezer")) {
                        killAll(g);
                    }
                    if (removeTreeRetrying(g, 2_000)) {
                        n++;
                    }
                }
            }
        }
        return n;
    }

    static Path dir(String controller, String rel) {
        return ROOT.resolve(controller).resolve(PARENT).resolve(rel);
    }

    private static boolean mk(String controller, String rel) {
        return mkdir(dir(controller, rel));
    }

    private static boolean write(String controller, String rel, String file, String value) {
        return write(dir(controller, rel).resolve(file), value);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "cgroup v1 memory=%s pids=%s cpu=%s freezer=%s", memory, pids, cpu, freezer);
    }
}
