package dev.sandbox4j.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The seccomp programs, run by a classic-BPF interpreter written here (no kernel involved), and the syscall tables
 * checked against the kernel headers installed on this machine.
 */
class SeccompTest {
    private static final int AUDIT_ARCH_X86_64 = 0xC000003E;
    private static final int AUDIT_ARCH_AARCH64 = 0xC00000B7;
    private static final int AUDIT_ARCH_I386 = 0x40000003;
    private static final int AUDIT_ARCH_ARM = 0x40000028;
    private static final int KILL = 0x80000000;
    private static final int ALLOW = 0x7fff0000;
    private static final int ERRNO_EPERM = 0x00050000 | 1;
    private static final int ERRNO_EAFNOSUPPORT = 0x00050000 | 97;

    /** A classic-BPF interpreter for seccomp: the instructions the kernel accepts that the generator may use. */
    static int run(byte[] program, int nr, int arch, long... args) {
        assertThat(program.length % 8).as("whole instructions").isZero();
        int len = program.length / 8;
        assertThat(len).as("instructions").isBetween(1, 4096);
        ByteBuffer code = ByteBuffer.wrap(program).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer data = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        data.putInt(0, nr).putInt(4, arch).putLong(8, 0x400000L);
        for (int i = 0; i < args.length; i++) {
            data.putLong(16 + 8 * i, args[i]);
        }
        int acc = 0;
        int pc = 0;
        for (int steps = 0; steps <= len; steps++) {
            assertThat(pc).as("pc inside the program").isBetween(0, len - 1);
            int op = code.getShort(pc * 8) & 0xffff;
            int jt = code.get(pc * 8 + 2) & 0xff;
            int jf = code.get(pc * 8 + 3) & 0xff;
            int k = code.getInt(pc * 8 + 4);
            switch (op) {
                case 0x20: // BPF_LD | BPF_W | BPF_ABS
                    assertThat(k).as("aligned load inside seccomp_data").isBetween(0, 60);
                    assertThat(k % 4).isZero();
                    acc = data.getInt(k);
                    pc++;
                    break;
                case 0x15: // BPF_JMP | BPF_JEQ | BPF_K
                    pc += 1 + (acc == k ? jt : jf);
                    break;
                case 0x35: // BPF_JMP | BPF_JGE | BPF_K (unsigned)
                    pc += 1 + (Integer.compareUnsigned(acc, k) >= 0 ? jt : jf);
                    break;
                case 0x06: // BPF_RET | BPF_K
                    return k;
                default:
                    throw new AssertionError("opcode 0x" + Integer.toHexString(op) + " at " + pc + " not interpreted");
            }
        }
        throw new AssertionError("no return (classic BPF jumps only forward)");
    }

    private static byte[] x86() {
        return Seccomp.program("amd64");
    }

    private static byte[] arm() {
        return Seccomp.program("aarch64");
    }

    @Test
    void architecturesAreSelectedByOsArchAndOthersRefusedByName() {
        assertThat(Seccomp.supports("amd64")).isTrue();
        assertThat(Seccomp.supports("x86_64")).isTrue();
        assertThat(Seccomp.supports("aarch64")).isTrue();
        assertThat(Seccomp.supports("arm64")).isTrue();
        for (String other : new String[] {"riscv64", "s390x", "ppc64le", "x86", "i386", "arm", "", null}) {
            assertThat(Seccomp.supports(other)).as(other).isFalse();
        }
        assertThatThrownBy(() -> Seccomp.program("riscv64")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'riscv64'").hasMessageContaining("x86_64").hasMessageContaining("aarch64");
        assertThat(Seccomp.program("x86_64")).isEqualTo(x86());
        assertThat(Seccomp.program("arm64")).isEqualTo(arm());
        assertThat(arm()).isNotEqualTo(x86());
        assertThat(Seccomp.available()).isEqualTo(Seccomp.supports(System.getProperty("os.arch")));
    }

    @Test
    void theWrongArchitectureIsKilled() {
        int[] calls = {0, 1, 29, 56, 59, 63, 101, 117, 221, 435};
        for (int nr : calls) {
            for (int arch : new int[] {AUDIT_ARCH_AARCH64, AUDIT_ARCH_I386, AUDIT_ARCH_ARM, 0}) {
                assertThat(run(x86(), nr, arch)).as("x86_64 filter, arch %x nr %d", arch, nr).isEqualTo(KILL);
            }
            for (int arch : new int[] {AUDIT_ARCH_X86_64, AUDIT_ARCH_I386, AUDIT_ARCH_ARM, 0}) {
                assertThat(run(arm(), nr, arch)).as("aarch64 filter, arch %x nr %d", arch, nr).isEqualTo(KILL);
            }
        }
    }

    @Test
    void x32SyscallsAreKilledOnX86_64() {
        for (int nr : new int[] {0, 1, 59, 101, 272, 512, 547, 0x3fffffff}) {
            assertThat(run(x86(), 0x40000000 | nr, AUDIT_ARCH_X86_64)).as("x32 nr %d", nr).isEqualTo(KILL);
        }
        assertThat(run(x86(), 0x3fffffff, AUDIT_ARCH_X86_64)).isEqualTo(ALLOW);
    }

    @Test
    void wellKnownCallsOnEachArchitecture() {
        // x86_64: read write openat clone execve are allowed; ptrace, unshare, mount are not
        for (int nr : new int[] {0, 1, 257, 56, 59, 435, 231}) {
            assertThat(run(x86(), nr, AUDIT_ARCH_X86_64)).as("x86_64 nr %d", nr).isEqualTo(ALLOW);
        }
        for (int nr : new int[] {101, 272, 165, 425, 172}) {
            assertThat(run(x86(), nr, AUDIT_ARCH_X86_64)).as("x86_64 nr %d", nr).isEqualTo(ERRNO_EPERM);
        }
        // aarch64: read 63, write 64, openat 56, clone 220, execve 221, clone3 435, exit_group 94 are allowed;
        // ptrace 117, unshare 97, mount 40, io_uring_setup 425 are not
        for (int nr : new int[] {63, 64, 56, 220, 221, 435, 94}) {
            assertThat(run(arm(), nr, AUDIT_ARCH_AARCH64)).as("aarch64 nr %d", nr).isEqualTo(ALLOW);
        }
        for (int nr : new int[] {117, 97, 40, 425}) {
            assertThat(run(arm(), nr, AUDIT_ARCH_AARCH64)).as("aarch64 nr %d", nr).isEqualTo(ERRNO_EPERM);
        }
        // x86_64 numbers of legacy calls aarch64 lacks mean other calls there: 172 is getpid, 134 rt_sigaction
        assertThat(run(arm(), 172, AUDIT_ARCH_AARCH64)).isEqualTo(ALLOW);
        assertThat(run(arm(), 134, AUDIT_ARCH_AARCH64)).isEqualTo(ALLOW);
    }

    @ParameterizedTest
    @ValueSource(strings = {"x86_64", "aarch64"})
    void everyDeniedCallIsEpermAndEveryOtherNumberIsAllowed(String name) {
        Seccomp.Arch arch = Seccomp.arch(name);
        byte[] program = Seccomp.program(name);
        Set<Integer> denied = new HashSet<>();
        List<String> mapped = new ArrayList<>();
        for (String call : Seccomp.DENIED) {
            int nr = arch.nr(call);
            if (nr < 0) {
                assertThat(arch.absent()).contains(call);
                continue;
            }
            mapped.add(call);
            denied.add(nr);
            assertThat(run(program, nr, arch.auditArch(), 0, 0, 0, 0, 0, 0)).as("%s %s", name, call)
                    .isEqualTo(ERRNO_EPERM);
        }
        assertThat(denied).as("distinct numbers").hasSameSizeAs(mapped);
        int ioctl = arch.nr("ioctl");
        int socket = arch.nr("socket");
        for (int nr = 0; nr < 1024; nr++) {
            if (!denied.contains(nr) && nr != ioctl && nr != socket) {
                assertThat(run(program, nr, arch.auditArch(), 5, 0x5412, 40)).as("%s nr %d", name, nr)
                        .isEqualTo(ALLOW);
            }
        }
    }

    /** The action of arch's program for syscall {@code name} with {@code args}. */
    private static int call(String arch, String name, long... args) {
        Seccomp.Arch a = Seccomp.arch(arch);
        return run(Seccomp.program(arch), a.nr(name), a.auditArch(), args);
    }

    @ParameterizedTest
    @ValueSource(strings = {"x86_64", "aarch64"})
    void ioctlTiocstiAndTioclinuxAreDeniedOnTheLow32Bits(String arch) {
        assertThat(call(arch, "ioctl", 0, 0x5412)).as("TIOCSTI").isEqualTo(ERRNO_EPERM);
        assertThat(call(arch, "ioctl", 0, 0x541C)).as("TIOCLINUX").isEqualTo(ERRNO_EPERM);
        assertThat(call(arch, "ioctl", 0, 0xdead_0000_0000_5412L)).as("CVE-2019-10063").isEqualTo(ERRNO_EPERM);
        assertThat(call(arch, "ioctl", 0x5412, 0x5401)).as("TCGETS").isEqualTo(ALLOW);
        assertThat(call(arch, "ioctl", 0, 0x541B)).as("FIONREAD").isEqualTo(ALLOW);
        assertThat(call(arch, "ioctl", 0, 0x5413)).as("TIOCGWINSZ").isEqualTo(ALLOW);
    }

    @ParameterizedTest
    @ValueSource(strings = {"x86_64", "aarch64"})
    void vsockAndAlgSocketsAreRefused(String arch) {
        assertThat(call(arch, "socket", 40, 1, 0)).as("AF_VSOCK").isEqualTo(ERRNO_EAFNOSUPPORT);
        assertThat(call(arch, "socket", 38, 5, 0)).as("AF_ALG").isEqualTo(ERRNO_EAFNOSUPPORT);
        assertThat(call(arch, "socket", 0x1_0000_0028L, 1, 0)).as("AF_VSOCK, high bits").isEqualTo(ERRNO_EAFNOSUPPORT);
        assertThat(call(arch, "socket", 1, 1, 0)).as("AF_UNIX").isEqualTo(ALLOW);
        assertThat(call(arch, "socket", 2, 1, 0)).as("AF_INET").isEqualTo(ALLOW);
        assertThat(call(arch, "socket", 10, 2, 0)).as("AF_INET6").isEqualTo(ALLOW);
    }

    @Test
    void x86_64TableAgreesWithTheKernelHeader() throws IOException {
        Path header = Paths.get("/usr/include/x86_64-linux-gnu/asm/unistd_64.h");
        assumeTrue(Files.isRegularFile(header), "no " + header + " (linux-libc-dev) on this machine");
        assertAgrees(Seccomp.X86_64, parse(header), header);
    }

    @Test
    void aarch64TableAgreesWithTheGenericKernelHeader() throws IOException {
        // aarch64 uses the generic table; the cross headers (libc6-dev-arm64-cross) and linux-libc-dev both ship it
        List<Path> headers = new ArrayList<>();
        for (String h : new String[] {"/usr/aarch64-linux-gnu/include/asm-generic/unistd.h",
                "/usr/include/asm-generic/unistd.h"}) {
            if (Files.isRegularFile(Paths.get(h))) {
                headers.add(Paths.get(h));
            }
        }
        assumeTrue(!headers.isEmpty(), "no asm-generic/unistd.h on this machine");
        for (Path header : headers) {
            assertAgrees(Seccomp.AARCH64, parse(header), header);
        }
    }

    private static void assertAgrees(Seccomp.Arch arch, Map<String, Integer> header, Path file) {
        assertThat(header).as("%s parsed", file).hasSizeGreaterThan(250);
        for (Map.Entry<String, Integer> e : arch.numbers().entrySet()) {
            assertThat(header.get(e.getKey())).as("%s in %s", e.getKey(), file).isEqualTo(e.getValue());
        }
        for (String absent : arch.absent()) {
            assertThat(header).as("%s has no %s", file, absent).doesNotContainKey(absent);
        }
        for (String call : Seccomp.DENIED) {
            assertThat(arch.numbers().containsKey(call) || arch.absent().contains(call)).as(call).isTrue();
        }
    }

    /** {@code #define __NR_name 123} and {@code #define __NR_name __NR3264_other} lines. */
    static Map<String, Integer> parse(Path header) throws IOException {
        Pattern define = Pattern.compile("^#define\\s+__NR(3264)?_(\\w+)\\s+(\\w+)\\s*$");
        Map<String, String> raw = new HashMap<>();
        Map<String, Integer> generic = new HashMap<>();
        for (String line : Files.readAllLines(header, StandardCharsets.UTF_8)) {
            Matcher m = define.matcher(line);
            if (!m.matches()) {
                continue;
            }
            if (m.group(1) != null) {
                generic.put(m.group(2), Integer.parseInt(m.group(3)));
            } else {
                raw.put(m.group(2), m.group(3));
            }
        }
        Map<String, Integer> numbers = new HashMap<>();
        raw.forEach((name, value) -> {
            if (value.matches("\\d+")) {
                numbers.put(name, Integer.parseInt(value));
            } else if (value.startsWith("__NR3264_") && generic.containsKey(value.substring(9))) {
                numbers.put(name, generic.get(value.substring(9)));
            }
        });
        return numbers;
    }
}
