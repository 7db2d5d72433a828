package dev.sandbox4j.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.Edit;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
import java.util.List;
import org.junit.jupiter.api.Test;

class TextEditsTest {
    @Test
    void replaceUnique_oneMatch_replaces() {
        assertThat(TextEdits.replaceUnique("f", "a b c", "b", "B")).isEqualTo("a B c");
    }

    @Test
    void replaceUnique_noMatch_noMatchError() {
        assertThatThrownBy(() -> TextEdits.replaceUnique("f", "abc", "x", "y"))
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.NO_MATCH));
    }

    @Test
    void replaceUnique_threeMatches_ambiguousSaysHowMany() {
        assertThatThrownBy(() -> TextEdits.replaceUnique("f", "x x x", "x", "y"))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.AMBIGUOUS_MATCH);
                    assertThat(e.getMessage()).startsWith("3 matches");
                });
    }

    @Test
    void applyAll_secondEditFails_wholeEditFailsNamingIt() {
        assertThatThrownBy(() -> TextEdits.applyAll("f", "one two", List.of(new Edit("one", "1"), new Edit("zzz", "2"))))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.NO_MATCH);
                    assertThat(e.getMessage()).startsWith("edit 2 of 2");
                });
    }

    @Test
    void unifiedDiff_singleChange_standardHunk() {
        String before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        String after = "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n";

        assertThat(TextEdits.unifiedDiff("f.txt", before, after)).isEqualTo(
                "--- a/f.txt\n+++ b/f.txt\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n");
    }

    @Test
    void unifiedDiff_farApartChanges_twoHunks_andMissingFinalNewline() {
        StringBuilder before = new StringBuilder();
        for (int i = 1; i <= 20; i++) {
            before.append(i).append('\n');
        }
        String after = before.toString().replace("2\n", "two\n").replace("\n20\n", "\n20");
        String diff = TextEdits.unifiedDiff("f", before.toString(), after);

        assertThat(diff).contains("@@ -1,5 +1,5 @@").contains("@@ -17,4 +17,4 @@")
                .contains("-20\n+20\n\\ No newline at end of file\n");
    }

    @Test
    void unifiedDiff_insertionIntoEmpty() {
        assertThat(TextEdits.unifiedDiff("f", "", "a\n")).isEqualTo("--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+a\n");
        assertThat(TextEdits.unifiedDiff("f", "same", "same")).isEmpty();
    }
}
