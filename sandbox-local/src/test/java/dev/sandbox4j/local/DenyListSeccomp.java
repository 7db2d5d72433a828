package dev.sandbox4j.local;

import dev.sandbox4j.core.AgentBinary;
import java.io.ByteArrayOutputStream;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The jail's seccomp filter before issue 33, kept for SeccompCostMeasure's A/B only: the class {@code Seccomp} as it
 * was at commit ecc5599^ (the last before the allow-list replaced it), renamed, otherwise unchanged.
 *
 * <p>A tiny classic-BPF assembler producing the jail's seccomp deny-list as a {@code struct sock_filter[]} for
 * {@code bwrap --seccomp FD}, for x86_64 and aarch64 (selected by {@code os.arch}); any other architecture is refused.
 *
 * <p>The policy ({@link #DENIED}, {@link #ARG_RULES}) is written with syscall names, once; each {@link Arch} maps the
 * names to its numbers. A program checks the architecture (anything else, x32 included, is killed), then answers
 * each denied syscall with its errno and allows the rest. To extend it, add a name to a list or an {@link ArgRule}
 * (say, "unshare: allowed only with arg0 == CLONE_NEWPID" would be a new rule kind emitted in {@link #assemble}).
 */
final class DenyListSeccomp {
    static final int RET_KILL_PROCESS = 0x80000000;
    static final int RET_ALLOW = 0x7fff0000;
    static final int RET_ERRNO = 0x00050000;
    static final int EPERM = 1;
    static final int EAFNOSUPPORT = 97;

    private static final short LD_W_ABS = 0x20;
    private static final short JEQ_K = 0x15;
    private static final short JGE_K = 0x35;
    private static final short RET_K = 0x06;

    private static final int OFF_NR = 0;
    private static final int OFF_ARCH = 4;
    private static final int X32_SYSCALL_BIT = 0x40000000;

    /** Syscalls answered with EPERM (security.md 4.1), in the order they are tested. */
    static final List<String> DENIED = List.of(
            "io_uring_setup", "io_uring_enter", "io_uring_register",
            "keyctl", "add_key", "request_key",
            "ptrace", "process_vm_readv", "process_vm_writev",
            "bpf", "perf_event_open", "userfaultfd",
            "setns", "unshare", "mount", "umount2",
            "pivot_root", "chroot", "move_mount", "open_tree",
            "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
            "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
            "syslog", "acct", "swapon", "swapoff", "reboot",
            "sethostname", "setdomainname", "iopl", "ioperm",
            "open_by_handle_at", "name_to_handle_at", "fanotify_init", "quotactl", "quotactl_fd",
            "lookup_dcookie", "nfsservctl", "vhangup", "uselib", "ustat", "sysfs", "_sysctl",
            "pidfd_getfd", "kcmp",
            "clock_settime", "clock_adjtime", "settimeofday", "adjtimex");

    /** A syscall denied with {@code errno} when the low 32 bits of argument {@code arg} equal one of {@code values}. */
    record ArgRule(String syscall, int arg, List<Integer> values, int errno) {
    }

    /** Compared on the low 32 bits only, so high bits set in the ioctl request do not slip past (CVE-2019-10063). */
    static final List<ArgRule> ARG_RULES = List.of(
            new ArgRule("ioctl", 1, List.of(0x5412 /* TIOCSTI */, 0x541C /* TIOCLINUX */), EPERM),
            new ArgRule("socket", 0, List.of(40 /* AF_VSOCK */, 38 /* AF_ALG */), EAFNOSUPPORT),
            // a lease on a workspace file would make the host's open of it wait up to lease-break-time (45 s)
            new ArgRule("fcntl", 1, List.of(1024 /* F_SETLEASE */), EPERM));

    /** One architecture's syscall ABI, as the filter sees it. */
    record Arch(String name, int auditArch, boolean rejectX32, Map<String, Integer> numbers, Set<String> absent) {
        /** The number of {@code syscall}, or -1 when this architecture has no such syscall. */
        int nr(String syscall) {
            Integer nr = numbers.get(syscall);
            if (nr != null) {
                return nr;
            }
            if (absent.contains(syscall)) {
                return -1;
            }
            throw new IllegalStateException("no " + name + " number for syscall " + syscall);
        }
    }

    private static final int NONE = -1;

    /**
     * Syscall numbers as {name, x86_64, aarch64}: x86_64 from {@code arch/x86/entry/syscalls/syscall_64.tbl}, aarch64
     * from the kernel's generic table ({@code include/uapi/asm-generic/unistd.h}), which has none of the legacy calls
     * marked NONE. SeccompTest checks both columns against the installed headers.
     */
    private static final Object[][] NUMBERS = {
        {"ioctl", 16, 29}, {"socket", 41, 198}, {"fcntl", 72, 25},
        {"io_uring_setup", 425, 425}, {"io_uring_enter", 426, 426}, {"io_uring_register", 427, 427},
        {"keyctl", 250, 219}, {"add_key", 248, 217}, {"request_key", 249, 218},
        {"ptrace", 101, 117}, {"process_vm_readv", 310, 270}, {"process_vm_writev", 311, 271},
        {"bpf", 321, 280}, {"perf_event_open", 298, 241}, {"userfaultfd", 323, 282},
        {"setns", 308, 268}, {"unshare", 272, 97}, {"mount", 165, 40}, {"umount2", 166, 39},
        {"pivot_root", 155, 41}, {"chroot", 161, 51}, {"move_mount", 429, 429}, {"open_tree", 428, 428},
        {"fsopen", 430, 430}, {"fsconfig", 431, 431}, {"fsmount", 432, 432}, {"fspick", 433, 433},
        {"mount_setattr", 442, 442},
        {"kexec_load", 246, 104}, {"kexec_file_load", 320, 294}, {"init_module", 175, 105},
        {"finit_module", 313, 273}, {"delete_module", 176, 106},
        {"syslog", 103, 116}, {"acct", 163, 89}, {"swapon", 167, 224}, {"swapoff", 168, 225},
        {"reboot", 169, 142}, {"sethostname", 170, 161}, {"setdomainname", 171, 162},
        {"iopl", 172, NONE}, {"ioperm", 173, NONE},
        {"open_by_handle_at", 304, 265}, {"name_to_handle_at", 303, 264}, {"fanotify_init", 300, 262},
        {"quotactl", 179, 60}, {"quotactl_fd", 443, 443},
        {"lookup_dcookie", 212, 18}, {"nfsservctl", 180, 42}, {"vhangup", 153, 58},
        {"uselib", 134, NONE}, {"ustat", 136, NONE}, {"sysfs", 139, NONE}, {"_sysctl", 156, NONE},
        {"pidfd_getfd", 438, 438}, {"kcmp", 312, 272},
        {"clock_settime", 227, 112}, {"clock_adjtime", 305, 266}, {"settimeofday", 164, 170},
        {"adjtimex", 159, 171},
    };

    static final Arch X86_64 = arch("x86_64", 0xC000003E, true, 1);
    /** AArch32 tasks report AUDIT_ARCH_ARM and are killed by the arch check. */
    static final Arch AARCH64 = arch("aarch64", 0xC00000B7, false, 2);

    private static Arch arch(String name, int auditArch, boolean rejectX32, int column) {
        Map<String, Integer> numbers = new HashMap<>();
        Set<String> absent = new HashSet<>();
        for (Object[] row : NUMBERS) {
            int nr = (Integer) row[column];
            if (nr == NONE) {
                absent.add((String) row[0]);
            } else {
                numbers.put((String) row[0], nr);
            }
        }
        return new Arch(name, auditArch, rejectX32, Map.copyOf(numbers), Set.copyOf(absent));
    }

    private final ByteArrayOutputStream code = new ByteArrayOutputStream();

    private DenyListSeccomp() {
    }

    /** The architecture for a value of {@code os.arch}, or null when there is no filter for it. */
    static Arch arch(String osArch) {
        String arch = AgentBinary.canonicalArch(osArch);
        if ("x86_64".equals(arch)) {
            return X86_64;
        }
        return "aarch64".equals(arch) ? AARCH64 : null;
    }

    static boolean supports(String osArch) {
        return arch(osArch) != null;
    }

    /** Whether there is a filter for this JVM's architecture. */
    static boolean available() {
        return supports(System.getProperty("os.arch"));
    }

    /** The filter for this JVM's architecture. */
    static byte[] program() {
        return program(System.getProperty("os.arch"));
    }

    /**
     * The filter program for {@code osArch}, 8 bytes per instruction, little-endian (both supported architectures
     * are).
     *
     * @throws IllegalArgumentException naming the architecture when it is not supported
     */
    static byte[] program(String osArch) {
        Arch arch = arch(osArch);
        if (arch == null) {
            throw new IllegalArgumentException("no seccomp filter for architecture '" + osArch
                    + "': only x86_64 (amd64) and aarch64 (arm64) are supported");
        }
        return assemble(arch);
    }

    static byte[] assemble(Arch arch) {
        DenyListSeccomp a = new DenyListSeccomp();
        a.op(LD_W_ABS, 0, 0, OFF_ARCH);
        a.op(JEQ_K, 1, 0, arch.auditArch());
        a.op(RET_K, 0, 0, RET_KILL_PROCESS);
        a.op(LD_W_ABS, 0, 0, OFF_NR);
        if (arch.rejectX32()) {
            a.op(JGE_K, 0, 1, X32_SYSCALL_BIT);
            a.op(RET_K, 0, 0, RET_KILL_PROCESS);
        }
        for (String name : DENIED) {
            int nr = arch.nr(name);
            if (nr >= 0) {
                a.op(JEQ_K, 0, 1, nr);
                a.op(RET_K, 0, 0, RET_ERRNO | EPERM);
            }
        }
        // Each block: if nr matches, load the argument's low word, return errno on a match, else allow. The
        // accumulator no longer holds nr afterwards, so every block ends in a return.
        for (ArgRule rule : ARG_RULES) {
            int nr = arch.nr(rule.syscall());
            if (nr < 0) {
                continue;
            }
            int n = rule.values().size();
            a.op(JEQ_K, 0, n + 3, nr);
            a.op(LD_W_ABS, 0, 0, argLow(rule.arg()));
            for (int i = 0; i < n; i++) {
                a.op(JEQ_K, n - i, 0, rule.values().get(i));
            }
            a.op(RET_K, 0, 0, RET_ALLOW);
            a.op(RET_K, 0, 0, RET_ERRNO | rule.errno());
        }
        a.op(RET_K, 0, 0, RET_ALLOW);
        return a.code.toByteArray();
    }

    private static int argLow(int i) {
        return 16 + 8 * i; // struct seccomp_data: nr, arch, instruction_pointer, args[6]; little-endian low word
    }

    private void op(short opcode, int jt, int jf, int k) {
        if (jt > 255 || jf > 255) {
            throw new IllegalStateException("jump too far");
        }
        code.write(opcode & 0xff);
        code.write((opcode >>> 8) & 0xff);
        code.write(jt);
        code.write(jf);
        code.write(k & 0xff);
        code.write((k >>> 8) & 0xff);
        code.write((k >>> 16) & 0xff);
        code.write((k >>> 24) & 0xff);
    }
}
