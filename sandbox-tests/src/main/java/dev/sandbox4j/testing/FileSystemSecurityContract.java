package dev.sandbox4j.testing;

import static dev.sandbox4j.testing.Checks.expectError;
import static dev.sandbox4j.testing.Checks.grepPaths;
import static dev.sandbox4j.testing.Checks.paths;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Feature;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.GrepOptions;
import dev.sandbox4j.GrepResult;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.SoftAssertions;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * The file API against what a command can plant in the workspace: links out of it, FIFOs, names that are not
 * UTF-8. Commands create them, so every test here needs {@link Feature#SHELL}.
 *
 * <p>Without {@link Feature#SYMLINKS} there is no twin: the file API cannot create a link, so there is no call whose
 * typed error could be pinned.
 */
public interface FileSystemSecurityContract extends ConformanceSupport {
    List<ErrorKind> REFUSED = List.of(ErrorKind.PERMISSION_DENIED, ErrorKind.INVALID_PATH);

    private static void sh(Sandbox sandbox, String command) {
        ExecResult r = sandbox.shell().run(command);
        assertThat(r.exitCode()).as("setup command `%s` failed: %s", command, r.stderr()).isZero();
    }

    /** Asserts the call is refused with PERMISSION_DENIED or INVALID_PATH and leaks no host content. */
    private static void refused(String what, ThrowingCallable call, String... secrets) {
        Throwable t = catchThrowable(call);
        assertThat(t).as("%s must be refused", what).isInstanceOf(SandboxException.class);
        SandboxException e = (SandboxException) t;
        assertThat(e.kind()).as("%s: %s", what, e).isIn(REFUSED);
        for (String secret : secrets) {
            assertThat(e.getMessage()).as("%s: message leaks host content", what).doesNotContain(secret);
        }
    }

    @Test
    @Requires({Feature.SYMLINKS, Feature.SHELL})
    default void read_linkToHostFile_isRefused(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        sh(sandbox, "ln -s /etc/passwd passwd && ln -s /proc/self/environ environ"
                + " && ln -s ../../../../../../etc/passwd rel && mkdir d && ln -s /etc/passwd d/deep");
        for (String link : List.of("passwd", "environ", "rel", "d/deep")) {
            refused("readText " + link, () -> fs.readText(link), "root:", "PATH=");
            refused("readText(range) " + link, () -> fs.readText(link, 1, 5), "root:", "PATH=");
            refused("readBytes " + link, () -> fs.readBytes(link), "root:", "PATH=");
            refused("readBytes(range) " + link, () -> fs.readBytes(link, 0, 100), "root:", "PATH=");
            ByteArrayOutputStream sink = new ByteArrayOutputStream();
            refused("readTo " + link, () -> fs.readTo(link, sink), "root:", "PATH=");
            assertThat(sink.toString()).as("nothing of the host file reached the sink").isEmpty();
        }
    }

    @Test
    @Requires({Feature.SYMLINKS, Feature.SHELL})
    default void write_throughLinkToHostFile_isRefusedAndHostUntouched(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        String before = sandbox.shell().run("cat /etc/passwd").stdout();
        sh(sandbox, "ln -s /etc/passwd passwd && ln -s /etc etc && ln -s /tmp tmp && ln -s / root");
        refused("write over link", () -> fs.write("passwd", "pwned\n"));
        refused("append to link", () -> fs.append("passwd", "pwned\n"));
        refused("write into linked dir", () -> fs.write("etc/pwned", "x"));
        refused("write into linked /tmp", () -> fs.write("tmp/pwned", "x"));
        refused("mkdirs into linked dir", () -> fs.mkdirs("tmp/pwned-dir"));
        refused("write via link to /", () -> fs.write("root/tmp/pwned2", "x"));
        refused("replace through link", () -> fs.replace("passwd", "root", "toor"));
        assertThat(sandbox.shell().run("cat /etc/passwd").stdout()).as("the target was not written")
                .isEqualTo(before);
        ExecResult probe = sandbox.shell().run("ls /etc/pwned /tmp/pwned /tmp/pwned-dir /tmp/pwned2 2>&1; true");
        assertThat(probe.stdout()).as("nothing was created outside the workspace")
                .doesNotContainPattern("(?m)^/(etc|tmp)/pwned\\S*$");
        assertThat(fs.stat("passwd")).as("the link itself is still there").matches(FileInfo::isSymlink, "isSymlink");
    }

    @Test
    @Requires({Feature.SYMLINKS, Feature.SHELL})
    default void list_intoLinkedDirectory_isRefused(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        sh(sandbox, "ln -s /etc etc && ln -s / root && mkdir -p real && touch real/f");
        refused("list linked /etc", () -> fs.list("etc"), "passwd");
        refused("list linked /", () -> fs.list("root/etc"), "passwd");
        refused("find in linked /etc", () -> fs.find("*", "etc", List.of()), "passwd");
        refused("grep in linked /etc", () -> fs.grep("root", "etc/passwd"), "root:");

        List<FileInfo> deep = fs.list("", 10);
        assertThat(paths(deep)).as("links are listed, not entered").containsExactly("etc", "real", "real/f", "root");
        assertThat(fs.find("passwd", "", List.of())).as("find does not enter links").isEmpty();
        assertThat(fs.grep("root:", "", GrepOptions.defaults()).matches()).as("grep does not enter links").isEmpty();
        assertThat(fs.grep("root:", "", GrepOptions.defaults()).skipped())
                .extracting(GrepResult.Skipped::path, GrepResult.Skipped::reason)
                .as("links are reported as skipped, not followed")
                .containsExactly(org.assertj.core.groups.Tuple.tuple("etc", GrepResult.Reason.LINK),
                        org.assertj.core.groups.Tuple.tuple("root", GrepResult.Reason.LINK));
        expectError(ErrorKind.PERMISSION_DENIED, () -> fs.grep("root:", "etc"));
    }

    @Test
    @Requires({Feature.SYMLINKS, Feature.SHELL})
    default void stat_link_describesLinkNotTarget(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        sh(sandbox, "ln -s /etc/passwd passwd && ln -s missing dangling && echo hi > real && ln -s real inner");
        FileInfo link = fs.stat("passwd");
        assertThat(link).matches(FileInfo::isSymlink, "isSymlink");
        assertThat(link.linkTarget()).isEqualTo("/etc/passwd");
        assertThat(fs.exists("dangling")).as("a dangling link exists").isTrue();
        assertThat(fs.stat("dangling").linkTarget()).isEqualTo("missing");
        assertThat(fs.stat("inner")).matches(FileInfo::isSymlink, "isSymlink");
        Map<String, FileInfo> listed = new java.util.TreeMap<>();
        fs.list("").forEach(i -> listed.put(i.path(), i));
        assertThat(listed.get("passwd")).matches(FileInfo::isSymlink, "isSymlink");
        assertThat(listed.get("real")).matches(FileInfo::isFile, "isFile");
    }

    @Test
    @Requires({Feature.SYMLINKS, Feature.SHELL})
    default void delete_linkToDirectory_removesLinkOnly(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        sh(sandbox, "mkdir real && echo keep > real/f && ln -s real l && ln -s /etc etc");
        fs.deleteRecursively("l");
        fs.deleteRecursively("etc");
        assertThat(fs.exists("l")).isFalse();
        assertThat(fs.readText("real/f")).as("the link was removed, never followed").isEqualTo("keep\n");
        assertThat(sandbox.shell().run("test -f /etc/passwd").exitCode()).isZero();
    }

    @Test
    @Requires({Feature.SYMLINKS, Feature.SHELL})
    default void copyAndMove_link_neverCopyHostContent(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        sh(sandbox, "ln -s /etc/passwd passwd && mkdir d && ln -s /etc/passwd d/p");
        for (ThrowingCallable call : List.<ThrowingCallable>of(
                () -> fs.copy("passwd", "copy1"), () -> fs.copy("d", "d2"), () -> fs.move("passwd", "moved"))) {
            Throwable t = catchThrowable(call);
            if (t != null) {
                assertThat(t).isInstanceOf(SandboxException.class);
                assertThat(((SandboxException) t).kind()).isIn(REFUSED);
            }
        }
        for (FileInfo info : fs.list("", 10)) {
            if (info.isFile()) {
                assertThat(fs.readText(info.path())).as("host content copied into %s", info.path())
                        .doesNotContain("root:");
            }
        }
    }

    @Test
    @Requires({Feature.SHELL, Feature.POSIX_PERMISSIONS})
    default void stat_afterChmod_reportsExactMode(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        sh(sandbox, "mkdir d && echo x > f && echo y > g && chmod 750 d && chmod 640 f && chmod 4755 g");
        assertThat(fs.stat("d").mode()).as("%o", fs.stat("d").mode()).isEqualTo(0750);
        assertThat(fs.stat("f").mode()).as("%o", fs.stat("f").mode()).isEqualTo(0640);
        int g = fs.stat("g").mode();
        assertThat(g & 0777).as("%o", g).isEqualTo(0755);
        Map<String, Integer> listed = new java.util.TreeMap<>();
        fs.list("").forEach(i -> listed.put(i.path(), i.mode()));
        assertThat(listed).containsEntry("d", 0750).containsEntry("f", 0640);
    }

    @Test
    @Requires(Feature.SHELL)
    default void read_fifo_failsFastPermissionDenied(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        ExecResult made = sandbox.shell().run("mkfifo pipe");
        org.junit.jupiter.api.Assumptions.assumeTrue(made.exitCode() == 0, "mkfifo not available: " + made.stderr());
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            expectError(ErrorKind.PERMISSION_DENIED, () -> fs.readText("pipe"));
            expectError(ErrorKind.PERMISSION_DENIED, () -> fs.readBytes("pipe"));
            expectError(ErrorKind.PERMISSION_DENIED, () -> fs.readBytes("pipe", 0, 10));
            expectError(ErrorKind.PERMISSION_DENIED, () -> fs.readTo("pipe", new ByteArrayOutputStream()));
            expectError(ErrorKind.PERMISSION_DENIED, () -> fs.readText("pipe", 1, 1));
            expectError(ErrorKind.PERMISSION_DENIED, () -> fs.append("pipe", "x"));
            assertThat(fs.stat("pipe")).matches(FileInfo::isOther, "isOther");
            assertThat(fs.grep("x", "").matches()).as("grep skips special files").isEmpty();
            assertThat(fs.grep("x", "").skipped()).extracting(GrepResult.Skipped::path, GrepResult.Skipped::reason)
                    .as("and reports them").containsExactly(
                            org.assertj.core.groups.Tuple.tuple("pipe", GrepResult.Reason.SPECIAL_FILE));
            expectError(ErrorKind.PERMISSION_DENIED, () -> fs.grep("x", "pipe"));
            assertThat(fs.find("pipe", "", List.of())).containsExactly("pipe");
        }, "a FIFO must never be opened: the call would hang");
    }

    @Test
    @Requires({Feature.SHELL, Feature.BYTE_FILE_NAMES})
    default void list_nonUtf8Name_doesNotBreakListingOrSearch(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        sh(sandbox, "printf 'x\\n' > \"$(printf 'bad\\377name')\" && printf 'ok needle\\n' > good.txt");
        List<FileInfo> list = fs.list("");
        assertThat(list).hasSize(2);
        assertThat(paths(list)).contains("good.txt");
        assertThat(fs.find("*.txt", "", List.of())).containsExactly("good.txt");
        assertThat(grepPaths(fs.grep("needle", ""))).containsExactly("good.txt");
        SoftAssertions softly = new SoftAssertions();
        for (FileInfo info : list) {
            Throwable t = catchThrowable(() -> fs.stat(info.path()));
            if (t != null) {
                softly.assertThat(t).as("stat of a listed name").isInstanceOf(SandboxException.class);
            }
        }
        softly.assertAll();
    }
}
