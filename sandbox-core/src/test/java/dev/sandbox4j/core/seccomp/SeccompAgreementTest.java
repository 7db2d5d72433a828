package dev.sandbox4j.core.seccomp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The jail's BPF program (run by a classic-BPF interpreter written here) and the containers' JSON profile (read back
 * and evaluated the way libseccomp does: names through the syscall table, masked comparisons, the default, the
 * architectures listed) agree with the policy's reference meaning, for every syscall number, numbers past the table,
 * the x32 ABI and foreign architectures, and the arguments that matter to each argument rule.
 */
class SeccompAgreementTest {
    static final int AUDIT_ARCH_I386 = 0x40000003;
    static final int AUDIT_ARCH_ARM = 0x40000028;

    /** Instructions the last {@link #run} on this thread executed, its return included. */
    static final ThreadLocal<Integer> STEPS = ThreadLocal.withInitial(() -> 0);

    /** A classic-BPF interpreter for the instructions the kernel's seccomp accepts that the assembler uses. */
    static int run(byte[] program, int nr, int arch, long[] args) {
        assertThat(program.length % 8).as("whole instructions").isZero();
        int len = program.length / 8;
        assertThat(len).as("instructions (BPF_MAXINSNS)").isBetween(1, 4096);
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
                case 0x20: // LD W ABS
                    assertThat(k % 4 == 0 && k >= 0 && k <= 60).as("aligned load in seccomp_data").isTrue();
                    acc = data.getInt(k);
                    pc++;
                    break;
                case 0x54: // ALU AND K
                    acc &= k;
                    pc++;
                    break;
                case 0x05: // JA
                    pc += 1 + k;
                    break;
                case 0x15: // JEQ K
                    pc += 1 + (acc == k ? jt : jf);
                    break;
                case 0x35: // JGE K, unsigned
                    pc += 1 + (Integer.compareUnsigned(acc, k) >= 0 ? jt : jf);
                    break;
                case 0x06: // RET K
                    STEPS.set(steps + 1);
                    return k;
                default:
                    throw new AssertionError("opcode 0x" + Integer.toHexString(op) + " at " + pc);
            }
        }
        throw new AssertionError("no return (classic BPF jumps only forward)");
    }

    /** The profile as libseccomp applies it on one architecture (runc and crun build the filter with it). */
    static final class ProfileEval {
        final Map<String, Object> profile;
        final SyscallTable table;

        ProfileEval(String json, SyscallTable table) {
            this.profile = MiniJson.object(json);
            this.table = table;
        }

        @SuppressWarnings("unchecked")
        int decide(int auditArch, int nr, long[] args) {
            List<Object> arches = (List<Object>) profile.get("architectures");
            String native_ = table == SyscallTable.X86_64 ? "SCMP_ARCH_X86_64" : "SCMP_ARCH_AARCH64";
            assertThat(arches).as("one profile per architecture: the engine's only").containsExactly(native_);
            if (auditArch != table.auditArch || (table.hasX32 && (nr & 0x40000000) != 0)) {
                return Policy.KILL_PROCESS; // libseccomp's bad-architecture action
            }
            String name = table.name(nr);
            Set<Integer> unconditional = new LinkedHashSet<>();
            Set<Integer> matched = new LinkedHashSet<>();
            boolean conditional = false;
            for (Object o : (List<Object>) profile.get("syscalls")) {
                Map<String, Object> e = (Map<String, Object>) o;
                if (name == null || !((List<Object>) e.get("names")).contains(name)) {
                    continue;
                }
                int action = action(e);
                List<Object> conds = (List<Object>) e.get("args");
                if (conds == null || conds.isEmpty()) {
                    unconditional.add(action);
                    continue;
                }
                conditional = true;
                boolean all = true;
                for (Object c : conds) {
                    Map<String, Object> cond = (Map<String, Object>) c;
                    assertThat(cond.get("op")).isEqualTo("SCMP_CMP_MASKED_EQ");
                    int index = ((Number) cond.get("index")).intValue();
                    long mask = ((Number) cond.get("value")).longValue();
                    long value = ((Number) cond.get("valueTwo")).longValue();
                    all &= (args[index] & mask) == value;
                }
                if (all) {
                    matched.add(action);
                }
            }
            assertThat(unconditional.size() + (conditional ? 1 : 0)).as("%s: one kind of entry", name)
                    .isLessThanOrEqualTo(1);
            assertThat(matched).as("%s: matching entries agree (no precedence needed)", name).hasSizeLessThan(2);
            if (!unconditional.isEmpty()) {
                return unconditional.iterator().next();
            }
            if (!matched.isEmpty()) {
                return matched.iterator().next();
            }
            return Policy.errno(((Number) profile.get("defaultErrnoRet")).intValue());
        }

        private static int action(Map<String, Object> e) {
            if ("SCMP_ACT_ALLOW".equals(e.get("action"))) {
                return Policy.ALLOW;
            }
            assertThat(e.get("action")).isEqualTo("SCMP_ACT_ERRNO");
            return Policy.errno(((Number) e.get("errnoRet")).intValue());
        }
    }

    /** Argument vectors worth trying on a rule: each pattern's value, with high bits, with neighbours, random ones. */
    static List<long[]> argVectors(ArgRule rule, Random random) {
        List<long[]> out = new ArrayList<>();
        List<Long> values = new ArrayList<>(List.of(0L, -1L, 0xffff_ffffL, 1L << 32, 46L, 0x8000_0000L));
        for (ArgRule.Pattern p : rule.when()) {
            values.add(p.value());
            values.add(p.value() | 0xdead_0000_0000_0000L);
            values.add(p.value() + 1);
            values.add(p.value() - 1);
            values.add(p.value() | 0x11); // CLONE_VM-ish low bits plus a signal number
            values.add(p.value() ^ p.mask());
        }
        for (int i = 0; i < 40; i++) {
            values.add(random.nextLong());
            values.add((long) random.nextInt(64));
            values.add(1L << random.nextInt(64));
        }
        for (long v : values) {
            long[] args = new long[6];
            args[rule.when().get(0).arg()] = v;
            out.add(args);
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "debug", "io_uring", "debug,io_uring"})
    void bpfProfileAndPolicyAgreeOnEveryNumber(String sets) {
        Set<String> optIns = sets.isEmpty() ? Set.of() : Set.of(sets.split(","));
        SeccompPolicy facade = SeccompPolicy.of(optIns);
        Policy policy = Policy.of(optIns);
        for (SyscallTable t : List.of(SyscallTable.X86_64, SyscallTable.AARCH64)) {
            byte[] bpf = facade.bpf(t.arch);
            ProfileEval json = new ProfileEval(facade.ociProfile(t.arch), t);
            Random random = new Random(33);
            int checked = 0;
            for (int nr = 0; nr <= t.max() + 600; nr++) {
                String name = t.name(nr);
                ArgRule rule = name == null ? null : Policy.argRule(name);
                List<long[]> vectors = rule == null ? List.of(new long[6], new long[] {1, 0x5412, 40, -1, 0, 7})
                        : argVectors(rule, random);
                for (long[] args : vectors) {
                    int expected = policy.decide(t, t.auditArch, nr, args);
                    assertThat(run(bpf, nr, t.auditArch, args)).as("%s bpf nr %d %s", t.arch, nr, name)
                            .isEqualTo(expected);
                    assertThat(json.decide(t.auditArch, nr, args)).as("%s json nr %d %s", t.arch, nr, name)
                            .isEqualTo(expected);
                    checked++;
                }
            }
            for (int nr : new int[] {0, 1, 59, 101, 221, 435, 0x3fffffff, 0x40000000, 0x40000001, 0x4000003b, -1}) {
                for (int arch : new int[] {t.auditArch, AUDIT_ARCH_I386, AUDIT_ARCH_ARM, 0, 0xC000003E, 0xC00000B7}) {
                    long[] args = new long[6];
                    int expected = policy.decide(t, arch, nr, args);
                    assertThat(run(bpf, nr, arch, args)).as("%s bpf arch %x nr %x", t.arch, arch, nr)
                            .isEqualTo(expected);
                    assertThat(json.decide(arch, nr, args)).as("%s json arch %x nr %x", t.arch, arch, nr)
                            .isEqualTo(expected);
                }
            }
            assertThat(checked).isGreaterThan(t.max() + 600);
        }
    }

    /**
     * The cost the filter adds to a call it is run for (every call but the allowed ones without an argument rule,
     * which the kernel's seccomp cache answers without it): the architecture and x32 checks, one comparison per
     * argument rule, the rule's block or the binary search over the ranges. With one JEQ per listed number, as the
     * program was first, an ENOSYS number (clone3 at every thread glibc starts) ran 360 instructions
     * (x86_64).
     */
    @Test
    void everyNumberIsDecidedInFewInstructions() {
        for (SyscallTable t : List.of(SyscallTable.X86_64, SyscallTable.AARCH64)) {
            for (Set<String> sets : List.of(Set.<String>of(), Set.of("debug", "io_uring"))) {
                byte[] bpf = SeccompPolicy.of(sets).bpf(t.arch);
                int worst = 0;
                int worstNr = -1;
                for (int nr = 0; nr <= t.max() + 600; nr++) {
                    run(bpf, nr, t.auditArch, new long[6]);
                    if (STEPS.get() > worst) {
                        worst = STEPS.get();
                        worstNr = nr;
                    }
                }
                for (int nr : new int[] {-1, 0x3fffffff, 0x7fffffff}) {
                    run(bpf, nr, t.auditArch, new long[6]);
                    worst = Math.max(worst, STEPS.get());
                }
                System.out.printf("[seccomp] %s %s: %d instructions, at most %d run (nr %d)%n", t.arch, sets,
                        bpf.length / 8, worst, worstNr);
                assertThat(worst).as("%s %s: instructions run for the worst number (%d)", t.arch, sets, worstNr)
                        .isLessThanOrEqualTo(48);
            }
        }
    }
}
