package dev.sandbox4j.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link TerminalText}: what a terminal's output becomes as text, and a fuzz of its invariants. */
class TerminalTextTest {
    private static String text(String terminal) {
        TerminalText t = new TerminalText();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(t.feed(terminal.getBytes(StandardCharsets.UTF_8)));
        out.writeBytes(t.finish());
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void colorsCursorMovesTitlesAndCharsetsAreRemoved() {
        assertThat(text("\u001b[1;31mred\u001b[0m plain\r\n")).isEqualTo("red plain\n");
        assertThat(text("\u001b]0;a title\u0007prompt$ ")).isEqualTo("prompt$ ");
        assertThat(text("\u001b]8;;http://x\u001b\\link\u001b]8;;\u001b\\")).isEqualTo("link");
        assertThat(text("\u001b(Bx\u001b7y\u001b8\u001b[2J\u001b[Hz\u001b[?25l")).isEqualTo("xyz");
        assertThat(text("\u001bP1$r0m\u001b\\after")).as("a DCS string").isEqualTo("after");
        assertThat(text("bell\u0007 back\b tab\tok\u007f")).isEqualTo("bell back tab\tok");
        assertThat(text("café ✓\n")).isEqualTo("café ✓\n");
    }

    @Test
    void aLoneCarriageReturnIsALineBreak_crLfIsOne() {
        assertThat(text("10%\r20%\r100%\r\ndone\r")).isEqualTo("10%\n20%\n100%\ndone\n");
    }

    @Test
    void theAlternateScreenIsLeftOut() {
        assertThat(text("before\n\u001b[?1049h\u001b[Hscreen\r\nmore\u001b[?1049lafter\n")).isEqualTo("before\nafter\n");
        assertThat(text("a\u001b[?47hhidden\u001b[?47lb")).isEqualTo("ab");
        assertThat(text("a\u001b[?1;1047hhidden\u001b[?1047;1lb")).as("among other modes").isEqualTo("ab");
        assertThat(text("a\u001b[?1049hnever restored")).isEqualTo("a");
        assertThat(text("a\u001b[1049hb")).as("not a private mode").isEqualTo("ab");
    }

    @Test
    void aSequenceSplitAcrossChunksIsStillRemoved() {
        TerminalText t = new TerminalText();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String piece : new String[] {"x\u001b", "[3", "1mred\u001b]0;ti", "tle\u0007\r", "\n"}) {
            out.writeBytes(t.feed(piece.getBytes(StandardCharsets.UTF_8)));
        }
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("xred\n");
    }

    /**
     * Random terminal-ish bytes, fed whole and in random pieces: the same text either way, never an ESC, CR or other
     * C0 control but TAB and LF, never longer than the input (+1 for a CR made a line break at the end).
     */
    @Test
    void fuzz_anySplitGivesTheSameTextWithoutControls() {
        Random random = new Random(32);
        byte[] alphabet = "\u001b[]?;0123456789hlmHJK()PX^_\\\u0007\r\n\t\b\u0018\u001aab ".getBytes(StandardCharsets.UTF_8);
        for (int round = 0; round < 3000; round++) {
            byte[] in = new byte[random.nextInt(200)];
            for (int i = 0; i < in.length; i++) {
                in[i] = random.nextInt(8) == 0 ? (byte) random.nextInt(256) : alphabet[random.nextInt(alphabet.length)];
            }
            TerminalText whole = new TerminalText();
            ByteArrayOutputStream a = new ByteArrayOutputStream();
            a.writeBytes(whole.feed(in));
            a.writeBytes(whole.finish());
            TerminalText pieces = new TerminalText();
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            for (int at = 0; at < in.length; ) {
                int n = Math.min(in.length - at, 1 + random.nextInt(8));
                b.writeBytes(pieces.feed(in, at, n));
                at += n;
            }
            b.writeBytes(pieces.finish());
            assertThat(b.toByteArray()).isEqualTo(a.toByteArray());
            assertThat(a.size()).isLessThanOrEqualTo(in.length + 1);
            for (byte x : a.toByteArray()) {
                int c = x & 0xff;
                assertThat(c < 0x20 && c != '\t' && c != '\n' || c == 0x7f).as("control byte %d in the text", c).isFalse();
            }
        }
    }

    @Test
    void aLongSequenceIsConsumedWithoutBeingKept() {
        String params = "1;".repeat(100_000);
        assertThat(text("a\u001b[" + params + "mb\u001b]" + "x".repeat(100_000) + "\u0007c")).isEqualTo("abc");
        assertThat(text("a\u001b[?" + "1".repeat(100) + "hb")).as("a mode too long to read is not the screen's")
                .isEqualTo("ab");
    }
}
