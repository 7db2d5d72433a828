package dev.sandbox4j.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
import java.time.Duration;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

class BoundedMatcherTest {
    private static final String BOMB = "a".repeat(50_000) + "!";
    private static final Duration LONG = Duration.ofSeconds(30);

    @Test
    void catastrophicPattern_failsPatternTooExpensive_namingFileAndLine() {
        Assertions.assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            BoundedMatcher m = new BoundedMatcher(Pattern.compile("(a+)+$"), LONG);
            SandboxException e = catchThrowableOfType(() -> m.find(BOMB, "r.txt", 7), SandboxException.class);
            assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT);
            assertThat(e.getMessage()).startsWith("pattern too expensive").contains("r.txt line 7")
                    .contains("character reads");
        });
    }

    @Test
    void ordinaryPatterns_onLongLines_stayInsideTheBudget() {
        BoundedMatcher m = new BoundedMatcher(Pattern.compile("a+!$"), LONG);
        assertThat(m.find(BOMB, "r.txt", 1)).isTrue();
        assertThat(new BoundedMatcher(Pattern.compile("\\w+\\s*=\\s*\\d+"), LONG).find("x".repeat(2000) + " = 42", "f", 1))
                .isTrue();
        assertThat(new BoundedMatcher(Pattern.compile("a.*z"), LONG).find("a".repeat(1000), "f", 1)).isFalse();
        assertThat(new BoundedMatcher(Pattern.compile("needle"), LONG).find("hay".repeat(1_000_000), "f", 1)).isFalse();
    }

    @Test
    void deepRecursion_inTheEngine_isReportedNotThrownAsAnError() {
        // (a|b)* recurses once per character in java.util.regex: a long enough line overflows the stack
        BoundedMatcher m = new BoundedMatcher(Pattern.compile("(a|b)*c"), LONG);
        Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> m.find("ab".repeat(500_000), "f", 3));
        if (t != null) {
            assertThat(t).isInstanceOf(SandboxException.class).hasMessageStartingWith("pattern too expensive")
                    .hasMessageContaining("f line 3");
        }
    }

    @Test
    void theTimeBudget_stopsManyLinesEachUnderTheirOwnBudget_withoutAnError() {
        BoundedMatcher m = new BoundedMatcher(Pattern.compile("a.*b"), Duration.ofMillis(200));
        String line = "a".repeat(1000); // quadratic, ~500,000 reads: under the per-line budget, not free
        long start = System.nanoTime();
        int lines = 0;
        while (lines < 100_000 && !m.timedOut()) {
            assertThat(m.find(line, "many.txt", ++lines)).isFalse();
        }
        assertThat(m.timedOut()).as("the 200 ms budget must stop the call").isTrue();
        assertThat(lines).as("it stopped early").isLessThan(100_000);
        assertThat(m.find("ab", "many.txt", lines + 1)).as("nothing matches after the budget").isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void aWindow_keepsAnchorsAtTheRealLineEdgesOnly() {
        BoundedMatcher m = new BoundedMatcher(Pattern.compile("^ab|cd$"), LONG);
        char[] c = "xabcdx".toCharArray();
        assertThat(m.find(c, 0, 1, 5, 6, "f", 1)).as("^ and $ must not match at a window's edge").isFalse();
        assertThat(m.find(c, 1, 1, 5, 5, "f", 1)).as("at the line's real edges they do").isTrue();
        assertThat(m.start()).isEqualTo(1);
        assertThat(m.end()).isEqualTo(3);
    }
}
