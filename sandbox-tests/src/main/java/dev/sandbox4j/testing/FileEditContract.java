package dev.sandbox4j.testing;

import static dev.sandbox4j.testing.Checks.expectError;
import static dev.sandbox4j.testing.Checks.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.Edit;
import dev.sandbox4j.EditResult;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * Editing text in place: {@code replace} and {@code edit}, their diffs, dry runs and all-or-nothing failures. Part of {@link FileSystemContract}, which extends it: every backend that runs the file contract runs these.
 */
public interface FileEditContract extends ConformanceSupport {

    // ---- replace and edit -------------------------------------------------------------------------------------

    @Test
    default void replace_uniqueMatch_replacesAndReturnsDiff(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("app.py", "def f():\n    return 1\n");
        EditResult result = fs.replace("app.py", "return 1", "return 2");
        assertThat(fs.readText("app.py")).isEqualTo("def f():\n    return 2\n");
        assertThat(result.path()).isEqualTo("app.py");
        assertThat(result.edits()).isEqualTo(1);
        assertThat(result.applied()).isTrue();
        assertThat(result.diff()).contains("-    return 1").contains("+    return 2");
    }

    /**
     * Issue 18: a lossy decoding written back turned {@code 41 ff 42} into {@code 43 ef bf bd 42}. Content that is not
     * UTF-8 is refused by replace, edit and dry runs, naming the file and the offset of the first bad byte.
     */
    @Test
    default void replaceAndEdit_notUtf8_failInvalidArgumentAndKeepEveryByte(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        byte[] bytes = {0x41, (byte) 0xff, 0x42};
        byte[] late = {0x41, 0x0a, 0x42, (byte) 0xc3, 0x28, 0x0a}; // a truncated sequence at offset 3
        fs.write("bin.dat", bytes);
        fs.write("late.txt", late);
        List<ThrowingCallable> calls = List.of(
                () -> fs.replace("bin.dat", "A", "C"),
                () -> fs.edit("bin.dat", List.of(new Edit("A", "C"))),
                () -> fs.previewEdit("bin.dat", List.of(new Edit("A", "C"))));
        for (ThrowingCallable call : calls) {
            SandboxException e = expectError(ErrorKind.INVALID_ARGUMENT, call);
            assertThat(e.getMessage()).startsWith("not UTF-8 text").contains("bin.dat").contains("offset 1");
            assertThat(fs.readBytes("bin.dat")).as("unchanged byte for byte").containsExactly(bytes);
        }
        SandboxException e = expectError(ErrorKind.INVALID_ARGUMENT, () -> fs.replace("late.txt", "B", "C"));
        assertThat(e.getMessage()).startsWith("not UTF-8 text").contains("late.txt").contains("offset 3");
        assertThat(fs.readBytes("late.txt")).containsExactly(late);
    }

    @Test
    default void replace_noMatch_failsNoMatchAndChangesNothing(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("a.txt", "hello\n");
        SandboxException e = expectError(ErrorKind.NO_MATCH, () -> fs.replace("a.txt", "absent", "x"));
        assertThat(e.getMessage()).contains("a.txt");
        assertThat(fs.readText("a.txt")).isEqualTo("hello\n");
    }

    @Test
    default void replace_threeMatches_failsAmbiguousSayingHowMany(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("a.txt", "x = 1\nx = 1\nx = 1\n");
        SandboxException e = expectError(ErrorKind.AMBIGUOUS_MATCH, () -> fs.replace("a.txt", "x = 1", "x = 2"));
        // the same words on every backend (a model reads them; a README example matches them)
        assertThat(e.getMessage()).as("the message says how many times").startsWith("3 matches in a.txt for the text"
                + " to replace: ");
        assertThat(fs.readText("a.txt")).isEqualTo("x = 1\nx = 1\nx = 1\n");
    }

    @Test
    default void edit_severalEdits_appliesInOrder(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("f.txt", "alpha\nbeta\ngamma\n");
        EditResult result = fs.edit("f.txt",
                List.of(new Edit("alpha", "ALPHA"), new Edit("ALPHA\nbeta", "ALPHA\nBETA")));
        assertThat(fs.readText("f.txt")).as("the second edit sees the first's result")
                .isEqualTo("ALPHA\nBETA\ngamma\n");
        assertThat(result.edits()).isEqualTo(2);
        assertThat(result.applied()).isTrue();
    }

    @Test
    default void edit_laterEditFails_appliesNone(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("f.txt", "alpha\nbeta\nbeta\n");
        expectError(ErrorKind.NO_MATCH,
                () -> fs.edit("f.txt", List.of(new Edit("alpha", "ALPHA"), new Edit("delta", "DELTA"))));
        assertThat(fs.readText("f.txt")).isEqualTo("alpha\nbeta\nbeta\n");
        SandboxException e = expectError(ErrorKind.AMBIGUOUS_MATCH,
                () -> fs.edit("f.txt", List.of(new Edit("alpha", "ALPHA"), new Edit("beta", "BETA"))));
        assertThat(e.getMessage()).startsWith("edit 2 of 2: 2 matches in f.txt for the text to replace: ")
                .endsWith("(no edit was applied)");
        assertThat(fs.readText("f.txt")).as("all or none").isEqualTo("alpha\nbeta\nbeta\n");
    }

    @Test
    default void edit_dryRun_changesNothingAndShowsDiff(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("f.txt", "alpha\nbeta\ngamma\n");
        Map<String, String> before = snapshot(fs);
        EditResult result = fs.previewEdit("f.txt", List.of(new Edit("beta", "BETA")));
        assertThat(result.applied()).isFalse();
        assertThat(result.edits()).isEqualTo(1);
        assertThat(result.diff()).contains("-beta").contains("+BETA");
        assertThat(snapshot(fs)).isEqualTo(before);
    }

    @Test
    default void edit_diff_isUnifiedDiff(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        StringBuilder text = new StringBuilder();
        for (int i = 1; i <= 30; i++) {
            text.append("line ").append(i).append('\n');
        }
        fs.write("src/f.txt", text.toString());
        EditResult result = fs.edit("src/f.txt",
                List.of(new Edit("line 5\n", "line five\n"), new Edit("line 25\n", "")));
        List<String> lines = Arrays.asList(result.diff().split("\n", -1));
        assertThat(lines.get(0)).isEqualTo("--- a/src/f.txt");
        assertThat(lines.get(1)).isEqualTo("+++ b/src/f.txt");
        assertThat(lines.stream().filter(l -> l.matches("@@ -\\d+(,\\d+)? \\+\\d+(,\\d+)? @@.*")).count())
                .as("two distant changes give two hunks:%n%s", result.diff()).isEqualTo(2);
        assertThat(lines).contains("-line 5", "+line five", "-line 25", " line 4");
        assertThat(lines.stream().filter(l -> l.startsWith("-") && !l.startsWith("---")).count()).isEqualTo(2);
        assertThat(lines.stream().filter(l -> l.startsWith("+") && !l.startsWith("+++")).count()).isEqualTo(1);
        assertThat(result.diff()).doesNotContain("line 15");
    }
}
