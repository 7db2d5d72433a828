package dev.sandbox4j.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.SandboxException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NioWorkspace on the host's real file system, attacked the way sandboxed code can: links to host files, FIFOs,
 * devices, a directory swapped for a link mid-walk. The workspace holds what a hostile command could leave there.
 */
class NioWorkspaceHostTest {
    @TempDir
    Path tmp;
    Path workspace;
    Path outside;
    NioWorkspace fs;

    @BeforeEach
    void setUp() throws IOException {
        workspace = Files.createDirectory(tmp.resolve("workspace"));
        Path staging = Files.createDirectory(tmp.resolve("staging"));
        outside = Files.createDirectory(tmp.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "host secret");
        fs = new NioWorkspace(workspace, staging, NioWorkspace.Options.defaults().withMaxFileBytes(1 << 20));
    }

    private static void assertKind(ThrowingCallable call, ErrorKind... kinds) {
        assertThatThrownBy(call).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.kind()).isIn((Object[]) kinds));
    }

    @Test
    void symlinkToHostFile_neverFollowed_byAnyOperation() throws IOException {
        Files.createSymbolicLink(workspace.resolve("leak.txt"), outside.resolve("secret.txt"));
        Files.createSymbolicLink(workspace.resolve("env"), Path.of("/proc/self/environ"));

        assertKind(() -> fs.readText("leak.txt"), ErrorKind.PERMISSION_DENIED);
        assertKind(() -> fs.readText("env"), ErrorKind.PERMISSION_DENIED);
        assertKind(() -> fs.readTo("leak.txt", new ByteArrayOutputStream()), ErrorKind.PERMISSION_DENIED);
        assertKind(() -> fs.append("leak.txt", "x"), ErrorKind.PERMISSION_DENIED);
        assertKind(() -> fs.replace("leak.txt", "host", "pwned"), ErrorKind.PERMISSION_DENIED);
        assertThat(fs.stat("leak.txt")).matches(FileInfo::isSymlink, "isSymlink");
        assertThat(Files.readString(outside.resolve("secret.txt"))).isEqualTo("host secret");
    }

    @Test
    void symlinkedDirectory_neverEntered_notForWritesEither() throws IOException {
        Files.createSymbolicLink(workspace.resolve("out"), outside);

        assertKind(() -> fs.readText("out/secret.txt"), ErrorKind.PERMISSION_DENIED);
        assertKind(() -> fs.write("out/planted.txt", "x"), ErrorKind.PERMISSION_DENIED);
        assertKind(() -> fs.list("out"), ErrorKind.PERMISSION_DENIED);
        assertKind(() -> fs.mkdirs("out/sub"), ErrorKind.PERMISSION_DENIED);
        assertKind(() -> fs.delete("out/secret.txt"), ErrorKind.PERMISSION_DENIED);
        assertThat(fs.find("*.txt", "", List.of())).isEmpty();
        assertThat(fs.grep("secret", "").matches()).isEmpty();
        assertThat(fs.grep("secret", "").skipped()).as("the link is reported, not followed")
                .containsExactly(new dev.sandbox4j.GrepResult.Skipped("out", dev.sandbox4j.GrepResult.Reason.LINK,
                        "not followed"));
        assertKind(() -> fs.grep("secret", "out"), ErrorKind.PERMISSION_DENIED);
        assertThat(outside).isDirectoryNotContaining(p -> p.getFileName().toString().startsWith("planted"));
        assertThat(Files.exists(outside.resolve("secret.txt"))).isTrue();
    }

    @Test
    void writeOverSymlink_replacesTheLinkItself_hostFileUntouched() throws IOException {
        Files.createSymbolicLink(workspace.resolve("link"), outside.resolve("secret.txt"));

        assertKind(() -> fs.write("link", "overwritten"), ErrorKind.PERMISSION_DENIED);
        fs.delete("link");
        fs.write("link", "now a file");

        assertThat(Files.readString(outside.resolve("secret.txt"))).isEqualTo("host secret");
        assertThat(fs.readText("link")).isEqualTo("now a file");
    }

    @Test
    void deleteRecursive_throughLinks_deletesLinksNotTargets() throws IOException {
        Files.createDirectories(workspace.resolve("tree/sub"));
        Files.createSymbolicLink(workspace.resolve("tree/sub/out"), outside);

        fs.deleteRecursively("tree");

        assertThat(Files.exists(workspace.resolve("tree"))).isFalse();
        assertThat(Files.readString(outside.resolve("secret.txt"))).isEqualTo("host secret");
    }

    @Test
    void fifo_neverOpened_failsFastInsteadOfHanging() throws Exception {
        Process mkfifo = new ProcessBuilder("mkfifo", workspace.resolve("pipe").toString()).start();
        assertThat(mkfifo.waitFor()).isZero();

        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            assertKind(() -> fs.readText("pipe"), ErrorKind.PERMISSION_DENIED);
            assertKind(() -> fs.append("pipe", "x"), ErrorKind.PERMISSION_DENIED);
            assertThat(fs.stat("pipe")).matches(FileInfo::isOther, "isOther");
            assertThat(fs.grep("x", "").matches()).isEmpty();
            assertThat(fs.grep("x", "").skipped()).extracting(dev.sandbox4j.GrepResult.Skipped::path,
                    dev.sandbox4j.GrepResult.Skipped::reason).containsExactly(org.assertj.core.groups.Tuple.tuple(
                    "pipe", dev.sandbox4j.GrepResult.Reason.SPECIAL_FILE));
            assertKind(() -> fs.grep("x", "pipe"), ErrorKind.PERMISSION_DENIED);
        });
    }

    /**
     * Issue 18 #2, the primitive: the name was a regular file when it was checked, a FIFO by the time it is opened.
     * The open must neither block nor hand out the FIFO: PERMISSION_DENIED, at once.
     */
    @Test
    void openRegularFile_onAFifoSwappedInAfterTheCheck_refusesWithoutBlocking() throws Exception {
        assertThat(new ProcessBuilder("mkfifo", workspace.resolve("f").toString()).start().waitFor()).isZero();
        Files.writeString(workspace.resolve("regular.txt"), "ok");
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            try (java.nio.file.SecureDirectoryStream<Path> dir = secureRoot()) {
                assertKind(() -> NioWorkspace.openRegularFile(dir, Path.of("f"), "f"), ErrorKind.PERMISSION_DENIED);
                try (var ch = NioWorkspace.openRegularFile(dir, Path.of("regular.txt"), "regular.txt")) {
                    assertThat(ch.size()).isEqualTo(2);
                }
            }
        }, "opening a FIFO must not block");
        assertThat(Files.readString(workspace.resolve("regular.txt"))).as("read-write open changes nothing")
                .isEqualTo("ok");
    }

    /**
     * The read-only fallback (for files the host may not open read-write) is bounded too: a FIFO found there is
     * released by a read-write open of its name, and the call refused within the fallback's time.
     */
    @Test
    void openReadOnlyBounded_onAFifo_refusesInTime_andReleasesTheBlockedOpen() throws Exception {
        assertThat(new ProcessBuilder("mkfifo", workspace.resolve("f").toString()).start().waitFor()).isZero();
        int stuckBefore = NioWorkspace.stuckOpens();
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            try (java.nio.file.SecureDirectoryStream<Path> dir = secureRoot()) {
                long start = System.nanoTime();
                assertKind(() -> NioWorkspace.openReadOnlyBounded(dir, Path.of("f"), "f", 300),
                        ErrorKind.PERMISSION_DENIED);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
            } // the caller's directory closes even though its open blocked
        });
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (NioWorkspace.stuckOpens() > stuckBefore && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(NioWorkspace.stuckOpens()).as("the blocked open was released").isEqualTo(stuckBefore);
    }

    @SuppressWarnings("unchecked")
    private java.nio.file.SecureDirectoryStream<Path> secureRoot() throws IOException {
        return (java.nio.file.SecureDirectoryStream<Path>) Files.newDirectoryStream(workspace);
    }

    @Test
    void devZeroLink_neverReadIntoMemory() throws IOException {
        Files.createSymbolicLink(workspace.resolve("zero"), Path.of("/dev/zero"));

        assertTimeoutPreemptively(Duration.ofSeconds(5),
                () -> assertKind(() -> fs.readBytes("zero"), ErrorKind.PERMISSION_DENIED));
    }

    @Test
    void failedStreamingWrite_leavesOldFileWhole_andNoTempFileBehind() throws IOException {
        fs.write("data.txt", "old content");
        InputStream failing = new InputStream() {
            int n;

            @Override
            public int read() throws IOException {
                if (n++ > 10_000) {
                    throw new IOException("network dropped");
                }
                return 'x';
            }
        };

        assertKind(() -> fs.write("data.txt", failing), ErrorKind.IO_ERROR);

        assertThat(fs.readText("data.txt")).isEqualTo("old content");
        try (var files = Files.list(workspace)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("data.txt");
        }
        try (var staged = Files.list(tmp.resolve("staging"))) {
            assertThat(staged).isEmpty();
        }
    }

    @Test
    void writeOverMaxFileBytes_tooLarge_oldFileWhole() {
        fs.write("f", "old");

        assertKind(() -> fs.write("f", new byte[(1 << 20) + 1]), ErrorKind.TOO_LARGE);
        assertThat(fs.readText("f")).isEqualTo("old");
    }

    @Test
    void nonUtf8Name_listedAndSkippedSafely() throws Exception {
        byte[] name = {'b', 'a', 'd', (byte) 0xff, (byte) 0xfe, '.', 't', 'x', 't'};
        Process p = new ProcessBuilder("sh", "-c", "printf 'x' > \"$(printf 'bad\\377\\376.txt')\"")
                .directory(workspace.toFile()).start();
        assertThat(p.waitFor()).isZero();
        assertThat(new String(name, StandardCharsets.ISO_8859_1)).hasSize(9);

        assertThat(fs.list("")).hasSize(1);
        String listed = fs.list("").get(0).path();
        assertThat(listed).startsWith("bad");
        // the name a JVM decodes may not map back to the same bytes: a typed error, never a crash
        try {
            fs.readText(listed);
        } catch (SandboxException e) {
            assertThat(e.kind()).isIn(ErrorKind.NOT_FOUND, ErrorKind.INVALID_PATH);
        }
    }

    @Test
    void symlinkSwapRace_neverEscapes() throws Exception {
        Files.createDirectories(workspace.resolve("d"));
        Files.writeString(workspace.resolve("d/secret.txt"), "inside");
        Path link = workspace.resolve("d-link");
        Files.createSymbolicLink(link, outside);
        AtomicBoolean stop = new AtomicBoolean();
        Thread swapper = new Thread(() -> {
            Path dir = workspace.resolve("d");
            Path parked = workspace.resolve("d-parked");
            while (!stop.get()) {
                try {
                    Files.move(dir, parked, StandardCopyOption.ATOMIC_MOVE);
                    Files.move(link, dir, StandardCopyOption.ATOMIC_MOVE);
                    Files.move(dir, link, StandardCopyOption.ATOMIC_MOVE);
                    Files.move(parked, dir, StandardCopyOption.ATOMIC_MOVE);
                } catch (IOException ignored) {
                    // keep swapping
                }
            }
        });
        swapper.start();
        AtomicInteger escapes = new AtomicInteger();
        try {
            for (int i = 0; i < 5_000; i++) {
                try {
                    if (fs.readText("d/secret.txt").equals("host secret")) {
                        escapes.incrementAndGet();
                    }
                } catch (SandboxException expected) {
                    // refused or missing mid-swap: fine
                }
            }
        } finally {
            stop.set(true);
            swapper.join();
        }
        assertThat(escapes.get()).as("reads that reached the host file").isZero();
    }

    /** Issue 16: a full file system is NO_SPACE_LEFT, from write(2) (a plain IOException) and from path calls alike. */
    @Test
    void fullFileSystem_isNoSpaceLeft_notIoErrorOrTooLarge() {
        assertThat(NioWorkspace.translate(new IOException("No space left on device"), "a").kind())
                .isEqualTo(ErrorKind.NO_SPACE_LEFT);
        assertThat(NioWorkspace.translate(new java.nio.file.FileSystemException("/h/a", null,
                "No space left on device"), "a").kind()).isEqualTo(ErrorKind.NO_SPACE_LEFT);
        assertThat(NioWorkspace.translate(new java.nio.file.FileSystemException("/h/a", null,
                "Disk quota exceeded"), "a").kind()).isEqualTo(ErrorKind.NO_SPACE_LEFT);
        SandboxException e = NioWorkspace.translate(new IOException("No space left on device"), "dir/f.txt");
        assertThat(e.getMessage()).startsWith("dir/f.txt").doesNotContain("/h/");
        assertThat(NioWorkspace.translate(new java.nio.file.FileSystemException("/h/a", null, "File too large"), "a")
                .kind()).isEqualTo(ErrorKind.TOO_LARGE);
        assertThat(NioWorkspace.translate(new IOException("Broken pipe"), "a").kind()).isEqualTo(ErrorKind.IO_ERROR);
    }

    /** Sized first (huge-page tmpfs): the file ends exactly as written, and a failed write leaves the old file. */
    @Test
    void sizeFirst_writesExactContent_andAFailedWriteLeavesTheOldFile() throws IOException {
        NioWorkspace sized = new NioWorkspace(workspace, tmp.resolve("staging"),
                NioWorkspace.Options.defaults().withSizeFirst(true).withMaxFileBytes(8 << 20));
        byte[] big = new byte[(3 << 20) + 17];
        new java.util.Random(3).nextBytes(big);
        sized.write("a.bin", big);
        assertThat(Files.readAllBytes(workspace.resolve("a.bin"))).isEqualTo(big);
        java.io.ByteArrayInputStream in = new java.io.ByteArrayInputStream(big);
        in.skip(1000); // what is left is what gets written
        sized.write("b.bin", in);
        assertThat(Files.size(workspace.resolve("b.bin"))).isEqualTo(big.length - 1000L);
        assertThat(Files.readAllBytes(workspace.resolve("b.bin")))
                .isEqualTo(java.util.Arrays.copyOfRange(big, 1000, big.length));
        // announced 3 MiB, then the stream fails: nothing changes, nothing stays in staging
        java.io.InputStream failing = new java.io.SequenceInputStream(new java.io.ByteArrayInputStream(big),
                new java.io.InputStream() {
                    @Override
                    public int read() throws IOException {
                        throw new IOException("source broke");
                    }
                });
        assertKind(() -> sized.write("a.bin", failing), ErrorKind.IO_ERROR);
        assertThat(Files.readAllBytes(workspace.resolve("a.bin"))).isEqualTo(big);
        sized.write("c.bin", new byte[0]);
        assertThat(Files.size(workspace.resolve("c.bin"))).isZero();
        try (var left = Files.list(tmp.resolve("staging"))) {
            assertThat(left).isEmpty();
        }
    }
}
