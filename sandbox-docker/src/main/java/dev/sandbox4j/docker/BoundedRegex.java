package dev.sandbox4j.docker;

import dev.sandbox4j.SandboxException;
import dev.sandbox4j.spi.Arguments;

import java.util.regex.Pattern;

/**
 * grep's {@link java.util.regex} matching with bounded work. The JDK's engine backtracks: {@code (a+)+$} on 50,000
 * {@code a}s followed by {@code !} never returns. The line is handed to the matcher as a {@link CharSequence} that
 * counts every character the engine reads and gives up past the budget: per line, {@value #BASE_STEPS} +
 * {@value #STEPS_PER_CHAR} x (line length) reads (ample for a pattern that does not backtrack catastrophically); per
 * grep call, {@value #CALL_MILLIS} ms of matching in all. Past either (or when the engine runs out of stack), the
 * call fails with {@code INVALID_ARGUMENT} "pattern too expensive: ..." naming the file and line, and grep returns
 * nothing partial. One instance serves one grep call (its clock starts when it is made); not thread-safe.
 */
final class BoundedRegex {
    static final long BASE_STEPS = 1_000_000L;
    static final long STEPS_PER_CHAR = 1_000L;
    static final long CALL_MILLIS = 10_000L;
    /** How often (in reads) the clock is looked at. */
    private static final int CLOCK_EVERY = 1 << 16;

    private final Pattern pattern;
    private final long deadline;

    BoundedRegex(Pattern pattern) {
        this.pattern = pattern;
        this.deadline = System.nanoTime() + CALL_MILLIS * 1_000_000L;
    }

    /** Whether the pattern occurs in {@code line}; INVALID_ARGUMENT "pattern too expensive" past the budget. */
    boolean find(String line, String file, int lineNumber) {
        long budget = BASE_STEPS + STEPS_PER_CHAR * line.length();
        try {
            return pattern.matcher(new Counted(line, budget, deadline)).find();
        } catch (OverBudget e) {
            throw tooExpensive(file, lineNumber, e.timedOut ? "grep spent more than " + CALL_MILLIS
                    + " ms matching in all" : "it needed more than " + budget + " character reads on that line");
        } catch (StackOverflowError e) {
            throw tooExpensive(file, lineNumber, "the regex engine ran out of stack on that line");
        }
    }

    private SandboxException tooExpensive(String file, int lineNumber, String why) {
        return Arguments.invalid("pattern too expensive: '" + pattern.pattern() + "' on " + file + " line "
                + lineNumber + ": " + why + "; simplify the pattern (nested quantifiers such as (a+)+ backtrack"
                + " exponentially) or search fewer files");
    }

    /** Thrown from inside the regex engine to abandon the match; no stack trace (it is control flow). */
    private static final class OverBudget extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final boolean timedOut;

        OverBudget(boolean timedOut) {
            super(null, null, false, false);
            this.timedOut = timedOut;
        }
    }

    /** A line that counts the reads of the regex engine. */
    private static final class Counted implements CharSequence {
        private final String text;
        private final long deadline;
        private long left;
        private int untilClock = CLOCK_EVERY;

        Counted(String text, long budget, long deadline) {
            this.text = text;
            this.left = budget;
            this.deadline = deadline;
        }

        @Override
        public char charAt(int index) {
            if (--left < 0) {
                throw new OverBudget(false);
            }
            if (--untilClock <= 0) {
                untilClock = CLOCK_EVERY;
                if (System.nanoTime() - deadline > 0) {
                    throw new OverBudget(true);
                }
            }
            return text.charAt(index);
        }

        @Override
        public int length() {
            return text.length();
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return text.subSequence(start, end);
        }

        @Override
        public String toString() {
            return text;
        }
    }
}
