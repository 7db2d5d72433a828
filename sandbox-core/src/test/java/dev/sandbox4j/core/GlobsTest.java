package dev.sandbox4j.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
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

    @Test
    void manyStars_onALongName_matchWithoutBacktracking() {
        String name = "a".repeat(300);
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(5), () -> {
            assertThat(Globs.compile("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b").test(name)).isFalse();
            assertThat(Globs.compile("**a**a**a**a**a**a**a**a**a**a**b").test("x/" + name)).isFalse();
            assertThat(Globs.compile("*a*a*a*a*a*a*a*a*a*a*a*a*a*a").test(name)).isTrue();
        });
    }

    @Test
    void semantics_braceNestingEscapesRangesAndDirectories() {
        assertThat(Globs.compile("{a,{b,c}}.txt").test("c.txt")).isTrue();
        assertThat(Globs.compile("{a,{b,c}}.txt").test("d.txt")).isFalse();
        assertThat(Globs.compile("x{a,b").test("xb")).as("an unclosed brace closes at the end").isTrue();
        assertThat(Globs.compile("\\*.txt").test("*.txt")).isTrue();
        assertThat(Globs.compile("\\*.txt").test("a.txt")).isFalse();
        assertThat(Globs.compile("[a-c]x").test("bx")).isTrue();
        assertThat(Globs.compile("[^a-c]x").test("bx")).isFalse();
        assertThat(Globs.compile("a,b").test("a,b")).isTrue();
        assertThat(Globs.compile("[x").test("[x")).isTrue();
        assertThat(Globs.compile("src/**").test("src/a/b")).isTrue();
        assertThat(Globs.compile("src/**").test("srcx/a")).isFalse();
        assertThat(Globs.compile("a/**/b").test("a/b")).isTrue();
        assertThat(Globs.compile("a/**/b").test("a/x/y/b")).isTrue();
        assertThat(Globs.compile("a/**/b").test("a/xb")).isFalse();
        assertThat(Globs.compile("a/?").test("a//")).isFalse();
        assertThat(Globs.compile("a*").test("a/b")).as("a name glob sees the name only").isFalse();
        assertThat(Globs.compile("a/*").test("a/b/c")).isFalse();
    }

    @Test
    void braceBombs_andEmptyClasses_areInvalidArguments() {
        String bomb = "{a,b}".repeat(11); // 2048 alternatives
        assertThatThrownBy(() -> Globs.compile(bomb)).isInstanceOf(SandboxException.class)
                .hasMessageContaining("alternatives")
                .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT);
        assertThatThrownBy(() -> Globs.compile("[!]")).isInstanceOf(SandboxException.class);
        assertThat(Globs.compile("{a,b}".repeat(10)).test("ab".repeat(5))).isTrue();
    }
}
