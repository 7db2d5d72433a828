package dev.sandbox4j.core.seccomp;

import java.util.ArrayList;
import java.util.List;

/**
 * An argument rule: syscall {@code syscall} gets {@code action} when any of {@code when} matches its arguments, and
 * {@code otherwise} when none does. Both are seccomp return values ({@link Policy#ALLOW}, {@link Policy#errno}).
 *
 * <p>Every pattern is {@code (args[arg] & mask) == value}, the one comparison both classic BPF (on 32-bit words) and
 * libseccomp ({@code SCMP_CMP_MASKED_EQ}) do exactly, so both outputs mean the same thing. Masks stay in the low 32
 * bits because the kernel reads these arguments as {@code int}: high bits cannot smuggle a denied value past the
 * filter (the CVE-2019-10063 form of {@code ioctl(TIOCSTI)}).
 */
record ArgRule(String syscall, List<Pattern> when, int action, int otherwise) {
    static final long LOW32 = 0xffff_ffffL;

    ArgRule {
        when = List.copyOf(when);
        if (when.isEmpty() || action == otherwise) {
            throw new IllegalArgumentException(syscall + ": a rule needs patterns and two different actions");
        }
        int arg = when.get(0).arg();
        for (Pattern p : when) {
            if (p.arg() != arg) {
                throw new IllegalArgumentException(syscall + ": patterns of one rule test one argument");
            }
        }
    }

    /** {@code (args[arg] & mask) == value}; value has no bit outside mask, mask none outside the low 32 bits. */
    record Pattern(int arg, long mask, long value) {
        Pattern {
            if (arg < 0 || arg > 5 || (mask & ~LOW32) != 0 || (value & ~mask) != 0) {
                throw new IllegalArgumentException("bad pattern arg" + arg + " mask " + mask + " value " + value);
            }
        }

        static Pattern eq(int arg, long value) {
            return new Pattern(arg, LOW32, value & LOW32);
        }

        static Pattern bit(int arg, long bit) {
            return new Pattern(arg, bit, bit);
        }

        boolean matches(long[] args) {
            return (args[arg] & mask) == value;
        }

        boolean overlaps(Pattern o) {
            long common = mask & o.mask;
            return (value & common) == (o.value & common);
        }

        /** Disjoint patterns covering exactly this pattern's values that {@code o} does not match. */
        List<Pattern> minus(Pattern o) {
            List<Pattern> out = new ArrayList<>();
            if (!overlaps(o)) {
                out.add(this);
                return out;
            }
            long m = mask;
            long v = value;
            for (int b = 31; b >= 0; b--) {
                long bit = 1L << b;
                if ((o.mask & bit) != 0 && (m & bit) == 0) {
                    out.add(new Pattern(arg, m | bit, v | (~o.value & bit)));
                    m |= bit;
                    v |= o.value & bit;
                }
            }
            return out; // what is left (m, v) lies inside o
        }
    }

    /** This rule's decision for these arguments. */
    int decide(long[] args) {
        for (Pattern p : when) {
            if (p.matches(args)) {
                return action;
            }
        }
        return otherwise;
    }

    /** Disjoint patterns matching exactly the arguments none of {@link #when} matches. */
    List<Pattern> otherwisePatterns() {
        List<Pattern> rest = List.of(new Pattern(when.get(0).arg(), 0, 0));
        for (Pattern p : when) {
            List<Pattern> next = new ArrayList<>();
            for (Pattern r : rest) {
                next.addAll(r.minus(p));
            }
            rest = next;
        }
        return rest;
    }
}
