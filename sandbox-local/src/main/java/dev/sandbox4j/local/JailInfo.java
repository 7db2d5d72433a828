package dev.sandbox4j.local;

import dev.sandbox4j.Feature;
import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.SandboxInfo;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.core.AgentEgress;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** What a local sandbox says it is ({@link SandboxInfo}): its features and limits as they hold, and how. */
final class JailInfo {
    private JailInfo() {
    }

    static SandboxInfo of(String id, Host host, CgroupSetting setting, Cgroups cg, SandboxSpec spec,
                          JailCommandLine.Jail jail, JailDirs dirs, ResourceLimits inForce,
                          LocalWorkspace sourced) {
        Set<Feature> features = EnumSet.of(Feature.SHELL, Feature.BACKGROUND_PROCESSES, Feature.PROCESS_REGISTRY,
                Feature.TERMINAL,
                Feature.SHARED_PROCESS_SPACE, Feature.CODE_EXECUTION, Feature.CODE_CONTEXTS, Feature.FILE_WATCH,
                Feature.ISOLATION, Feature.SYMLINKS, Feature.POSIX_PERMISSIONS, Feature.BYTE_FILE_NAMES,
                Feature.WORKSPACE_COPY, Feature.WORKSPACE_OVERLAY, Feature.WORKSPACE_BIND, Feature.WORKSPACE_VOLUME,
                Feature.WORKSPACE_GIT,
                Feature.READ_ONLY_MOUNTS, Feature.SNAPSHOT,
                Feature.SCRATCH_MOUNTS, Feature.PORTS);
        if (inForce.memoryBytes() > 0) {
            features.add(Feature.MEMORY_LIMIT);
        }
        if (inForce.maxProcesses() > 0) {
            features.add(Feature.PROCESS_LIMIT);
        }
        if (inForce.cpus() > 0) {
            features.add(Feature.CPU_LIMIT);
        }
        if (inForce.hasWorkspaceQuota()) {
            features.add(Feature.WORKSPACE_QUOTA);
        }
        if (cg.freezeFile() != null) {
            features.add(Feature.PAUSE);
        }
        Map<String, String> details = new LinkedHashMap<>();
        details.put("bwrap", host.bwrap);
        details.put("uid", Integer.toString(jail.uid()));
        details.put("cgroups", cg.toString());
        details.put("cgroup setting", setting.toString());
        if (jail.nproc() > 0) {
            details.put("processes", "RLIMIT_NPROC " + jail.nproc() + " plus 1 (the single-threaded "
                    + "agent, the jail's init), counted in the jail's own user namespace (no pids cgroup here)");
        }
        if (jail.dataBytes() > 0) {
            details.put("memory", "per process only: RLIMIT_DATA " + jail.dataBytes() + " bytes (no memory cgroup "
                    + "here; the sandbox as a whole is not bounded)");
        }
        details.put("seccomp", Seccomp.describe(spec.syscallSets()));
        details.put("workspace", dirs.workspace().toString());
        details.put("workspace source", sourced.detail());
        details.put("mounts", sourced.mountsDetail());
        details.put("workspace quota", inForce.hasWorkspaceQuota()
                ? (dirs.quotaInJail() ? "tmpfs in the jail's mount namespace (held by a helper of this JVM's user): "
                : "tmpfs on the host workspace dir: ") + inForce.workspaceBytes() + " bytes, "
                + inForce.workspaceInodes() + " inodes (memory: commands' files are charged to the sandbox's "
                + "memory cgroup, the file API's to the JVM's; no host disk)"
                : spec.limits().hasWorkspaceQuota() ? "none (best effort: " + dirs.noQuota() + ")"
                : "none (not asked for)");
        if (spec.network().mode() == NetworkPolicy.Mode.NONE) {
            features.add(Feature.NETWORK_ISOLATION);
        } else {
            details.put("network", spec.network() + " through the host's egress proxy (127.0.0.1:"
                    + AgentEgress.PORT + " in the sandbox; loopback only otherwise)");
        }
        return new SandboxInfo(id, "local", features, inForce, details);
    }
}
