package dev.sandbox4j.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntPredicate;

/**
 * cgroup v2 control for one sandbox, under the parent {@link CgroupSetting} chose (a sandbox4j group at the top as
 * root, or inside the JVM's delegated subtree). Per sandbox {@code <parent>/<id>}:
 * <ul>
 *   <li>{@code <id>}: memory.max (limit + agent overhead), memory.swap.max 0, pids.max (limit + agent tasks),
 *       cpu.max (the whole jail);</li>
 *   <li>{@code <id>/agent}: the launcher, bwrap and the agent (a leaf: v2 lets only leaves hold processes once
 *       controllers are enabled for the children);</li>
 *   <li>{@code <id>/work}: the commands, memory.max and pids.max = the limits asked for;</li>
 *   <li>{@code <id>/work/c<n>}: one group per command, killed at once with {@code cgroup.kill} (kernel 5.14+) or,
 *       on older kernels, frozen, SIGKILLed and thawed.</li>
 * </ul>
 */
final class CgroupsV2 extends Cgroups {
    private Path group;
    private Path agent;
    private Path work;
    private final Set<Integer> commandGroups = ConcurrentHashMap.newKeySet();
    /** Scoped: the systemd-run prefix, and the limits still to set on the commands' group at bind. */
    private final List<String> scope;
    private final long memoryBytes;
    private final int maxProcesses;

    private CgroupsV2(String id, Path group, boolean memory, boolean pids, boolean cpu) {
        super(id, memory, pids, cpu);
        setGroup(group);
        this.scope = List.of();
        this.memoryBytes = 0;
        this.maxProcesses = 0;
    }

    private CgroupsV2(String id, List<String> scope, long memoryBytes, int maxProcesses, boolean cpu) {
        super(id, memoryBytes > 0, maxProcesses > 0, cpu);
        this.scope = scope;
        this.memoryBytes = memoryBytes;
        this.maxProcesses = maxProcesses;
    }

    private void setGroup(Path g) {
        this.group = g;
        this.agent = g.resolve("agent");
        this.work = g.resolve("work");
    }

    /**
     * A sandbox in a transient systemd user scope: systemd sets the whole jail's limits on the scope; the launcher
     * moves itself into the scope's {@code agent} leaf; {@link #bind} then makes the commands' groups.
     */
    static CgroupsV2 scoped(CgroupSetting setting, String id, long memoryBytes, int maxProcesses, double cpus) {
        List<String> prefix = new java.util.ArrayList<>(setting.scope);
        prefix.add("--unit=" + id);
        long mem = setting.memory ? memoryBytes : 0;
        int procs = setting.pids ? maxProcesses : 0;
        boolean cp = cpus > 0 && setting.cpu;
        if (mem > 0) {
            prefix.addAll(List.of("-p", "MemoryMax=" + (mem + AGENT_MEMORY), "-p", "MemorySwapMax=0"));
        }
        if (procs > 0) {
            prefix.addAll(List.of("-p", "TasksMax=" + (procs + AGENT_TASKS)));
        }
        if (cp) {
            prefix.addAll(List.of("-p", "CPUQuota=" + Math.max(1, Math.round(cpus * 100)) + "%"));
        }
        prefix.add("--");
        return new CgroupsV2(id, List.copyOf(prefix), mem, procs, cp);
    }

    @Override
    List<String> launchPrefix() {
        return scope;
    }

    @Override
    void bind(Process launcher) throws IOException {
        if (scope.isEmpty()) {
            return;
        }
        Path self = Path.of("/proc", Long.toString(launcher.pid()), "cgroup");
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            String line = read(self).trim();
            if (line.startsWith("0::/") && line.endsWith("/agent")) {
                setGroup(ROOT.resolve(line.substring(4)).getParent());
                break;
            }
            if (!launcher.isAlive() || System.nanoTime() > deadline) {
                throw new IOException("the launcher did not reach its systemd scope's agent group (" + line + ")");
            }
            sleep(2);
        }
        Files.createDirectory(work);
        if (memory && !(write(group.resolve("cgroup.subtree_control"), "+memory")
                && write(work.resolve("memory.max"), Long.toString(memoryBytes)) && swapOff(work))) {
            throw new IOException("cannot set memory.max in " + work);
        }
        if (pids && !(write(group.resolve("cgroup.subtree_control"), "+pids")
                && write(work.resolve("pids.max"), Integer.toString(maxProcesses)))) {
            throw new IOException("cannot set pids.max in " + work);
        }
        if (cpu && read(group.resolve("cpu.max")).startsWith("max")) {
            throw new IOException("systemd did not set cpu.max on " + group);
        }
    }

    /**
     * Makes the sandbox's groups under {@code parent} and sets the limits; a limit whose file cannot be written is
     * off (the caller refuses or reports it). Throws when the groups themselves cannot be made.
     */
    static CgroupsV2 create(CgroupSetting setting, String id, long memoryBytes, int maxProcesses, double cpus)
            throws IOException {
        Path g = setting.parent.resolve(id);
        Files.createDirectory(g);
        CgroupsV2 made = null;
        try {
            boolean mem = memoryBytes > 0 && setting.memory
                    && write(g.resolve("memory.max"), Long.toString(memoryBytes + AGENT_MEMORY));
            boolean pid = maxProcesses > 0 && setting.pids
                    && write(g.resolve("pids.max"), Integer.toString(maxProcesses + AGENT_TASKS));
            boolean cp = false;
            if (cpus > 0 && setting.cpu) {
                long period = 100_000;
                cp = write(g.resolve("cpu.max"), Math.max(1000, (long) (cpus * period)) + " " + period);
            }
            Files.createDirectory(g.resolve("agent"));
            Files.createDirectory(g.resolve("work"));
            Path w = g.resolve("work");
            if (mem) {
                swapOff(g);
                mem = write(g.resolve("cgroup.subtree_control"), "+memory")
                        && write(w.resolve("memory.max"), Long.toString(memoryBytes)) && swapOff(w);
            }
            if (pid) {
                pid = write(g.resolve("cgroup.subtree_control"), "+pids")
                        && write(w.resolve("pids.max"), Integer.toString(maxProcesses));
            }
            made = new CgroupsV2(id, g, mem, pid, cp);
            return made;
        } finally {
            if (made == null) {
                removeTreeRetrying(g, 0);
            }
        }
    }

    /** memory.swap.max = 0 where swap is accounted (the file exists); true when swap cannot add to the limit. */
    private static boolean swapOff(Path g) {
        Path f = g.resolve("memory.swap.max");
        return !Files.exists(f) ? noSwap() : write(f, "0");
    }

    /** Without swap accounting the memory limit still holds if the host has no swap at all. */
    private static boolean noSwap() {
        for (String line : read(Path.of("/proc/meminfo")).split("\n")) {
            if (line.startsWith("SwapTotal:")) {
                return line.replaceAll("\\D", "").equals("0");
            }
        }
        return false;
    }

    @Override
    boolean perCommand() {
        return true;
    }

    @Override
    String placeLauncher() {
        if (!scope.isEmpty()) {
            // inside the fresh scope: move to a leaf so that the scope may enable controllers for its children
            return "G=\"/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)\"; mkdir \"$G/agent\" && "
                    + "echo $$ > \"$G/agent/cgroup.procs\" || exit 121\n";
        }
        return "echo $$ > '" + agent.resolve("cgroup.procs") + "' || exit 121\n";
    }

    @Override
    Path freezeFile() {
        Path g = group;
        return g != null && Files.exists(g.resolve("cgroup.freeze")) ? g.resolve("cgroup.freeze") : null;
    }

    @Override
    boolean isFrozen(boolean frozen) {
        return keyed(group.resolve("cgroup.events"), "frozen") == (frozen ? 1 : 0);
    }

    @Override
    List<Long> sandboxPids() {
        return agent == null ? List.of() : procs(agent);
    }

    @Override
    boolean placeCommand(long hostPid, int cmd) {
        Path c = work.resolve("c" + cmd);
        commandGroups.add(cmd);
        return mkdir(c) && write(c.resolve("cgroup.procs"), Long.toString(hostPid));
    }

    @Override
    boolean hasCommandGroup(int cmd) {
        return work != null && Files.isDirectory(work.resolve("c" + cmd));
    }

    @Override
    void signal(int cmd, boolean kill) {
        if (group == null) {
            return;
        }
        Path d = cmd < 0 ? group : work.resolve("c" + cmd);
        if (!Files.isDirectory(d)) {
            return;
        }
        if (kill) {
            killAll(d);
        } else {
            for (long pid : procsDeep(d)) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
            }
        }
    }

    /**
     * SIGKILL to every process in a group and below: {@code cgroup.kill} where the kernel has it (atomic, a fork
     * cannot race it), else freeze, kill each, thaw, a few rounds. Returns once the group is empty or after ~1 s.
     */
    static void killAll(Path d) {
        if (!Files.exists(d.resolve("cgroup.kill"))) {
            freezeAndKill(d, d.resolve("cgroup.freeze"), "1", "0", 100);
            return;
        }
        for (int round = 0; round < 100 && !procsDeep(d).isEmpty(); round++) {
            if (!write(d.resolve("cgroup.kill"), "1")) {
                freezeAndKill(d, d.resolve("cgroup.freeze"), "1", "0", 100);
                return;
            }
            awaitEmpty(d, 10);
        }
    }

    @Override
    void pruneCommandGroups(IntPredicate live) {
        if (work == null) {
            return;
        }
        for (Integer cmd : commandGroups) {
            if (live.test(cmd)) {
                continue;
            }
            try {
                Files.deleteIfExists(work.resolve("c" + cmd));
                commandGroups.remove(cmd);
            } catch (IOException ignored) {
                // busy: tasks still there
            }
        }
    }

    @Override
    long oomKills() {
        return memory ? keyed(work.resolve("memory.events"), "oom_kill") : -1;
    }

    @Override
    long pidsDenied() {
        return pids ? keyed(work.resolve("pids.events"), "max") : -1;
    }

    @Override
    void destroy() {
        if (group == null) {
            return; // a scoped sandbox whose launcher never reached its scope: systemd collects the empty scope
        }
        killAll(group);
        // a scope's own directory is systemd's to remove once empty; ours are the groups inside it
        if (scope.isEmpty()) {
            removeTreeRetrying(group, 3_000);
        } else {
            for (Path g : groupsBottomUp(group)) {
                if (!g.equals(group)) {
                    removeTreeRetrying(g, 1_000);
                }
            }
        }
    }

    @Override
    public String toString() {
        return "cgroup v2 " + (scope.isEmpty() ? "" : "systemd scope ") + group + " memory=" + memory + " pids=" + pids + " cpu=" + cpu
                + (group != null && Files.exists(group.resolve("cgroup.kill")) ? " kill=cgroup.kill" : " kill=freeze");
    }
}
