package dev.sandbox4j.core;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs {@code grep}'s {@link java.util.regex} matching with bounded work, the same on every backend. The JDK's
 * engine backtracks: {@code (a+)+$} on 50,000 {@code a}s followed by {@code !} never returns, and a long line can
 * overflow its recursion. sandbox-api may not depend on a linear-time engine (RE2/J), so the work is counted
 * instead: the text is handed to the matcher as a {@link CharSequence} that counts every character the engine
 * reads and gives up past the budget.
 *
 * <p>The budget, documented in {@link dev.sandbox4j.GrepOptions}: per line (or per window of a long line),
 * {@value #BASE_STEPS} + {@value #STEPS_PER_CHAR} x (its length) character reads (ample for any pattern that does not
 * backtrack catastrophically: a plain search reads each character a few times). Past it, {@link #find} throws
 * {@link ErrorKind#INVALID_ARGUMENT} with a message starting {@code "pattern too expensive"} that names the file and
 * line; the caller returns nothing partial. The call's time budget ({@link dev.sandbox4j.GrepOptions#timeBudget()})
 * is not an error: once it has passed, {@link #find} returns false and {@link #timedOut()} true, and the caller
 * returns its partial results marked as such. One instance serves one grep call (its clock starts when it is made);
 * not thread-safe.
 */
public final class BoundedMatcher {
    static final long BASE_STEPS = 1_000_000L;
    static final long STEPS_PER_CHAR = 1_000L;
    /** How often (in reads) the clock is looked at: reading it on every character would cost more than the match. */
    private static final int CLOCK_EVERY = 1 << 16;

    private final Pattern pattern;
    private final long deadline;
    private final Counted text = new Counted();
    private final Matcher matcher;
    private boolean timedOut;

    /** A matcher whose call may match for {@code timeBudget} in all. */
    public BoundedMatcher(Pattern pattern, Duration timeBudget) {
        this.pattern = pattern;
        long nanos = timeBudget.compareTo(Duration.ofDays(365)) > 0 ? Duration.ofDays(365).toNanos()
                : timeBudget.toNanos();
        this.deadline = System.nanoTime() + nanos;
        this.matcher = pattern.matcher(text);
        matcher.useAnchoringBounds(false).useTransparentBounds(true);
    }

    /**
     * Whether the pattern occurs in {@code line} ({@link java.util.regex.Matcher#find()}); false also once the time
     * budget has passed (see {@link #timedOut()}).
     *
     * @throws SandboxException {@link ErrorKind#INVALID_ARGUMENT} "pattern too expensive: ..." past the budget
     */
    public boolean find(String line, String file, long lineNumber) {
        char[] chars = line.toCharArray();
        return find(chars, 0, 0, chars.length, chars.length, file, lineNumber);
    }

    /**
     * Whether the pattern occurs in {@code chars[from, to)}, a line or a window of a long line. The characters in
     * {@code [contextStart, from)} and {@code [to, contextEnd)} are seen by look-arounds and keep {@code ^} and
     * {@code $} from matching at a window's edge (pass {@code contextStart == from} at the line's real start and
     * {@code contextEnd == to} at its real end). After a true answer, {@link #start()} and {@link #end()} give the
     * match, as indexes into {@code chars}.
     *
     * @throws SandboxException {@link ErrorKind#INVALID_ARGUMENT} "pattern too expensive: ..." past the budget
     */
    public boolean find(char[] chars, int contextStart, int from, int to, int contextEnd, String file,
                        long lineNumber) {
        if (timedOut) {
            return false;
        }
        long budget = BASE_STEPS + STEPS_PER_CHAR * (to - from);
        text.set(chars, contextStart, contextEnd - contextStart, budget);
        matcher.reset(text);
        matcher.region(from - contextStart, to - contextStart);
        try {
            return matcher.find();
        } catch (OverBudget e) {
            if (e.timedOut) {
                timedOut = true;
                return false;
            }
            throw tooExpensive(file, lineNumber, "it needed more than " + budget + " character reads on that line");
        } catch (StackOverflowError e) {
            throw tooExpensive(file, lineNumber, "the regex engine ran out of stack on that line");
        }
    }

    /** Start of the last match, an index into the array given to {@link #find}. */
    public int start() {
        return text.offset + matcher.start();
    }

    /** End (exclusive) of the last match, an index into the array given to {@link #find}. */
    public int end() {
        return text.offset + matcher.end();
    }

    /** Whether the time budget has passed (looks at the clock now). */
    public boolean checkClock() {
        if (!timedOut && System.nanoTime() - deadline > 0) {
            timedOut = true;
        }
        return timedOut;
    }

    /** Whether the time budget passed during a {@link #find} or a {@link #checkClock()}. */
    public boolean timedOut() {
        return timedOut;
    }

    private SandboxException tooExpensive(String file, long lineNumber, String why) {
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

    /** A slice of a char array that counts the reads of the regex engine; reused for every line of a call. */
    private final class Counted implements CharSequence {
        private char[] chars = new char[0];
        private int offset;
        private int length;
        private long left;
        private int untilClock = CLOCK_EVERY;

        void set(char[] chars, int offset, int length, long budget) {
            this.chars = chars;
            this.offset = offset;
            this.length = length;
            this.left = budget;
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
            return chars[offset + index];
        }

        @Override
        public int length() {
            return length;
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return new String(chars, offset + start, end - start);
        }

        @Override
        public String toString() {
            return new String(chars, offset, length);
        }
    }
}
