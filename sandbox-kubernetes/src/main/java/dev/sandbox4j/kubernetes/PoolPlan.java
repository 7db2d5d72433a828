package dev.sandbox4j.kubernetes;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ResourceLimits;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What every sandbox of a warm pool is, read from its {@code SandboxTemplate}: the agent's container (the one whose
 * command starts {@code sbx-agent --listen}), its memory and CPU limits, the agent's {@code --nproc}, the
 * {@code emptyDir} mounted on {@code /workspace} and its {@code sizeLimit}, and whether the template carries a managed
 * NetworkPolicy that lets the pod send nothing. A claim cannot change any of it (the pod is made before the claim):
 * a spec asking for limits the template does not hold is refused ({@link #grant}).
 *
 * @param memoryBytes  the container's memory limit, 0 for none
 * @param cpus         the container's CPU limit in cores, 0 for none
 * @param processes    the agent's {@code --nproc}, 0 for none
 * @param workspaceBytes the workspace emptyDir's {@code sizeLimit}, 0 for none (or no emptyDir)
 * @param workspaceInMemory the workspace emptyDir is {@code medium: Memory} (a tmpfs: full means ENOSPC, not eviction)
 * @param egressDenied the template's managed NetworkPolicy has no egress rule (the pod can send nothing)
 * @param seccomp      the agent container's seccomp profile as the template sets it (the container's over the pod's):
 *                     {@code Localhost sandbox4j/default.json}, {@code RuntimeDefault}, {@code Unconfined}, or
 *                     {@code unset} (most kubelets then run the container unconfined)
 * @param syscallSets  the opt-in syscall sets of the sandbox4j profile it names ({@link #profileFor}), or null when
 *                     it names none of sandbox4j's profiles
 */
record PoolPlan(String pool, String template, String container, long memoryBytes, double cpus, int processes,
                long workspaceBytes, boolean workspaceInMemory, boolean egressDenied, String seccomp,
                java.util.Set<String> syscallSets) {
    static final String WORKSPACE = "/workspace";
    /** The directory of sandbox4j's profiles under the kubelet's seccomp root (docs/kubernetes.md#seccomp). */
    static final String PROFILE_DIR = "sandbox4j/";

    /** The {@code localhostProfile} of sandbox4j's allow-list with {@code sets}, e.g. {@code sandbox4j/debug.json}. */
    static String profileFor(java.util.Set<String> sets) {
        return PROFILE_DIR + (sets.isEmpty() ? "default" : String.join("+", new java.util.TreeSet<>(sets))) + ".json";
    }

    /** The opt-in sets of a sandbox4j profile's {@code localhostProfile}, or null when it is not one of them. */
    static java.util.Set<String> setsOf(String localhostProfile) {
        if (localhostProfile == null || !localhostProfile.startsWith(PROFILE_DIR)
                || !localhostProfile.endsWith(".json")) {
            return null;
        }
        String name = localhostProfile.substring(PROFILE_DIR.length(), localhostProfile.length() - 5);
        if (name.equals("default")) {
            return java.util.Set.of();
        }
        java.util.Set<String> sets = new java.util.TreeSet<>(List.of(name.split("\\+", -1)));
        if (!dev.sandbox4j.core.seccomp.SeccompPolicy.OPT_IN_SETS.containsAll(sets)
                || !profileFor(sets).equals(localhostProfile)) {
            return null;
        }
        return java.util.Collections.unmodifiableSet(sets);
    }

    /** The agent container's profile: its own securityContext's, else the pod's; "unset" when neither sets one. */
    private static io.fabric8.kubernetes.api.model.SeccompProfile seccompOf(PodSpec pod, Container agent) {
        if (agent.getSecurityContext() != null && agent.getSecurityContext().getSeccompProfile() != null) {
            return agent.getSecurityContext().getSeccompProfile();
        }
        return pod.getSecurityContext() == null ? null : pod.getSecurityContext().getSeccompProfile();
    }

    static PoolPlan read(KubernetesClient client, KubernetesOptions o, String name) {
        Crd.SandboxWarmPool pool = client.resources(Crd.SandboxWarmPool.class).inNamespace(o.namespace())
                .withName(name).get();
        if (pool == null || pool.getSpec() == null || pool.getSpec().sandboxTemplateRef() == null) {
            throw KubeErrors.error(ErrorKind.BACKEND_UNAVAILABLE, "no SandboxWarmPool " + name
                    + " (with a sandboxTemplateRef) in the namespace " + o.namespace() + ": apply the manifests of "
                    + "docs/kubernetes.md");
        }
        String tname = pool.getSpec().sandboxTemplateRef().name();
        Crd.SandboxTemplate t = client.resources(Crd.SandboxTemplate.class).inNamespace(o.namespace())
                .withName(tname).get();
        if (t == null || t.getSpec() == null || t.getSpec().podTemplate() == null
                || t.getSpec().podTemplate().spec() == null) {
            throw KubeErrors.error(ErrorKind.BACKEND_UNAVAILABLE, "the pool " + name + " names the "
                    + "SandboxTemplate " + tname + ", which does not exist or has no pod template");
        }
        return of(name, tname, t.getSpec());
    }

    static PoolPlan of(String pool, String template, Crd.TemplateSpec spec) {
        PodSpec pod = spec.podTemplate().spec();
        Container agent = null;
        for (Container c : pod.getContainers()) {
            if (command(c).stream().anyMatch(a -> a.startsWith("--listen="))) {
                agent = c;
            }
        }
        if (agent == null) {
            throw KubeErrors.error(ErrorKind.BACKEND_UNAVAILABLE, "the SandboxTemplate " + template + " has no "
                    + "container running sbx-agent --listen=...: see docs/kubernetes.md for the agent's container");
        }
        Map<String, Quantity> limits = agent.getResources() == null || agent.getResources().getLimits() == null
                ? Map.of() : agent.getResources().getLimits();
        long memory = limits.containsKey("memory") ? Quantity.getAmountInBytes(limits.get("memory")).longValue() : 0;
        double cpus = limits.containsKey("cpu") ? limits.get("cpu").getNumericalAmount().doubleValue() : 0;
        int nproc = 0;
        for (String a : command(agent)) {
            if (a.startsWith("--nproc=")) {
                nproc = Integer.parseInt(a.substring(8));
            }
        }
        long ws = 0;
        boolean memoryMedium = false;
        String volume = null;
        for (VolumeMount m : agent.getVolumeMounts() == null ? List.<VolumeMount>of() : agent.getVolumeMounts()) {
            if (WORKSPACE.equals(m.getMountPath())) {
                volume = m.getName();
            }
        }
        for (Volume v : pod.getVolumes() == null ? List.<Volume>of() : pod.getVolumes()) {
            if (v.getName().equals(volume) && v.getEmptyDir() != null) {
                Quantity size = v.getEmptyDir().getSizeLimit();
                ws = size == null ? 0 : Quantity.getAmountInBytes(size).longValue();
                memoryMedium = "Memory".equals(v.getEmptyDir().getMedium());
            }
        }
        boolean denied = spec.networkPolicy() != null && !"Unmanaged".equals(spec.networkPolicyManagement())
                && (spec.networkPolicy().egress() == null || spec.networkPolicy().egress().isEmpty());
        var profile = seccompOf(pod, agent);
        String type = profile == null || profile.getType() == null ? "unset" : profile.getType();
        String seccomp = type.equals("Localhost") ? "Localhost " + profile.getLocalhostProfile() : type;
        java.util.Set<String> sets = type.equals("Localhost") ? setsOf(profile.getLocalhostProfile()) : null;
        return new PoolPlan(pool, template, agent.getName(), memory, cpus, nproc, ws, memoryMedium, denied, seccomp,
                sets);
    }

    private static List<String> command(Container c) {
        List<String> all = new ArrayList<>();
        if (c.getCommand() != null) {
            all.addAll(c.getCommand());
        }
        if (c.getArgs() != null) {
            all.addAll(c.getArgs());
        }
        return all;
    }

    /**
     * The pool for a spec asking {@code want} and the syscall sets {@code sets}: first the pools whose template runs
     * sandbox4j's profile with exactly those sets (or, with {@code acceptOther} and no sets asked, any profile but
     * none at all); none: UNSUPPORTED naming each pool's profile, whatever {@code bestEffort} says (a filter is not a
     * limit to relax). Then, of those, as {@link #choose(List, ResourceLimits, boolean)}.
     */
    static PoolPlan choose(List<PoolPlan> plans, ResourceLimits want, java.util.Set<String> sets, boolean acceptOther,
                           boolean bestEffort) {
        List<PoolPlan> filtered = plans.stream().filter(p -> p.filters(sets, acceptOther)).toList();
        if (filtered.isEmpty()) {
            StringBuilder why = new StringBuilder();
            plans.forEach(p -> why.append(why.length() == 0 ? "" : ", ").append(p.pool).append(": ").append(p.seccomp));
            throw KubeErrors.error(ErrorKind.UNSUPPORTED, "no pool runs sandbox4j's seccomp allow-list" + (sets
                    .isEmpty() ? "" : " with the syscall sets " + sets) + " (localhostProfile " + profileFor(sets)
                    + "); the pools' templates run " + why + ". Install the profiles on the nodes and name one in "
                    + "a pool's template (docs/kubernetes.md#seccomp)" + (sets.isEmpty() && !acceptOther ? ", or "
                    + "accept the templates' own filters with KubernetesOptions.withAcceptOtherSeccomp(true)" : ""));
        }
        return choose(filtered, want, bestEffort);
    }

    /** Whether this template's filter serves a spec asking {@code sets} (see {@link #choose(List, ResourceLimits,
     * java.util.Set, boolean, boolean)}). */
    boolean filters(java.util.Set<String> sets, boolean acceptOther) {
        if (syscallSets != null) {
            return syscallSets.equals(sets);
        }
        return acceptOther && sets.isEmpty() && !seccomp.equals("Unconfined") && !seccomp.equals("unset");
    }

    /**
     * The pool for a spec asking {@code want}: of the pools whose template holds it, the one whose limits differ from
     * it in the fewest of memory, CPU, processes and workspace (the first on a tie). None holds: the first pool's
     * refusal (UNSUPPORTED), or with {@code bestEffort} the first pool.
     */
    static PoolPlan choose(List<PoolPlan> plans, ResourceLimits want, boolean bestEffort) {
        PoolPlan best = null;
        int bestMiss = Integer.MAX_VALUE;
        for (PoolPlan p : plans) {
            if (!p.holds(want)) {
                continue;
            }
            int miss = (p.memoryBytes != want.memoryBytes() ? 1 : 0) + (p.cpus != want.cpus() ? 1 : 0)
                    + (p.processes != want.maxProcesses() ? 1 : 0) + (p.workspaceBytes != want.workspaceBytes() ? 1 : 0);
            if (miss < bestMiss) {
                best = p;
                bestMiss = miss;
            }
        }
        if (best != null) {
            return best;
        }
        plans.get(0).grant(want, bestEffort); // throws the refusal unless best effort
        return plans.get(0);
    }

    boolean holds(ResourceLimits want) {
        List<String> refused = new ArrayList<>();
        check(refused, "memory", want.memoryBytes(), memoryBytes, "");
        check(refused, "CPU", want.cpus(), cpus, "");
        check(refused, "processes", want.maxProcesses(), processes, "");
        check(refused, "workspace", want.workspaceBytes(), workspaceBytes, "");
        return refused.isEmpty();
    }

    /**
     * The limits a sandbox of this pool has, for a spec that asks for {@code want}: each of memory, CPU, processes and
     * workspace holds when the template's is set and no larger than asked. One the template cannot hold fails the
     * open with UNSUPPORTED naming it, unless {@code bestEffort} (then the template's own, 0 for none, is reported).
     */
    ResourceLimits grant(ResourceLimits want, boolean bestEffort) {
        List<String> refused = new ArrayList<>();
        check(refused, "memory", want.memoryBytes(), memoryBytes, " bytes");
        check(refused, "CPU", want.cpus(), cpus, " cores");
        check(refused, "processes", want.maxProcesses(), processes, "");
        check(refused, "workspace", want.workspaceBytes(), workspaceBytes, " bytes");
        if (!refused.isEmpty() && !bestEffort) {
            throw KubeErrors.error(ErrorKind.UNSUPPORTED, "the pool " + pool + " (SandboxTemplate " + template
                    + ") cannot hold the " + String.join(", ", refused) + ": a claimed pod has its template's limits."
                    + " Ask for at least the template's (or 0 for none), use a pool whose template fits, or "
                    + "SandboxSpec.builder().bestEffortLimits(true) to open with what holds");
        }
        // no inode limit in a pod, so no workspace quota as the API means it (bytes and inodes): reported as none, the
        // emptyDir's sizeLimit in info's details; no file size limit either
        return new ResourceLimits(memoryBytes, processes, cpus, 0, 0, 0, 0);
    }

    private static void check(List<String> refused, String what, double want, double has, String unit) {
        if (want > 0 && (has <= 0 || has > want)) {
            refused.add(what + " limit (asked " + plain(want) + unit + ", the template's: "
                    + (has <= 0 ? "none" : plain(has) + unit) + ")");
        }
    }

    private static String plain(double d) {
        return BigDecimal.valueOf(d).stripTrailingZeros().toPlainString();
    }
}
