package dev.sandbox4j.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.RawOutput;

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

    // ---- raw bytes (issue 36) ----------------------------------------------------------------------------------

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 7 + 3);
        }
        return b;
    }

    /** What the raw cap must give for a stream: whole up to 2 × limit bytes, else first and last limit bytes. */
    private static RawOutput expected(byte[] all, int limit) {
        if (all.length <= 2 * limit) {
            return RawOutput.of(all);
        }
        return RawOutput.of(Arrays.copyOf(all, limit), all.length - 2L * limit,
                Arrays.copyOfRange(all, all.length - limit, all.length));
    }

    @Test
    void raw_aroundTheEdges_keepsExactBytes_inOneWriteAndByteByByte() {
        int limit = 10; // head and tail rings of 40 bytes
        for (int n : new int[] {0, 1, 9, 10, 11, 19, 20, 21, 39, 40, 41, 79, 80, 81, 82, 119, 120, 121, 1000}) {
            byte[] all = bytes(n);
            OutputBuffer one = new OutputBuffer(limit);
            one.write(all);
            assertThat(one.raw()).as("%d bytes in one write", n).isEqualTo(expected(all, limit));
            OutputBuffer each = new OutputBuffer(limit);
            for (int i = 0; i < n; i++) {
                each.write(all, i, 1);
            }
            assertThat(each.raw()).as("%d bytes one at a time", n).isEqualTo(expected(all, limit));
            assertThat(each.raw().totalBytes()).isEqualTo(n);
        }
    }

    @Test
    void raw_exactlyTwiceTheLimit_isWhole_andOneMoreCutsOneByte() {
        OutputBuffer exact = new OutputBuffer(4);
        exact.write("abcdefgh".getBytes(StandardCharsets.UTF_8));
        assertThat(exact.raw().truncated()).isFalse();
        assertThat(exact.raw().bytes()).isEqualTo("abcdefgh".getBytes(StandardCharsets.UTF_8));
        OutputBuffer over = new OutputBuffer(4);
        over.write("abcdefghi".getBytes(StandardCharsets.UTF_8));
        assertThat(over.raw()).isEqualTo(RawOutput.of("abcd".getBytes(StandardCharsets.UTF_8), 1,
                "fghi".getBytes(StandardCharsets.UTF_8)));
    }

    /** The byte cap cuts where the count falls, inside a character; the text still keeps whole characters. */
    @Test
    void raw_multibyteCharactersCutInTheMiddle_bytesExact_textWhole() {
        int limit = 5;
        byte[] all = "€€€€€€€€€€".getBytes(StandardCharsets.UTF_8); // 30 bytes, 3 a character
        OutputBuffer buffer = new OutputBuffer(limit);
        buffer.write(all);
        RawOutput raw = buffer.raw();
        assertThat(raw.head()).isEqualTo(Arrays.copyOf(all, 5)); // one € and two bytes of the next
        assertThat(raw.tail()).isEqualTo(Arrays.copyOfRange(all, 25, 30));
        assertThat(raw.omittedBytes()).isEqualTo(20);
        assertThat(buffer.text()).as("10 characters fit 2 × 5: the text is whole").isEqualTo("€€€€€€€€€€");
    }

    @Test
    void raw_nonUtf8_keptAsIs_whileTheTextHasReplacements() {
        byte[] odd = {(byte) 0xFF, (byte) 0xFE, 0, 'o', 'k', '\n'};
        OutputBuffer buffer = new OutputBuffer(100);
        buffer.write(odd);
        assertThat(buffer.raw().bytes()).isEqualTo(odd);
        assertThat(buffer.text()).isEqualTo("\uFFFD\uFFFD\0ok\n");
    }

    @Test
    void raw_wrappedTail_manySmallWrites_keepsLastBytes() {
        int limit = 7;
        byte[] all = bytes(10_003);
        OutputBuffer buffer = new OutputBuffer(limit);
        for (int i = 0; i < all.length; i += 13) {
            buffer.write(all, i, Math.min(13, all.length - i));
        }
        assertThat(buffer.raw()).isEqualTo(expected(all, limit));
    }

    /** After the agent's cut ({@code skip}), the raw ends are those of the whole stream, and so is the count. */
    @Test
    void raw_afterSkip_endsLikeTheWholeStream() {
        int limit = 10;
        byte[] all = bytes(100_000);
        OutputBuffer cut = new OutputBuffer(limit);
        int keep = cut.keepBytes();
        cut.write(all, 0, 2 * keep);
        cut.skip(all.length - 3L * keep, all.length - 3L * keep);
        cut.write(all, all.length - keep, keep);
        assertThat(cut.raw()).isEqualTo(expected(all, limit));
        assertThat(cut.raw().omittedBytes()).isEqualTo(100_000 - 20);
        // the tail arriving in pieces that wrap the ring at another place
        OutputBuffer pieces = new OutputBuffer(limit);
        pieces.write(all, 0, 2 * keep + 3);
        pieces.skip(all.length - 3L * keep - 3, all.length - 3L * keep - 3);
        for (int i = all.length - keep; i < all.length; i += 6) {
            pieces.write(all, i, Math.min(6, all.length - i));
        }
        assertThat(pieces.raw()).isEqualTo(expected(all, limit));
    }

    @Test
    void rawSink_receivesEveryChunkAsWritten_beforeTheText_andCopies() {
        List<String> order = new ArrayList<>();
        java.io.ByteArrayOutputStream seen = new java.io.ByteArrayOutputStream();
        OutputBuffer buffer = new OutputBuffer(2, text -> order.add("text"), chunk -> {
            order.add("bytes");
            seen.writeBytes(chunk);
        });
        byte[] all = "añb€c\377".getBytes(StandardCharsets.UTF_8);
        all[all.length - 1] = (byte) 0xFF;
        byte[] chunk = new byte[3];
        for (int i = 0; i < all.length; i += 3) {
            int n = Math.min(3, all.length - i);
            System.arraycopy(all, i, chunk, 0, n);
            buffer.write(chunk, 0, n);
        }
        buffer.finish();
        assertThat(seen.toByteArray()).as("the chunks concatenate to the stream").isEqualTo(all);
        assertThat(order.get(0)).isEqualTo("bytes");
        OutputBuffer failing = new OutputBuffer(2, null, c -> {
            throw new IllegalStateException("listener bug (on purpose)");
        });
        failing.write(all);
        assertThat(failing.totalBytes()).as("a failing sink loses nothing").isEqualTo(all.length);
    }
}
