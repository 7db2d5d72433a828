package dev.sandbox4j.core.seccomp;

import dev.sandbox4j.core.seccomp.ArgRule.Pattern;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The syscall policy of every sandbox4j jail and container: the one source of truth (docs/security.md, "Seccomp").
 *
 * <p>A syscall is allowed only when {@link #ALLOWED} names it (or an {@link #ARG_RULES argument rule} allows its
 * arguments); {@link #DENIED} answers with a chosen errno; every other number, including numbers above the highest
 * one the tables know, gets {@code ENOSYS}, so libraries fall back as they do on an older kernel (glibc from
 * {@code clone3} to {@code clone}, libuv and Tokio from io_uring to epoll). A call of another architecture, or of the
 * x32 ABI, kills the process. To extend: add a name to {@link #ALLOWED} (after measuring that a workload needs it,
 * see SeccompCorpusTest), or a rule to {@link #ARG_RULES}, or an opt-in set to {@link #OPT_IN}.
 */
final class Policy {
    static final int KILL_PROCESS = 0x80000000;
    static final int ALLOW = 0x7fff0000;
    static final int LOG = 0x7ffc0000;
    private static final int RET_ERRNO = 0x00050000;
    static final int EPERM = 1;
    static final int ENOSYS = 38;
    static final int EAFNOSUPPORT = 97;
    static final int DEFAULT = errno(ENOSYS);

    static int errno(int e) {
        return RET_ERRNO | e;
    }

    /**
     * Allowed without conditions, the frequent ones first (the order the BPF program tests them in when the
     * kernel's allow cache does not answer). Names only one architecture has are skipped on the other.
     */
    static final List<String> ALLOWED = List.of(
            // I/O and file descriptors
            "read", "write", "close", "fstat", "newfstatat", "statx", "lseek", "mmap", "munmap", "mprotect",
            "brk", "futex", "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "openat", "open", "getdents64",
            "pread64", "pwrite64", "readv", "writev", "preadv", "pwritev", "preadv2", "pwritev2", "openat2",
            "creat", "close_range", "dup", "dup2", "dup3", "flock", "fsync", "fdatasync", "sync", "syncfs",
            "sync_file_range", "truncate", "ftruncate", "fallocate", "fadvise64", "readahead", "getdents",
            "getcwd", "chdir", "fchdir", "rename", "renameat", "renameat2", "mkdir", "mkdirat", "rmdir", "link",
            "linkat", "unlink", "unlinkat", "symlink", "symlinkat", "readlink", "readlinkat", "chmod", "fchmod",
            "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat", "umask", "stat", "lstat", "statfs",
            "fstatfs", "access", "faccessat", "faccessat2", "utime", "utimes", "utimensat", "futimesat", "mknod",
            "mknodat", "getxattr", "lgetxattr", "fgetxattr", "getxattrat", "setxattr", "lsetxattr", "fsetxattr",
            "setxattrat", "listxattr", "llistxattr", "flistxattr", "listxattrat", "removexattr", "lremovexattr",
            "fremovexattr", "removexattrat", "inotify_init", "inotify_init1", "inotify_add_watch",
            "inotify_rm_watch", "sendfile", "splice", "tee", "copy_file_range", "cachestat", "pipe", "pipe2",
            "memfd_create",
            // waiting and events
            "select", "pselect6", "poll", "ppoll", "epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait",
            "epoll_pwait", "epoll_pwait2", "eventfd", "eventfd2", "signalfd", "signalfd4", "timerfd_create",
            "timerfd_settime", "timerfd_gettime", "io_setup", "io_destroy", "io_submit", "io_cancel",
            "io_getevents", "io_pgetevents",
            // memory
            "mremap", "madvise", "mincore", "msync", "mlock", "mlock2", "munlock", "mlockall", "munlockall",
            "remap_file_pages", "pkey_mprotect", "pkey_alloc", "pkey_free", "get_mempolicy", "membarrier",
            "map_shadow_stack", "mseal",
            // processes, threads, signals
            "fork", "vfork", "execve", "execveat", "exit", "exit_group", "wait4", "waitid", "kill", "tkill",
            "tgkill", "pidfd_open", "pidfd_send_signal", "getpid", "getppid", "gettid", "getpgrp", "getpgid",
            "setpgid", "getsid", "setsid", "set_tid_address", "set_robust_list", "get_robust_list", "rseq",
            "futex_waitv", "futex_wake", "futex_wait", "futex_requeue", "restart_syscall", "arch_prctl", "prctl",
            "prlimit64", "getrlimit", "setrlimit", "getrusage", "times", "getpriority", "setpriority",
            "sched_yield", "sched_getaffinity", "sched_setaffinity", "sched_getparam", "sched_setparam",
            "sched_getscheduler", "sched_setscheduler", "sched_get_priority_max", "sched_get_priority_min",
            "sched_rr_get_interval", "sched_getattr", "sched_setattr", "getcpu", "ioprio_get", "ioprio_set",
            "seccomp", "landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self",
            "rt_sigpending", "rt_sigtimedwait", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "rt_sigsuspend",
            "sigaltstack", "pause", "alarm",
            // time
            "nanosleep", "clock_nanosleep", "clock_gettime", "clock_getres", "gettimeofday", "time", "getitimer",
            "setitimer", "timer_create", "timer_settime", "timer_gettime", "timer_getoverrun", "timer_delete",
            // identity (in the jail's or container's user namespace, without capabilities)
            "getuid", "geteuid", "getgid", "getegid", "getgroups", "setgroups", "getresuid", "getresgid",
            "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setfsuid", "setfsgid",
            "capget", "capset", "uname", "sysinfo", "getrandom",
            // sockets (socket and socketpair are argument rules)
            "bind", "listen", "accept", "accept4", "connect", "getsockname", "getpeername", "sendto", "recvfrom",
            "sendmsg", "recvmsg", "sendmmsg", "recvmmsg", "shutdown", "setsockopt", "getsockopt",
            // System V and POSIX IPC (the jail and the container have IPC namespaces of their own)
            "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop", "semtimedop", "semctl", "shmget", "shmat",
            "shmdt", "shmctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify",
            "mq_getsetattr",
            // x86_64: the kernel's uretprobe trampoline calls it when a host tool probes a binary
            "uretprobe");

    /** Denied with the errno given, names grouped by why. ENOSYS ones say "not here, fall back". */
    static final Map<String, Integer> DENIED = denied();

    private static Map<String, Integer> denied() {
        Map<String, Integer> m = new LinkedHashMap<>();
        // libraries fall back only on ENOSYS: glibc clone3 -> clone, libuv/Tokio io_uring -> epoll
        for (String s : List.of("clone3", "io_uring_setup", "io_uring_enter", "io_uring_register")) {
            m.put(s, ENOSYS);
        }
        for (String s : List.of(
                // tracing another process (opt-in set "debug")
                "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
                // kernel keyrings, eBPF, perf, userfaultfd: large attack surface, no workload need
                "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
                // namespaces and mounts (unshare and clone are argument rules)
                "setns", "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "open_tree_attr",
                "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
                // the machine: modules, kexec, reboot, swap, clocks, hostname, accounting, raw I/O
                "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "syslog", "acct",
                "swapon", "swapoff", "reboot", "sethostname", "setdomainname", "iopl", "ioperm", "clock_settime",
                "clock_adjtime", "settimeofday", "adjtimex", "quotactl", "quotactl_fd", "vhangup",
                "lookup_dcookie", "nfsservctl", "uselib", "ustat", "sysfs", "_sysctl",
                // file handles bypass path checks; fanotify watches the whole mount
                "open_by_handle_at", "name_to_handle_at", "fanotify_init",
                // NUMA placement: another tenant's memory bandwidth
                "mbind", "set_mempolicy", "set_mempolicy_home_node", "migrate_pages", "move_pages")) {
            m.put(s, EPERM);
        }
        return Collections.unmodifiableMap(m);
    }

    private static final long NEW_NAMESPACES = 0x00020000L /* NEWNS */ | 0x02000000L /* NEWCGROUP */
            | 0x04000000L /* NEWUTS */ | 0x08000000L /* NEWIPC */ | 0x10000000L /* NEWUSER */
            | 0x20000000L /* NEWPID */ | 0x40000000L /* NEWNET */;
    private static final long CLONE_NEWTIME = 0x80; // in clone(2)'s arg0 these bits are the exit signal

    /** Argument rules, the hot ones first. */
    static final List<ArgRule> ARG_RULES = List.of(
            new ArgRule("ioctl", List.of(Pattern.eq(1, 0x5412 /* TIOCSTI: type into the terminal */),
                    Pattern.eq(1, 0x541C /* TIOCLINUX: the same on a VT */)), errno(EPERM), ALLOW),
            // a lease on a workspace file would make the host's open of it wait up to lease-break-time (45 s)
            new ArgRule("fcntl", List.of(Pattern.eq(1, 1024 /* F_SETLEASE */)), errno(EPERM), ALLOW),
            new ArgRule("clone", bits(0, NEW_NAMESPACES), errno(EPERM), ALLOW),
            new ArgRule("unshare", bits(0, NEW_NAMESPACES | CLONE_NEWTIME), errno(EPERM), ALLOW),
            new ArgRule("socket", families(), ALLOW, errno(EAFNOSUPPORT)),
            new ArgRule("socketpair", families(), ALLOW, errno(EAFNOSUPPORT)),
            // the default persona, PER_LINUX32, UNAME26 (both), and the query; not ADDR_NO_RANDOMIZE
            new ArgRule("personality", List.of(Pattern.eq(0, 0), Pattern.eq(0, 0x0008), Pattern.eq(0, 0x20000),
                    Pattern.eq(0, 0x20008), Pattern.eq(0, 0xffffffffL)), ALLOW, errno(EPERM)));

    /** AF_UNIX, AF_INET, AF_INET6 (the network namespace or proxy is the boundary), AF_NETLINK (getaddrinfo, ip). */
    private static List<Pattern> families() {
        return List.of(Pattern.eq(0, 1), Pattern.eq(0, 2), Pattern.eq(0, 10), Pattern.eq(0, 16));
    }

    private static List<Pattern> bits(int arg, long mask) {
        List<Pattern> out = new ArrayList<>();
        for (int b = 0; b < 32; b++) {
            if ((mask & (1L << b)) != 0) {
                out.add(Pattern.bit(arg, 1L << b));
            }
        }
        return out;
    }

    /**
     * Opt-in sets a spec may ask for: each moves denied names to allowed. {@code debug}: gdb, strace, py-spy attach
     * to processes of the same sandbox (ptrace, process_vm_*); {@code io_uring}: the io_uring interface, whose
     * kernel side has had many privilege escalations.
     */
    static final Map<String, List<String>> OPT_IN = Map.of(
            "debug", List.of("ptrace", "process_vm_readv", "process_vm_writev"),
            "io_uring", List.of("io_uring_setup", "io_uring_enter", "io_uring_register"));

    final Set<String> optIns;
    /** Unconditional actions by name: allowed and denied ones. */
    final Map<String, Integer> actions;

    private Policy(Set<String> optIns, Map<String, Integer> actions) {
        this.optIns = optIns;
        this.actions = actions;
    }

    /** @throws IllegalArgumentException naming an unknown set and the known ones */
    static Policy of(Set<String> optIns) {
        Set<String> sets = Collections.unmodifiableSet(new TreeSet<>(optIns));
        Map<String, Integer> actions = new LinkedHashMap<>();
        for (String s : ALLOWED) {
            actions.put(s, ALLOW);
        }
        DENIED.forEach((name, e) -> actions.put(name, errno(e)));
        for (String set : sets) {
            List<String> names = OPT_IN.get(set);
            if (names == null) {
                throw new IllegalArgumentException("unknown syscall set '" + set + "': known are "
                        + new TreeSet<>(OPT_IN.keySet()));
            }
            names.forEach(n -> actions.put(n, ALLOW));
        }
        return new Policy(sets, Collections.unmodifiableMap(actions));
    }

    /** The rule for {@code name}, or null when it has none. */
    static ArgRule argRule(String name) {
        for (ArgRule r : ARG_RULES) {
            if (r.syscall().equals(name)) {
                return r;
            }
        }
        return null;
    }

    /**
     * The reference meaning of the policy: the seccomp return value for a call of architecture {@code auditArch}
     * with number {@code nr} and these six arguments, on the machine of table {@code t}.
     */
    int decide(SyscallTable t, int auditArch, int nr, long[] args) {
        if (auditArch != t.auditArch || (t.hasX32 && (nr & 0x40000000) != 0)) {
            return KILL_PROCESS;
        }
        String name = t.name(nr);
        if (name == null) {
            return DEFAULT;
        }
        ArgRule rule = argRule(name);
        if (rule != null) {
            return rule.decide(args);
        }
        Integer action = actions.get(name);
        return action == null ? DEFAULT : action;
    }
}
