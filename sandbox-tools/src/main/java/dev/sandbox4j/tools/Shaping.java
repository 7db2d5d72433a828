package dev.sandbox4j.tools;

import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.Truncation;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Output shaping and the meaning of exit codes. */
final class Shaping {
    /** The wire name of a file's type: {@code file}, {@code directory}, {@code symlink} or {@code other}. */
    static String fileType(FileInfo info) {
        return info.isFile() ? "file" : info.isDirectory() ? "directory" : info.isSymlink() ? "symlink" : "other";
    }

    private Shaping() {
    }

    /** Line boundaries are looked for this many characters back from the head's end and on from the tail's start. */
    static final int LINE_WINDOW = 200;

    /**
     * One output stream as the model reads it.
     *
     * @param text          the kept text, with one marker where the middle was cut
     * @param omittedChars  characters (code points) cut out, 0 when kept whole
     * @param omittedLines  line breaks cut out, or -1 when nobody counted them (the backend cut without counting)
     */
    record Capped(String text, long omittedChars, long omittedLines) {
    }

    /** Characters and line breaks of a whole stream, counted as it went by (every chunk, before any cap). */
    static final class StreamCount {
        private long codePoints;
        private long newlines;
        private boolean pendingHighSurrogate;

        synchronized void add(String chunk) {
            for (int i = 0; i < chunk.length(); i++) {
                char c = chunk.charAt(i);
                if (Character.isLowSurrogate(c) && pendingHighSurrogate) {
                    pendingHighSurrogate = false;
                    continue;
                }
                pendingHighSurrogate = Character.isHighSurrogate(c);
                codePoints++;
                if (c == '\n') {
                    newlines++;
                }
            }
        }

        synchronized long codePoints() {
            return codePoints;
        }

        synchronized long newlines() {
            return newlines;
        }
    }

    /** The marker between head and tail: exactly what was cut, in characters and, when known, lines. */
    static String marker(long omittedChars, long omittedLines) {
        return "[... " + omittedChars + " characters" + (omittedLines >= 0 ? " (" + omittedLines + " lines)" : "")
                + " truncated ...]";
    }

    /** Keeps the first and last {@code limit} characters of a whole text, cut at line boundaries near the cut. */
    static String cap(String text, int limit) {
        return shape(text, Truncation.none(text.length()), limit, null).text();
    }

    /**
     * Shapes one stream once. When the backend already cut it (its {@link Truncation} says so and its marker is in
     * the text), the backend's head and tail are kept, never cut again: the backends' cut (sandbox-core's
     * OutputBuffer) already falls on line boundaries near it, and moving it again would drop a whole line. Otherwise
     * a text over twice the limit is cut here, the cut moved to a line boundary when one lies within
     * {@link #LINE_WINDOW} characters. Either way one marker states the characters (and lines, when counted) that
     * are gone.
     *
     * @param count the whole stream's counts, or null when the stream was not watched as it went by
     */
    static Capped shape(String text, Truncation t, int limit, StreamCount count) {
        String head;
        String tail;
        long omitted;
        long lines;
        String backendMarker = t.truncated() ? t.marker() : null;
        int at = backendMarker == null ? -1 : markerIndex(text, backendMarker, limit);
        if (at >= 0) {
            head = text.substring(0, at);
            tail = text.substring(at + backendMarker.length());
            omitted = t.omittedChars();
            lines = -1;
        } else if (text.codePointCount(0, text.length()) > 2L * limit) {
            int headEnd = text.offsetByCodePoints(0, limit);
            int tailStart = text.offsetByCodePoints(text.length(), -limit);
            head = text.substring(0, headEnd);
            tail = text.substring(tailStart);
            String middle = text.substring(headEnd, tailStart);
            omitted = middle.codePointCount(0, middle.length()) + t.omittedChars();
            lines = t.truncated() ? -1 : newlines(middle);
        } else {
            return new Capped(text, t.omittedChars(), t.truncated() ? -1 : 0);
        }
        boolean backendCut = at >= 0;
        int headCut = backendCut ? -1 : head.lastIndexOf('\n');
        if (headCut >= 0 && head.length() - (headCut + 1) <= LINE_WINDOW && headCut + 1 < head.length()) {
            String dropped = head.substring(headCut + 1);
            omitted += dropped.codePointCount(0, dropped.length());
            head = head.substring(0, headCut + 1);
        }
        int tailCut = backendCut ? -1 : tail.indexOf('\n');
        if (tailCut >= 0 && tailCut < LINE_WINDOW && tailCut + 1 < tail.length()) {
            String dropped = tail.substring(0, tailCut + 1);
            omitted += dropped.codePointCount(0, dropped.length());
            lines = lines < 0 ? lines : lines + 1;
            tail = tail.substring(tailCut + 1);
        }
        if (count != null) {
            long kept = head.codePointCount(0, head.length()) + tail.codePointCount(0, tail.length());
            if (count.codePoints() - kept == omitted) {
                lines = count.newlines() - newlines(head) - newlines(tail);
            }
        }
        String m = marker(omitted, lines);
        String joined = head + (head.endsWith("\n") ? "" : "\n") + m + "\n" + tail;
        return new Capped(joined, omitted, lines);
    }

    private static int markerIndex(String text, String marker, int limit) {
        if (text.codePointCount(0, text.length()) >= limit) {
            int headEnd = text.offsetByCodePoints(0, limit);
            if (text.startsWith(marker, headEnd)) {
                return headEnd;
            }
            // the backend moved its head's end back to a line break, by at most LINE_WINDOW characters
            int lineEnd = text.indexOf(marker, text.offsetByCodePoints(0, Math.max(0, limit - LINE_WINDOW)));
            if (lineEnd >= 0 && lineEnd <= headEnd) {
                return lineEnd;
            }
        }
        return text.indexOf(marker);
    }

    private static long newlines(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == '\n') {
                n++;
            }
        }
        return n;
    }

    /**
     * The program whose exit code a shell command line returns: the first word of its last simple command
     * (after the last {@code |}, {@code ;}, {@code &&} or {@code ||}), without its directory, skipping
     * {@code VAR=value} assignments and wrappers such as {@code sudo}, {@code env}, {@code timeout}.
     */
    static String lastProgram(String commandLine) {
        String[] parts = commandLine.trim().split("\\|\\||&&|;|\\||\\n");
        String last = "";
        for (int i = parts.length - 1; i >= 0; i--) {
            if (!parts[i].isBlank()) {
                last = parts[i].trim();
                break;
            }
        }
        return firstProgram(List.of(last.split("\\s+")));
    }

    static String firstProgram(List<String> words) {
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i).replace("\"", "").replace("'", "");
            if (w.isEmpty() || w.matches("[A-Za-z_][A-Za-z0-9_]*=.*") || w.equals("!") || w.equals("(")
                    || w.equals("{") || w.equals("then") || w.equals("do")) {
                continue;
            }
            if (w.equals("sudo") || w.equals("env") || w.equals("exec") || w.equals("command")
                    || w.equals("nice") || w.equals("time")) {
                continue;
            }
            if (w.equals("timeout") && i + 1 < words.size()) {
                i++; // skip the duration
                continue;
            }
            if (w.startsWith("-")) {
                continue;
            }
            int slash = w.lastIndexOf('/');
            return (slash >= 0 ? w.substring(slash + 1) : w).toLowerCase(Locale.ROOT);
        }
        return "";
    }

    /** What a non-zero exit means when it is not a failure, or null. */
    static String meaning(String program, int exitCode) {
        if (exitCode != 1) {
            return null;
        }
        switch (program) {
            case "grep", "egrep", "fgrep", "rg", "ag", "ack", "zgrep", "git-grep":
                return "no_match";
            case "diff", "cmp", "colordiff":
                return "files_differ";
            default:
                return null;
        }
    }

    static Map<String, Object> execFields(ExecResult r, String program, int limit, String note, StreamCount out,
                                          StreamCount err) {
        Map<String, Object> f = new LinkedHashMap<>();
        String meaning = r.status() == ExecStatus.COMPLETED ? meaning(program, r.exitCode()) : null;
        Capped stdout = shape(r.stdout(), r.stdoutTruncation(), limit, out);
        Capped stderr = shape(r.stderr(), r.stderrTruncation(), limit, err);
        f.put("status", r.status().code());
        f.put("exit_code", r.exitCode());
        f.put("stdout", stdout.text());
        f.put("stderr", stderr.text());
        f.put("duration_ms", r.duration().toMillis());
        if (meaning != null) {
            f.put("meaning", meaning);
        }
        putTruncation(f, "stdout", stdout);
        putTruncation(f, "stderr", stderr);
        if (!r.detail().isEmpty()) {
            f.put("detail", r.detail());
        }
        f.put("summary", summary(r, program, meaning, note));
        return f;
    }

    /** {@code <stream>_omitted_chars} and {@code <stream>_omitted_lines}: the same numbers as the marker. */
    static void putTruncation(Map<String, Object> f, String stream, Capped c) {
        if (c.omittedChars() > 0) {
            f.put(stream + "_omitted_chars", c.omittedChars());
            if (c.omittedLines() >= 0) {
                f.put(stream + "_omitted_lines", c.omittedLines());
            }
        }
    }

    static String summary(ExecResult r, String program, String meaning, String note) {
        StringBuilder s = new StringBuilder();
        long ms = r.duration().toMillis();
        switch (r.status()) {
            case TIMEOUT -> s.append("timed out after ").append(ms).append(" ms; the process tree was killed,"
                    + " output so far is kept");
            case KILLED -> s.append("killed after ").append(ms).append(" ms")
                    .append(r.detail().isEmpty() ? "" : ": " + r.detail());
            default -> {
                s.append("exit ").append(r.exitCode());
                if ("no_match".equals(meaning)) {
                    s.append(" (").append(program).append(": no match; not an error)");
                } else if ("files_differ".equals(meaning)) {
                    s.append(" (").append(program).append(": files differ; not an error)");
                } else if (r.exitCode() == 127) {
                    s.append(" (command not found)");
                } else if (r.exitCode() > 128 && r.exitCode() < 160) {
                    s.append(" (killed by signal ").append(r.exitCode() - 128).append(')');
                } else if (r.exitCode() != 0) {
                    s.append(" (failed; see stderr)");
                }
                s.append(" in ").append(ms).append(" ms");
            }
        }
        if (r.stdoutTruncation().truncated() || r.stderrTruncation().truncated()) {
            s.append("; output was cut in the middle");
        }
        if (note != null) {
            s.append("; ").append(note);
        }
        return s.toString();
    }
}
