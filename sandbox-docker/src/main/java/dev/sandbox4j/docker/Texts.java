package dev.sandbox4j.docker;

import dev.sandbox4j.Edit;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** Globs, exact-text edits and unified diffs, done in Java on text read from the sandbox. */
final class Texts {
    private Texts() {
    }

    /** A glob as a regex: {@code *} within a segment, {@code **} across, {@code ?}, {@code [..]}, {@code {a,b}}. */
    static Pattern glob(String glob) {
        StringBuilder re = new StringBuilder();
        int braces = 0;
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            switch (c) {
                case '*' -> {
                    if (i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
                        i++;
                        if (i + 1 < glob.length() && glob.charAt(i + 1) == '/') {
                            i++;
                            re.append("(?:.*/)?");
                        } else {
                            re.append(".*");
                        }
                    } else {
                        re.append("[^/]*");
                    }
                }
                case '?' -> re.append("[^/]");
                case '[' -> {
                    int end = glob.indexOf(']', i + 1);
                    if (end < 0) {
                        re.append("\\[");
                    } else {
                        String body = glob.substring(i + 1, end);
                        if (body.startsWith("!")) {
                            body = "^" + body.substring(1);
                        }
                        re.append('[').append(body.replace("\\", "\\\\")).append(']');
                        i = end;
                    }
                }
                case '{' -> {
                    braces++;
                    re.append("(?:");
                }
                case '}' -> {
                    if (braces > 0) {
                        braces--;
                        re.append(')');
                    } else {
                        re.append("\\}");
                    }
                }
                case ',' -> re.append(braces > 0 ? "|" : ",");
                case '\\' -> {
                    if (i + 1 < glob.length()) {
                        re.append(Pattern.quote(String.valueOf(glob.charAt(++i))));
                    }
                }
                default -> re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(re.toString());
    }

    /** Whether a path relative to the search root matches: globs without a slash match the name at any depth. */
    static boolean matches(Pattern p, String glob, String relPath) {
        if (glob.indexOf('/') < 0) {
            int slash = relPath.lastIndexOf('/');
            return p.matcher(slash < 0 ? relPath : relPath.substring(slash + 1)).matches();
        }
        return p.matcher(relPath).matches();
    }

    /** Applies edits in order, each exactly once; throws NO_MATCH / AMBIGUOUS_MATCH changing nothing. */
    static String apply(String path, String text, List<Edit> edits) {
        String cur = text;
        int n = 0;
        for (Edit e : edits) {
            n++;
            int first = cur.indexOf(e.oldText());
            if (first < 0) {
                throw new SandboxException(ErrorKind.NO_MATCH, "edit " + n + ": the text to replace does not occur in "
                        + path);
            }
            int count = 0;
            for (int i = first; i >= 0; i = cur.indexOf(e.oldText(), i + 1)) {
                count++;
            }
            if (count > 1) {
                throw new SandboxException(ErrorKind.AMBIGUOUS_MATCH, "edit " + n + ": the text to replace occurs "
                        + count + " times in " + path + "; include more context to make it unique");
            }
            cur = cur.substring(0, first) + e.newText() + cur.substring(first + e.oldText().length());
        }
        return cur;
    }

    private static List<String> lines(String s) {
        List<String> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == '\n') {
                out.add(s.substring(start, i + 1));
                start = i + 1;
            }
        }
        if (start < s.length()) {
            out.add(s.substring(start));
        }
        return out;
    }

    /** A unified diff with one hunk around the changed region (3 lines of context); empty if equal. */
    static String diff(String path, String before, String after) {
        if (before.equals(after)) {
            return "";
        }
        List<String> a = lines(before);
        List<String> b = lines(after);
        int pre = 0;
        while (pre < a.size() && pre < b.size() && a.get(pre).equals(b.get(pre))) {
            pre++;
        }
        int suf = 0;
        while (suf < a.size() - pre && suf < b.size() - pre
                && a.get(a.size() - 1 - suf).equals(b.get(b.size() - 1 - suf))) {
            suf++;
        }
        int ctxStart = Math.max(0, pre - 3);
        int aEnd = a.size() - suf;
        int bEnd = b.size() - suf;
        int ctxEndA = Math.min(a.size(), aEnd + 3);
        int ctxEndB = Math.min(b.size(), bEnd + 3);
        StringBuilder sb = new StringBuilder();
        sb.append("--- a/").append(path).append('\n').append("+++ b/").append(path).append('\n');
        int aLen = ctxEndA - ctxStart;
        int bLen = ctxEndB - ctxStart;
        sb.append("@@ -").append(aLen == 0 ? ctxStart : ctxStart + 1).append(',').append(aLen)
                .append(" +").append(bLen == 0 ? ctxStart : ctxStart + 1).append(',').append(bLen).append(" @@\n");
        for (int i = ctxStart; i < pre; i++) {
            line(sb, ' ', a.get(i));
        }
        for (int i = pre; i < aEnd; i++) {
            line(sb, '-', a.get(i));
        }
        for (int i = pre; i < bEnd; i++) {
            line(sb, '+', b.get(i));
        }
        for (int i = aEnd; i < ctxEndA; i++) {
            line(sb, ' ', a.get(i));
        }
        return sb.toString();
    }

    private static void line(StringBuilder sb, char tag, String line) {
        sb.append(tag).append(line);
        if (!line.endsWith("\n")) {
            sb.append("\n\\ No newline at end of file\n");
        }
    }
}
