package dev.sandbox4j.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.Sandbox;
import java.io.ByteArrayInputStream;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Writes up to {@link DockerFiles#THROUGH_AGENT} bytes go to the container as a command's stdin, larger ones through
 * the archive endpoint: both sides of the edge, as bytes, as a stream and appended, arrive exact, keep the replaced
 * file's mode, and leave no temp file in the workspace.
 */
class DockerWritePathsTest {

    @Test
    @Timeout(120)
    void bothSidesOfTheEdge_exactContent_noTempFilesLeft() {
        try (Sandbox s = DockerTestSupport.open()) {
            Random r = new Random(12);
            for (int size : new int[] {0, 1, DockerFiles.THROUGH_AGENT - 1, DockerFiles.THROUGH_AGENT,
                    DockerFiles.THROUGH_AGENT + 1}) {
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
        }
    }
}
