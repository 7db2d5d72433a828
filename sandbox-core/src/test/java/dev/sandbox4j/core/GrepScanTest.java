package dev.sandbox4j.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.GrepMatch;
import dev.sandbox4j.GrepOptions;
import dev.sandbox4j.GrepResult;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class GrepScanTest {
    private static GrepResult scan(String regex, String text) throws IOException {
        GrepScan scan = new GrepScan(regex, GrepOptions.defaults());
        scan.search("f", new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
        return scan.result();
    }

    @Test
    void linesEndAtLfOrCrLf_lastLineWithoutTerminatorCounts() throws IOException {
        GrepResult r = scan("x$", "ax\r\nb\nbx\n\ncx");
        assertThat(r.matches()).extracting(GrepMatch::lineNumber).containsExactly(1, 3, 5);
        assertThat(r.matches().get(0).line()).isEqualTo("ax");
        assertThat(r.isComplete()).isTrue();
    }

    @Test
    void aMatchAcrossTwoWindowsOfALongLine_isFound_andAnchorsHoldOnlyAtTheRealEdges() throws IOException {
        int w = GrepScan.WINDOW_CHARS;
        String across = "y".repeat(w - 10) + "NEEDLE-SPANS" + "y".repeat(w);
        assertThat(scan("NEEDLE-SPANS", across).matches()).hasSize(1);
        assertThat(scan("^y", "z" + across).matches()).as("^ must not match at a later window's start").isEmpty();
        assertThat(scan("y$", across + "z").matches()).as("$ must not match at a window's end").isEmpty();
        assertThat(scan("z$", across + "z").matches()).hasSize(1);
    }

    @Test
    void aLongMatchedLine_isReportedAsAnExcerptWithMarkers() throws IOException {
        String line = "a".repeat(3 * GrepScan.WINDOW_CHARS) + "needle" + "b".repeat(5000);
        GrepResult r = scan("needle", line + "\nnext needle\n");
        assertThat(r.matches()).hasSize(2);
        String text = r.matches().get(0).line();
        int before = 3 * GrepScan.WINDOW_CHARS - GrepScan.EXCERPT_BEFORE;
        assertThat(text).startsWith("[... " + before + " chars cut] " + "a".repeat(GrepScan.EXCERPT_BEFORE) + "needle")
                .endsWith(" [... " + (line.length() - before - GrepScan.EXCERPT_CHARS) + " chars cut]");
        assertThat(r.matches().get(1)).isEqualTo(new GrepMatch("f", 2, "next needle"));
    }

    @Test
    void binary_isSkippedWithTheNulOffset() throws IOException {
        GrepResult r = scan("x", "x\n\0x");
        assertThat(r.matches()).isEmpty();
        assertThat(r.skipped()).containsExactly(new GrepResult.Skipped("f", GrepResult.Reason.BINARY,
                "a NUL byte at offset 2"));
        assertThat(r.isComplete()).isFalse();
    }

    @Test
    void multiByteCharactersAcrossReadBoundaries_decodeIntact() throws IOException {
        String text = ("é".repeat(40_000) + "\n").repeat(3) + "日本語 needle\n";
        GrepResult r = scan("日本語 needle|\uFFFD", text);
        assertThat(r.matches()).extracting(GrepMatch::lineNumber).containsExactly(4);
    }

    /** A 200 MB line costs the scanner a few MiB of allocation, not the line: it is matched in windows. */
    @Test
    void a200MbLine_allocatesBoundedMemory() throws IOException {
        long size = 200L << 20;
        InputStream line = new InputStream() {
            private long pos;

            @Override
            public int read() {
                throw new UnsupportedOperationException();
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (pos >= size) {
                    return -1;
                }
                int n = (int) Math.min(len, size - pos);
                java.util.Arrays.fill(b, off, off + n, (byte) 'x');
                if (pos + n == size) {
                    System.arraycopy("needle".getBytes(StandardCharsets.US_ASCII), 0, b, off + n - 6, 6);
                }
                pos += n;
                return n;
            }
        };
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
        GrepScan scan = new GrepScan("needle$", GrepOptions.defaults());
        scan.search("f", line);
        long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
        GrepResult r = scan.result();
        assertThat(r.matches()).hasSize(1);
        assertThat(r.matches().get(0).line()).startsWith("[... " + (size - 6 - GrepScan.EXCERPT_BEFORE) + " chars cut] ")
                .endsWith("xneedle");
        assertThat(allocated).as("bytes allocated to search a %d-byte line", size).isLessThan(16L << 20);
    }
}
