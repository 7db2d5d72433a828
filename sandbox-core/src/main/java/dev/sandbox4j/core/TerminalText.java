package dev.sandbox4j.core;

import java.util.Arrays;

/**
 * A terminal's output made text for a model, as it streams ({@code feed} chunk by chunk gives the same bytes as one
 * feed of the whole): ANSI/VT control sequences removed (CSI, OSC, DCS/SOS/PM/APC strings, two- and three-byte
 * escapes), CR before LF dropped and a lone CR made a line break, other C0 controls (BEL, BS, ...) and DEL dropped,
 * and everything drawn on the alternate screen ({@code CSI ?1049h}, {@code ?1047h}, {@code ?47h} up to the matching
 * {@code l}) left out, since a full-screen program's screen is gone once it exits. Tabs and UTF-8 pass as they are.
 *
 * <p>Bounded: a sequence's parameters are kept up to {@link #MAX_PARAMS} bytes (the rest is consumed, not kept); a
 * string sequence of any length is consumed without being held. Not thread-safe: one per stream.
 */
final class TerminalText {
    static final int MAX_PARAMS = 64;

    private enum State { GROUND, ESC, ESC_INTERMEDIATE, CSI, STRING, STRING_ESC }

    private State state = State.GROUND;
    private boolean pendingCr;
    private boolean alternate;
    private final byte[] params = new byte[MAX_PARAMS];
    private int paramLength;
    private boolean oscEndsOnBel;

    /** The text of {@code chunk}, given what came before it. */
    byte[] feed(byte[] chunk) {
        return feed(chunk, 0, chunk.length);
    }

    byte[] feed(byte[] chunk, int off, int len) {
        byte[] out = new byte[len + 1]; // at most one held CR more than the input
        int n = 0;
        for (int i = off; i < off + len; i++) {
            int b = chunk[i] & 0xff;
            switch (state) {
                case GROUND -> n = ground(b, out, n);
                case ESC -> escape(b);
                case ESC_INTERMEDIATE -> {
                    if (b >= 0x30 && b <= 0x7e) {
                        state = State.GROUND;
                    } else if (b == 0x1b) {
                        state = State.ESC;
                    } else if (b < 0x20 || b > 0x7e) {
                        state = State.GROUND;
                    }
                }
                case CSI -> n = csi(b, out, n);
                case STRING -> {
                    if (b == 0x1b) {
                        state = State.STRING_ESC;
                    } else if (b == 0x07 && oscEndsOnBel || b == 0x18 || b == 0x1a) {
                        state = State.GROUND;
                    }
                }
                case STRING_ESC -> {
                    if (b == '\\') {
                        state = State.GROUND;
                    } else if (b != 0x1b) {
                        state = State.STRING; // an ESC inside the string that does not end it
                    }
                }
                default -> throw new IllegalStateException();
            }
        }
        return Arrays.copyOf(out, n);
    }

    /** The end of the stream: a CR still held is a line break; an unfinished sequence is dropped. */
    byte[] finish() {
        byte[] rest = pendingCr && !alternate ? new byte[] {'\n'} : new byte[0];
        pendingCr = false;
        state = State.GROUND;
        return rest;
    }

    private int ground(int b, byte[] out, int n) {
        if (pendingCr) {
            pendingCr = false;
            if (b != '\n' && !alternate) {
                out[n++] = '\n'; // a lone CR (a progress bar's redraw) becomes a line break
            }
        }
        if (b == 0x1b) {
            state = State.ESC;
        } else if (b == '\r') {
            pendingCr = true;
        } else if (b == '\n' || b == '\t' || b >= 0x20 && b != 0x7f) {
            if (!alternate) {
                out[n++] = (byte) b;
            }
        }
        return n; // other C0 controls and DEL: dropped
    }

    private void escape(int b) {
        switch (b) {
            case '[' -> {
                state = State.CSI;
                paramLength = 0;
            }
            case ']', 'P', 'X', '^', '_' -> {
                state = State.STRING;
                oscEndsOnBel = b == ']';
            }
            case 0x1b -> state = State.ESC;
            default -> {
                if (b >= 0x20 && b <= 0x2f) {
                    state = State.ESC_INTERMEDIATE; // ESC ( B and the like: one more byte
                } else {
                    state = State.GROUND; // a final byte (ESC 7, ESC M, ESC =) or a control that cancels
                }
            }
        }
    }

    private int csi(int b, byte[] out, int n) {
        if (b >= 0x40 && b <= 0x7e) {
            state = State.GROUND;
            if (b == 'h' || b == 'l') {
                privateMode(b == 'h');
            }
        } else if (b >= 0x20 && b <= 0x3f) {
            if (paramLength < MAX_PARAMS) {
                params[paramLength++] = (byte) b;
            }
        } else if (b == 0x1b) {
            state = State.ESC;
        } else if (b == 0x18 || b == 0x1a || b >= 0x80 || b == 0x7f) {
            state = State.GROUND; // cancelled, or not a sequence after all: dropped
        } else {
            State keep = state;
            n = ground(b, out, n); // a C0 control inside a sequence acts as if outside it
            state = keep;
        }
        return n;
    }

    /** {@code CSI ? P1;P2... h|l}: the alternate screen's modes switch it on or off. */
    private void privateMode(boolean set) {
        if (paramLength == 0 || params[0] != '?' || paramLength == MAX_PARAMS) {
            return;
        }
        int value = 0;
        for (int i = 1; i <= paramLength; i++) {
            int c = i < paramLength ? params[i] : ';';
            if (c >= '0' && c <= '9') {
                value = Math.min(100_000, value * 10 + (c - '0'));
            } else {
                if (value == 1049 || value == 1047 || value == 47) {
                    alternate = set;
                    pendingCr = false;
                }
                value = 0;
            }
        }
    }
}
