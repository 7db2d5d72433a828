package dev.sandbox4j.tools;

import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Codex's {@code seek_sequence}: where a run of lines occurs at or after a start, tried with decreasing strictness
 * (exact, trailing whitespace ignored, surrounding whitespace ignored, typographic dashes, quotes and spaces read as
 * ASCII). With {@code eof} the search starts where the run would end the file.
 */
final class Seek {
    private Seek() {
    }

    /** The index where {@code pattern} starts, or -1. */
    static int seek(List<String> lines, List<String> pattern, int start, boolean eof) {
        if (pattern.isEmpty()) {
            return start;
        }
        if (pattern.size() > lines.size()) {
            return -1;
        }
        int from = eof ? lines.size() - pattern.size() : start;
        for (UnaryOperator<String> norm : List.<UnaryOperator<String>>of(s -> s, String::stripTrailing,
                String::strip, Seek::normalise)) {
            int found = find(lines, pattern, from, norm);
            if (found >= 0) {
                return found;
            }
        }
        return -1;
    }

    private static int find(List<String> lines, List<String> pattern, int from, UnaryOperator<String> norm) {
        for (int i = Math.max(0, from); i <= lines.size() - pattern.size(); i++) {
            boolean ok = true;
            for (int p = 0; p < pattern.size() && ok; p++) {
                ok = norm.apply(lines.get(i + p)).equals(norm.apply(pattern.get(p)));
            }
            if (ok) {
                return i;
            }
        }
        return -1;
    }

    static String normalise(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.strip().toCharArray()) {
            b.append(switch (c) {
                case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212' -> '-';
                case '\u2018', '\u2019', '\u201A', '\u201B' -> '\'';
                case '\u201C', '\u201D', '\u201E', '\u201F' -> '"';
                case '\u00A0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007', '\u2008', '\u2009',
                        '\u200A', '\u202F', '\u205F', '\u3000' -> ' ';
                default -> c;
            });
        }
        return b.toString();
    }
}
