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

    // ---- cut at line boundaries (issue 34) -----------------------------------------------------------------

    /** The characters of the stream not in the text: the marker's count, and the truncation's, must be these. */
    private static void assertCountsAreTheTruth(OutputBuffer buffer, String all) {
        String text = buffer.text();
        long omitted = buffer.truncation().omittedChars();
        String marker = OutputBuffer.marker(omitted);
        assertThat(text).as("one marker with the truncation's count").contains(marker);
        int at = text.indexOf(marker);
        String head = text.substring(0, at);
        String tail = text.substring(at + marker.length());
        assertThat(all).as("the head is the stream's start").startsWith(head);
        assertThat(all).as("the tail is the stream's end").endsWith(tail);
        assertThat(all.codePointCount(0, all.length()) - head.codePointCount(0, head.length())
                - tail.codePointCount(0, tail.length())).as("omitted characters").isEqualTo(omitted);
    }

    private static OutputBuffer written(int limit, String all, int chunk) {
        OutputBuffer buffer = new OutputBuffer(limit);
        byte[] bytes = all.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < bytes.length; i += chunk) {
            buffer.write(bytes, i, Math.min(chunk, bytes.length - i));
        }
        return buffer;
    }

    @Test
    void lineWindow_isATenthOfTheLimit_atMost200() {
        assertThat(OutputBuffer.lineWindow(9)).isZero();
        assertThat(OutputBuffer.lineWindow(40)).isEqualTo(4);
        assertThat(OutputBuffer.lineWindow(2_000)).isEqualTo(200);
        assertThat(OutputBuffer.lineWindow(15_000)).isEqualTo(200);
    }

    /** The demo's flood (seq 1 2000000, limit 40): whole lines on both sides of the marker, counts exact. */
    @Test
    void seqFlood_headEndsAndTailStartsOnALine() {
        StringBuilder seq = new StringBuilder();
        for (int i = 1; i <= 2_000_000; i++) {
            seq.append(i).append('\n');
        }
        String all = seq.toString();
        for (int chunk : new int[] {1 << 16, 4093}) {
            OutputBuffer buffer = written(40, all, chunk);
            // the first 40 characters end "16\n1": the "1" of 17 is dropped; the last 40 are 5 whole lines already
            assertThat(buffer.text()).startsWith("1\n2\n").contains("15\n16\n" + OutputBuffer.marker(
                    buffer.truncation().omittedChars()) + "1999996\n").endsWith("1999999\n2000000\n");
            assertCountsAreTheTruth(buffer, all);
        }
    }

    /** A break exactly at the window's edge moves the cut; one character farther does not. */
    @Test
    void breakAtTheWindowsEdge_movesTheCut_oneFartherDoesNot() {
        int limit = 50; // window 5
        String middle = "m".repeat(100);
        // head: 44 characters, a break, then 5 of the next line (dropped); tail: 4 characters, a break (dropped)
        String near = "h".repeat(44) + "\n" + "abcde" + middle + "vwxy\n" + "t".repeat(45);
        OutputBuffer buffer = written(limit, near, 1 << 16);
        assertThat(buffer.text()).isEqualTo("h".repeat(44) + "\n" + OutputBuffer.marker(100 + 5 + 5)
                + "t".repeat(45));
        assertCountsAreTheTruth(buffer, near);

        // one character farther on each side: the cut stays where the character count falls
        String far = "h".repeat(43) + "\n" + "abcdef" + middle + "uvwxy\n" + "t".repeat(44);
        buffer = written(limit, far, 1 << 16);
        assertThat(buffer.text()).isEqualTo("h".repeat(43) + "\nabcdef" + OutputBuffer.marker(100)
                + "uvwxy\n" + "t".repeat(44));
        assertCountsAreTheTruth(buffer, far);
    }

    /** A head whose next character is a break already ends a line, and a tail after a break starts one. */
    @Test
    void cutAlreadyOnALine_isKept() {
        int limit = 50;
        String all = "a".repeat(48) + "\nb" + "\n" + "m".repeat(100) + "\n" + "c\n" + "z".repeat(48);
        // the head is 48 a's, "\n", "b" and the next character is a break; the tail starts right after one
        OutputBuffer buffer = written(limit, all, 1 << 16);
        assertThat(buffer.text()).isEqualTo("a".repeat(48) + "\nb" + OutputBuffer.marker(102)
                + "c\n" + "z".repeat(48));
        assertCountsAreTheTruth(buffer, all);
    }

    /** One huge line: no break near either cut, so head and tail keep their full limit. */
    @Test
    void singleHugeLine_keepsItsHeadAndTail() {
        String all = "x".repeat(1_000_000) + "\n";
        OutputBuffer buffer = written(15_000, all, 1 << 16);
        assertThat(buffer.text()).isEqualTo("x".repeat(15_000) + OutputBuffer.marker(1_000_001 - 30_000)
                + "x".repeat(14_999) + "\n");
        assertThat(buffer.truncation().omittedChars()).isEqualTo(1_000_001 - 30_000);
        // with breaks just outside the window (201 characters from each cut): still the full limit
        String lines = "y".repeat(14_798) + "\n" + "y".repeat(1_000_000) + "\n" + "y".repeat(14_799);
        buffer = written(15_000, lines, 1 << 16);
        assertThat(buffer.truncation().omittedChars()).isEqualTo(lines.length() - 30_000L);
        assertCountsAreTheTruth(buffer, lines);
    }

    /** Multibyte characters: the window and the counts are in characters, the wrapped and unwrapped paths agree. */
    @Test
    void multibyteLines_countsInCharacters_wrappedOrNot() {
        int limit = 30; // window 3; head and tail rings of 120 bytes
        String line = "é€😀ab\n"; // 6 characters, 12 bytes
        for (int lines : new int[] {11, 1000}) {
            String all = line.repeat(lines) + "é€";
            for (int chunk : new int[] {1, 5, 1 << 16}) {
                OutputBuffer buffer = written(limit, all, chunk);
                assertThat(buffer.text()).as("%d lines in chunks of %d", lines, chunk).doesNotContain("\uFFFD");
                assertCountsAreTheTruth(buffer, all);
                String text = buffer.text();
                String marker = OutputBuffer.marker(buffer.truncation().omittedChars());
                assertThat(text.substring(0, text.indexOf(marker))).as("head of %d lines", lines).endsWith("\n");
            }
        }
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
