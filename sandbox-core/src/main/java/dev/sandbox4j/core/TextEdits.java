package dev.sandbox4j.core;

import dev.sandbox4j.Edit;
import dev.sandbox4j.EditResult;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.SandboxException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Exact-text edits and unified diffs, shared by every backend so that {@code replace} and {@code edit} behave the
 * same everywhere: an edit applies only when its text occurs exactly once.
 */
public final class TextEdits {
    private static final int CONTEXT = 3;
    /** Above this many line pairs in the changed middle, the diff shows it as one delete + insert block. */
    private static final long MAX_LCS_CELLS = 4_000_000L;

    private TextEdits() {
    }

    /**
     * {@code bytes} decoded as strict UTF-8, for {@code replace} and {@code edit}: text that does not decode exactly
     * would be written back with U+FFFD in place of the bad bytes, silently changing bytes the edit never touched.
     *
     * @throws SandboxException {@link ErrorKind#INVALID_ARGUMENT}, message {@code "not UTF-8 text: <path> has a byte
     *     that is not UTF-8 at offset <n>; ..."}, naming the offset of the first bad byte
     */
    public static String decodeUtf8(String path, byte[] bytes) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        CoderResult result = decoder.decode(in, out, true);
        if (result.isUnderflow()) {
            result = decoder.flush(out);
        }
        if (result.isError()) {
            throw Arguments.invalid("not UTF-8 text: " + path + " has a byte that is not UTF-8 at offset "
                    + in.position() + "; replace and edit change UTF-8 text only (write the bytes instead)");
        }
        return out.flip().toString();
    }

    /** Occurrences of {@code needle} in {@code text}, counted without overlap. */
    public static int count(String text, String needle) {
        if (needle.isEmpty()) {
            throw Arguments.invalid("the text to find must not be empty");
        }
        int count = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length())) {
            count++;
        }
        return count;
    }

    /**
     * {@code text} with the one occurrence of {@code oldText} replaced.
     *
     * @throws SandboxException {@link ErrorKind#NO_MATCH} or {@link ErrorKind#AMBIGUOUS_MATCH} (saying how many),
     *     {@link ErrorKind#INVALID_ARGUMENT} when {@code oldText} is empty
     */
    public static String replaceUnique(String path, String text, String oldText, String newText) {
        Arguments.textToReplace(oldText, path);
        int found = count(text, oldText);
        if (found == 0) {
            throw new SandboxException(ErrorKind.NO_MATCH, "no match in " + path + " for the text to replace: "
                    + preview(oldText) + "; read the file again and copy the text exactly, whitespace included");
        }
        if (found > 1) {
            throw new SandboxException(ErrorKind.AMBIGUOUS_MATCH, found + " matches in " + path
                    + " for the text to replace: " + preview(oldText)
                    + "; add surrounding lines until it is unique");
        }
        int at = text.indexOf(oldText);
        return text.substring(0, at) + newText + text.substring(at + oldText.length());
    }

    /**
     * {@link dev.sandbox4j.FileSystem#replace} for every backend: one exact, unique match or a typed error that says
     * how many, the file untouched then. {@code rel} is the normalized, non-root path.
     */
    public static EditResult replace(FileSystem file, String rel, String oldText, String newText) {
        Arguments.textToReplace(oldText, rel);
        String before = decodeUtf8(rel, file.readBytes(rel));
        String after = replaceUnique(rel, before, oldText, newText);
        file.write(rel, after);
        return EditResult.written(rel, unifiedDiff(rel, before, after), 1);
    }

    /** {@link dev.sandbox4j.FileSystem#edit} for every backend: all edits or none; a dry run writes nothing. */
    public static EditResult edit(FileSystem file, String rel, List<Edit> edits, boolean dryRun) {
        Arguments.edits(edits, rel);
        String before = decodeUtf8(rel, file.readBytes(rel));
        String after = applyAll(rel, before, edits);
        if (!dryRun) {
            file.write(rel, after);
        }
        String diff = unifiedDiff(rel, before, after);
        return dryRun ? EditResult.preview(rel, diff, edits.size()) : EditResult.written(rel, diff, edits.size());
    }

    /** {@code text} with every edit applied in order, each to the result of the ones before; all or nothing. */
    public static String applyAll(String path, String text, List<Edit> edits) {
        Arguments.edits(edits, path);
        String result = text;
        for (int i = 0; i < edits.size(); i++) {
            Edit edit = edits.get(i);
            try {
                result = replaceUnique(path, result, edit.oldText(), edit.newText());
            } catch (SandboxException e) {
                throw new SandboxException(e.kind(), "edit " + (i + 1) + " of " + edits.size() + ": "
                        + e.getMessage() + " (no edit was applied)");
            }
        }
        return result;
    }

    /** A unified diff from {@code before} to {@code after}, with 3 lines of context; empty when they are equal. */
    public static String unifiedDiff(String path, String before, String after) {
        if (before.equals(after)) {
            return "";
        }
        List<String> a = lines(before);
        List<String> b = lines(after);
        List<int[]> ops = diff(a, b); // each: {type 0 same /1 delete /2 insert, index in a or b}
        StringBuilder out = new StringBuilder();
        out.append("--- a/").append(path).append('\n').append("+++ b/").append(path).append('\n');
        int i = 0;
        while (i < ops.size()) {
            if (ops.get(i)[0] == 0) {
                i++;
                continue;
            }
            int start = Math.max(0, i - CONTEXT);
            int end = i;
            // extend the hunk while changes are within 2*CONTEXT of each other
            int lastChange = i;
            for (int j = i; j < ops.size(); j++) {
                if (ops.get(j)[0] != 0) {
                    lastChange = j;
                } else if (j - lastChange > 2 * CONTEXT) {
                    break;
                }
                end = j;
            }
            end = Math.min(ops.size() - 1, lastChange + CONTEXT);
            int aStart = -1;
            int bStart = -1;
            int aCount = 0;
            int bCount = 0;
            int[] pos = positions(ops, start);
            StringBuilder body = new StringBuilder();
            for (int j = start; j <= end; j++) {
                int[] op = ops.get(j);
                String line;
                switch (op[0]) {
                    case 0 -> {
                        line = a.get(op[1]);
                        body.append(' ');
                        aCount++;
                        bCount++;
                    }
                    case 1 -> {
                        line = a.get(op[1]);
                        body.append('-');
                        aCount++;
                    }
                    default -> {
                        line = b.get(op[1]);
                        body.append('+');
                        bCount++;
                    }
                }
                appendLine(body, line);
            }
            aStart = aCount == 0 ? pos[0] : pos[0] + 1;
            bStart = bCount == 0 ? pos[1] : pos[1] + 1;
            out.append("@@ -").append(range(aStart, aCount)).append(" +").append(range(bStart, bCount))
                    .append(" @@\n").append(body);
            i = end + 1;
        }
        return out.toString();
    }

    private static String range(int start, int count) {
        return count == 1 ? String.valueOf(start) : start + "," + count;
    }

    /** 0-based line positions in a and b where op {@code index} starts. */
    private static int[] positions(List<int[]> ops, int index) {
        int a = 0;
        int b = 0;
        for (int j = 0; j < index; j++) {
            int type = ops.get(j)[0];
            if (type != 2) {
                a++;
            }
            if (type != 1) {
                b++;
            }
        }
        return new int[] {a, b};
    }

    private static void appendLine(StringBuilder out, String line) {
        if (line.endsWith("\n")) {
            out.append(line);
        } else {
            out.append(line).append("\n\\ No newline at end of file\n");
        }
    }

    /** Lines with their terminators kept, so a missing final newline shows in the diff. */
    static List<String> lines(String text) {
        List<String> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                out.add(text.substring(start, i + 1));
                start = i + 1;
            }
        }
        if (start < text.length()) {
            out.add(text.substring(start));
        }
        return out;
    }

    private static List<int[]> diff(List<String> a, List<String> b) {
        int prefix = 0;
        while (prefix < a.size() && prefix < b.size() && a.get(prefix).equals(b.get(prefix))) {
            prefix++;
        }
        int suffix = 0;
        while (suffix < a.size() - prefix && suffix < b.size() - prefix
                && a.get(a.size() - 1 - suffix).equals(b.get(b.size() - 1 - suffix))) {
            suffix++;
        }
        List<int[]> ops = new ArrayList<>();
        for (int i = 0; i < prefix; i++) {
            ops.add(new int[] {0, i});
        }
        int n = a.size() - prefix - suffix;
        int m = b.size() - prefix - suffix;
        if ((long) n * m > MAX_LCS_CELLS) {
            for (int i = 0; i < n; i++) {
                ops.add(new int[] {1, prefix + i});
            }
            for (int j = 0; j < m; j++) {
                ops.add(new int[] {2, prefix + j});
            }
        } else {
            int[][] lcs = new int[n + 1][m + 1];
            for (int i = n - 1; i >= 0; i--) {
                for (int j = m - 1; j >= 0; j--) {
                    lcs[i][j] = a.get(prefix + i).equals(b.get(prefix + j))
                            ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
                }
            }
            int i = 0;
            int j = 0;
            while (i < n || j < m) {
                if (i < n && j < m && a.get(prefix + i).equals(b.get(prefix + j))) {
                    ops.add(new int[] {0, prefix + i});
                    i++;
                    j++;
                } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
                    ops.add(new int[] {1, prefix + i});
                    i++;
                } else {
                    ops.add(new int[] {2, prefix + j});
                    j++;
                }
            }
        }
        for (int k = 0; k < suffix; k++) {
            ops.add(new int[] {0, a.size() - suffix + k});
        }
        return ops;
    }

    private static String preview(String text) {
        String oneLine = text.length() > 80 ? text.substring(0, 77) + "..." : text;
        return "'" + oneLine.replace("\n", "\\n") + "'";
    }
}
