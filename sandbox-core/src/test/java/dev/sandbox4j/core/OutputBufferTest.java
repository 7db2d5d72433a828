package dev.sandbox4j.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class OutputBufferTest {
    @Test
    void shortOutput_keptWhole() {
        OutputBuffer buffer = new OutputBuffer(10);
        buffer.write("hello\n".getBytes(StandardCharsets.UTF_8));

        assertThat(buffer.text()).isEqualTo("hello\n");
        assertThat(buffer.truncation().truncated()).isFalse();
        assertThat(buffer.truncation().totalBytes()).isEqualTo(6);
    }

    @Test
    void exactlyTwiceTheLimit_keptWhole() {
        OutputBuffer buffer = new OutputBuffer(5);
        buffer.write("abcdefghij".getBytes(StandardCharsets.UTF_8));

        assertThat(buffer.text()).isEqualTo("abcdefghij");
    }

    @Test
    void longOutput_keepsHeadAndTail_withMarkerSayingHowMuchWasCut() {
        OutputBuffer buffer = new OutputBuffer(3);
        buffer.write("0123456789".getBytes(StandardCharsets.UTF_8));

        assertThat(buffer.text()).isEqualTo("012" + OutputBuffer.marker(4) + "789");
        assertThat(buffer.truncation().omittedChars()).isEqualTo(4);
    }

    @Test
    void wrappedTail_manySmallWrites_keepsLastCharacters() {
        OutputBuffer buffer = new OutputBuffer(4);
        for (int i = 0; i < 1000; i++) {
            buffer.write(String.format("%03d,", i).getBytes(StandardCharsets.UTF_8));
        }

        assertThat(buffer.text()).startsWith("000,").endsWith("999,");
        assertThat(buffer.truncation().omittedChars()).isEqualTo(4000 - 8);
    }

    @Test
    void multibyteCharacters_neverSplitAtTheCut() {
        OutputBuffer buffer = new OutputBuffer(3);
        byte[] text = "é".repeat(1000).getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < text.length; i += 7) {
            buffer.write(text, i, Math.min(7, text.length - i));
        }

        assertThat(buffer.text()).isEqualTo("ééé" + OutputBuffer.marker(994) + "ééé");
    }

    @Test
    void sink_receivesEveryCharacter_evenAcrossSplitSequences() {
        List<String> chunks = new ArrayList<>();
        OutputBuffer buffer = new OutputBuffer(2, chunks::add);
        byte[] text = "añb€c".getBytes(StandardCharsets.UTF_8);
        for (byte b : text) {
            buffer.write(new byte[] {b}, 0, 1);
        }
        buffer.finish();

        assertThat(String.join("", chunks)).isEqualTo("añb€c");
    }

    @Test
    void oneGibibyte_retainsOnlyTheCap() {
        int limit = 15_000;
        OutputBuffer buffer = new OutputBuffer(limit);
        byte[] chunk = new byte[1 << 20];
        Arrays.fill(chunk, (byte) 'y');
        Runtime rt = Runtime.getRuntime();
        System.gc();
        long before = rt.totalMemory() - rt.freeMemory();
        for (int i = 0; i < 1024; i++) {
            buffer.write(chunk, 0, chunk.length);
        }
        System.gc();
        long after = rt.totalMemory() - rt.freeMemory();

        assertThat(buffer.truncation().totalBytes()).isEqualTo(1L << 30);
        assertThat(buffer.retainedBytes()).as("bytes the buffer holds").isEqualTo(8L * limit);
        assertThat(after - before).as("heap growth while 1 GiB went through").isLessThan(64L << 20);
        assertThat(buffer.text()).hasSize(2 * limit + OutputBuffer.marker((1L << 30) - 2 * limit).length());
    }
}
