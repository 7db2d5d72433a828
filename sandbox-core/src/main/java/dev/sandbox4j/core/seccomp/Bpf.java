package dev.sandbox4j.core.seccomp;

import dev.sandbox4j.core.seccomp.ArgRule.Pattern;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Assembles a {@link Policy} into a classic-BPF seccomp program ({@code struct sock_filter[]}, little-endian, as
 * {@code bwrap --seccomp FD} takes it). Layout: the architecture check (kill), on x86_64 the x32 check (kill), one
 * block per argument rule, then one chain per unconditional action, then {@code ENOSYS}. Outside the argument
 * rules only loads of the number and the architecture, {@code JEQ}/{@code JGE}/{@code JA} and {@code RET} are used, so the kernel's seccomp
 * cache (Linux 5.11) proves every unconditionally allowed number allowed and skips the program for it.
 */
final class Bpf {
    private static final short LD_W_ABS = 0x20;
    private static final short ALU_AND_K = 0x54;
    private static final short JEQ_K = 0x15;
    private static final short JGE_K = 0x35;
    private static final short RET_K = 0x06;
    private static final short JA = 0x05;
    private static final int OFF_NR = 0;
    private static final int OFF_ARCH = 4;
    private static final int X32_SYSCALL_BIT = 0x40000000;
    /** Numbers tested per chain before its return: keeps every jump within the 8-bit offset. */
    private static final int CHAIN = 200;

    private final ByteArrayOutputStream code = new ByteArrayOutputStream();

    private Bpf() {
    }

    static byte[] assemble(Policy policy, SyscallTable t) {
        Bpf a = new Bpf();
        a.op(LD_W_ABS, 0, 0, OFF_ARCH);
        a.op(JEQ_K, 1, 0, t.auditArch);
        a.op(RET_K, 0, 0, Policy.KILL_PROCESS);
        a.op(LD_W_ABS, 0, 0, OFF_NR);
        if (t.hasX32) {
            a.op(JGE_K, 0, 1, X32_SYSCALL_BIT);
            a.op(RET_K, 0, 0, Policy.KILL_PROCESS);
        }
        for (ArgRule rule : Policy.ARG_RULES) {
            int nr = t.nr(rule.syscall());
            if (nr >= 0) {
                byte[] block = block(rule);
                a.op(JEQ_K, 0, block.length / 8, nr);
                a.code.writeBytes(block);
            }
        }
        Map<Integer, List<Integer>> byAction = new LinkedHashMap<>();
        policy.actions.forEach((name, action) -> {
            int nr = t.nr(name);
            if (nr >= 0 && action != Policy.DEFAULT && Policy.argRule(name) == null) {
                byAction.computeIfAbsent(action, k -> new ArrayList<>()).add(nr);
            }
        });
        byAction.forEach((action, numbers) -> {
            for (int from = 0; from < numbers.size(); from += CHAIN) {
                List<Integer> chunk = numbers.subList(from, Math.min(numbers.size(), from + CHAIN));
                for (int i = 0; i < chunk.size(); i++) {
                    a.op(JEQ_K, chunk.size() - i, 0, chunk.get(i));
                }
                a.op(JA, 0, 0, 1); // no match: over the return, to the next chain
                a.op(RET_K, 0, 0, action);
            }
        });
        a.op(RET_K, 0, 0, Policy.DEFAULT);
        return a.code.toByteArray();
    }

    /**
     * One rule: each pattern loads the argument's low word, masks it and compares, jumping to the action's return
     * on a match; after the last, the otherwise return. Every block ends in a return (the accumulator no longer
     * holds the number).
     */
    private static byte[] block(ArgRule rule) {
        List<Pattern> when = rule.when();
        int n = when.size();
        Bpf b = new Bpf();
        for (int i = 0; i < n; i++) {
            Pattern p = when.get(i);
            boolean masked = p.mask() != ArgRule.LOW32;
            if (i == 0 || masked || when.get(i - 1).mask() != ArgRule.LOW32) {
                b.op(LD_W_ABS, 0, 0, 16 + 8 * p.arg()); // seccomp_data.args[arg], little-endian low word
            }
            if (masked) {
                b.op(ALU_AND_K, 0, 0, (int) p.mask());
            }
            int after = 0; // instructions after this JEQ up to the otherwise return
            for (int j = i + 1; j < n; j++) {
                Pattern q = when.get(j);
                boolean qm = q.mask() != ArgRule.LOW32;
                after += 1 + (qm ? 2 : (when.get(j - 1).mask() != ArgRule.LOW32 ? 1 : 0));
            }
            b.op(JEQ_K, after + 1, 0, (int) p.value());
        }
        b.op(RET_K, 0, 0, rule.otherwise());
        b.op(RET_K, 0, 0, rule.action());
        return b.code.toByteArray();
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
