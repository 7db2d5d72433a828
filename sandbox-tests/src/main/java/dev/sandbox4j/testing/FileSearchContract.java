package dev.sandbox4j.testing;

import static dev.sandbox4j.testing.Checks.expectError;
import static dev.sandbox4j.testing.Checks.generated;
import static dev.sandbox4j.testing.Checks.grepPaths;
import static dev.sandbox4j.testing.Checks.paths;
import static dev.sandbox4j.testing.Checks.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.GrepMatch;
import dev.sandbox4j.GrepOptions;
import dev.sandbox4j.GrepResult;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Listing, finding and searching the workspace: {@code list}, {@code find} and {@code grep} with their bounds (depth,
 * results, time and file size budgets, pathological patterns). Part of {@link FileSystemContract}, which extends it: every backend that runs the file contract runs these.
 */
public interface FileSearchContract extends ConformanceSupport {

    // ---- list ----------------------------------------------------------------------------------------------------

    @Test
    default void list_depthOne_returnsDirectChildrenSorted(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("b.txt", "b");
        fs.write("a/x.txt", "x");
        fs.write("c/d/e.txt", "e");
        fs.write(".hidden", "h");

        List<FileInfo> list = fs.list("");
        assertThat(paths(list)).as("default list: depth 1, hidden included, sorted")
                .containsExactly(".hidden", "a", "b.txt", "c");
        assertThat(list.get(1)).matches(FileInfo::isDirectory, "isDirectory");
        assertThat(list.get(2)).matches(FileInfo::isFile, "isFile");
        assertThat(list.get(2).size()).isEqualTo(1);
        assertThat(paths(fs.list("c"))).as("children of a subdirectory, workspace-relative").containsExactly("c/d");
    }

    @Test
    default void list_depthTwo_includesGrandchildrenOnly(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("a/x.txt", "x");
        fs.write("c/d/e.txt", "e");
        fs.write("top.txt", "t");
        assertThat(paths(fs.list("", 2))).containsExactly("a", "a/x.txt", "c", "c/d", "top.txt");
        assertThat(paths(fs.list("", 3))).containsExactly("a", "a/x.txt", "c", "c/d", "c/d/e.txt", "top.txt");
    }

    @Test
    default void list_hiddenExcluded_skipsDotEntriesAndTheirSubtrees(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write(".git/config", "c");
        fs.write(".env", "SECRET=1");
        fs.write("src/.cache/x", "x");
        fs.write("src/main.py", "print()");
        assertThat(paths(fs.listVisible("", 5))).containsExactly("src", "src/main.py");
        assertThat(paths(fs.list("", 5)))
                .containsExactly(".env", ".git", ".git/config", "src", "src/.cache", "src/.cache/x", "src/main.py");
    }

    @Test
    default void list_sortedByPath_isInPathOrder(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        for (String name : List.of("zeta", "Alpha", "beta", "10", "9", "_u")) {
            fs.write(name, name);
        }
        List<String> listed = paths(fs.list(""));
        assertThat(listed).hasSize(6);
        assertThat(listed).as("sorted by path (String order)").isSortedAccordingTo(Comparator.naturalOrder());
    }

    @Test
    default void list_emptyDirectory_returnsEmpty(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        assertThat(fs.list("")).as("a fresh workspace is empty").isEmpty();
        fs.mkdirs("empty");
        assertThat(fs.list("empty")).isEmpty();
    }

    @Test
    default void list_aFile_failsNotADirectory(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("f.txt", "x");
        expectError(ErrorKind.NOT_A_DIRECTORY, () -> fs.list("f.txt"));
    }

    @Test
    default void list_missing_failsNotFound(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        SandboxException e = expectError(ErrorKind.NOT_FOUND, () -> fs.list("nodir"));
        assertThat(e.getMessage()).contains("nodir");
    }

    // ---- find ------------------------------------------------------------------------------------------------------

    @Test
    default void find_globWithoutSlash_matchesNameAtAnyDepth(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("a.py", "");
        fs.write("pkg/b.py", "");
        fs.write("pkg/sub/c.py", "");
        fs.write("pkg/sub/c.pyc", "");
        fs.write("notes.txt", "");
        assertThat(fs.find("*.py", "", List.of())).containsExactly("a.py", "pkg/b.py", "pkg/sub/c.py");
    }

    @Test
    default void find_doubleStarGlob_matchesAcrossSegments(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("src/main/java/App.java", "");
        fs.write("src/main/java/util/Strings.java", "");
        fs.write("src/test/AppTest.java", "");
        fs.write("src/README.md", "");
        assertThat(fs.find("**/*.java", "", List.of()))
                .containsExactly("src/main/java/App.java", "src/main/java/util/Strings.java", "src/test/AppTest.java");
        assertThat(fs.find("src/*/AppTest.java", "", List.of())).containsExactly("src/test/AppTest.java");
        assertThat(fs.find("*.{md,java}", "", List.of())).hasSize(4);
        assertThat(fs.find("App?ava", "", List.of())).as("? is one character").isEmpty();
        assertThat(fs.find("App.jav?", "", List.of())).containsExactly("src/main/java/App.java");
    }

    @Test
    default void find_underSubdirectory_returnsWorkspaceRelativePaths(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("src/a/B.java", "");
        fs.write("other/C.java", "");
        assertThat(fs.find("*.java", "src", List.of())).containsExactly("src/a/B.java");
    }

    @Test
    default void find_excludes_skipsMatchingSubtrees(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("app.js", "");
        fs.write("node_modules/lib/index.js", "");
        fs.write("web/node_modules/x.js", "");
        fs.write("build/out/gen.js", "");
        fs.write("web/main.js", "");
        assertThat(fs.find("*.js", "", List.of("node_modules", "build")))
                .containsExactly("app.js", "web/main.js");
        assertThat(fs.find("*.js", "", List.of())).hasSize(5);
    }

    @Test
    default void find_directories_areMatchedToo(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("a/tests/x.txt", "");
        fs.write("b/tests/y.txt", "");
        assertThat(fs.find("tests", "", List.of())).containsExactly("a/tests", "b/tests");
    }

    // ---- grep ------------------------------------------------------------------------------------------------------

    @Test
    default void grep_regex_returnsPathLineNumberAndLine(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("src/a.py", "import os\ndef main():\n    return 42\n");
        fs.write("src/b.py", "x = 1\ndef helper(): pass\n");
        fs.write("README.md", "nothing here\n");
        List<GrepMatch> matches = sorted(fs.grep("^def \\w+\\(", "").matches());
        assertThat(matches).containsExactly(
                new GrepMatch("src/a.py", 2, "def main():"),
                new GrepMatch("src/b.py", 2, "def helper(): pass"));
    }

    /**
     * Issue 18: {@code (a+)+$} on 50,000 {@code a}s and a {@code !} never returned. Every backend bounds the regex
     * work (see {@link GrepOptions}) and fails with INVALID_ARGUMENT "pattern too expensive", naming file and line,
     * returning nothing partial; an ordinary pattern on the same line still matches.
     */
    @Test
    default void grep_catastrophicBacktracking_failsPatternTooExpensiveInBoundedTime(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("a.txt", "harmless\n");
        fs.write("r.txt", "ok\n" + "a".repeat(50_000) + "!");
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            for (String path : List.of("", "r.txt")) {
                SandboxException e = expectError(ErrorKind.INVALID_ARGUMENT, () -> fs.grep("(a+)+$", path));
                assertThat(e.getMessage()).startsWith("pattern too expensive").contains("r.txt").contains("line 2");
            }
            assertThat(fs.grep("a+!$", "").matches()).extracting(GrepMatch::path, GrepMatch::lineNumber)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("r.txt", 2));
        }, "grep must give up on a catastrophic pattern instead of hanging");
    }

    /** Globs are matched without backtracking: many stars against a long name answer at once. */
    @Test
    default void find_manyStarsOnLongName_answersPromptly(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        String name = "a".repeat(200);
        fs.write(name, "x");
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            assertThat(fs.find("*a*a*a*a*a*a*a*a*a*a*a*a*b", "", List.of())).isEmpty();
            assertThat(fs.find("*a*a*a*a*a*a*a*a*a*a*a*a", "", List.of())).containsExactly(name);
            assertThat(fs.grep("x", "", GrepOptions.defaults().withIncludes("*a*a*a*a*a*a*a*a*a*a*a*a*b"))
                    .matches()).isEmpty();
        }, "a glob must not backtrack");
    }

    @Test
    default void grep_singleFile_searchesOnlyIt(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("a.txt", "needle\nhay\nneedle again\n");
        fs.write("b.txt", "needle\n");
        assertThat(sorted(fs.grep("needle", "a.txt").matches())).containsExactly(
                new GrepMatch("a.txt", 1, "needle"), new GrepMatch("a.txt", 3, "needle again"));
    }

    @Test
    default void grep_includeAndExcludeGlobs_filterFiles(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("a.py", "TODO py\n");
        fs.write("b.js", "TODO js\n");
        fs.write("vendor/c.py", "TODO vendored\n");
        assertThat(grepPaths(fs.grep("TODO", "", GrepOptions.defaults().withIncludes("*.py"))))
                .containsExactlyInAnyOrder("a.py", "vendor/c.py");
        assertThat(grepPaths(fs.grep("TODO", "", GrepOptions.defaults().withIncludes("*.py").withExcludes("vendor"))))
                .containsExactly("a.py");
        assertThat(grepPaths(fs.grep("TODO", "", GrepOptions.defaults().withExcludes("*.js", "vendor"))))
                .containsExactly("a.py");
    }

    @Test
    default void grep_caseInsensitive_matchesAnyCase(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("a.txt", "Error one\nERROR two\nerror three\nfine\n");
        assertThat(fs.grep("error", "a.txt").matches()).hasSize(1);
        assertThat(fs.grep("error", "a.txt", GrepOptions.defaults().withCaseInsensitive(true)).matches())
                .hasSize(3);
    }

    @Test
    default void grep_maxResults_stopsThereAndSaysTruncated(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("many.txt", "hit\n".repeat(50));
        fs.write("more.txt", "hit\n".repeat(50));
        GrepResult capped = fs.grep("hit", "", GrepOptions.defaults().withMaxResults(7));
        assertThat(capped.matches()).hasSize(7);
        assertThat(capped.truncated()).as("the cap was reached").isTrue();
        assertThat(capped.isComplete()).isFalse();
        GrepResult all = fs.grep("hit", "");
        assertThat(all.matches()).hasSize(100);
        assertThat(all.truncated()).isFalse();
        assertThat(all.isComplete()).isTrue();
    }

    /**
     * With a cap, every backend returns the same first matches: files in walk order (depth first, names sorted, a
     * directory's files before the names that sort after it), lines in file order.
     */
    @Test
    default void grep_maxResults_takesTheFirstMatchesInWalkOrder(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        for (String f : List.of("b.txt", "a.txt", "a-b.txt", "a/z.txt", "a/b/c.txt", "A.txt")) {
            fs.write(f, "hit 1\nmiss\nhit 2\n");
        }
        GrepResult capped = fs.grep("hit", "", GrepOptions.defaults().withMaxResults(5));
        assertThat(capped.matches()).extracting(m -> m.path() + ":" + m.lineNumber()).containsExactly(
                "A.txt:1", "A.txt:3", "a/b/c.txt:1", "a/b/c.txt:3", "a/z.txt:1");
        assertThat(capped.truncated()).isTrue();
        assertThat(fs.grep("hit", "").matches()).extracting(m -> m.path()).containsExactly("A.txt", "A.txt",
                "a/b/c.txt", "a/b/c.txt", "a/z.txt", "a/z.txt", "a-b.txt", "a-b.txt", "a.txt", "a.txt", "b.txt",
                "b.txt");
    }

    /** Issue 17: a NUL-holding file is reported as binary, never silently absent; grep of it alone is an error. */
    @Test
    default void grep_binaryFile_isReportedAsBinary(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("text.txt", "needle\n");
        byte[] binary = utf8("needle\n\0\1\2needle\n");
        fs.write("blob.bin", binary);
        GrepResult r = fs.grep("needle", "");
        assertThat(grepPaths(r)).containsExactly("text.txt");
        assertThat(r.skipped()).extracting(GrepResult.Skipped::path, GrepResult.Skipped::reason)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("blob.bin", GrepResult.Reason.BINARY));
        assertThat(r.skippedCount()).isEqualTo(1);
        assertThat(r.isComplete()).isFalse();
        SandboxException e = expectError(ErrorKind.INVALID_ARGUMENT, () -> fs.grep("needle", "blob.bin"));
        assertThat(e.getMessage()).contains("blob.bin").contains("is binary");
    }

    /** Issue 17: grep searched nothing over 16 MiB and said nothing; a match at the end of 100 MB is found. */
    @Test
    default void grep_matchAtTheEndOfA100MbFile_isFound(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        long size = 100L << 20;
        fs.write("big.txt", generated(size, "hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay\n",
                "\nneedle at the end\n"));
        assertThat(fs.stat("big.txt").size()).isEqualTo(size);
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            for (String path : List.of("", "big.txt")) {
                GrepResult r = fs.grep("needle", path);
                assertThat(r.matches()).as("grep of '%s'", path).extracting(GrepMatch::path, GrepMatch::line)
                        .containsExactly(org.assertj.core.groups.Tuple.tuple("big.txt", "needle at the end"));
                assertThat(r.matches().get(0).lineNumber()).isEqualTo((int) (size / 60) + 2);
                assertThat(r.isComplete()).as("%s", r.skipped()).isTrue();
            }
        });
    }

    /**
     * Issue 17: a 50 MB file of one line is searched in bounded memory (windows of the line, not the whole line as a
     * String), and the reported text is an excerpt around the match with markers saying how much was cut.
     */
    @Test
    default void grep_50MbSingleLine_findsTheMatchWithCappedText(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        long size = 50L << 20;
        String tail = "needle" + "z".repeat(3000);
        fs.write("one-line.json", generated(size, "{\"k\":[1,2,3]},", tail));
        GrepResult r = fs.grep("needle", "one-line.json");
        assertThat(r.matches()).hasSize(1);
        GrepMatch m = r.matches().get(0);
        assertThat(m.lineNumber()).isEqualTo(1);
        long before = size - tail.length() - 200;
        assertThat(m.line()).startsWith("[... " + before + " chars cut] ").contains(",needle")
                .endsWith(" [... " + (tail.length() - 6 - (2000 - 200 - 6)) + " chars cut]");
        assertThat(m.line().length()).as("capped at 2,000 characters plus the markers").isLessThan(2100);
        assertThat(fs.grep("^\\{", "one-line.json").matches()).as("^ matches once, at the line's start")
                .hasSize(1);
        assertThat(fs.grep("z$", "one-line.json").matches()).as("$ at the real end").hasSize(1);
        assertThat(fs.grep("\\}$", "one-line.json").matches()).as("never at a window's edge").isEmpty();
    }

    /** Issue 17: the time budget returns the matches found so far, and says which files it did not finish. */
    @Test
    default void grep_timeBudget_returnsPartialResultsMarkedAsSuch(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        List<String> files = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String name = String.format("f%02d.txt", i);
            fs.write(name, "needle\n");
            files.add(name);
        }
        // a.*b on a line of 1,000 a's reads ~500,000 characters: inside the per-line budget, slow in bulk (seconds)
        fs.write("f05-slow.txt", ("a".repeat(1000) + "\n").repeat(3000));
        files.add("f05-slow.txt");
        GrepOptions options = GrepOptions.defaults().withTimeBudget(Duration.ofMillis(300));
        long start = System.nanoTime();
        GrepResult r = fs.grep("needle|a.*b", "", options);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(r.timedOut()).as("the budget ran out: %s", r).isTrue();
        assertThat(r.isComplete()).isFalse();
        assertThat(took).as("it returned soon after the budget").isLessThan(Duration.ofSeconds(10));
        List<String> skippedPaths = r.skipped().stream().map(GrepResult.Skipped::path).collect(Collectors.toList());
        assertThat(r.skipped()).extracting(GrepResult.Skipped::reason).containsOnly(GrepResult.Reason.TIME_BUDGET);
        assertThat(skippedPaths).as("the slow file was not finished").contains("f05-slow.txt");
        assertThat(r.skippedCount()).isEqualTo(r.skipped().size());
        List<String> accounted = new ArrayList<>(grepPaths(r));
        accounted.addAll(skippedPaths);
        assertThat(accounted).as("every file either matched or is reported as not searched")
                .containsExactlyInAnyOrderElementsOf(files);
        assertThat(fs.grep("needle", "f00.txt", options).isComplete()).as("a quick search is complete").isTrue();
    }

    /** Issue 17: a size cap is the caller's choice, and what it skips is reported (TOO_LARGE alone). */
    @Test
    default void grep_maxFileBytes_reportsTooLarge(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("small.txt", "needle\n");
        fs.write("large.txt", "x".repeat(2000) + "\nneedle\n");
        GrepOptions capped = GrepOptions.defaults().withMaxFileBytes(1000);
        GrepResult r = fs.grep("needle", "", capped);
        assertThat(grepPaths(r)).containsExactly("small.txt");
        assertThat(r.skipped()).extracting(GrepResult.Skipped::path, GrepResult.Skipped::reason)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("large.txt", GrepResult.Reason.TOO_LARGE));
        assertThat(r.skipped().get(0).detail()).contains("2008");
        expectError(ErrorKind.TOO_LARGE, () -> fs.grep("needle", "large.txt", capped));
        assertThat(grepPaths(fs.grep("needle", ""))).as("no cap by default")
                .containsExactly("large.txt", "small.txt");
    }

    @Test
    default void grep_longLine_isCutAt2000CharsWithAMarker(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        String line = "needle" + "x".repeat(10_000);
        fs.write("long.txt", line + "\n");
        List<GrepMatch> matches = fs.grep("needle", "long.txt").matches();
        assertThat(matches).hasSize(1);
        assertThat(matches.get(0).line()).startsWith("needlexxx").endsWith("x [... 8006 chars cut]");
        assertThat(matches.get(0).line().length()).as("cut near 2,000 characters").isBetween(2000, 2100);
    }

    @Test
    default void grep_noMatch_returnsEmpty(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("a.txt", "abc\n");
        GrepResult none = fs.grep("xyz", "");
        assertThat(none.matches()).isEmpty();
        assertThat(none.isComplete()).as("nothing skipped, capped or cut short: %s", none).isTrue();
    }

    // ---- helpers --------------------------------------------------------------------------------------------------

    private static List<GrepMatch> sorted(List<GrepMatch> matches) {
        List<GrepMatch> copy = new ArrayList<>(matches);
        copy.sort(Comparator.comparing(GrepMatch::path).thenComparingInt(GrepMatch::lineNumber));
        return copy;
    }
}
