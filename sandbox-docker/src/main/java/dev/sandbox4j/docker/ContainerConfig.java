package dev.sandbox4j.docker;

import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.LogConfig;
import com.github.dockerjava.api.model.Mount;
import com.github.dockerjava.api.model.MountType;
import com.github.dockerjava.api.model.Ulimit;
import com.github.dockerjava.api.model.VolumeOptions;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.core.AgentBinary;
import dev.sandbox4j.core.seccomp.SeccompPolicy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a sandbox's container is made of, decided before the engine is asked to make it: the limits that hold on the
 * engine, the labels, the workspace volume's options, the entrypoint, the seccomp profile and the hardened
 * {@link HostConfig}. Pure functions of the spec, the options and the engine's traits; {@link ContainerHost} makes
 * the container with them.
 */
final class ContainerConfig {
    private static final Map<List<Object>, String> SECCOMP_PROFILES = new ConcurrentHashMap<>();

    private ContainerConfig() {
    }

    /**
     * Memory the container keeps for its processes when its workspace (a tmpfs charged to the container's memory
     * cgroup) is full. Measured: with a 512 MiB quota over a 128 MiB memory limit, a command filling the workspace
     * was OOM-killed, and then so was the container's PID 1 (the file pages stay charged), ending the sandbox.
     */
    static final long WORKSPACE_MEMORY_HEADROOM = 64 * ResourceLimits.MIB;

    /** Refuses a quota the memory limit cannot hold beside the processes (INVALID_ARGUMENT, before anything is made). */
    static void checkQuotaFitsMemory(ResourceLimits l) {
        if (l.memoryBytes() > 0 && l.workspaceBytes() > 0
                && l.workspaceBytes() > l.memoryBytes() - WORKSPACE_MEMORY_HEADROOM) {
            throw DockerErrors.error(ErrorKind.INVALID_ARGUMENT, "the workspace quota (" + l.workspaceBytes()
                    + " bytes) does not fit in the memory limit (" + l.memoryBytes() + " bytes): on Docker the "
                    + "workspace is a tmpfs whose files count against the container's memory, which must keep at least "
                    + WORKSPACE_MEMORY_HEADROOM + " bytes for its processes. Raise memoryBytes, lower workspaceBytes, "
                    + "or ask for no quota (ResourceLimits.withoutWorkspaceQuota())");
        }
    }

    /**
     * What of {@code want} holds on this engine: the spec's limits where the engine can apply them, 0 where not. A
     * limit asked for that the engine cannot apply (rootless Podman or Docker on cgroup v1; a rootless engine on
     * cgroup v2 without the controller delegated) fails the open with UNSUPPORTED naming it, unless the spec accepts
     * best effort; an engine would otherwise drop it silently (Podman 4.3 only logs a warning).
     */
    static ResourceLimits grant(ResourceLimits want, boolean bestEffort, Engine.Traits t, String host) {
        List<String> refused = new ArrayList<>();
        if (want.memoryBytes() > 0 && !t.memory()) {
            refused.add("memory (" + want.memoryBytes() + " bytes)");
        }
        if (want.maxProcesses() > 0 && !t.pids()) {
            refused.add("processes (" + want.maxProcesses() + ")");
        }
        if (want.cpus() > 0 && !t.cpu()) {
            refused.add("CPU (" + want.cpus() + " cores)");
        }
        if (!refused.isEmpty() && !bestEffort) {
            throw DockerErrors.error(ErrorKind.UNSUPPORTED, "the engine at " + host + " (" + t.describe()
                    + ") cannot apply the " + String.join(", ", refused) + " limit" + (refused.size() > 1 ? "s" : "")
                    + ": " + t.why() + ". Ask for less: set those limits to 0 in ResourceLimits, or "
                    + "SandboxSpec.builder().bestEffortLimits(true) to open with what holds (info().limits() reports "
                    + "it); or use a rootful engine, or cgroup v2 with the controllers delegated");
        }
        return new ResourceLimits(t.memory() ? want.memoryBytes() : 0, t.pids() ? want.maxProcesses() : 0,
                t.cpu() ? want.cpus() : 0, want.maxFileBytes(), want.tmpBytes(), want.workspaceBytes(),
                want.workspaceInodes());
    }

    /** The labels of the container and its workspace volume: ours, this JVM's, and when the janitor may remove them. */
    static Map<String, String> labels(DockerOptions options, String id, Duration lifetime) {
        Map<String, String> labels = new LinkedHashMap<>(options.labels());
        labels.put(Engine.LABEL, "1");
        labels.put(Engine.LABEL_ID, id);
        labels.put(Engine.LABEL_OWNER, Engine.OWNER);
        labels.put(Engine.LABEL_EXPIRES,
                Long.toString(Instant.now().plus(lifetime).plusSeconds(60).getEpochSecond()));
        return labels;
    }

    /** Where the agent and the reaper live in the container: a volume only root can write. */
    static final String AGENT_DIR = AgentVolumes.BIN_MOUNT + "/" + AgentVolumes.BIN_READY;

    /**
     * The size of the workspace's tmpfs: the quota's, or, for an inode quota alone, the memory limit less the
     * headroom (tmpfs's default, half the engine host's memory, could outgrow the container's memory limit); 0 for
     * none.
     */
    static long workspaceTmpfsBytes(ResourceLimits l) {
        return l.workspaceBytes() == 0 && l.workspaceInodes() > 0 && l.memoryBytes() > WORKSPACE_MEMORY_HEADROOM
                ? l.memoryBytes() - WORKSPACE_MEMORY_HEADROOM : l.workspaceBytes();
    }

    /**
     * The hardened host configuration: no network but loopback, every capability dropped, a read-only root, the
     * limits of {@code l}, the workspace volume and the agent's binaries volume (read-only) mounted.
     */
    static HostConfig hostConfig(ResourceLimits l, String workspaceVolume, VolumeOptions workspaceOptions,
                                 String seccompOption, String binariesVolume) {
        List<Ulimit> ulimits = new ArrayList<>();
        ulimits.add(new Ulimit("nofile", 4096L, 4096L));
        ulimits.add(new Ulimit("core", 0L, 0L));
        if (l.maxFileBytes() > 0) {
            ulimits.add(new Ulimit("fsize", l.maxFileBytes(), l.maxFileBytes()));
        }
        Map<String, String> tmpfs = new LinkedHashMap<>();
        long tmp = l.tmpBytes() > 0 ? l.tmpBytes() : 256 * ResourceLimits.MIB;
        tmpfs.put("/tmp", "rw,nosuid,nodev,size=" + tmp + ",mode=1777");
        HostConfig hc = HostConfig.newHostConfig()
                // every policy: no network but loopback; a policy's only way out is the relay to the host's proxy
                .withNetworkMode("none")
                .withPrivileged(false)
                .withCapDrop(Capability.ALL)
                .withSecurityOpts(securityOpts(seccompOption))
                .withReadonlyRootfs(true)
                .withTmpFs(tmpfs)
                .withShmSize(64 * ResourceLimits.MIB)
                .withIpcMode("private")
                .withOomScoreAdj(500)
                .withUlimits(ulimits)
                .withInit(false)
                // the agent's stdout carries every command's output: the engine must not also log it
                .withLogConfig(new LogConfig(LogConfig.LoggingType.NONE, null))
                .withMounts(List.of(
                        new Mount().withType(MountType.VOLUME).withSource(workspaceVolume).withTarget(WorkspaceScripts.WORKSPACE)
                                .withVolumeOptions(workspaceOptions),
                        // the agent's binaries: one root-owned volume per engine and version, read-only here, so the
                        // sandbox can replace nothing in it (Engine.binariesVolume)
                        new Mount().withType(MountType.VOLUME).withSource(binariesVolume)
                                .withTarget(AgentVolumes.BIN_MOUNT).withReadOnly(true)))
                .withAutoRemove(false);
        if (l.maxProcesses() > 0) {
            hc.withPidsLimit((long) l.maxProcesses());
        }
        if (l.memoryBytes() > 0) {
            hc.withMemory(l.memoryBytes()).withMemorySwap(l.memoryBytes());
        }
        if (l.cpus() > 0) {
            hc.withNanoCPUs((long) (l.cpus() * 1_000_000_000L));
        }
        return hc;
    }

    /** The security options: no new privileges, and the seccomp option the engine takes. */
    static List<String> securityOpts(String seccompOption) {
        return List.of("no-new-privileges:true", seccompOption);
    }

    /**
     * Options of a volume the engine creates: the labels and, when {@code bytes} or {@code inodes} is set, a tmpfs of
     * the local driver of that size, its root (mode 0755) owned by {@code owner}. tmpfs counts its own root
     * directory as one inode, hence the + 1. On Podman the size is given as {@code nr_blocks} (pages of 4 KiB; the
     * probe checks the result): Podman 4.3 takes {@code size=} in a local volume's options for a project quota on
     * its own disk, refuses it without one ("Filesystem does not support Project Quota"), and never hands it to
     * the tmpfs mount; {@code nr_blocks} goes to the mount unchanged.
     */
    static VolumeOptions volumeOptions(Map<String, String> labels, long bytes, long inodes, int owner,
                                               int group, boolean podman) {
        VolumeOptions o = new VolumeOptions().withLabels(labels);
        if (bytes <= 0 && inodes <= 0) {
            if (podman) {
                // Podman chowns a new volume to the container's user at its first mount, unless the volume names its
                // owner: without this the agent's volume (a path the image lacks) was the sandbox user's, writable,
                // on the engine's disk (found by PodmanQuotaTest)
                return o.withDriverConfig(new com.github.dockerjava.api.model.Driver().withName("local")
                        .withOptions(Map.of("o", "uid=" + owner + ",gid=" + group)));
            }
            return o;
        }
        List<String> opts = new ArrayList<>();
        if (bytes > 0) {
            opts.add(podman ? "nr_blocks=" + ((bytes + PODMAN_PAGE - 1) / PODMAN_PAGE) : "size=" + bytes);
        }
        if (inodes > 0) {
            opts.add("nr_inodes=" + (inodes + 1));
        }
        opts.addAll(List.of("uid=" + owner, "gid=" + group, "mode=0755", "nosuid", "nodev"));
        return o.withDriverConfig(new com.github.dockerjava.api.model.Driver().withName("local")
                .withOptions(Map.of("type", "tmpfs", "device", "tmpfs", "o", String.join(",", opts))));
    }

    /**
     * The container's first process: the agent. On Podman through the image's {@code /bin/sh}, which sets the
     * ulimits and execs the agent (so the agent is still PID 1): Podman 4.x's compat API drops
     * {@code HostConfig.Ulimits} for a rootless engine without a word (measured on 4.3.1: fsize unlimited, nofile
     * 20000; podman issue 25881, fixed in 5.5). {@link ContainerFacts#checkPodmanLimits} then reads what holds.
     */
    static List<String> entrypoint(boolean podman, ResourceLimits l) {
        List<String> agent = List.of(AGENT_DIR + "/" + AgentBinary.AGENT, "--reaper=" + AGENT_DIR + "/"
                + AgentBinary.REAPER, "--oom");
        if (!podman) {
            return agent;
        }
        // POSIX sh (dash, bash as sh): ulimit -f counts 512-byte blocks; without -H or -S it sets both
        String script = "ulimit -n 4096 && ulimit -c 0" + (l.maxFileBytes() > 0 ? " && ulimit -f "
                + l.maxFileBytes() / 512 : "") + " && exec \"$0\" \"$@\"";
        List<String> e = new ArrayList<>(List.of("/bin/sh", "-c", script));
        e.addAll(agent);
        return e;
    }

    /** The page size {@code nr_blocks} counts in on a Podman engine; {@link ContainerFacts#checkWorkspaceSize} verifies it. */
    static final long PODMAN_PAGE = 4096;

    /**
     * The profile for a spec: the options' own when set (then the spec may not ask for opt-in sets, which only
     * sandbox4j's profile knows how to add), else sandbox4j's allow-list with the spec's sets, generated from
     * sandbox-core's policy (the jail's BPF comes from the same source) for the engine's architecture only, once per
     * combination.
     */
    static String seccompProfile(DockerOptions o, Set<String> syscallSets, String arch) {
        checkSeccomp(o, syscallSets);
        if (o.seccompProfile() != null) {
            return o.seccompProfile();
        }
        if (!SeccompPolicy.supports(arch)) {
            throw DockerErrors.error(ErrorKind.UNSUPPORTED, "the engine runs on " + arch + ": sandbox4j's seccomp "
                    + "allow-list knows x86_64 and aarch64 only; give a profile of your own (withSeccompProfile)");
        }
        return SECCOMP_PROFILES.computeIfAbsent(List.of(syscallSets, arch),
                k -> SeccompPolicy.of(syscallSets).ociProfile(arch));
    }

    /** Refuses, before anything is made, syscall sets that a profile of the options' own cannot add. */
    static void checkSeccomp(DockerOptions o, Set<String> syscallSets) {
        if (o.seccompProfile() != null && !syscallSets.isEmpty()) {
            throw DockerErrors.error(ErrorKind.UNSUPPORTED, "the spec asks for syscall sets " + syscallSets
                    + " but the Docker options replace sandbox4j's seccomp profile with their own: add the calls "
                    + "to that profile, or drop withSeccompProfile");
        }
    }

    /** The workspace sources' mounts in place of the workspace volume's where they bind it. */
    static void addSources(HostConfig hc, ContainerSources sources) {
        List<Mount> mounts = new ArrayList<>(hc.getMounts());
        if (sources.bindsWorkspace()) {
            mounts.removeIf(m -> WorkspaceScripts.WORKSPACE.equals(m.getTarget()));
        }
        mounts.addAll(sources.mounts);
        hc.withMounts(mounts);
    }

    /**
     * Creates the container: the agent is its entry point, stdin open for one attach (when this JVM's attach ends,
     * the agent reads EOF, kills everything and exits, and the container stops), the base environment the agent's.
     */
    static com.github.dockerjava.api.command.CreateContainerResponse create(Engine engine, String name, String user,
            HostConfig hc, Map<String, String> labels, ResourceLimits l) {
        return engine.control.createContainerCmd(engine.options.image())
                .withName(name)
                .withEntrypoint(entrypoint(engine.traits().podman(), l))
                .withCmd(List.of())
                .withUser(user)
                .withWorkingDir(WorkspaceScripts.WORKSPACE)
                .withEnv(WorkspaceScripts.BASE_ENV)
                .withHostName("sandbox")
                .withAttachStdin(true).withAttachStdout(true).withAttachStderr(true)
                .withStdinOpen(true).withStdInOnce(true).withTty(false)
                .withStopSignal("SIGKILL")
                .withLabels(labels)
                .withHostConfig(hc)
                .exec();
    }
}
