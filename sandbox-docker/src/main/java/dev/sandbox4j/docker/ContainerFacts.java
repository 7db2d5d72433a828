package dev.sandbox4j.docker;

import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Ulimit;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Feature;
import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.SandboxInfo;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.core.AgentEgress;
import dev.sandbox4j.core.AgentRunner;
import dev.sandbox4j.core.seccomp.SeccompPolicy;

import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * What holds in a container once its agent is up, read from the engine and from inside: on Podman the checks that
 * the workspace's size and the file size limit are what was asked (its compat API can drop them without a word),
 * and the {@link SandboxInfo} built from the engine's inspect and the limits granted.
 *
 * @param engine  the engine the container runs on
 * @param spec    the sandbox's spec
 * @param granted the spec's limits as they hold on this engine (ContainerConfig.grant)
 */
record ContainerFacts(Engine engine, SandboxSpec spec, ResourceLimits granted) {
    /** The file size limit the commands really have on Podman (read with the image's sh), in bytes; 0 for none. */
    long checkPodmanLimits(Function<List<String>, AgentRunner.Ran> internal, long wantFsize) {
        AgentRunner.Ran r = internal.apply(List.of("/bin/sh", "-c", "ulimit -H -f; ulimit -S -f; ulimit -H -n"));
        String[] f = r.out().trim().split("\\s+");
        long want = wantFsize / 512;
        boolean ok = f.length == 3 && f[2].equals("4096") && (wantFsize > 0 ? f[0].equals(Long.toString(want))
                && f[1].equals(f[0]) : f[0].equals("unlimited"));
        if (!ok) {
            throw DockerErrors.error(ErrorKind.UNSUPPORTED, "the engine at " + engine.host + " ("
                    + engine.traits().describe() + ") did not apply the file size limit (" + wantFsize + " bytes) and "
                    + "4096 open files (ulimit -f -f -n in the sandbox: " + r.out().strip() + r.err().strip() + ")");
        }
        return wantFsize > 0 ? want * 512 : 0;
    }

    /**
     * Checks that the workspace's tmpfs is the size asked for (on Podman, where it is given in pages of an assumed
     * size): anything else is refused (UNSUPPORTED), never a quota other than the spec's.
     */
    void checkWorkspaceSize(Function<List<String>, AgentRunner.Ran> internal, long expected) {
        AgentRunner.Ran r = internal.apply(List.of("/usr/bin/stat", "-f", "-c", "%t %b %S",
                WorkspaceScripts.WORKSPACE));
        String[] f = r.out().trim().split(" ");
        long size = -1;
        boolean tmpfs = false;
        if (f.length == 3) {
            tmpfs = f[0].equals("1021994");
            size = Long.parseLong(f[1]) * Long.parseLong(f[2]);
        }
        if (!tmpfs || size != expected) {
            throw DockerErrors.error(ErrorKind.UNSUPPORTED, "the engine at " + engine.host + " ("
                    + engine.traits().describe() + ") did not make the workspace a tmpfs of " + expected + " bytes ("
                    + "stat -f: " + r.out().strip() + r.err().strip() + "), so the workspace quota does not hold "
                    + "there; ask for none (ResourceLimits.withoutWorkspaceQuota())");
        }
    }

    /** What the sandbox is: the limits the engine reports applying, the features that hold, the details. */
    SandboxInfo info(String id, String containerId, String user, long podmanFsize, boolean codeExecution,
                     InspectContainerResponse ic) {
        HostConfig h = ic.getHostConfig();
        // what the engine reports, for the limits it can apply; 0 for those it cannot (a rootless engine on cgroup v1
        // may report a limit it dropped)
        long mem = granted.memoryBytes() == 0 || h.getMemory() == null ? 0 : h.getMemory();
        long pids = granted.maxProcesses() == 0 || h.getPidsLimit() == null || h.getPidsLimit() < 0 ? 0
                : h.getPidsLimit();
        double cpus = granted.cpus() == 0 || h.getNanoCPUs() == null ? 0 : h.getNanoCPUs() / 1e9;
        long fsize = 0;
        if (h.getUlimits() != null) {
            for (Ulimit u : h.getUlimits()) {
                // Docker reports "fsize", Podman "RLIMIT_FSIZE"
                if ("fsize".equalsIgnoreCase(u.getName()) || "RLIMIT_FSIZE".equalsIgnoreCase(u.getName())) {
                    fsize = u.getHardLong() == null ? 0 : u.getHardLong();
                }
            }
        }
        if (podmanFsize >= 0) {
            fsize = podmanFsize;
        }
        long tmp = spec.limits().tmpBytes() > 0 ? spec.limits().tmpBytes() : 256 * ResourceLimits.MIB;
        Map<String, String> details = new LinkedHashMap<>();
        details.put("image", engine.options.image());
        details.put("imageId", String.valueOf(ic.getImageId()));
        details.put("container", containerId.substring(0, 12));
        details.put("user", user);
        details.put("network", String.valueOf(h.getNetworkMode()));
        details.put("readonlyRootfs", String.valueOf(h.getReadonlyRootfs()));
        details.put("seccomp", engine.options.seccompProfile() != null ? "custom profile (DockerOptions)"
                : SeccompPolicy.of(spec.syscallSets()).describe(null) + " (sandbox4j profile)");
        details.put("engine", engine.host);
        Engine.Traits traits = engine.traits();
        details.put("engineKind", traits.describe());
        if (!traits.why().isEmpty()) {
            details.put("limitsNotApplied", traits.why());
        }
        Set<Feature> features = EnumSet.copyOf(DockerSandboxProvider.FEATURES);
        if (mem == 0) {
            features.remove(Feature.MEMORY_LIMIT);
        }
        if (pids == 0) {
            features.remove(Feature.PROCESS_LIMIT);
        }
        if (cpus == 0) {
            features.remove(Feature.CPU_LIMIT);
        }
        if (!codeExecution) {
            features.remove(Feature.CODE_EXECUTION);
        }
        if (!traits.freezer()) {
            features.remove(Feature.PAUSE); // pause() then refuses, typed, before asking the engine
        }
        ResourceLimits asked = spec.limits();
        if (asked.hasWorkspaceQuota()) {
            details.put("workspaceQuota", "tmpfs volume (local driver" + (traits.podman() ? ", size as nr_blocks" : "")
                    + "): " + asked.workspaceBytes() + " bytes, "
                    + asked.workspaceInodes() + " inodes; memory of the engine's host, charged to the container's "
                    + "memory limit for what commands write");
        } else {
            features.remove(Feature.WORKSPACE_QUOTA);
            details.put("workspaceQuota", "none (not asked for): a plain volume on the engine's disk");
        }
        if (spec.network().mode() != NetworkPolicy.Mode.NONE) {
            features.remove(Feature.NETWORK_ISOLATION);
            details.put("networkPolicy", spec.network() + " through the host's egress proxy (127.0.0.1:"
                    + AgentEgress.PORT + " in the sandbox; loopback only otherwise)");
        }
        return new SandboxInfo(id, DockerSandboxProvider.NAME, features,
                new ResourceLimits(mem, (int) pids, cpus, fsize, tmp, asked.workspaceBytes(), asked.workspaceInodes()),
                details);
    }
}
