package dev.sandbox4j;

import java.util.Objects;

/**
 * A pseudo-terminal a command runs under ({@link ExecRequest#withTerminal}, {@link Feature#TERMINAL}): its size, its
 * {@code TERM}, and whether its output keeps the terminal's control sequences.
 *
 * <p>The terminal is allocated inside the sandbox; the host's own terminal is never shared. The command's stdin,
 * stdout and stderr are the terminal, so its output is one stream ({@link ExecResult#stdout()}; stderr stays empty)
 * and what is written to its stdin is typed: {@code "\u0003"} (Ctrl-C) interrupts the foreground job,
 * {@link ExecHandle#closeStdin()} types Ctrl-D. By default the output is text for a model: control sequences
 * (colours, cursor moves, titles) are removed, carriage returns before a newline dropped, and what a full-screen
 * program draws on the alternate screen is left out, since it is gone once the program exits.
 *
 * @param cols         columns, 1..4096
 * @param rows         rows, 1..4096
 * @param type         the {@code TERM} the command sees (letters, digits, {@code . _ + -}; at most 64)
 * @param keepControl  true to keep the output byte for byte as the terminal wrote it (control sequences included)
 */
public record Terminal(int cols, int rows, String type, boolean keepControl) {
    /** The {@code TERM} unless another is given. */
    public static final String DEFAULT_TYPE = "xterm-256color";
    /** The largest number of columns or rows. */
    public static final int MAX_SIZE = 4096;

    public Terminal {
        checkSize(cols, rows);
        Objects.requireNonNull(type, "type");
        if (!type.matches("[A-Za-z0-9._+-]{1,64}")) {
            throw new IllegalArgumentException("not a terminal type: '" + type + "'");
        }
    }

    /** A terminal of this size, {@link #DEFAULT_TYPE}, its output as text without control sequences. */
    public static Terminal of(int cols, int rows) {
        return new Terminal(cols, rows, DEFAULT_TYPE, false);
    }

    public Terminal withType(String type) {
        return new Terminal(cols, rows, type, keepControl);
    }

    /** The output byte for byte as the terminal wrote it, control sequences and the alternate screen included. */
    public Terminal keepingControl() {
        return new Terminal(cols, rows, type, true);
    }

    /** Throws {@link IllegalArgumentException} unless both are in 1..{@link #MAX_SIZE}. */
    public static void checkSize(int cols, int rows) {
        if (cols < 1 || rows < 1 || cols > MAX_SIZE || rows > MAX_SIZE) {
            throw new IllegalArgumentException("terminal size " + cols + "x" + rows + " is not in 1.." + MAX_SIZE);
        }
    }
}
