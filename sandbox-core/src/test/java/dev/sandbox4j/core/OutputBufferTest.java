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

    /** A character across the head's last byte, with the tail not yet wrapped, is one character, not two bad ones. */
    @Test
    void aCharacterAcrossTheHeadsEdge_staysWhole() {
        OutputBuffer buffer = new OutputBuffer(20); // head and tail of 80 bytes each
        String text = "a".repeat(79) + "é" + "b";
        buffer.write(text.getBytes(StandardCharsets.UTF_8));
        String all = text;
        assertThat(buffer.text()).isEqualTo(all.substring(0, 20) + OutputBuffer.marker(81 - 40)
                + all.substring(all.length() - 20));
        assertThat(buffer.text()).doesNotContain("\uFFFD");
    }

    /** What the agent skips and then sends as the tail leaves the buffer as if every byte had come. */
    @Test
    void skippedMiddle_endsLikeTheWholeStream() {
        int limit = 10;
        byte[] all = "0123456789".repeat(1000).getBytes(StandardCharsets.UTF_8);
        OutputBuffer whole = new OutputBuffer(limit);
        whole.write(all);
        OutputBuffer cut = new OutputBuffer(limit);
        int keep = cut.keepBytes();
        cut.write(all, 0, 2 * keep);
        cut.skip(all.length - 3L * keep, all.length - 3L * keep);
        cut.write(all, all.length - keep, keep);
        assertThat(cut.text()).isEqualTo(whole.text());
        assertThat(cut.truncation()).isEqualTo(whole.truncation());
        cut.skip(-5, 3); // nonsense counts change nothing
        assertThat(cut.truncation()).isEqualTo(whole.truncation());
    }
}
