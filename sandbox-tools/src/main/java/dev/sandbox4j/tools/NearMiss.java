package dev.sandbox4j.tools;

import dev.sandbox4j.Edit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Why a text to replace was not found: the nearest candidate in the file and how it differs (line endings,
 * trailing whitespace, indentation, other whitespace, or the text itself). Diagnosis only: nothing is ever applied
 * from a near miss.
 */
final class NearMiss {
    /** Files larger than this are not searched for a near miss (the plain no_match answer stays). */
    static final int MAX_CHARS = 2_000_000;
    private static final int MAX_SIMILARITY_LINE = 400;
    private static final int SHOWN_LINES = 3;

    private NearMiss() {
    }

    /**
     * @param line       1-based line of the file where the candidate starts
     * @param difference {@code line_endings}, {@code trailing_whitespace}, {@code indentation}, {@code whitespace}
     *                   or {@code text}
     * @param why        one sentence for the model
     * @param candidate  the file's candidate lines, whitespace made visible
     */
    record Diagnosis(int line, String difference, String why, String candidate) {
        Map<String, Object> fields() {
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("nearest_line", line);
            f.put("difference", difference);
            f.put("nearest_text", candidate);
            return f;
        }

        String sentence() {
            return " Nearest candidate: line " + line + ": " + candidate + " — " + why
                    + " Nothing was changed; copy the text exactly as the file has it.";
        }
    }

    /** The first edit, in order, whose old text does not occur in the text as edited so far; -1 if none. */
    static int failingEdit(String text, List<Edit> edits) {
        String current = text;
        for (int i = 0; i < edits.size(); i++) {
            Edit e = edits.get(i);
            int at = current.indexOf(e.oldText());
            if (at < 0) {
                return i;
            }
            current = current.substring(0, at) + e.newText() + current.substring(at + e.oldText().length());
        }
        return -1;
    }

    /** The text as the earlier edits leave it, for diagnosing edit {@code upTo}. */
    static String applyBefore(String text, List<Edit> edits, int upTo) {
        String current = text;
        for (int i = 0; i < upTo; i++) {
            Edit e = edits.get(i);
            int at = current.indexOf(e.oldText());
            current = current.substring(0, at) + e.newText() + current.substring(at + e.oldText().length());
        }
        return current;
    }

    /** Diagnoses why {@code needle} is not in {@code text}; null when nothing in the file is near. */
    static Diagnosis diagnose(String text, String needle) {
        if (needle.isEmpty() || text.length() > MAX_CHARS) {
            return null;
        }
        boolean fileCrlf = text.contains("\r\n");
        boolean needleCrlf = needle.contains("\r\n");
        if (fileCrlf && !needleCrlf && needle.contains("\n")) {
            int at = text.indexOf(needle.replace("\n", "\r\n"));
            if (at >= 0) {
                return at(text, at, needle, "line_endings", "the file has CRLF (\\r\\n) line endings and the text to"
                        + " replace has LF (\\n).");
            }
        }
        if (needleCrlf && !fileCrlf) {
            int at = text.indexOf(needle.replace("\r\n", "\n"));
            if (at >= 0) {
                return at(text, at, needle, "line_endings", "the file has LF (\\n) line endings and the text to"
                        + " replace has CRLF (\\r\\n).");
            }
        }
        Diagnosis d = byLines(text, needle, NearMiss::stripTrailing, "trailing_whitespace",
                "the lines match except for trailing spaces or tabs at their ends.");
        if (d == null) {
            d = byLines(text, needle, s -> stripTrailing(s).stripLeading(), "indentation",
                    "the lines match except for their indentation (leading spaces or tabs).");
        }
        if (d == null) {
            d = byLines(text, needle, s -> s.replaceAll("\\s+", ""), "whitespace",
                    "the lines match except for whitespace inside them.");
        }
        return d != null ? d : similar(text, needle);
    }

    private static String stripTrailing(String s) {
        int end = s.length();
        while (end > 0 && (s.charAt(end - 1) == ' ' || s.charAt(end - 1) == '\t' || s.charAt(end - 1) == '\r')) {
            end--;
        }
        return s.substring(0, end);
    }

    /** Compares line by line under a normalization that keeps the number of lines, so matches map to lines. */
    private static Diagnosis byLines(String text, String needle, UnaryOperator<String> norm, String difference,
                                     String why) {
        String[] fileLines = text.split("\n", -1);
        String[] needleLines = needle.split("\n", -1);
        StringBuilder nf = new StringBuilder();
        for (String l : fileLines) {
            nf.append(norm.apply(l)).append('\n');
        }
        StringBuilder nn = new StringBuilder();
        for (int i = 0; i < needleLines.length; i++) {
            nn.append(norm.apply(needleLines[i]));
            if (i < needleLines.length - 1) {
                nn.append('\n');
            }
        }
        String target = nn.toString();
        if (target.isBlank()) {
            return null;
        }
        int at = nf.indexOf(target);
        if (at < 0 || nf.indexOf(target, at + 1) >= 0) {
            return null; // not there, or not one unique place: no single candidate to point at
        }
        int line = lineOf(nf, at);
        return new Diagnosis(line, difference, why, show(fileLines, line, needleLines.length));
    }

    private static Diagnosis at(String text, int index, String needle, String difference, String why) {
        int line = lineOf(text, index);
        return new Diagnosis(line, difference, why, show(text.split("\n", -1), line,
                needle.split("\n", -1).length));
    }

    /** The file line most like the needle's first non-blank line, when it is like it at all. */
    private static Diagnosis similar(String text, String needle) {
        String first = needle.lines().filter(l -> !l.isBlank()).findFirst().orElse("").strip();
        if (first.isEmpty() || first.length() > MAX_SIMILARITY_LINE) {
            return null;
        }
        String[] fileLines = text.split("\n", -1);
        int best = -1;
        double bestScore = 0;
        for (int i = 0; i < fileLines.length; i++) {
            String l = fileLines[i].strip();
            if (l.isEmpty() || l.length() > MAX_SIMILARITY_LINE || Math.abs(l.length() - first.length())
                    > Math.max(first.length(), l.length()) / 2) {
                continue;
            }
            double score = 1.0 - (double) distance(first, l) / Math.max(first.length(), l.length());
            if (score > bestScore) {
                bestScore = score;
                best = i;
            }
        }
        if (best < 0 || bestScore < 0.6) {
            return null;
        }
        String l = fileLines[best].strip();
        int col = 0;
        while (col < l.length() && col < first.length() && l.charAt(col) == first.charAt(col)) {
            col++;
        }
        return new Diagnosis(best + 1, "text", "the text differs from the first line to replace, from character "
                + (col + 1) + " on (" + visible(cut(first, col)) + " in yours, " + visible(cut(l, col))
                + " in the file).", show(fileLines, best + 1, needle.split("\n", -1).length));
    }

    private static String cut(String s, int from) {
        String rest = s.substring(Math.min(from, s.length()));
        return rest.length() > 20 ? rest.substring(0, 20) + "..." : rest;
    }

    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    private static int lineOf(CharSequence text, int index) {
        int line = 1;
        for (int i = 0; i < index; i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }

    private static String show(String[] lines, int line, int count) {
        StringBuilder sb = new StringBuilder();
        int shown = Math.min(Math.min(count, SHOWN_LINES), lines.length - line + 1);
        for (int i = 0; i < shown; i++) {
            sb.append(i == 0 ? "" : " / ").append(visible(lines[line - 1 + i]));
        }
        if (count > shown) {
            sb.append(" / ...");
        }
        return sb.toString();
    }

    /** A line in quotes with its invisible characters written out: tabs, carriage returns, trailing spaces. */
    static String visible(String s) {
        String trimmed = stripTrailing(s);
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\t') {
                sb.append("\\t");
            } else if (c == '\r') {
                sb.append("\\r");
            } else if (c == ' ' && i >= trimmed.length()) {
                sb.append("\u00b7"); // a trailing space, made visible
            } else {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }
}
