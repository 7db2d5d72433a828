package dev.sandbox4j.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sandbox4j.Edit;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.GrepResult;
import dev.sandbox4j.SandboxException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link AgentWorkspace} end to end on this build's agent binary, run as a plain process over a temporary directory
 * (no isolation: what is tested is the file API's path through FILE operations): the hostile cases of a workspace a
 * sandbox controls, and the host's side of a write that fails mid-stream.
 */
class AgentWorkspaceTest {
    @TempDir
    Path dir;
    private Process agent;
    private AgentChannel channel;
    private AgentWorkspace fs;
    private volatile boolean closed;

    @BeforeEach
    void start() throws Exception {
        Path bin = dir.resolve("sbx-agent");
        Files.write(bin, AgentBinary.bytes(AgentBinary.AGENT));
        Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwx------"));
        Path ws = Files.createDirectory(dir.resolve("ws"));
        agent = new ProcessBuilder(bin.toString()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        channel = new AgentChannel("test", agent.getInputStream(), agent.getOutputStream(), why -> {
        }).start();
        channel.awaitReady(Duration.ofSeconds(10));
        SandboxHost.Context context = new SandboxHost.Context() {
            @Override
            public void checkOpen() {
                if (closed) {
                    throw new SandboxException(ErrorKind.CLOSED, "closed");
                }
            }

            @Override
            public boolean isClosed() {
                return closed;
            }
        };
        fs = new AgentWorkspace(new AgentRunner(channel, List.of(), "/"), ws.toString(), context,
                SandboxException::new, 1 << 20);

    }

    @AfterEach
    void stop() throws Exception {
        closed = true;
        channel.close();
        agent.destroyForcibly().waitFor();
    }

    private Path ws() {
        return dir.resolve("ws");
    }

    private List<String> temporaries() throws IOException {
        try (Stream<Path> s = Files.walk(ws())) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".sandbox4j-"))
                    .collect(Collectors.toList());
        }
    }

    private static SandboxException error(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        return catchThrowableOfType(call, SandboxException.class);
    }

    /** A source that fails after {@code good} bytes, as a network stream would. */
    private static InputStream failingAfter(int good) {
        return new InputStream() {
            private int sent;

            @Override
            public int read() throws IOException {
                if (sent++ >= good) {
                    throw new IOException("the source broke");
                }
                return 'x';
            }
        };
    }

    @Test
    @Timeout(60)
    void aWriteWhoseSourceFailsMidStream_leavesTheOldFileAndNoTemporary() throws IOException {
        fs.write("d/keep.txt", "old content\n");
        SandboxException e = error(() -> fs.write("d/keep.txt", failingAfter(700_000)));
        assertThat(e.kind()).as(e.getMessage()).isEqualTo(ErrorKind.IO_ERROR);
        assertThat(e.getMessage()).contains("d/keep.txt").contains("the source broke");
        assertThat(fs.readText("d/keep.txt")).isEqualTo("old content\n");
        assertThat(temporaries()).isEmpty();
        e = error(() -> fs.write("d/new.bin", failingAfter(10)));
        assertThat(e.kind()).isEqualTo(ErrorKind.IO_ERROR);
        assertThat(fs.exists("d/new.bin")).isFalse();
        assertThat(temporaries()).isEmpty();
    }

    @Test
    @Timeout(60)
    void aStreamOverTheFileSizeLimit_failsTooLarge_andCommitsNothing() throws IOException {
        fs.write("big.bin", "small");
        SandboxException e = error(() -> fs.write("big.bin", new ByteArrayInputStream(new byte[(1 << 20) + 1])));
        assertThat(e.kind()).isEqualTo(ErrorKind.TOO_LARGE);
        assertThat(fs.readText("big.bin")).isEqualTo("small");
        assertThat(temporaries()).isEmpty();
        fs.write("big.bin", new ByteArrayInputStream(new byte[1 << 20]));
        assertThat(fs.stat("big.bin").size()).isEqualTo(1 << 20);
    }

    @Test
    @Timeout(60)
    void linksFifosAndSpecialFiles_areNeverFollowedOrOpened() throws Exception {
        Files.createDirectory(ws().resolve("d"));
        Files.createSymbolicLink(ws().resolve("etc"), Path.of("/etc"));
        Files.createSymbolicLink(ws().resolve("d/passwd"), Path.of("/etc/passwd"));
        assertThat(new ProcessBuilder("mkfifo", ws().resolve("fifo").toString()).start().waitFor()).isZero();
        for (String p : List.of("etc/passwd", "d/passwd")) {
            SandboxException e = error(() -> fs.readText(p));
            assertThat(e.kind()).as(p).isEqualTo(ErrorKind.PERMISSION_DENIED);
            assertThat(e.getMessage()).doesNotContain("root:");
        }
        assertThat(error(() -> fs.write("etc/x", "x")).kind()).isEqualTo(ErrorKind.PERMISSION_DENIED);
        assertThat(error(() -> fs.list("etc")).kind()).isEqualTo(ErrorKind.PERMISSION_DENIED);
        assertThat(error(() -> fs.readBytes("fifo")).kind()).isEqualTo(ErrorKind.PERMISSION_DENIED);
        assertThat(error(() -> fs.append("fifo", "x")).kind()).isEqualTo(ErrorKind.PERMISSION_DENIED);
        assertThat(fs.stat("fifo").isOther()).isTrue();
        assertThat(fs.stat("etc").linkTarget()).isEqualTo("/etc");
        GrepResult r = fs.grep("root", "");
        assertThat(r.matches()).isEmpty();
        assertThat(r.skipped()).extracting(GrepResult.Skipped::path, GrepResult.Skipped::reason).containsExactly(
                org.assertj.core.groups.Tuple.tuple("d/passwd", GrepResult.Reason.LINK),
                org.assertj.core.groups.Tuple.tuple("etc", GrepResult.Reason.LINK),
                org.assertj.core.groups.Tuple.tuple("fifo", GrepResult.Reason.SPECIAL_FILE));
        fs.deleteRecursively("etc");
        assertThat(Files.exists(Path.of("/etc/passwd"))).isTrue();
    }

    @Test
    @Timeout(60)
    void namesThatAreNotUtf8_areListedAndSearched() throws Exception {
        assertThat(new ProcessBuilder("sh", "-c", "printf 'a needle\\n' > \"$(printf 'bad\\377name')\"")
                .directory(ws().toFile()).start().waitFor()).isZero();
        List<FileInfo> list = fs.list("");
        assertThat(list).hasSize(1);
        assertThat(list.get(0).path()).isEqualTo("bad\uFFFDname");
        assertThat(fs.grep("needle", "").matches()).extracting(m -> m.path()).containsExactly("bad\uFFFDname");
    }

    @Test
    @Timeout(120)
    void aListingOverTheEntryCap_failsTooLarge() throws IOException {
        Path many = Files.createDirectory(ws().resolve("many"));
        for (int i = 0; i <= AgentWorkspace.MAX_LIST_ENTRIES; i++) {
            Files.createFile(many.resolve(Integer.toString(i)));
        }
        SandboxException e = error(() -> fs.list("many"));
        assertThat(e.kind()).isEqualTo(ErrorKind.TOO_LARGE);
        assertThat(e.getMessage()).contains("more than 100000 entries");
        assertThat(fs.find("99999", "", List.of())).containsExactly("many/99999");
    }

    @Test
    @Timeout(60)
    void grep_abandonsALargeBinaryFileAndReadsOnAfterIt() throws IOException {
        byte[] binary = new byte[8 << 20];
        binary[10] = 0;
        Files.write(ws().resolve("a.bin"), binary);
        Files.writeString(ws().resolve("b.txt"), "x\nneedle\n");
        Files.writeString(ws().resolve("c.txt"), "needle too\n");
        GrepResult r = fs.grep("needle", "");
        assertThat(r.matches()).extracting(m -> m.path() + ":" + m.lineNumber()).containsExactly("b.txt:2", "c.txt:1");
        assertThat(r.skipped()).extracting(GrepResult.Skipped::reason).containsExactly(GrepResult.Reason.BINARY);
    }

    @Test
    @Timeout(60)
    void anEditWhoseFileChangedMeanwhile_failsConflict() throws IOException {
        fs.write("f.txt", "alpha\n");
        FileInfo before = fs.stat("f.txt");
        Files.writeString(ws().resolve("f.txt"), "alpha, changed by a command\n");
        java.time.Instant m = before.modified();
        byte[] content = "ALPHA\n".getBytes(StandardCharsets.UTF_8);
        SandboxException e = error(() -> fs.op("writing f.txt", new FileStreams.Chunked(
                new ByteArrayInputStream(content), Long.MAX_VALUE), null, 64, AgentWorkspace.TIMEOUT, "write", "f.txt",
                "replace", "6", Long.toString(before.size()),
                Long.toString(m.getEpochSecond() * 1_000_000_000L + m.getNano() - 1)));
        assertThat(e.kind()).isEqualTo(ErrorKind.CONFLICT);
        assertThat(fs.readText("f.txt")).isEqualTo("alpha, changed by a command\n");
        assertThat(temporaries()).isEmpty();
        assertThat(fs.edit("f.txt", List.of(new Edit("changed", "CHANGED"))).applied()).isTrue();
        assertThat(fs.readText("f.txt")).isEqualTo("alpha, CHANGED by a command\n");
    }

    @Test
    @Timeout(60)
    void readToStreamsAndASinkThatThrowsStopsTheOperation() throws IOException {
        fs.write("s.txt", "line\n".repeat(100_000));
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        fs.readTo("s.txt", sink);
        assertThat(sink.size()).isEqualTo(500_000);
        SandboxException e = error(() -> fs.readTo("s.txt", new java.io.OutputStream() {
            @Override
            public void write(int b) {
                throw new SandboxException(ErrorKind.INTERRUPTED, "the sink gave up");
            }

            @Override
            public void write(byte[] b, int off, int len) {
                write(0);
            }
        }));
        assertThat(e.getMessage()).contains("the sink gave up");
        assertThat(fs.readText("s.txt", 2, 2)).isEqualTo("line\n");
    }
}
