package dev.sandbox4j.testing;

import static dev.sandbox4j.testing.Checks.allByteValues;
import static dev.sandbox4j.testing.Checks.expectError;
import static dev.sandbox4j.testing.Checks.generated;
import static dev.sandbox4j.testing.Checks.grepPaths;
import static dev.sandbox4j.testing.Checks.paths;
import static dev.sandbox4j.testing.Checks.snapshot;
import static dev.sandbox4j.testing.Checks.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.sandbox4j.Edit;
import dev.sandbox4j.EditResult;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Feature;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.GrepMatch;
import dev.sandbox4j.GrepOptions;
import dev.sandbox4j.GrepResult;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.assertj.core.api.SoftAssertions;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * The conformance contract for {@link FileSystem}: runs on every backend, the in-memory one included. Tests that
 * need links or FIFOs create them with a command, so they need {@link Feature#SHELL} too; they live in
 * {@link FileSystemSecurityContract}.
 */
public interface FileSystemContract extends FileSystemSecurityContract {

    // ---- text and bytes round trips ---------------------------------------------------------------------------

    @Test
    default void writeText_utf8_readsBackSame(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        String text = "héllo wörld — ünïcödé ✓ 😀 日本語\nsecond line\n";
        fs.write("u.txt", text);
        assertThat(fs.readText("u.txt")).isEqualTo(text);
        assertThat(fs.readBytes("u.txt")).as("text is stored as UTF-8").isEqualTo(utf8(text));
    }

    @Test
    default void writeBytes_all256Values_readsBackSame(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        byte[] bytes = allByteValues();
        fs.write("bin.dat", bytes);
        assertThat(fs.readBytes("bin.dat")).isEqualTo(bytes);
        assertThat(fs.stat("bin.dat").size()).isEqualTo(256);
    }

    @Test
    default void write_emptyContent_createsEmptyFile(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("empty.txt", "");
        fs.write("empty.bin", new byte[0]);
        fs.write("empty.stream", new ByteArrayInputStream(new byte[0]));
        for (String p : List.of("empty.txt", "empty.bin", "empty.stream")) {
            assertThat(fs.exists(p)).as("%s exists", p).isTrue();
            assertThat(fs.readText(p)).as(p).isEmpty();
            assertThat(fs.readBytes(p)).as(p).isEmpty();
            assertThat(fs.stat(p).size()).as(p).isZero();
            assertThat(fs.stat(p)).as(p).matches(FileInfo::isFile, "isFile");
        }
    }

    @Test
    default void readText_malformedUtf8_replacesBadBytes(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("bad.txt", new byte[] {'f', (byte) 0xFF, 'g'});
        assertThat(fs.readText("bad.txt")).isEqualTo("f\uFFFDg");
    }

    @Test
    default void write_existingFile_replacesWholeContent(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("f.txt", "a much longer first version\n");
        fs.write("f.txt", "short");
        assertThat(fs.readText("f.txt")).as("no tail of the old content left").isEqualTo("short");
    }

    @Test
    default void write_missingParents_createsParents(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("a/b/c/d.txt", "deep");
        assertThat(fs.readText("a/b/c/d.txt")).isEqualTo("deep");
        assertThat(fs.stat("a")).matches(FileInfo::isDirectory, "isDirectory");
        assertThat(fs.stat("a/b/c")).matches(FileInfo::isDirectory, "isDirectory");
    }

    @Test
    default void write_absoluteWorkspacePath_sameFileAsRelative(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("/workspace/abs.txt", "x");
        assertThat(fs.readText("abs.txt")).isEqualTo("x");
        assertThat(fs.readText("./sub/../abs.txt")).as("dot segments are normalized").isEqualTo("x");
        assertThat(fs.stat("/workspace/abs.txt").path()).as("paths come back workspace-relative")
                .isEqualTo("abs.txt");
    }

    // ---- line ranges and byte ranges ------------------------------------------------------------------------

    @Test
    default void readTextRange_oneBasedInclusive_returnsLinesWithTerminators(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("lines.txt", "l1\nl2\nl3\nl4\n");
        assertThat(fs.readText("lines.txt", 1, 1)).isEqualTo("l1\n");
        assertThat(fs.readText("lines.txt", 2, 3)).isEqualTo("l2\nl3\n");
        assertThat(fs.readText("lines.txt", 3, -1)).as("-1 reads to the end").isEqualTo("l3\nl4\n");
        assertThat(fs.readText("lines.txt", 1, -1)).isEqualTo("l1\nl2\nl3\nl4\n");
    }

    @Test
    default void readTextRange_pastTheEnd_returnsWhatExists(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("lines.txt", "l1\nl2\nlast-without-newline");
        assertThat(fs.readText("lines.txt", 2, 10)).isEqualTo("l2\nlast-without-newline");
        assertThat(fs.readText("lines.txt", 3, 3)).isEqualTo("last-without-newline");
        assertThat(fs.readText("lines.txt", 7, 9)).as("a range wholly past the end").isEmpty();
    }

    @Test
    default void readTextRange_crlfLines_keepsTerminators(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("crlf.txt", "a\r\nb\r\nc\r\n");
        assertThat(fs.readText("crlf.txt", 2, 2)).isEqualTo("b\r\n");
    }

    @Test
    default void readBytesRange_offsetAndLength_returnsSlice(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        byte[] all = allByteValues();
        fs.write("bin.dat", all);
        assertThat(fs.readBytes("bin.dat", 10, 5)).isEqualTo(Arrays.copyOfRange(all, 10, 15));
        assertThat(fs.readBytes("bin.dat", 0, 256)).isEqualTo(all);
        assertThat(fs.readBytes("bin.dat", 250, 100)).as("fewer at the end")
                .isEqualTo(Arrays.copyOfRange(all, 250, 256));
        assertThat(fs.readBytes("bin.dat", 256, 10)).as("at the end").isEmpty();
        assertThat(fs.readBytes("bin.dat", 1000, 10)).as("past the end").isEmpty();
    }

    // ---- streaming, size cap, atomicity ---------------------------------------------------------------------

    @Test
    default void writeStream_40MiB_readToRoundTripsByDigest(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        long size = 40L << 20;
        Checks.GeneratedStream source = new Checks.GeneratedStream(size, 7);
        fs.write("big/blob.bin", source);
        assertThat(source.position()).as("the source was read to its end").isEqualTo(size);
        String written = source.sha256();

        assertThat(fs.stat("big/blob.bin").size()).isEqualTo(size);
        Checks.DigestSink sink = new Checks.DigestSink();
        fs.readTo("big/blob.bin", sink);
        assertThat(sink.count()).isEqualTo(size);
        assertThat(sink.sha256()).as("SHA-256 of what readTo streamed").isEqualTo(written);
        assertThat(sink.closed()).as("readTo must not close the sink").isFalse();
    }

    @Test
    default void readToUnchanged_stableFile_streamsIt_missingOrDirectory_fails(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        String text = "line of a stable file\n".repeat(10_000);
        fs.write("stable.txt", text);
        ByteArrayOutputStream whole = new ByteArrayOutputStream();
        FileInfo info = fs.readToUnchanged("stable.txt", whole);
        assertThat(whole.toString(java.nio.charset.StandardCharsets.UTF_8)).isEqualTo(text);
        assertThat(info.size()).isEqualTo(220_000);
        expectError(ErrorKind.NOT_FOUND, () -> fs.readToUnchanged("absent.txt", new ByteArrayOutputStream()));
        fs.mkdirs("dir");
        expectError(ErrorKind.IS_A_DIRECTORY, () -> fs.readToUnchanged("dir", new ByteArrayOutputStream()));
    }

    /** A command in the sandbox appends to the file while the host streams it (the sink is slow). */
    @Test
    @Requires(Feature.BACKGROUND_PROCESSES)
    default void readToUnchanged_commandAppendsWhileStreaming_failsConflict(Sandbox sandbox) throws Exception {
        FileSystem fs = sandbox.files();
        fs.write("moving.txt", "line of a growing file\n".repeat(10_000));
        try (dev.sandbox4j.ExecHandle writer = sandbox.shell().start(dev.sandbox4j.ExecRequest.shell(
                "sleep 0.3; echo written while it was read >> moving.txt"), dev.sandbox4j.OutputListener.NONE)) {
            ByteArrayOutputStream slow = new ByteArrayOutputStream() {
                private boolean waited;

                @Override
                public synchronized void write(byte[] b, int off, int len) {
                    if (!waited) {
                        waited = true;
                        try {
                            Thread.sleep(3_000); // the writer runs meanwhile, inside the sandbox
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    super.write(b, off, len);
                }
            };
            SandboxException e = expectError(ErrorKind.CONFLICT, () -> fs.readToUnchanged("moving.txt", slow));
            assertThat(e.getMessage()).contains("moving.txt", "changed while it was being read");
            assertThat(e.retryable()).isTrue();
            assertThat(writer.await(Duration.ofSeconds(30))).isPresent();
        }
    }

    /**
     * The change comes from the sink itself, re-entering the file system: every backend allows calls from inside a
     * sink (docker streams through its agent, and writes the sink on the caller's thread so the agent's reader is
     * free for the nested call).
     */
    @Test
    default void readToUnchanged_changedFromTheSinkWhileStreaming_failsConflict(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("moving.txt", "line of a growing file\n".repeat(10_000));
        ByteArrayOutputStream changing = new ByteArrayOutputStream() {
            private boolean appended;

            @Override
            public synchronized void write(byte[] b, int off, int len) {
                if (!appended) {
                    appended = true;
                    fs.append("moving.txt", "written while it was read\n");
                }
                super.write(b, off, len);
            }
        };
        SandboxException e = expectError(ErrorKind.CONFLICT, () -> fs.readToUnchanged("moving.txt", changing));
        assertThat(e.getMessage()).contains("moving.txt", "changed while it was being read");
        assertThat(e.retryable()).isTrue();
    }

    @Test
    default void readText_overMaxReadBytes_failsTooLarge(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        long size = FileSystem.MAX_READ_BYTES + 1L;
        fs.write("huge.txt", Checks.repeatedText("0123456789abcde\n", size));
        assertThat(fs.stat("huge.txt").size()).isEqualTo(size);

        SandboxException e = expectError(ErrorKind.TOO_LARGE, () -> fs.readText("huge.txt"));
        assertThat(e.getMessage()).as("the message names the file").contains("huge.txt");
        expectError(ErrorKind.TOO_LARGE, () -> fs.readBytes("huge.txt"));
        assertThat(fs.readBytes("huge.txt", size - 4, 10)).as("a ranged read of a huge file still works")
                .isEqualTo(utf8("de\n0"));
    }

    @Test
    default void readText_exactlyMaxReadBytes_succeeds(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("max.txt", Checks.repeatedText("x", FileSystem.MAX_READ_BYTES));
        assertThat(fs.readText("max.txt")).hasSize(FileSystem.MAX_READ_BYTES);
    }

    @Test
    default void writeStream_sourceFailsHalfway_failsIoErrorAndKeepsOldContent(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("keep.txt", "old content\n");
        Map<String, String> before = snapshot(fs);

        SandboxException e = expectError(ErrorKind.IO_ERROR,
                () -> fs.write("keep.txt", Checks.GeneratedStream.failingAfter(4L << 20, 1L << 20)));
        assertThat(e.getMessage()).contains("keep.txt");

        assertThat(fs.readText("keep.txt")).as("the old file is whole").isEqualTo("old content\n");
        assertThat(snapshot(fs)).as("no temporary file left visible, nothing else changed").isEqualTo(before);
    }

    @Test
    default void writeStream_newFileSourceFails_leavesNothing(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        expectError(ErrorKind.IO_ERROR,
                () -> fs.write("new.bin", Checks.GeneratedStream.failingAfter(4L << 20, 100_000)));
        assertThat(fs.exists("new.bin")).as("a failed write of a new file leaves no file").isFalse();
        assertThat(paths(fs.list("", Integer.MAX_VALUE))).as("no temporary file left").isEmpty();
    }

    // ---- append -----------------------------------------------------------------------------------------------

    @Test
    default void append_existingFile_addsAtEnd(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("log.txt", "one\n");
        fs.append("log.txt", "two\n");
        fs.append("log.txt", utf8("three\n"));
        assertThat(fs.readText("log.txt")).isEqualTo("one\ntwo\nthree\n");
    }

    @Test
    default void append_missingFileAndParents_createsThem(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.append("logs/today/app.log", "first\n");
        fs.append("logs/bytes.bin", new byte[] {0, 1, 2});
        assertThat(fs.readText("logs/today/app.log")).isEqualTo("first\n");
        assertThat(fs.readBytes("logs/bytes.bin")).containsExactly(0, 1, 2);
    }

    // ---- stat, exists --------------------------------------------------------------------------------------------

    @Test
    default void stat_fileAndDirectory_describesThem(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        Instant before = Instant.now().minus(Duration.ofMinutes(10));
        fs.write("dir/f.txt", "12345");

        FileInfo file = fs.stat("dir/f.txt");
        assertThat(file.path()).isEqualTo("dir/f.txt");
        assertThat(file.name()).isEqualTo("f.txt");
        assertThat(file).matches(FileInfo::isFile, "isFile");
        assertThat(file.size()).isEqualTo(5);
        assertThat(file.linkTarget()).isNull();
        assertThat(file.modified()).as("mtime is about now (10 minutes of clock skew allowed)")
                .isAfter(before).isBefore(Instant.now().plus(Duration.ofMinutes(10)));

        FileInfo dir = fs.stat("dir");
        assertThat(dir).matches(FileInfo::isDirectory, "isDirectory");
        assertThat(dir).matches(FileInfo::isDirectory, "isDirectory");

        FileInfo root = fs.stat("");
        assertThat(root.path()).as("the root is \"\"").isEmpty();
        assertThat(root).matches(FileInfo::isDirectory, "isDirectory");
    }

    @Test
    @Requires(Feature.POSIX_PERMISSIONS)
    default void stat_posixPermissions_reportsMode(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("f.txt", "x");
        fs.mkdirs("d");
        int fileMode = fs.stat("f.txt").mode();
        int dirMode = fs.stat("d").mode();
        assertThat(fileMode & ~07777).as("only permission bits: %o", fileMode).isZero();
        assertThat(fileMode & 0600).as("a written file is readable and writable by its owner: %o", fileMode)
                .isEqualTo(0600);
        assertThat(dirMode & 0700).as("a directory is rwx for its owner: %o", dirMode).isEqualTo(0700);
    }

    @Test
    @Requires(absent = Feature.POSIX_PERMISSIONS)
    default void stat_withoutPosixPermissions_modeIsMinusOne(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("f.txt", "x");
        assertThat(fs.stat("f.txt").mode()).isEqualTo(-1);
        assertThat(fs.list("").get(0).mode()).isEqualTo(-1);
    }

    @Test
    default void exists_variousPaths_tellsTruth(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("d/f.txt", "x");
        assertThat(fs.exists("d/f.txt")).isTrue();
        assertThat(fs.exists("d")).isTrue();
        assertThat(fs.exists("")).as("the root").isTrue();
        assertThat(fs.exists("nope.txt")).isFalse();
        assertThat(fs.exists("nope/deeper.txt")).isFalse();
        expectError(ErrorKind.INVALID_PATH, () -> fs.exists("../outside"));
    }

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

    // ---- mkdirs ---------------------------------------------------------------------------------------------------

    @Test
    default void mkdirs_nestedTwice_isIdempotent(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.mkdirs("x/y/z");
        fs.write("x/y/z/keep.txt", "k");
        fs.mkdirs("x/y/z");
        fs.mkdirs("x");
        assertThat(fs.stat("x/y/z")).matches(FileInfo::isDirectory, "isDirectory");
        assertThat(fs.readText("x/y/z/keep.txt")).as("a second mkdirs touches nothing").isEqualTo("k");
        fs.mkdirs("");
    }

    /**
     * A directory is expected at the path and a file is there: NOT_A_DIRECTORY (ErrorKind: "a directory was expected
     * but something else is there"), the same kind as for a file on the way ({@link #mkdirs_underAFile_failsNotADirectory}).
     */
    @Test
    default void mkdirs_overAFile_failsNotADirectory(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("f", "file");
        SandboxException e = expectError(ErrorKind.NOT_A_DIRECTORY, () -> fs.mkdirs("f"));
        assertThat(e.getMessage()).contains("f");
        assertThat(fs.readText("f")).isEqualTo("file");
    }

    /** A parent on the way is a file: NOT_A_DIRECTORY (ErrorKind: "a parent in the path"). */
    @Test
    default void mkdirs_underAFile_failsNotADirectory(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("f", "file");
        expectError(ErrorKind.NOT_A_DIRECTORY, () -> fs.mkdirs("f/sub/deeper"));
        assertThat(fs.readText("f")).isEqualTo("file");
    }

    @Test
    default void write_underAFile_failsNotADirectory(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("f", "file");
        Map<String, String> before = snapshot(fs);
        expectError(ErrorKind.NOT_A_DIRECTORY, () -> fs.write("f/child.txt", "x"));
        expectError(ErrorKind.NOT_A_DIRECTORY, () -> fs.append("f/child.txt", "x"));
        expectError(List.of(ErrorKind.NOT_A_DIRECTORY, ErrorKind.NOT_FOUND), () -> fs.readText("f/child.txt"));
        assertThat(snapshot(fs)).isEqualTo(before);
    }

    @Test
    default void write_overADirectory_failsIsADirectory(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("d/inside.txt", "x");
        Map<String, String> before = snapshot(fs);
        expectError(ErrorKind.IS_A_DIRECTORY, () -> fs.write("d", "x"));
        expectError(ErrorKind.IS_A_DIRECTORY, () -> fs.write("d", new ByteArrayInputStream(utf8("x"))));
        expectError(ErrorKind.IS_A_DIRECTORY, () -> fs.append("d", "x"));
        assertThat(snapshot(fs)).isEqualTo(before);
    }

    @Test
    default void read_aDirectory_failsIsADirectory(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.mkdirs("d");
        expectError(ErrorKind.IS_A_DIRECTORY, () -> fs.readText("d"));
        expectError(ErrorKind.IS_A_DIRECTORY, () -> fs.readBytes("d"));
        expectError(ErrorKind.IS_A_DIRECTORY, () -> fs.readText("d", 1, 2));
        expectError(ErrorKind.IS_A_DIRECTORY, () -> fs.readBytes("d", 0, 1));
        expectError(ErrorKind.IS_A_DIRECTORY, () -> fs.readTo("d", new ByteArrayOutputStream()));
    }

    @Test
    default void read_missing_failsNotFoundNamingThePath(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        for (ThrowingCallable call : List.<ThrowingCallable>of(
                () -> fs.readText("missing.txt"),
                () -> fs.readText("missing.txt", 1, 1),
                () -> fs.readBytes("missing.txt"),
                () -> fs.readBytes("missing.txt", 0, 1),
                () -> fs.readTo("missing.txt", new ByteArrayOutputStream()),
                () -> fs.stat("missing.txt"),
                () -> fs.replace("missing.txt", "a", "b"),
                () -> fs.previewEdit("missing.txt", List.of(new Edit("a", "b"))),
                () -> fs.grep("x", "missing.txt"),
                () -> fs.find("*", "missing.txt", List.of()))) {
            SandboxException e = expectError(ErrorKind.NOT_FOUND, call);
            assertThat(e.getMessage()).as("message of %s", e).contains("missing.txt");
            assertNoHostPath(e);
        }
    }

    // ---- move, copy, delete -----------------------------------------------------------------------------------

    @Test
    default void move_file_renamesIt(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("a.txt", "content");
        fs.move("a.txt", "sub/dir/b.txt");
        assertThat(fs.exists("a.txt")).isFalse();
        assertThat(fs.readText("sub/dir/b.txt")).as("parents of the target are created").isEqualTo("content");
    }

    @Test
    default void move_targetExists_failsAlreadyExistsUnlessOverwrite(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("a.txt", "A");
        fs.write("b.txt", "B");
        Map<String, String> before = snapshot(fs);
        SandboxException e = expectError(ErrorKind.ALREADY_EXISTS, () -> fs.move("a.txt", "b.txt"));
        assertThat(e.getMessage()).contains("b.txt");
        assertThat(snapshot(fs)).isEqualTo(before);

        fs.moveReplacing("a.txt", "b.txt");
        assertThat(fs.exists("a.txt")).isFalse();
        assertThat(fs.readText("b.txt")).isEqualTo("A");
    }

    @Test
    default void move_directory_movesTree(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("d/x.txt", "x");
        fs.write("d/e/y.txt", "y");
        fs.move("d", "moved");
        assertThat(fs.exists("d")).isFalse();
        assertThat(fs.readText("moved/x.txt")).isEqualTo("x");
        assertThat(fs.readText("moved/e/y.txt")).isEqualTo("y");
    }

    @Test
    default void move_overwriteNonEmptyDirectory_failsDirectoryNotEmpty(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("srcdir/a.txt", "a");
        fs.write("src.txt", "s");
        fs.write("target/keep.txt", "k");
        Map<String, String> before = snapshot(fs);
        expectError(ErrorKind.DIRECTORY_NOT_EMPTY, () -> fs.moveReplacing("srcdir", "target"));
        expectError(ErrorKind.DIRECTORY_NOT_EMPTY, () -> fs.copyReplacing("srcdir", "target"));
        expectError(List.of(ErrorKind.DIRECTORY_NOT_EMPTY, ErrorKind.IS_A_DIRECTORY),
                () -> fs.moveReplacing("src.txt", "target"));
        assertThat(snapshot(fs)).isEqualTo(before);
    }

    @Test
    default void move_missingSource_failsNotFound(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        expectError(ErrorKind.NOT_FOUND, () -> fs.move("ghost.txt", "b.txt"));
        expectError(ErrorKind.NOT_FOUND, () -> fs.copy("ghost.txt", "b.txt"));
        assertThat(fs.exists("b.txt")).isFalse();
    }

    @Test
    default void copy_file_leavesSourceAndCopies(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("a.bin", allByteValues());
        fs.copy("a.bin", "copies/b.bin");
        assertThat(fs.readBytes("a.bin")).isEqualTo(allByteValues());
        assertThat(fs.readBytes("copies/b.bin")).isEqualTo(allByteValues());
        fs.write("copies/b.bin", "changed");
        assertThat(fs.readBytes("a.bin")).as("a copy, not a link").isEqualTo(allByteValues());
    }

    @Test
    default void copy_targetExists_failsAlreadyExistsUnlessOverwrite(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("a.txt", "A");
        fs.write("b.txt", "B");
        Map<String, String> before = snapshot(fs);
        expectError(ErrorKind.ALREADY_EXISTS, () -> fs.copy("a.txt", "b.txt"));
        assertThat(snapshot(fs)).isEqualTo(before);
        fs.copyReplacing("a.txt", "b.txt");
        assertThat(fs.readText("b.txt")).isEqualTo("A");
        assertThat(fs.readText("a.txt")).isEqualTo("A");
    }

    @Test
    default void copy_directory_copiesTree(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("d/x.txt", "x");
        fs.write("d/e/y.txt", "y");
        fs.mkdirs("d/empty");
        fs.copy("d", "d2");
        assertThat(paths(fs.list("d2", 5))).containsExactly("d2/e", "d2/e/y.txt", "d2/empty", "d2/x.txt");
        assertThat(fs.readText("d2/e/y.txt")).isEqualTo("y");
        assertThat(fs.readText("d/e/y.txt")).isEqualTo("y");
    }

    @Test
    default void delete_fileAndEmptyDirectory_removesThem(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("f.txt", "x");
        fs.mkdirs("empty");
        fs.delete("f.txt");
        fs.delete("empty");
        assertThat(fs.list("")).isEmpty();
    }

    @Test
    default void delete_nonEmptyDirectory_needsRecursive(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("d/e/f.txt", "x");
        Map<String, String> before = snapshot(fs);
        SandboxException e = expectError(ErrorKind.DIRECTORY_NOT_EMPTY, () -> fs.delete("d"));
        assertThat(e.getMessage()).contains("d");
        assertThat(snapshot(fs)).as("nothing deleted").isEqualTo(before);
        fs.deleteRecursively("d");
        assertThat(fs.exists("d")).isFalse();
    }

    @Test
    default void delete_missing_failsNotFound(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        expectError(ErrorKind.NOT_FOUND, () -> fs.delete("ghost"));
        expectError(ErrorKind.NOT_FOUND, () -> fs.deleteRecursively("ghost"));
    }

    @Test
    default void delete_workspaceRoot_failsInvalidPath(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("keep.txt", "k");
        for (String root : List.of("", ".", "/workspace", "/workspace/", "a/..")) {
            expectError(ErrorKind.INVALID_PATH, () -> fs.deleteRecursively(root));
        }
        assertThat(fs.readText("keep.txt")).isEqualTo("k");
    }

    // ---- very deep trees ----------------------------------------------------------------------------------------

    /**
     * Issue 18: a tree thousands of levels deep made list and grep throw StackOverflowError. Walks are iterative and
     * capped at 256 levels (TOO_LARGE beyond, documented on {@link FileSystem}); a recursive delete removes any depth.
     * The tree (about 2,800 levels) is built through the API alone: two chains, one moved to the bottom of the other.
     */
    @Test
    default void deepTree_walksFailTooLarge_deleteRemovesIt(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        String chain = "d/".repeat(1400);
        fs.mkdirs("p/" + chain);
        fs.write("q/" + chain + "needle.txt", "needle\n");
        fs.move("q", "p/" + chain + "q");
        fs.write("top.txt", "needle\n");
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            List<ThrowingCallable> walks = List.of(
                    () -> fs.list("", Integer.MAX_VALUE),
                    () -> fs.listVisible("p", 300),
                    () -> fs.find("*.txt", "", List.of()),
                    () -> fs.grep("needle", ""),
                    () -> fs.copy("p", "copy"));
            for (ThrowingCallable walk : walks) {
                SandboxException e = expectError(ErrorKind.TOO_LARGE, walk);
                assertThat(e.getMessage()).contains("deeper than 256");
            }
            assertThat(fs.exists("copy")).as("a failed copy leaves nothing").isFalse();
            assertThat(paths(fs.list("", 3))).containsExactly("p", "p/d", "p/d/d", "top.txt");
            assertThat(paths(fs.list("p", 256))).hasSize(256);
            assertThat(grepPaths(fs.grep("needle", "top.txt"))).containsExactly("top.txt");
            fs.deleteRecursively("p");
            assertThat(fs.exists("p")).isFalse();
            assertThat(paths(fs.list("", Integer.MAX_VALUE))).containsExactly("top.txt");
        }, "walks of a deep tree must end");
    }

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

    // ---- bad paths and names ------------------------------------------------------------------------------------

    @Test
    default void anyCall_badPath_failsInvalidPathAndChangesNothing(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("keep.txt", "k");
        Map<String, String> before = snapshot(fs);
        List<String> bad = List.of("../x", "../../etc/passwd", "/etc/passwd", "/workspace/../etc", "a/../../x",
                "/workspacex/f", "a\0b", "x".repeat(300), "d/" + "é".repeat(150) + "/f",
                "a/".repeat(2100) + "f");
        SoftAssertions softly = new SoftAssertions();
        for (String p : bad) {
            String shown = p.length() > 40 ? p.substring(0, 40) + "…" : p.replace('\0', '@');
            for (Map.Entry<String, ThrowingCallable> call : allCalls(fs, p).entrySet()) {
                Throwable t = catchThrowable(call.getValue());
                softly.assertThat(t).as("%s on '%s'", call.getKey(), shown).isInstanceOf(SandboxException.class);
                if (t instanceof SandboxException) {
                    softly.assertThat(((SandboxException) t).kind()).as("%s on '%s': %s", call.getKey(), shown, t)
                            .isEqualTo(ErrorKind.INVALID_PATH);
                    softly.assertThat(t.getMessage()).as("no host file content in the message")
                            .doesNotContain("root:");
                }
            }
        }
        softly.assertAll();
        assertThat(snapshot(fs)).isEqualTo(before);
    }

    @Test
    default void anyCall_badArgument_failsInvalidArgumentAndChangesNothing(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("keep.txt", "one\ntwo\n");
        fs.mkdirs("d");
        Map<String, String> before = snapshot(fs);
        Map<String, ThrowingCallable> calls = new LinkedHashMap<>();
        calls.put("readText lines [0, 2]", () -> fs.readText("keep.txt", 0, 2));
        calls.put("readText lines [5, 2]", () -> fs.readText("keep.txt", 5, 2));
        calls.put("readText lines [1, -2]", () -> fs.readText("keep.txt", 1, -2));
        calls.put("readBytes offset -1", () -> fs.readBytes("keep.txt", -1, 5));
        calls.put("readBytes length -1", () -> fs.readBytes("keep.txt", 0, -1));
        calls.put("list depth 0", () -> fs.listVisible("d", 0));
        calls.put("list depth -1", () -> fs.list("d", -1));
        calls.put("find empty glob", () -> fs.find("", "", List.of()));
        calls.put("find empty exclude", () -> fs.find("*.txt", "", List.of("")));
        calls.put("grep invalid regex", () -> fs.grep("(unclosed", ""));
        calls.put("grep invalid regex [", () -> fs.grep("[a-", "keep.txt"));
        calls.put("grep empty include", () -> fs.grep("one", "", GrepOptions.defaults().withIncludes("")));
        calls.put("replace empty text", () -> fs.replace("keep.txt", "", "x"));
        calls.put("edit no edits", () -> fs.edit("keep.txt", List.of()));
        calls.put("edit no edits, dry run", () -> fs.previewEdit("keep.txt", List.of()));
        SoftAssertions softly = new SoftAssertions();
        for (Map.Entry<String, ThrowingCallable> call : calls.entrySet()) {
            Throwable t = catchThrowable(call.getValue());
            softly.assertThat(t).as(call.getKey()).isInstanceOf(SandboxException.class);
            if (t instanceof SandboxException) {
                softly.assertThat(((SandboxException) t).kind()).as("%s: %s", call.getKey(), t)
                        .isEqualTo(ErrorKind.INVALID_ARGUMENT);
                softly.assertThat(((SandboxException) t).retryable()).as(call.getKey()).isFalse();
            }
        }
        softly.assertAll();
        assertThat(snapshot(fs)).isEqualTo(before);
    }

    @Test
    default void write_emptyOrRootPath_failsInvalidPath(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        for (String p : List.of("", "/workspace", ".")) {
            expectError(ErrorKind.INVALID_PATH, () -> fs.write(p, "x"));
            expectError(ErrorKind.INVALID_PATH, () -> fs.append(p, "x"));
            expectError(List.of(ErrorKind.INVALID_PATH, ErrorKind.IS_A_DIRECTORY), () -> fs.readText(p));
            expectError(ErrorKind.INVALID_PATH, () -> fs.move(p, "elsewhere"));
        }
        assertThat(fs.list("")).isEmpty();
    }

    @Test
    default void write_unicodeNames_roundTripAndList(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        List<String> names = List.of("café.txt", "emoji 😀.txt", "with space.txt", "日本語", "cafÃ©-mojibake.txt",
                "quote'\"$x.txt", "-dash.txt", "tab\there.txt");
        for (String name : names) {
            fs.write("names/" + name, name);
        }
        for (String name : names) {
            assertThat(fs.readText("names/" + name)).as(name).isEqualTo(name);
        }
        assertThat(fs.list("names").stream().map(FileInfo::name).collect(Collectors.toList()))
                .containsExactlyInAnyOrderElementsOf(names);
        assertThat(fs.find("café.txt", "", List.of())).containsExactly("names/café.txt");
    }

    @Test
    default void write_newlineInName_roundTripsOrFailsInvalidPath(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        Throwable t = catchThrowable(() -> fs.write("line\nbreak.txt", "x"));
        if (t == null) {
            assertThat(fs.readText("line\nbreak.txt")).isEqualTo("x");
            assertThat(paths(fs.list(""))).containsExactly("line\nbreak.txt");
        } else {
            assertThat(t).isInstanceOf(SandboxException.class);
            assertThat(((SandboxException) t).kind()).isEqualTo(ErrorKind.INVALID_PATH);
            assertThat(fs.list("")).isEmpty();
        }
    }

    @Test
    default void write_255ByteName_isAccepted(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        String name = "n".repeat(251) + ".txt";
        fs.write(name, "ok");
        assertThat(fs.readText(name)).isEqualTo("ok");
        expectError(ErrorKind.INVALID_PATH, () -> fs.write("n" + name, "too long"));
    }

    // ---- a closed sandbox -----------------------------------------------------------------------------------------

    @Test
    default void anyCall_closedSandbox_failsClosed(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("f.txt", "x");
        sandbox.close();
        SoftAssertions softly = new SoftAssertions();
        for (Map.Entry<String, ThrowingCallable> call : allCalls(fs, "f.txt").entrySet()) {
            Throwable t = catchThrowable(call.getValue());
            softly.assertThat(t).as(call.getKey()).isInstanceOf(SandboxException.class);
            if (t instanceof SandboxException) {
                softly.assertThat(((SandboxException) t).kind()).as("%s: %s", call.getKey(), t)
                        .isEqualTo(ErrorKind.CLOSED);
            }
        }
        Throwable fresh = catchThrowable(() -> sandbox.files().readText("f.txt"));
        softly.assertThat(fresh).as("files() after close").isInstanceOf(SandboxException.class);
        if (fresh instanceof SandboxException) {
            softly.assertThat(((SandboxException) fresh).kind()).isEqualTo(ErrorKind.CLOSED);
        }
        softly.assertAll();
    }

    // ---- helpers --------------------------------------------------------------------------------------------------

    /** Every FileSystem method, called on {@code path} (as source, target or directory). */
    static Map<String, ThrowingCallable> allCalls(FileSystem fs, String path) {
        Map<String, ThrowingCallable> calls = new LinkedHashMap<>();
        calls.put("readText", () -> fs.readText(path));
        calls.put("readText(range)", () -> fs.readText(path, 1, 2));
        calls.put("readBytes", () -> fs.readBytes(path));
        calls.put("readBytes(range)", () -> fs.readBytes(path, 0, 1));
        calls.put("readTo", () -> fs.readTo(path, new ByteArrayOutputStream()));
        calls.put("write(text)", () -> fs.write(path, "x"));
        calls.put("write(bytes)", () -> fs.write(path, new byte[] {1}));
        calls.put("write(stream)", () -> fs.write(path, new ByteArrayInputStream(new byte[] {1})));
        calls.put("append(text)", () -> fs.append(path, "x"));
        calls.put("append(bytes)", () -> fs.append(path, new byte[] {1}));
        calls.put("stat", () -> fs.stat(path));
        calls.put("exists", () -> fs.exists(path));
        calls.put("list", () -> fs.list(path));
        calls.put("list(depth)", () -> fs.list(path, 2));
        calls.put("find", () -> fs.find("*", path, List.of()));
        calls.put("grep", () -> fs.grep("x", path));
        calls.put("grep(options)", () -> fs.grep("x", path, GrepOptions.defaults()));
        calls.put("mkdirs", () -> fs.mkdirs(path));
        calls.put("move(from)", () -> fs.move(path, "moved-here"));
        calls.put("move(to)", () -> fs.moveReplacing("keep.txt", path));
        calls.put("copy(from)", () -> fs.copy(path, "copied-here"));
        calls.put("copy(to)", () -> fs.copyReplacing("keep.txt", path));
        calls.put("delete", () -> fs.deleteRecursively(path));
        calls.put("replace", () -> fs.replace(path, "x", "y"));
        calls.put("edit", () -> fs.edit(path, List.of(new Edit("x", "y"))));
        return calls;
    }

    private static List<GrepMatch> sorted(List<GrepMatch> matches) {
        List<GrepMatch> copy = new ArrayList<>(matches);
        copy.sort(Comparator.comparing(GrepMatch::path).thenComparingInt(GrepMatch::lineNumber));
        return copy;
    }

    private static void assertNoHostPath(SandboxException e) {
        String tmp = System.getProperty("java.io.tmpdir", "/tmp").replaceAll("/+$", "");
        assertThat(e.getMessage()).as("a message never shows host paths: %s", e)
                .doesNotContain(tmp + "/")
                .doesNotContain(System.getProperty("user.home") + "/");
    }
}
