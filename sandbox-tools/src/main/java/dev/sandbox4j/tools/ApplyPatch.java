package dev.sandbox4j.tools;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.SandboxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Applies a {@link V4aPatch} through a sandbox's {@link FileSystem}, so it works on every backend with the file
 * API's path checks and refusals. All or nothing: every hunk is computed against the files as the earlier hunks leave
 * them before anything is written; a hunk that fails changes nothing (Codex leaves the hunks before it applied), and
 * a write that fails midway puts back what was written. Matching follows Codex's {@code seek_sequence}: exact lines,
 * then ignoring trailing whitespace, then surrounding whitespace, then typographic punctuation.
 */
final class ApplyPatch {
    /** A hunk that could not be applied: its kind, Codex's text, and the file text and lines sought for a near miss. */
    static final class Failure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient ErrorKind kind;
        final transient String text;
        final transient String sought;

        Failure(ErrorKind kind, String message, String text, String sought) {
            super(message);
            this.kind = kind;
            this.text = text;
            this.sought = sought;
        }
    }

    /** What was changed, as Codex lists it: added, modified (moves under their new name), deleted. */
    record Outcome(List<String> added, List<String> modified, List<String> deleted) {
        String summary() {
            StringBuilder b = new StringBuilder("Success. Updated the following files:\n");
            added.forEach(p -> b.append("A ").append(p).append('\n'));
            modified.forEach(p -> b.append("M ").append(p).append('\n'));
            deleted.forEach(p -> b.append("D ").append(p).append('\n'));
            return b.toString();
        }
    }

    private final FileSystem fs;
    private final long maxFileChars;
    /** The files as the hunks so far leave them: a path's new text, or null for deleted. */
    private final Map<String, String> staged = new LinkedHashMap<>();

    ApplyPatch(FileSystem fs, long maxFileChars) {
        this.fs = fs;
        this.maxFileChars = maxFileChars;
    }

    /** Applies the patch or, on any failure, leaves every file as it was. */
    Outcome apply(List<V4aPatch.Hunk> hunks) {
        if (hunks.isEmpty()) {
            throw new Failure(ErrorKind.INVALID_ARGUMENT, "No files were modified.", null, null);
        }
        List<String> added = new ArrayList<>();
        List<String> modified = new ArrayList<>();
        List<String> deleted = new ArrayList<>();
        for (V4aPatch.Hunk h : hunks) {
            if (h instanceof V4aPatch.Add a) {
                refuseDirectory(a.path());
                stage(a.path(), a.contents());
                added.add(a.path());
            } else if (h instanceof V4aPatch.Delete d) {
                current(d.path(), "Failed to delete file " + d.path());
                staged.put(d.path(), null);
                deleted.add(d.path());
            } else {
                V4aPatch.Update u = (V4aPatch.Update) h;
                String text = current(u.path(), "Failed to read file to update " + u.path());
                String next = updated(u.path(), text, u.chunks());
                if (u.movePath() != null) {
                    refuseDirectory(u.movePath());
                    staged.put(u.path(), null);
                    stage(u.movePath(), next);
                    modified.add(u.movePath());
                } else {
                    stage(u.path(), next);
                    modified.add(u.path());
                }
            }
        }
        commit();
        return new Outcome(added, modified, deleted);
    }

    private void stage(String path, String text) {
        if (text.length() > maxFileChars) {
            throw new Failure(ErrorKind.TOO_LARGE, path + " would have " + text.length() + " characters, more"
                    + " than " + maxFileChars + " a patch may write to one file", null, null);
        }
        staged.put(path, text);
    }

    /** The text of a file as the earlier hunks leave it; a missing file or a directory fails with {@code what}. */
    private String current(String path, String what) {
        if (staged.containsKey(path)) {
            String text = staged.get(path);
            if (text == null) {
                throw new Failure(ErrorKind.NOT_FOUND, what + ": an earlier hunk of this patch deleted it", null,
                        null);
            }
            return text;
        }
        FileInfo info;
        try {
            info = fs.stat(path);
        } catch (SandboxException e) {
            throw new Failure(e.kind(), what + ": " + e.getMessage(), null, null);
        }
        if (info.isDirectory()) {
            throw new Failure(ErrorKind.IS_A_DIRECTORY, what + ": " + path + " is a directory", null, null);
        }
        if (info.size() > maxFileChars) {
            throw new Failure(ErrorKind.TOO_LARGE, what + ": " + path + " is " + info.size() + " bytes, more than "
                    + maxFileChars + " a patch may change", null, null);
        }
        return fs.readText(path);
    }

    private void refuseDirectory(String path) {
        if (!staged.containsKey(path) && fs.exists(path) && fs.stat(path).isDirectory()) {
            throw new Failure(ErrorKind.IS_A_DIRECTORY, "Failed to write file " + path + ": it is a directory",
                    null, null);
        }
    }

    /** Codex's {@code derive_new_contents_from_chunks}: the replacements found in order, then applied. */
    private static String updated(String path, String text, List<V4aPatch.Chunk> chunks) {
        boolean crlf = usesCrlf(text);
        List<String> lines = new ArrayList<>(List.of((crlf ? text.replace("\r\n", "\n") : text).split("\n", -1)));
        if (!lines.isEmpty() && lines.get(lines.size() - 1).isEmpty()) {
            lines.remove(lines.size() - 1);
        }
        List<int[]> at = new ArrayList<>();
        List<List<String>> replacement = new ArrayList<>();
        int index = 0;
        for (V4aPatch.Chunk c : chunks) {
            if (c.context() != null) {
                int found = Seek.seek(lines, List.of(c.context()), index, false);
                if (found < 0) {
                    throw new Failure(ErrorKind.NO_MATCH, "Failed to find context '" + c.context() + "' in " + path,
                            text, c.context());
                }
                index = found + 1;
            }
            if (c.oldLines().isEmpty()) {
                int insert = !lines.isEmpty() && lines.get(lines.size() - 1).isEmpty() ? lines.size() - 1
                        : lines.size();
                at.add(new int[] {insert, 0});
                replacement.add(c.newLines());
                continue;
            }
            List<String> pattern = c.oldLines();
            List<String> news = c.newLines();
            int found = Seek.seek(lines, pattern, index, c.endOfFile());
            if (found < 0 && pattern.get(pattern.size() - 1).isEmpty()) {
                pattern = pattern.subList(0, pattern.size() - 1);
                if (!news.isEmpty() && news.get(news.size() - 1).isEmpty()) {
                    news = news.subList(0, news.size() - 1);
                }
                found = Seek.seek(lines, pattern, index, c.endOfFile());
            }
            if (found < 0) {
                throw new Failure(ErrorKind.NO_MATCH, "Failed to find expected lines in " + path + ":\n"
                        + String.join("\n", c.oldLines()), text, String.join("\n", c.oldLines()));
            }
            at.add(new int[] {found, pattern.size()});
            replacement.add(news);
            index = found + pattern.size();
        }
        return joined(replaced(lines, at, replacement), crlf);
    }

    private static List<String> replaced(List<String> lines, List<int[]> at, List<List<String>> replacement) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < at.size(); i++) {
            order.add(i);
        }
        order.sort((x, y) -> Integer.compare(at.get(x)[0], at.get(y)[0]));
        for (int k = order.size() - 1; k >= 0; k--) {
            int i = order.get(k);
            int start = at.get(i)[0];
            for (int n = 0; n < at.get(i)[1] && start < lines.size(); n++) {
                lines.remove(start);
            }
            lines.addAll(Math.min(start, lines.size()), replacement.get(i));
        }
        return lines;
    }

    private static String joined(List<String> lines, boolean crlf) {
        if (lines.isEmpty() || !lines.get(lines.size() - 1).isEmpty()) {
            lines.add("");
        }
        return String.join(crlf ? "\r\n" : "\n", lines);
    }

    /** CRLF only when every line ending is CRLF (Codex's {@code contents_uses_crlf}). */
    private static boolean usesCrlf(String text) {
        int newlines = 0;
        int crlf = 0;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                newlines++;
                if (i > 0 && text.charAt(i - 1) == '\r') {
                    crlf++;
                }
            }
        }
        return newlines > 0 && crlf == newlines;
    }

    /** Writes the staged files; if one write fails, puts back every file already written. */
    private void commit() {
        Map<String, byte[]> before = new LinkedHashMap<>();
        for (String path : staged.keySet()) {
            before.put(path, fs.exists(path) ? fs.readBytes(path) : null);
        }
        List<String> done = new ArrayList<>();
        try {
            for (Map.Entry<String, String> e : staged.entrySet()) {
                done.add(e.getKey());
                if (e.getValue() == null) {
                    if (before.get(e.getKey()) != null) {
                        fs.delete(e.getKey());
                    }
                } else {
                    fs.write(e.getKey(), e.getValue());
                }
            }
        } catch (RuntimeException e) {
            for (String path : done) {
                restore(path, before.get(path));
            }
            throw e;
        }
    }

    private void restore(String path, byte[] bytes) {
        try {
            if (bytes != null) {
                fs.write(path, bytes);
            } else if (fs.exists(path)) {
                fs.delete(path);
            }
        } catch (RuntimeException ignored) {
            // best effort: the original failure is the one to report
        }
    }
}
