package dev.sandbox4j.tools;

import java.util.ArrayList;
import java.util.List;

/**
 * A parsed V4A patch ({@code *** Begin Patch} ... {@code *** End Patch}), the format of Codex's {@code apply_patch}.
 * The grammar, leniencies and error texts follow Codex's parser ({@code codex-rs/apply-patch/src/parser.rs}): markers
 * may carry surrounding whitespace, the whole patch may be wrapped in a {@code <<'EOF'} heredoc, the first chunk of
 * an update may omit its {@code @@} line. Parsing touches no file; {@link ApplyPatch} applies the result.
 */
final class V4aPatch {
    static final String BEGIN = "*** Begin Patch";
    static final String END = "*** End Patch";
    private static final String ADD = "*** Add File: ";
    private static final String DELETE = "*** Delete File: ";
    private static final String UPDATE = "*** Update File: ";
    private static final String MOVE = "*** Move to: ";
    private static final String EOF = "*** End of File";
    /** Lines a patch may have: a model's patch is text for a few files, not a data dump. */
    static final int MAX_LINES = 200_000;

    private V4aPatch() {
    }

    /** One file operation. {@code movePath} only for an update that renames. */
    sealed interface Hunk permits Add, Delete, Update {
        String path();
    }

    record Add(String path, String contents) implements Hunk {
    }

    record Delete(String path) implements Hunk {
    }

    record Update(String path, String movePath, List<Chunk> chunks) implements Hunk {
    }

    /** Lines to replace: {@code oldLines} found after {@code context} (if any) become {@code newLines}. */
    record Chunk(String context, List<String> oldLines, List<String> newLines, boolean endOfFile) {
    }

    /** A patch that does not follow the grammar; the message is Codex's. */
    static final class ParseException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ParseException(String message) {
            super(message);
        }

        static ParseException patch(String message) {
            return new ParseException("invalid patch: " + message);
        }

        static ParseException hunk(int line, String message) {
            return new ParseException("invalid hunk at line " + line + ", " + message);
        }
    }

    /** The hunks of a patch, in order. */
    static List<Hunk> parse(String patch) {
        List<String> lines = lines(patch.strip());
        if (lines.size() > MAX_LINES) {
            throw ParseException.patch("the patch has " + lines.size() + " lines, more than " + MAX_LINES);
        }
        List<String> body;
        try {
            body = boundaries(lines);
        } catch (ParseException strict) {
            body = heredoc(lines, strict);
        }
        List<Hunk> hunks = new ArrayList<>();
        int at = 0;
        int lineNumber = 2;
        while (at < body.size()) {
            int used = parseHunk(body, at, lineNumber, hunks);
            at += used;
            lineNumber += used;
        }
        return hunks;
    }

    /** Rust's {@code str::lines}: split on LF, a trailing CR dropped from each line, no empty last line. */
    private static List<String> lines(String text) {
        List<String> out = new ArrayList<>();
        if (text.isEmpty()) {
            return out;
        }
        int from = 0;
        while (from <= text.length()) {
            int nl = text.indexOf('\n', from);
            int end = nl < 0 ? text.length() : nl;
            String line = text.substring(from, end);
            out.add(line.endsWith("\r") ? line.substring(0, line.length() - 1) : line);
            if (nl < 0) {
                break;
            }
            from = nl + 1;
            if (from == text.length()) {
                break;
            }
        }
        return out;
    }

    private static List<String> boundaries(List<String> lines) {
        String first = lines.isEmpty() ? null : lines.get(0).strip();
        String last = lines.isEmpty() ? null : lines.get(lines.size() - 1).strip();
        if (first != null && first.equals(BEGIN) && last.equals(END) && lines.size() >= 2) {
            return lines.subList(1, lines.size() - 1);
        }
        if (first == null || !first.equals(BEGIN)) {
            throw ParseException.patch("The first line of the patch must be '" + BEGIN + "'");
        }
        throw ParseException.patch("The last line of the patch must be '" + END + "'");
    }

    /** Codex's lenient mode: a patch wrapped in {@code <<EOF} ... {@code EOF} (quoted or not). */
    private static List<String> heredoc(List<String> lines, ParseException strict) {
        if (lines.size() >= 4) {
            String first = lines.get(0);
            if ((first.equals("<<EOF") || first.equals("<<'EOF'") || first.equals("<<\"EOF\""))
                    && lines.get(lines.size() - 1).endsWith("EOF")) {
                return boundaries(lines.subList(1, lines.size() - 1));
            }
        }
        throw strict;
    }

    private static int parseHunk(List<String> lines, int at, int lineNumber, List<Hunk> out) {
        String first = lines.get(at).strip();
        if (first.startsWith(ADD)) {
            StringBuilder contents = new StringBuilder();
            int used = 1;
            while (at + used < lines.size() && lines.get(at + used).startsWith("+")) {
                contents.append(lines.get(at + used), 1, lines.get(at + used).length()).append('\n');
                used++;
            }
            out.add(new Add(first.substring(ADD.length()), contents.toString()));
            return used;
        }
        if (first.startsWith(DELETE)) {
            out.add(new Delete(first.substring(DELETE.length())));
            return 1;
        }
        if (first.startsWith(UPDATE)) {
            return parseUpdate(lines, at, lineNumber, first.substring(UPDATE.length()), out);
        }
        throw ParseException.hunk(lineNumber, "'" + first + "' is not a valid hunk header. Valid hunk headers: '"
                + ADD + "{path}', '" + DELETE + "{path}', '" + UPDATE + "{path}'");
    }

    private static int parseUpdate(List<String> lines, int at, int lineNumber, String path, List<Hunk> out) {
        int used = 1;
        String movePath = null;
        if (at + used < lines.size() && lines.get(at + used).startsWith(MOVE)) {
            movePath = lines.get(at + used).substring(MOVE.length());
            used++;
        }
        List<Chunk> chunks = new ArrayList<>();
        while (at + used < lines.size()) {
            String line = lines.get(at + used);
            if (line.isBlank()) {
                used++;
                continue;
            }
            if (line.startsWith("*")) {
                break;
            }
            used += parseChunk(lines, at + used, lineNumber + used, chunks.isEmpty(), chunks);
        }
        if (chunks.isEmpty()) {
            throw ParseException.hunk(lineNumber, "Update file hunk for path '" + path + "' is empty");
        }
        out.add(new Update(path, movePath, List.copyOf(chunks)));
        return used;
    }

    private static int parseChunk(List<String> lines, int at, int lineNumber, boolean allowMissingContext,
                                  List<Chunk> out) {
        String head = lines.get(at);
        String context = null;
        int start;
        if (head.equals("@@")) {
            start = 1;
        } else if (head.startsWith("@@ ")) {
            context = head.substring(3);
            start = 1;
        } else if (allowMissingContext) {
            start = 0;
        } else {
            throw ParseException.hunk(lineNumber, "Expected update hunk to start with a @@ context marker, got: '"
                    + head + "'");
        }
        if (at + start >= lines.size()) {
            throw ParseException.hunk(lineNumber + 1, "Update hunk does not contain any lines");
        }
        List<String> oldLines = new ArrayList<>();
        List<String> newLines = new ArrayList<>();
        boolean eof = false;
        int parsed = 0;
        for (int i = at + start; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.equals(EOF)) {
                if (parsed == 0) {
                    throw ParseException.hunk(lineNumber + 1, "Update hunk does not contain any lines");
                }
                eof = true;
                parsed++;
                break;
            }
            char c = line.isEmpty() ? '\0' : line.charAt(0);
            if (line.isEmpty() || c == ' ') {
                String text = line.isEmpty() ? "" : line.substring(1);
                oldLines.add(text);
                newLines.add(text);
            } else if (c == '+') {
                newLines.add(line.substring(1));
            } else if (c == '-') {
                oldLines.add(line.substring(1));
            } else if (parsed == 0) {
                throw ParseException.hunk(lineNumber + 1, "Unexpected line found in update hunk: '" + line
                        + "'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed"
                        + " line)");
            } else {
                break; // the next hunk or chunk
            }
            parsed++;
        }
        out.add(new Chunk(context, List.copyOf(oldLines), List.copyOf(newLines), eof));
        return parsed + start;
    }
}
