package dev.sandbox4j.local;

import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A tiny classic-BPF assembler producing the jail's seccomp deny-list as a {@code struct sock_filter[]} for
 * {@code bwrap --seccomp FD}, for x86_64 and aarch64 (selected by {@code os.arch}); any other architecture is refused.
 *
 * <p>The policy ({@link #DENIED}, {@link #ARG_RULES}) is written with syscall names, once; each {@link Arch} maps the
 * names to its numbers. A program checks the architecture (anything else, x32 included, is killed), then answers
 * each denied syscall with its errno and allows the rest. To extend it, add a name to a list or an {@link ArgRule}
 * (say, "unshare: allowed only with arg0 == CLONE_NEWPID" would be a new rule kind emitted in {@link #assemble}).
 */
final class Seccomp {
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
            new ArgRule("socket", 0, List.of(40 /* AF_VSOCK */, 38 /* AF_ALG */), EAFNOSUPPORT));

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

    /** x86_64 ({@code arch/x86/entry/syscalls/syscall_64.tbl}). */
    static final Arch X86_64 = new Arch("x86_64", 0xC000003E, true, Map.ofEntries(
            Map.entry("ioctl", 16), Map.entry("socket", 41),
            Map.entry("io_uring_setup", 425), Map.entry("io_uring_enter", 426), Map.entry("io_uring_register", 427),
            Map.entry("keyctl", 250), Map.entry("add_key", 248), Map.entry("request_key", 249),
            Map.entry("ptrace", 101), Map.entry("process_vm_readv", 310), Map.entry("process_vm_writev", 311),
            Map.entry("bpf", 321), Map.entry("perf_event_open", 298), Map.entry("userfaultfd", 323),
            Map.entry("setns", 308), Map.entry("unshare", 272), Map.entry("mount", 165), Map.entry("umount2", 166),
            Map.entry("pivot_root", 155), Map.entry("chroot", 161), Map.entry("move_mount", 429),
            Map.entry("open_tree", 428), Map.entry("fsopen", 430), Map.entry("fsconfig", 431),
            Map.entry("fsmount", 432), Map.entry("fspick", 433), Map.entry("mount_setattr", 442),
            Map.entry("kexec_load", 246), Map.entry("kexec_file_load", 320), Map.entry("init_module", 175),
            Map.entry("finit_module", 313), Map.entry("delete_module", 176),
            Map.entry("syslog", 103), Map.entry("acct", 163), Map.entry("swapon", 167), Map.entry("swapoff", 168),
            Map.entry("reboot", 169), Map.entry("sethostname", 170), Map.entry("setdomainname", 171),
            Map.entry("iopl", 172), Map.entry("ioperm", 173),
            Map.entry("open_by_handle_at", 304), Map.entry("name_to_handle_at", 303),
            Map.entry("fanotify_init", 300), Map.entry("quotactl", 179), Map.entry("quotactl_fd", 443),
            Map.entry("lookup_dcookie", 212), Map.entry("nfsservctl", 180), Map.entry("vhangup", 153),
            Map.entry("uselib", 134), Map.entry("ustat", 136), Map.entry("sysfs", 139), Map.entry("_sysctl", 156),
            Map.entry("pidfd_getfd", 438), Map.entry("kcmp", 312),
            Map.entry("clock_settime", 227), Map.entry("clock_adjtime", 305), Map.entry("settimeofday", 164),
            Map.entry("adjtimex", 159)),
            Set.of());

    /**
     * aarch64: the kernel's generic table ({@code include/uapi/asm-generic/unistd.h}). It has none of the legacy
     * calls listed in {@code absent}; AArch32 tasks report AUDIT_ARCH_ARM and are killed by the arch check.
     */
    static final Arch AARCH64 = new Arch("aarch64", 0xC00000B7, false, Map.ofEntries(
            Map.entry("ioctl", 29), Map.entry("socket", 198),
            Map.entry("io_uring_setup", 425), Map.entry("io_uring_enter", 426), Map.entry("io_uring_register", 427),
            Map.entry("keyctl", 219), Map.entry("add_key", 217), Map.entry("request_key", 218),
            Map.entry("ptrace", 117), Map.entry("process_vm_readv", 270), Map.entry("process_vm_writev", 271),
            Map.entry("bpf", 280), Map.entry("perf_event_open", 241), Map.entry("userfaultfd", 282),
            Map.entry("setns", 268), Map.entry("unshare", 97), Map.entry("mount", 40), Map.entry("umount2", 39),
            Map.entry("pivot_root", 41), Map.entry("chroot", 51), Map.entry("move_mount", 429),
            Map.entry("open_tree", 428), Map.entry("fsopen", 430), Map.entry("fsconfig", 431),
            Map.entry("fsmount", 432), Map.entry("fspick", 433), Map.entry("mount_setattr", 442),
            Map.entry("kexec_load", 104), Map.entry("kexec_file_load", 294), Map.entry("init_module", 105),
            Map.entry("finit_module", 273), Map.entry("delete_module", 106),
            Map.entry("syslog", 116), Map.entry("acct", 89), Map.entry("swapon", 224), Map.entry("swapoff", 225),
            Map.entry("reboot", 142), Map.entry("sethostname", 161), Map.entry("setdomainname", 162),
            Map.entry("open_by_handle_at", 265), Map.entry("name_to_handle_at", 264),
            Map.entry("fanotify_init", 262), Map.entry("quotactl", 60), Map.entry("quotactl_fd", 443),
            Map.entry("lookup_dcookie", 18), Map.entry("nfsservctl", 42), Map.entry("vhangup", 58),
            Map.entry("pidfd_getfd", 438), Map.entry("kcmp", 272),
            Map.entry("clock_settime", 112), Map.entry("clock_adjtime", 266), Map.entry("settimeofday", 170),
            Map.entry("adjtimex", 171)),
            Set.of("iopl", "ioperm", "uselib", "ustat", "sysfs", "_sysctl"));

    private final ByteArrayOutputStream code = new ByteArrayOutputStream();

    private Seccomp() {
    }

    /** The architecture for a value of {@code os.arch}, or null when there is no filter for it. */
    static Arch arch(String osArch) {
        String arch = NativeBinaries.canonicalArch(osArch);
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
        Seccomp a = new Seccomp();
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
