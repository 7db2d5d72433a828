package dev.sandbox4j.core.seccomp;

import dev.sandbox4j.core.AgentBinary;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * sandbox4j's syscall allow-list, for the backends: the jail's BPF program and the containers' profile, both made
 * from the one {@link Policy} so they cannot drift (SeccompAgreementTest runs both over every number).
 *
 * <p>Immutable and thread-safe.
 */
public final class SeccompPolicy {
    /** The opt-in sets a spec may name ({@code SandboxSpec.syscallSets()}). */
    public static final Set<String> OPT_IN_SETS = Set.copyOf(Policy.OPT_IN.keySet());

    private final Policy policy;

    private SeccompPolicy(Policy policy) {
        this.policy = policy;
    }

    /**
     * The default policy plus the opt-in sets named.
     *
     * @throws IllegalArgumentException naming a set that is not one of {@link #OPT_IN_SETS}
     */
    public static SeccompPolicy of(Set<String> optIns) {
        return new SeccompPolicy(Policy.of(optIns));
    }

    /** The opt-in sets in force, sorted. */
    public Set<String> optIns() {
        return policy.optIns;
    }

    /** Whether there is a program for this architecture ({@code os.arch} or canonical name). */
    public static boolean supports(String arch) {
        return SyscallTable.of(canonical(arch)) != null;
    }

    /**
     * The BPF program for {@code arch} ({@code os.arch} values such as {@code amd64} accepted), 8 bytes per
     * instruction, little-endian.
     *
     * @throws IllegalArgumentException naming the architecture when it is not x86_64 or aarch64
     */
    public byte[] bpf(String arch) {
        SyscallTable t = SyscallTable.of(canonical(arch));
        if (t == null) {
            throw new IllegalArgumentException("no seccomp filter for architecture '" + arch
                    + "': only x86_64 (amd64) and aarch64 (arm64) are supported");
        }
        return Bpf.assemble(policy, t);
    }

    /**
     * The Docker/Podman seccomp profile (JSON) of this policy for the engine's {@code arch} (Docker's and
     * {@code os.arch} names accepted): only that architecture is listed, so every other is killed.
     *
     * @throws IllegalArgumentException naming the architecture when it is not x86_64 or aarch64
     */
    public String ociProfile(String arch) {
        SyscallTable t = SyscallTable.of(canonical(arch));
        if (t == null) {
            throw new IllegalArgumentException("no seccomp profile for architecture '" + arch
                    + "': only x86_64 (amd64) and aarch64 (arm64) are supported");
        }
        return OciProfile.json(policy, t);
    }

    /** A one-line description for {@code SandboxInfo.details()}, such as {@code allow-list x86_64 +debug}. */
    public String describe(String arch) {
        StringBuilder s = new StringBuilder("allow-list");
        if (canonical(arch) != null) {
            s.append(' ').append(canonical(arch));
        }
        for (String set : new TreeSet<>(policy.optIns)) {
            s.append(" +").append(set);
        }
        return s.toString();
    }

    /** The number of syscall {@code name} on {@code arch}, or -1 when that architecture has none (or is unknown). */
    public static int number(String arch, String name) {
        SyscallTable t = SyscallTable.of(canonical(arch));
        return t == null ? -1 : t.nr(name);
    }

    /** The explicit denials, by name, with their errno values (before opt-in sets). */
    public static Map<String, Integer> explicitDenials() {
        return Policy.DENIED;
    }

    /**
     * How the policy answers syscall {@code name} on every architecture that has it: {@code allow}, {@code arguments}
     * (an argument rule decides, such as socket families), or the errno name ({@code EPERM}, {@code ENOSYS}: every
     * name the policy does not list).
     */
    public String answer(String name) {
        if (Policy.argRule(name) != null) {
            return "arguments";
        }
        Integer action = policy.actions.get(name);
        if (action == null || action == Policy.DEFAULT) {
            return "ENOSYS";
        }
        if (action == Policy.ALLOW) {
            return "allow";
        }
        switch (action & 0xffff) {
            case Policy.EPERM:
                return "EPERM";
            case Policy.EAFNOSUPPORT:
                return "EAFNOSUPPORT";
            default:
                return "errno " + (action & 0xffff);
        }
    }

    /**
     * Why a command ended with 128 + SIGSYS, for the agent: the policy kills only for calls of another
     * architecture or of the x32 ABI (its refusals of native calls are errno values).
     */
    public static String sigsysExplanation() {
        return "killed by SIGSYS: the seccomp filter refuses system calls of another architecture (i386, "
                + "arm32) and of the x32 ABI; run a native 64-bit build";
    }

    static String canonical(String arch) {
        return AgentBinary.canonicalArch(arch);
    }
}
