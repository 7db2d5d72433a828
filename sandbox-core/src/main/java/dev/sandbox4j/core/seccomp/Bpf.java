package dev.sandbox4j.core.seccomp;

import dev.sandbox4j.core.seccomp.ArgRule.Pattern;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Assembles a {@link Policy} into a classic-BPF seccomp program ({@code struct sock_filter[]}, little-endian, as
 * {@code bwrap --seccomp FD} takes it). Layout: the architecture check (kill), on x86_64 the x32 check (kill), one
 * block per argument rule, then a binary search over the numbers' ranges of equal action ({@code ENOSYS} for the
 * unlisted ones and past the table). Outside the argument rules only loads of the number and the architecture,
 * {@code JEQ}/{@code JGE}/{@code JA} and {@code RET} are used, so the kernel's seccomp cache (Linux 5.11) proves every
 * unconditionally allowed number allowed and skips the program for it.
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
        // The rest: every number's unconditional action as ranges of equal actions, searched as a balanced binary
        // tree of JGE (about log2(ranges) comparisons for any number, against one JEQ per listed number when they
        // were chains: the ENOSYS and EPERM answers walked all of them). Numbers of the argument rules never get
        // here; they count as the default. The last range reaches 2^32 - 1, so numbers past the table are ENOSYS.
        TreeMap<Integer, Integer> byNumber = new TreeMap<>();
        policy.actions.forEach((name, action) -> {
            int nr = t.nr(name);
            if (nr >= 0 && Policy.argRule(name) == null) {
                byNumber.put(nr, action);
            }
        });
        List<int[]> ranges = new ArrayList<>(); // {first number, action}
        int next = 0;
        for (Map.Entry<Integer, Integer> e : byNumber.entrySet()) {
            if (e.getKey() > next) {
                add(ranges, next, Policy.DEFAULT);
            }
            add(ranges, e.getKey(), e.getValue());
            next = e.getKey() + 1;
        }
        add(ranges, next, Policy.DEFAULT);
        a.tree(ranges, 0, ranges.size());
        return a.code.toByteArray();
    }

    private static void add(List<int[]> ranges, int first, int action) {
        if (ranges.isEmpty() || ranges.get(ranges.size() - 1)[1] != action) {
            ranges.add(new int[] {first, action});
        }
    }

    /**
     * Ranges {@code [from, to)} as a subtree: one range is its return; more split at the middle range's first number,
     * {@code JGE} to the upper half (over a {@code JA} when the lower half is longer than a conditional jump reaches).
     */
    private void tree(List<int[]> ranges, int from, int to) {
        if (to - from == 1) {
            op(RET_K, 0, 0, ranges.get(from)[1]);
            return;
        }
        int mid = (from + to) >>> 1;
        int lower = size(mid - from);
        if (lower <= 255) {
            op(JGE_K, lower, 0, ranges.get(mid)[0]);
        } else {
            op(JGE_K, 0, 1, ranges.get(mid)[0]);
            op(JA, 0, 0, lower);
        }
        tree(ranges, from, mid);
        tree(ranges, mid, to);
    }

    /** The instructions {@link #tree} writes for {@code n} ranges. */
    private static int size(int n) {
        if (n == 1) {
            return 1;
        }
        int lower = size(n / 2);
        return 1 + (lower <= 255 ? 0 : 1) + lower + size(n - n / 2);
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
