package dev.sandbox4j.tools;

import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.Truncation;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Output shaping and the meaning of exit codes. */
final class Shaping {
    private Shaping() {
    }

    /** Keeps the first and last {@code limit} characters, with the same marker the backends use. */
    static String cap(String text, int limit) {
        if (text.length() <= 2L * limit) {
            return text;
        }
        long omitted = text.length() - 2L * limit;
        return text.substring(0, limit) + "\n[... " + omitted + " characters truncated ...]\n"
                + text.substring(text.length() - limit);
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

    static Map<String, Object> execFields(ExecResult r, String program, int limit, String note) {
        Map<String, Object> f = new LinkedHashMap<>();
        String meaning = r.status() == ExecStatus.COMPLETED ? meaning(program, r.exitCode()) : null;
        f.put("status", r.status().code());
        f.put("exit_code", r.exitCode());
        f.put("stdout", cap(r.stdout(), limit));
        f.put("stderr", cap(r.stderr(), limit));
        f.put("duration_ms", r.duration().toMillis());
        if (meaning != null) {
            f.put("meaning", meaning);
        }
        putTruncation(f, "stdout", r.stdoutTruncation(), r.stdout().length(), limit);
        putTruncation(f, "stderr", r.stderrTruncation(), r.stderr().length(), limit);
        if (!r.detail().isEmpty()) {
            f.put("detail", r.detail());
        }
        f.put("summary", summary(r, program, meaning, note));
        return f;
    }

    private static void putTruncation(Map<String, Object> f, String stream, Truncation t, int length, int limit) {
        long omitted = t.omittedChars();
        if (omitted == 0 && length > 2L * limit) {
            omitted = length - 2L * limit;
        }
        if (omitted > 0) {
            f.put(stream + "_omitted_chars", omitted);
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
