package dev.sandbox4j.testing;

import static dev.sandbox4j.testing.Checks.expectError;
import static dev.sandbox4j.testing.Checks.paths;
import static dev.sandbox4j.testing.Checks.snapshot;
import static dev.sandbox4j.testing.Checks.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Feature;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The file API with large and changing content: streaming writes and reads, the read size cap, atomic replacement
 * when a source fails, and reads of a file that changes while it streams. Part of {@link FileSystemContract}, which extends it: every backend that runs the file contract runs these.
 */
public interface FileStreamingContract extends ConformanceSupport {

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
}
