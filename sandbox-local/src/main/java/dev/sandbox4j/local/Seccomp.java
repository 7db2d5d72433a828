package dev.sandbox4j.local;

import java.io.ByteArrayOutputStream;
import java.util.Locale;

/**
 * A tiny classic-BPF assembler producing the jail's seccomp deny-list as a {@code struct sock_filter[]} for
 * {@code bwrap --seccomp FD}. x86_64 only; other architectures get no filter (reported by {@link #available()}).
 */
final class Seccomp {
    private static final int AUDIT_ARCH_X86_64 = 0xC000003E;
    private static final int RET_KILL_PROCESS = 0x80000000;
    private static final int RET_ALLOW = 0x7fff0000;
    private static final int RET_ERRNO = 0x00050000;
    private static final int EPERM = 1;
    private static final int EAFNOSUPPORT = 97;

    private static final short LD_W_ABS = 0x20;
    private static final short JEQ_K = 0x15;
    private static final short JGE_K = 0x35;
    private static final short RET_K = 0x06;

    private static final int OFF_NR = 0;
    private static final int OFF_ARCH = 4;

    private static final int NR_IOCTL = 16;
    private static final int NR_SOCKET = 41;

    /** x86_64 numbers of the syscalls answered with EPERM. */
    static final int[] DENIED_X86_64 = {
        425, 426, 427,          // io_uring_setup, io_uring_enter, io_uring_register
        250, 248, 249,          // keyctl, add_key, request_key
        101, 310, 311,          // ptrace, process_vm_readv, process_vm_writev
        321, 298, 323,          // bpf, perf_event_open, userfaultfd
        308, 272, 165, 166,     // setns, unshare, mount, umount2
        155, 161, 429, 428,     // pivot_root, chroot, move_mount, open_tree
        430, 431, 432, 433, 442, // fsopen, fsconfig, fsmount, fspick, mount_setattr
        246, 320, 175, 313, 176, // kexec_load, kexec_file_load, init_module, finit_module, delete_module
        103, 163, 167, 168, 169, // syslog, acct, swapon, swapoff, reboot
        170, 171, 172, 173,     // sethostname, setdomainname, iopl, ioperm
        304, 303, 300, 179, 443, // open_by_handle_at, name_to_handle_at, fanotify_init, quotactl, quotactl_fd
        212, 180, 153, 134, 136, 139, 156, // lookup_dcookie, nfsservctl, vhangup, uselib, ustat, sysfs, _sysctl
        438, 312,               // pidfd_getfd, kcmp
        227, 305, 164, 159,     // clock_settime, clock_adjtime, settimeofday, adjtimex
    };

    private final ByteArrayOutputStream code = new ByteArrayOutputStream();
    private int count;

    private Seccomp() {
    }

    static boolean available() {
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        return arch.equals("amd64") || arch.equals("x86_64");
    }

    /** The filter program, 8 bytes per instruction, little-endian. */
    static byte[] program() {
        Seccomp a = new Seccomp();
        a.op(LD_W_ABS, 0, 0, OFF_ARCH);
        a.op(JEQ_K, 1, 0, AUDIT_ARCH_X86_64);
        a.op(RET_K, 0, 0, RET_KILL_PROCESS);
        a.op(LD_W_ABS, 0, 0, OFF_NR);
        a.op(JGE_K, 0, 1, 0x40000000);            // x32 ABI
        a.op(RET_K, 0, 0, RET_KILL_PROCESS);
        for (int nr : DENIED_X86_64) {
            a.op(JEQ_K, 0, 1, nr);
            a.op(RET_K, 0, 0, RET_ERRNO | EPERM);
        }
        // ioctl(fd, TIOCSTI | TIOCLINUX, ...): compare the low 32 bits of arg1 (CVE-2019-10063)
        a.op(JEQ_K, 0, 5, NR_IOCTL);
        a.op(LD_W_ABS, 0, 0, argLow(1));
        a.op(JEQ_K, 2, 0, 0x5412);
        a.op(JEQ_K, 1, 0, 0x541C);
        a.op(RET_K, 0, 0, RET_ALLOW);
        a.op(RET_K, 0, 0, RET_ERRNO | EPERM);
        // socket(AF_VSOCK | AF_ALG, ...)
        a.op(JEQ_K, 0, 5, NR_SOCKET);
        a.op(LD_W_ABS, 0, 0, argLow(0));
        a.op(JEQ_K, 2, 0, 40);
        a.op(JEQ_K, 1, 0, 38);
        a.op(RET_K, 0, 0, RET_ALLOW);
        a.op(RET_K, 0, 0, RET_ERRNO | EAFNOSUPPORT);
        a.op(RET_K, 0, 0, RET_ALLOW);
        return a.code.toByteArray();
    }

    private static int argLow(int i) {
        return 16 + 8 * i; // struct seccomp_data: nr, arch, instruction_pointer, args[6]; little-endian low word
    }

    private void op(short opcode, int jt, int jf, int k) {
        code.write(opcode & 0xff);
        code.write((opcode >>> 8) & 0xff);
        code.write(jt);
        code.write(jf);
        code.write(k & 0xff);
        code.write((k >>> 8) & 0xff);
        code.write((k >>> 16) & 0xff);
        code.write((k >>> 24) & 0xff);
        count++;
    }
}
