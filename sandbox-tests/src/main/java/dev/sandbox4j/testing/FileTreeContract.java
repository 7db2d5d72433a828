package dev.sandbox4j.testing;

import static dev.sandbox4j.testing.Checks.allByteValues;
import static dev.sandbox4j.testing.Checks.expectError;
import static dev.sandbox4j.testing.Checks.grepPaths;
import static dev.sandbox4j.testing.Checks.paths;
import static dev.sandbox4j.testing.Checks.snapshot;
import static dev.sandbox4j.testing.Checks.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.Edit;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * Changing the tree: {@code mkdirs}, {@code move}, {@code copy} and {@code delete}, the typed errors of a path of
 * the wrong kind, and trees deeper than a walk may go. Part of {@link FileSystemContract}, which extends it: every backend that runs the file contract runs these.
 */
public interface FileTreeContract extends ConformanceSupport {

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

    // ---- helpers --------------------------------------------------------------------------------------------------

    private static void assertNoHostPath(SandboxException e) {
        String tmp = System.getProperty("java.io.tmpdir", "/tmp").replaceAll("/+$", "");
        assertThat(e.getMessage()).as("a message never shows host paths: %s", e)
                .doesNotContain(tmp + "/")
                .doesNotContain(System.getProperty("user.home") + "/");
    }
}
