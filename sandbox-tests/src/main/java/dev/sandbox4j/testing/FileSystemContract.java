package dev.sandbox4j.testing;

import static dev.sandbox4j.testing.Checks.allByteValues;
import static dev.sandbox4j.testing.Checks.expectError;
import static dev.sandbox4j.testing.Checks.paths;
import static dev.sandbox4j.testing.Checks.snapshot;
import static dev.sandbox4j.testing.Checks.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.sandbox4j.Edit;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Feature;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.GrepOptions;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
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
 * {@link FileSystemSecurityContract}. Its other parts, each a contract of its own that this one extends (so a backend
 * implementing this one runs them all): {@link FileStreamingContract}, {@link FileSearchContract},
 * {@link FileTreeContract}, {@link FileEditContract}.
 */
public interface FileSystemContract extends FileSystemSecurityContract, FileStreamingContract, FileSearchContract,
        FileTreeContract, FileEditContract {

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
}
