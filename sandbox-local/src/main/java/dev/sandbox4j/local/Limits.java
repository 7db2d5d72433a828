package dev.sandbox4j.local;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.SandboxException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which of the three limits a spec may ask for hold on this host, and how: memory and CPU only through cgroups;
 * processes through the pids cgroup or, without one, through RLIMIT_NPROC, which kernels from 5.14 count per user
 * namespace (each jail has its own), so it bounds one sandbox and not the user's other processes.
 *
 * @param memory    a memory limit for the sandbox as a whole holds
 * @param processes a process limit for the sandbox holds
 * @param cpu       a CPU (bandwidth) limit holds
 * @param rlimitProcesses the process limit is RLIMIT_NPROC, not a pids cgroup
 * @param why       why the missing ones cannot hold here and what to change (empty when all hold)
 */
record Limits(boolean memory, boolean processes, boolean cpu, boolean rlimitProcesses, String why) {

    static Limits of(Host host, CgroupSetting cg) {
        boolean nproc = !cg.pids && host.prlimit != null && kernelAtLeast(5, 14);
        String why = cg.missing;
        if (!cg.pids && !nproc) {
            why += (why.isEmpty() ? "" : "; ") + "RLIMIT_NPROC is not counted per user namespace before Linux 5.14 "
                    + "(this kernel: " + System.getProperty("os.version") + ")"
                    + (host.prlimit == null ? " and prlimit (util-linux) is missing" : "");
        }
        return new Limits(cg.memory, cg.pids || nproc, cg.cpu, nproc, why);
    }

    /**
     * What of {@code want} holds here: the spec's limits where they hold, 0 where not. Unless the spec accepts best
     * effort, a limit asked for that cannot hold fails the open, naming it, why, and what to change.
     */
    ResourceLimits apply(ResourceLimits want, boolean bestEffort, String setting) {
        List<String> refused = new ArrayList<>();
        if (want.memoryBytes() > 0 && !memory) {
            refused.add("memory (" + want.memoryBytes() + " bytes)");
        }
        if (want.maxProcesses() > 0 && !processes) {
            refused.add("processes (" + want.maxProcesses() + ")");
        }
        if (want.cpus() > 0 && !cpu) {
            refused.add("CPU (" + want.cpus() + " cores)");
        }
        if (!refused.isEmpty() && !bestEffort) {
            throw LocalErrors.error(ErrorKind.UNSUPPORTED, "the local backend cannot enforce the "
                    + String.join(", ", refused) + " limit" + (refused.size() > 1 ? "s" : "") + " here (" + setting
                    + "): " + why + ". Fix the host as said, or ask for less: set those limits to 0 in "
                    + "ResourceLimits, or SandboxSpec.builder().bestEffortLimits(true) to open with what holds "
                    + "(info().limits() reports it)");
        }
        return new ResourceLimits(memory ? want.memoryBytes() : 0, processes ? want.maxProcesses() : 0,
                cpu ? want.cpus() : 0, want.maxFileBytes(), want.tmpBytes(), want.workspaceBytes(),
                want.workspaceInodes());
    }

    static boolean kernelAtLeast(int major, int minor) {
        Matcher m = Pattern.compile("^(\\d+)\\.(\\d+)").matcher(System.getProperty("os.version", ""));
        if (!m.find()) {
            return false;
        }
        int a = Integer.parseInt(m.group(1));
        int b = Integer.parseInt(m.group(2));
        return a > major || (a == major && b >= minor);
    }
}
