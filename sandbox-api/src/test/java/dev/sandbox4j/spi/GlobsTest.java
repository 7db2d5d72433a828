package dev.sandbox4j.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class GlobsTest {
    @Test
    void nameGlob_matchesAtAnyDepth() {
        assertThat(Globs.compile("*.py").test("a/b/c.py")).isTrue();
        assertThat(Globs.compile("*.py").test("c.pyc")).isFalse();
    }

    @Test
    void pathGlobs_starStaysInSegment_doubleStarCrosses() {
        assertThat(Globs.compile("src/*.java").test("src/A.java")).isTrue();
        assertThat(Globs.compile("src/*.java").test("src/x/A.java")).isFalse();
        assertThat(Globs.compile("src/**/*.java").test("src/A.java")).isTrue();
        assertThat(Globs.compile("src/**/*.java").test("src/x/y/A.java")).isTrue();
        assertThat(Globs.compile("**/test/**").test("a/test/b.txt")).isTrue();
    }

    @Test
    void classesAlternativesAndQuestionMark() {
        assertThat(Globs.compile("*.{js,ts}").test("x.ts")).isTrue();
        assertThat(Globs.compile("file?.[ch]").test("file1.c")).isTrue();
        assertThat(Globs.compile("file?.[!ch]").test("file1.c")).isFalse();
        assertThat(Globs.compile("a+b(c).txt").test("a+b(c).txt")).isTrue();
        assertThat(Globs.any(List.of()).test("x")).isFalse();
    }
}
