package dev.sandbox4j.spi;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
import java.util.regex.Pattern;

/**
 * Runs {@code grep}'s {@link java.util.regex} matching with bounded work, the same on every backend. The JDK's
 * engine backtracks: {@code (a+)+$} on 50,000 {@code a}s followed by {@code !} never returns, and a long line can
 * overflow its recursion. sandbox-api may not depend on a linear-time engine (RE2/J), so the work is counted
 * instead: the line is handed to the matcher as a {@link CharSequence} that counts every character the engine
 * reads and gives up past the budget.
 *
 * <p>The budget, documented in {@link dev.sandbox4j.GrepOptions}: per line, {@value #BASE_STEPS} +
 * {@value #STEPS_PER_CHAR} x (line length) character reads (ample for any pattern that does not backtrack
 * catastrophically: a plain search reads each character a few times); per call, {@value #CALL_MILLIS} ms of matching
 * in all. Past either, {@link #find} throws {@link ErrorKind#INVALID_ARGUMENT} with a message starting
 * {@code "pattern too expensive"} that names the file and line; the caller returns nothing partial. One instance
 * serves one grep call (its clock starts when it is made); not thread-safe.
 */
public final class BoundedMatcher {
    static final long BASE_STEPS = 1_000_000L;
    static final long STEPS_PER_CHAR = 1_000L;
    static final long CALL_MILLIS = 10_000L;
    /** How often (in reads) the clock is looked at: reading it on every character would cost more than the match. */
    private static final int CLOCK_EVERY = 1 << 16;

    private final Pattern pattern;
    private final long deadline;
    private final long callMillis;

    public BoundedMatcher(Pattern pattern) {
        this(pattern, CALL_MILLIS);
    }

    BoundedMatcher(Pattern pattern, long callMillis) {
        this.pattern = pattern;
        this.callMillis = callMillis;
        this.deadline = System.nanoTime() + callMillis * 1_000_000L;
    }

    /**
     * Whether the pattern occurs in {@code line} ({@link java.util.regex.Matcher#find()}).
     *
     * @throws SandboxException {@link ErrorKind#INVALID_ARGUMENT} "pattern too expensive: ..." past the budget
     */
    public boolean find(String line, String file, int lineNumber) {
        long budget = BASE_STEPS + STEPS_PER_CHAR * line.length();
        Counted text = new Counted(line, budget, deadline);
        try {
            return pattern.matcher(text).find();
        } catch (OverBudget e) {
            throw tooExpensive(file, lineNumber, e.timedOut ? "grep spent more than " + callMillis
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
