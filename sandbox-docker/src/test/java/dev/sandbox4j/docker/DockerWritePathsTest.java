package dev.sandbox4j.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.Sandbox;
import java.io.ByteArrayInputStream;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every write goes to the container as one agent file operation whose content comes as chunks of 64 KiB (sent in
 * STDIN frames of 256 KiB) and an end mark: both sides of each edge (a chunk, a frame, 1 MiB, 4 MiB), as bytes, as a
 * stream and appended, arrive exact, keep the replaced file's mode, and leave no temporary in the workspace.
 */
class DockerWritePathsTest {

    @Test
    @Timeout(180)
    void bothSidesOfTheEdges_exactContent_noTempFilesLeft() {
        try (Sandbox s = DockerTestSupport.open()) {
            Random r = new Random(12);
            for (int size : new int[] {0, 1, (64 << 10) - 1, 64 << 10, (64 << 10) + 1, (256 << 10) - 4,
                    (256 << 10) + 1, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, (4 << 20) + 3}) {
                byte[] data = new byte[size];
                r.nextBytes(data);
                s.files().write("d/bytes.bin", data);
                assertThat(s.files().readBytes("d/bytes.bin")).as("bytes, %d", size).isEqualTo(data);
                s.files().write("d/stream.bin", new ByteArrayInputStream(data));
                assertThat(s.files().readBytes("d/stream.bin")).as("stream, %d", size).isEqualTo(data);
                s.files().write("d/app.bin", "head".getBytes());
                s.files().append("d/app.bin", data);
                byte[] both = new byte[4 + size];
                System.arraycopy("head".getBytes(), 0, both, 0, 4);
                System.arraycopy(data, 0, both, 4, size);
                assertThat(s.files().readBytes("d/app.bin")).as("appended, %d", size).isEqualTo(both);
            }
            assertThat(s.shell().run("chmod 700 d/bytes.bin").isSuccess()).isTrue();
            s.files().write("d/bytes.bin", "small");
            assertThat(s.shell().run("stat -c %a d/bytes.bin").stdout().trim()).isEqualTo("700");
            assertThat(s.shell().run("ls -A /workspace").stdout().trim()).isEqualTo("d");
            assertThat(s.shell().run("ls -A /workspace/d").stdout().trim().split("\n"))
                    .containsExactlyInAnyOrder("app.bin", "bytes.bin", "stream.bin");
        }
    }
}
