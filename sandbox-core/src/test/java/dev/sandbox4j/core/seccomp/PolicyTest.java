package dev.sandbox4j.core.seccomp;

import static dev.sandbox4j.core.seccomp.SeccompAgreementTest.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The policy's text (names, sets, tables) and what its BPF program answers for the calls the issue names. */
class PolicyTest {
    private static final List<SyscallTable> TABLES = List.of(SyscallTable.X86_64, SyscallTable.AARCH64);

    private static int call(SyscallTable t, Set<String> sets, String name, long... args) {
        long[] a = new long[6];
        System.arraycopy(args, 0, a, 0, args.length);
        assertThat(t.nr(name)).as("%s has %s", t.arch, name).isNotNegative();
        return run(SeccompPolicy.of(sets).bpf(t.arch), t.nr(name), t.auditArch, a);
    }

    @Test
    void everyNameIsASyscallOfSomeArchitectureAndListedOnce() {
        Set<String> seen = new HashSet<>();
        List<String> all = new ArrayList<>(Policy.ALLOWED);
        all.addAll(Policy.DENIED.keySet());
        Policy.ARG_RULES.forEach(r -> all.add(r.syscall()));
        for (String name : all) {
            assertThat(seen.add(name)).as("%s listed once", name).isTrue();
            assertThat(SyscallTable.X86_64.has(name) || SyscallTable.AARCH64.has(name)).as(name).isTrue();
        }
        Policy.OPT_IN.values().forEach(names -> assertThat(Policy.DENIED.keySet()).containsAll(names));
        assertThat(SeccompPolicy.OPT_IN_SETS).containsExactlyInAnyOrder("debug", "io_uring");
    }

    @Test
    void unknownSetsAreRefusedByName() {
        assertThatThrownBy(() -> SeccompPolicy.of(Set.of("ptrace"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'ptrace'").hasMessageContaining("debug").hasMessageContaining("io_uring");
        assertThat(SeccompPolicy.of(Set.of("io_uring", "debug")).describe("amd64"))
                .isEqualTo("allow-list x86_64 +debug +io_uring");
        assertThatThrownBy(() -> SeccompPolicy.of(Set.of()).bpf("riscv64"))
                .hasMessageContaining("'riscv64'").hasMessageContaining("aarch64");
    }

    @Test
    void everyExplicitDenialReturnsItsErrnoAndOptInsAllow() {
        for (SyscallTable t : TABLES) {
            Policy.DENIED.forEach((name, errno) -> {
                if (t.has(name)) {
                    assertThat(call(t, Set.of(), name)).as("%s %s", t.arch, name).isEqualTo(Policy.errno(errno));
                }
            });
            for (String name : List.of("ptrace", "process_vm_readv", "process_vm_writev")) {
                assertThat(call(t, Set.of("debug"), name)).as(name).isEqualTo(Policy.ALLOW);
                assertThat(call(t, Set.of("io_uring"), name)).as(name).isEqualTo(Policy.errno(Policy.EPERM));
            }
            for (String name : List.of("io_uring_setup", "io_uring_enter", "io_uring_register")) {
                assertThat(call(t, Set.of(), name)).as(name).isEqualTo(Policy.errno(Policy.ENOSYS));
                assertThat(call(t, Set.of("io_uring"), name)).as(name).isEqualTo(Policy.ALLOW);
            }
            assertThat(call(t, Set.of(), "clone3")).isEqualTo(Policy.errno(Policy.ENOSYS));
        }
    }

    @Test
    void numbersAboveTheTableAndUnlistedCallsAreEnosys() {
        for (SyscallTable t : TABLES) {
            byte[] bpf = SeccompPolicy.of(Set.of()).bpf(t.arch);
            for (int nr : new int[] {t.max() + 1, 470, 500, 1000, 4095, 0x3fffffff}) {
                assertThat(run(bpf, nr, t.auditArch, new long[6])).as("%s nr %d", t.arch, nr)
                        .isEqualTo(Policy.errno(Policy.ENOSYS));
            }
            for (String name : List.of("memfd_secret", "process_madvise", "lsm_get_self_attr", "file_setattr")) {
                assertThat(call(t, Set.of(), name)).as(name).isEqualTo(Policy.errno(Policy.ENOSYS));
            }
            for (String name : List.of("read", "openat", "clone", "execve", "wait4", "statx", "pipe2", "rseq",
                    "sched_getaffinity", "getrandom", "membarrier", "pidfd_open", "close_range", "faccessat2")) {
                assertThat(call(t, Set.of(), name)).as(name).isEqualTo(Policy.ALLOW);
            }
        }
    }

    @Test
    void argumentRules() {
        int eperm = Policy.errno(Policy.EPERM);
        int noFamily = Policy.errno(Policy.EAFNOSUPPORT);
        for (SyscallTable t : TABLES) {
            Set<String> none = Set.of();
            assertThat(call(t, none, "ioctl", 0, 0x5412)).as("TIOCSTI").isEqualTo(eperm);
            assertThat(call(t, none, "ioctl", 0, 0xdead_0000_0000_5412L)).as("CVE-2019-10063").isEqualTo(eperm);
            assertThat(call(t, none, "ioctl", 0, 0x541C)).as("TIOCLINUX").isEqualTo(eperm);
            assertThat(call(t, none, "ioctl", 0, 0x5401)).as("TCGETS").isEqualTo(Policy.ALLOW);
            assertThat(call(t, none, "socket", 40, 1)).as("AF_VSOCK").isEqualTo(noFamily);
            assertThat(call(t, none, "socket", 0x1_0000_0028L, 1)).as("AF_VSOCK, high bits").isEqualTo(noFamily);
            assertThat(call(t, none, "socket", 17, 3)).as("AF_PACKET").isEqualTo(noFamily);
            assertThat(call(t, none, "socket", 38, 5)).as("AF_ALG").isEqualTo(noFamily);
            for (int family : new int[] {1, 2, 10, 16}) {
                assertThat(call(t, none, "socket", family, 1)).as("family %d", family).isEqualTo(Policy.ALLOW);
            }
            assertThat(call(t, none, "socketpair", 1, 1)).isEqualTo(Policy.ALLOW);
            assertThat(call(t, none, "clone", 0x01200011L)).as("fork's flags").isEqualTo(Policy.ALLOW);
            assertThat(call(t, none, "clone", 0x003d0f00L)).as("pthread_create's flags").isEqualTo(Policy.ALLOW);
            for (long ns : new long[] {0x20000, 0x2000000, 0x4000000, 0x8000000, 0x10000000, 0x20000000,
                    0x40000000}) {
                assertThat(call(t, none, "clone", ns | 0x11)).as("clone ns %x", ns).isEqualTo(eperm);
                assertThat(call(t, none, "unshare", ns)).as("unshare ns %x", ns).isEqualTo(eperm);
            }
            assertThat(call(t, none, "unshare", 0x80)).as("CLONE_NEWTIME").isEqualTo(eperm);
            assertThat(call(t, none, "unshare", 0x400)).as("CLONE_FILES").isEqualTo(Policy.ALLOW);
            assertThat(call(t, none, "personality", 0xffffffffL)).as("query").isEqualTo(Policy.ALLOW);
            assertThat(call(t, none, "personality", 0)).isEqualTo(Policy.ALLOW);
            assertThat(call(t, none, "personality", 0x0040000)).as("ADDR_NO_RANDOMIZE").isEqualTo(eperm);
            assertThat(call(t, none, "fcntl", 3, 1024)).as("F_SETLEASE").isEqualTo(eperm);
            assertThat(call(t, none, "fcntl", 3, 2)).as("F_SETFD").isEqualTo(Policy.ALLOW);
        }
    }

    @Test
    void tablesAgreeWithTheInstalledKernelHeaders() throws IOException {
        Path x86 = Path.of("/usr/include/x86_64-linux-gnu/asm/unistd_64.h");
        Path generic = Path.of("/usr/include/asm-generic/unistd.h");
        assumeTrue(Files.isRegularFile(x86) && Files.isRegularFile(generic), "no linux-libc-dev on this machine");
        assertAgrees(SyscallTable.X86_64, parse(x86));
        assertAgrees(SyscallTable.AARCH64, parse(generic));
    }

    private static void assertAgrees(SyscallTable t, Map<String, Integer> header) {
        assertThat(header).hasSizeGreaterThan(250);
        header.forEach((name, nr) -> {
            if (t.has(name)) {
                assertThat(t.nr(name)).as("%s %s", t.arch, name).isEqualTo(nr);
            }
        });
        t.numbers().forEach((name, nr) -> {
            if (header.containsKey(name)) {
                assertThat(header.get(name)).as("%s %s", t.arch, name).isEqualTo(nr);
            } else {
                assertThat(nr).as("%s %s: only numbers past the installed header are added by hand", t.arch, name)
                        .isGreaterThan(header.values().stream().mapToInt(Integer::intValue).max().orElse(0)
                                - (name.equals("uretprobe") ? 200 : 0));
            }
        });
    }

    /** {@code #define __NR_name 123} and {@code #define __NR_name __NR3264_other} lines. */
    static Map<String, Integer> parse(Path header) throws IOException {
        Pattern define = Pattern.compile("^#define\\s+__NR(3264)?_(\\w+)\\s+(\\w+)\\s*$");
        Map<String, String> raw = new HashMap<>();
        Map<String, Integer> generic = new HashMap<>();
        for (String line : Files.readAllLines(header, StandardCharsets.UTF_8)) {
            Matcher m = define.matcher(line);
            if (m.matches() && m.group(1) != null) {
                generic.put(m.group(2), Integer.parseInt(m.group(3)));
            } else if (m.matches()) {
                raw.put(m.group(2), m.group(3));
            }
        }
        Map<String, Integer> numbers = new HashMap<>();
        raw.forEach((name, value) -> {
            if (value.matches("\\d+") && !name.equals("syscalls") && !name.equals("arch_specific_syscall")) {
                numbers.put(name, Integer.parseInt(value));
            } else if (value.startsWith("__NR3264_") && generic.containsKey(value.substring(9))) {
                numbers.put(name, generic.get(value.substring(9)));
            }
        });
        return numbers;
    }
}
