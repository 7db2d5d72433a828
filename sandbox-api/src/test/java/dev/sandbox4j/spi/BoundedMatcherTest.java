package dev.sandbox4j.spi;

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

    @Test
    void catastrophicPattern_failsPatternTooExpensive_namingFileAndLine() {
        Assertions.assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            BoundedMatcher m = new BoundedMatcher(Pattern.compile("(a+)+$"));
            SandboxException e = catchThrowableOfType(() -> m.find(BOMB, "r.txt", 7), SandboxException.class);
            assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT);
            assertThat(e.getMessage()).startsWith("pattern too expensive").contains("r.txt line 7")
                    .contains("character reads");
        });
    }

    @Test
    void ordinaryPatterns_onLongLines_stayInsideTheBudget() {
        BoundedMatcher m = new BoundedMatcher(Pattern.compile("a+!$"));
        assertThat(m.find(BOMB, "r.txt", 1)).isTrue();
        assertThat(new BoundedMatcher(Pattern.compile("\\w+\\s*=\\s*\\d+")).find("x".repeat(2000) + " = 42", "f", 1))
                .isTrue();
        assertThat(new BoundedMatcher(Pattern.compile("a.*z")).find("a".repeat(1000), "f", 1)).isFalse();
        assertThat(new BoundedMatcher(Pattern.compile("needle")).find("hay".repeat(1_000_000), "f", 1)).isFalse();
    }

    @Test
    void deepRecursion_inTheEngine_isReportedNotThrownAsAnError() {
        // (a|b)* recurses once per character in java.util.regex: a long enough line overflows the stack
        BoundedMatcher m = new BoundedMatcher(Pattern.compile("(a|b)*c"));
        Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> m.find("ab".repeat(500_000), "f", 3));
        if (t != null) {
            assertThat(t).isInstanceOf(SandboxException.class).hasMessageStartingWith("pattern too expensive")
                    .hasMessageContaining("f line 3");
        }
    }

    @Test
    void theCallClock_boundsManyLinesEachUnderTheirOwnBudget() {
        BoundedMatcher m = new BoundedMatcher(Pattern.compile("a.*b"), 200);
        String line = "a".repeat(1000); // quadratic, ~500,000 reads: under the per-line budget, not free
        long start = System.nanoTime();
        SandboxException e = null;
        for (int i = 1; i <= 100_000 && e == null; i++) {
            try {
                m.find(line, "many.txt", i);
            } catch (SandboxException x) {
                e = x;
            }
        }
        assertThat(e).as("the 200 ms clock must stop the call").isNotNull();
        assertThat(e.getMessage()).startsWith("pattern too expensive").contains("many.txt line").contains("200 ms");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }
}
