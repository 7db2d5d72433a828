package dev.sandbox4j.tools;

import dev.sandbox4j.Edit;
import dev.sandbox4j.EditResult;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.SandboxException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The file tools of {@link SandboxTools}: view, reading, writing, editing, listing and moving files. */
final class FileTools {
    private final SandboxTools tools;
    private final ToolConfig config;

    FileTools(SandboxTools tools) {
        this.tools = tools;
        this.config = tools.config();
    }

    private FileSystem fs() {
        return tools.fs();
    }

    ToolResult view(Args a) {
        String path = a.string("path");
        List<Long> range = a.longs("view_range");
        FileInfo info = fs().stat(path);
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("path", info.path());
        if (info.isDirectory()) {
            if (range != null) {
                throw new Args.ArgException("view_range applies to files, and " + path + " is a directory");
            }
            List<FileInfo> entries = fs().listVisible(path, 2);
            f.put("type", "directory");
            f.put("content", Views.tree(info.path(), entries));
            f.put("entries", entries.size());
            return ToolResult.ok(f);
        }
        if (!info.isFile()) {
            throw new SandboxException(ErrorKind.PERMISSION_DENIED, path + " is a " + Shaping.fileType(info)
                    + (info.linkTarget() != null ? " to " + info.linkTarget() : "")
                    + "; view it through its target");
        }
        int from = 1;
        int to = -1;
        if (range != null) {
            if (range.size() != 2) {
                throw new Args.ArgException("view_range must be [start, end], got " + range.size() + " numbers");
            }
            long s = range.get(0);
            long e = range.get(1);
            if (s < 1 || (e != -1 && e < s) || s > Integer.MAX_VALUE || e > Integer.MAX_VALUE) {
                throw new Args.ArgException("view_range [" + s + ", " + e + "] is invalid: start must be >= 1"
                        + " and end >= start, or -1 for the end of the file");
            }
            from = (int) s;
            to = (int) e;
        }
        if (info.size() > FileSystem.MAX_READ_BYTES) {
            if (range == null) {
                throw new SandboxException(ErrorKind.TOO_LARGE, path + " is " + info.size() + " bytes, too large to"
                        + " view whole; use read_file with offset and length, or grep");
            }
        }
        byte[] head = fs().readBytes(path, 0, (int) Math.min(info.size(), 8192));
        if (Views.hasNul(head)) {
            return viewBinary(path, info, f);
        }
        String text = info.size() > FileSystem.MAX_READ_BYTES ? fs().readText(path, from, to)
                : fs().readText(path);
        if (info.size() > FileSystem.MAX_READ_BYTES) {
            // readText(path, from, to) returned only the range; number it from 'from'
            Views.Numbered n = Views.number(text, 1, -1, config.maxViewChars());
            String shifted = renumber(n.content(), from - 1);
            f.put("type", "text");
            f.put("content", shifted);
            return ToolResult.ok(f);
        }
        Views.Numbered n = Views.number(text, from, to, config.maxViewChars());
        if (from > Math.max(1, n.totalLines())) {
            throw new Args.ArgException("view_range starts at line " + from + " but " + path + " has "
                    + n.totalLines() + " lines");
        }
        f.put("type", "text");
        f.put("total_lines", n.totalLines());
        f.put("content", n.content());
        int wantedEnd = to < 0 ? n.totalLines() : Math.min(to, n.totalLines());
        if (n.lastShown() < wantedEnd) {
            f.put("truncated", true);
            f.put("note", "shown lines " + from + "-" + n.lastShown() + " of " + n.totalLines()
                    + "; use view_range [" + (n.lastShown() + 1) + ", -1] to see more");
        }
        return ToolResult.ok(f);
    }

    private static String renumber(String numbered, int offset) {
        if (offset == 0) {
            return numbered;
        }
        StringBuilder sb = new StringBuilder();
        for (String line : numbered.split("\n")) {
            int tab = line.indexOf('\t');
            int n = Integer.parseInt(line.substring(0, tab).trim()) + offset;
            sb.append(String.format("%6d", n)).append(line.substring(tab)).append('\n');
        }
        return sb.toString();
    }

    private ToolResult viewBinary(String path, FileInfo info, Map<String, Object> f) {
        f.put("type", "binary");
        f.put("size", info.size());
        if (info.size() > config.maxReadBytes()) {
            byte[] head = fs().readBytes(path, 0, 64);
            f.put("mime_type", Views.mimeType(path, head));
            f.put("note", "binary file larger than " + config.maxReadBytes()
                    + " bytes: content not included; use read_file with offset and length");
            return ToolResult.ok(f);
        }
        byte[] bytes = fs().readBytes(path);
        String mime = Views.mimeType(path, bytes);
        f.put("mime_type", mime);
        f.put("encoding", "base64");
        f.put("content", Base64.getEncoder().encodeToString(bytes));
        List<ToolResult.Image> images = new ArrayList<>();
        if (mime.startsWith("image/")) {
            Views.Thumbnail t = Views.thumbnail(bytes);
            if (t != null) {
                f.put("image_width", t.width());
                f.put("image_height", t.height());
                f.put("thumbnail", t.thumbWidth() + "x" + t.thumbHeight() + " PNG attached as an image");
                images.add(new ToolResult.Image(t.base64(), "image/png"));
            }
        }
        return ToolResult.ok(f, images);
    }

    ToolResult readFile(Args a) {
        String path = a.string("path");
        long offset = a.optLong("offset", 0);
        Long lengthArg = a.optLong("length");
        if (offset < 0) {
            throw new Args.ArgException("offset must be >= 0, got " + offset);
        }
        if (lengthArg != null && lengthArg < 0) {
            throw new Args.ArgException("length must be >= 0, got " + lengthArg);
        }
        FileInfo info = fs().stat(path);
        if (info.isDirectory()) {
            throw new SandboxException(ErrorKind.IS_A_DIRECTORY, path + " is a directory; use list_directory");
        }
        long available = Math.max(0, info.size() - offset);
        long wanted = lengthArg == null ? available : Math.min(lengthArg, available);
        int length = (int) Math.min(wanted, config.maxReadBytes());
        byte[] bytes = fs().readBytes(path, offset, length);
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("path", info.path());
        f.put("size", info.size());
        f.put("offset", offset);
        f.put("length", bytes.length);
        boolean eof = offset + bytes.length >= info.size();
        f.put("eof", eof);
        if (Views.hasNul(bytes)) {
            f.put("encoding", "base64");
            f.put("content", Base64.getEncoder().encodeToString(bytes));
        } else {
            f.put("encoding", "utf-8");
            f.put("content", new String(bytes, StandardCharsets.UTF_8));
        }
        if (!eof && (lengthArg == null || lengthArg > bytes.length)) {
            f.put("note", "read " + bytes.length + " of " + info.size() + " bytes; call again with offset "
                    + (offset + bytes.length) + " to read on");
        }
        return ToolResult.ok(f);
    }

    ToolResult readMultiple(Args a) {
        List<String> paths = a.strings("paths", true);
        if (paths.isEmpty()) {
            throw new Args.ArgException("argument 'paths' must name at least one file");
        }
        List<Object> results = new ArrayList<>();
        int failed = 0;
        for (String path : paths) {
            ToolResult r = tools.call("read_file", Map.of("path", path));
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("path", path);
            r.fields().forEach((k, v) -> {
                if (!k.equals("path")) {
                    one.put(k, v);
                }
            });
            if (!r.success()) {
                failed++;
            }
            results.add(one);
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("files", results);
        f.put("failed", failed);
        return ToolResult.ok(f);
    }

    private String content(Args a) {
        return tools.checkWriteSize(a.string("content"));
    }

    ToolResult writeFile(Args a) {
        String path = a.string("path");
        String content = content(a);
        String mode = a.optString("mode", "overwrite").toLowerCase(Locale.ROOT);
        switch (mode) {
            case "overwrite" -> fs().write(path, content);
            case "append" -> fs().append(path, content);
            default -> throw new Args.ArgException("mode must be 'overwrite' or 'append', got '" + mode + "'");
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("path", fs().stat(path).path());
        f.put("mode", mode);
        f.put("bytes_written", content.getBytes(StandardCharsets.UTF_8).length);
        return ToolResult.ok(f);
    }

    ToolResult createFile(Args a) {
        String path = a.string("path");
        String content = content(a);
        if (fs().exists(path)) {
            throw new SandboxException(ErrorKind.ALREADY_EXISTS, path + " already exists; use view to read it,"
                    + " str_replace to change it or write_file to replace it");
        }
        fs().write(path, content);
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("path", fs().stat(path).path());
        f.put("bytes_written", content.getBytes(StandardCharsets.UTF_8).length);
        return ToolResult.ok(f);
    }

    ToolResult strReplace(Args a) {
        String path = a.string("path");
        String oldStr = a.string("old_str");
        String newStr = a.string("new_str");
        if (oldStr.isEmpty()) {
            throw new Args.ArgException("old_str must not be empty; to write a whole file use write_file");
        }
        try {
            return edited(fs().replace(path, oldStr, newStr));
        } catch (SandboxException e) {
            return nearMiss(e, path, text -> new String[] {text, oldStr, ""});
        }
    }

    ToolResult editFile(Args a) {
        String path = a.string("path");
        List<Edit> edits = a.edits("edits");
        boolean dryRun = a.optBool("dryRun", false);
        try {
            return edited(dryRun ? fs().previewEdit(path, edits) : fs().edit(path, edits));
        } catch (SandboxException e) {
            return nearMiss(e, path, text -> {
                int failing = NearMiss.failingEdit(text, edits);
                return failing < 0 ? null : new String[] {NearMiss.applyBefore(text, edits, failing),
                        edits.get(failing).oldText(), " Edit " + (failing + 1) + " of " + edits.size()
                        + (failing > 0 ? " (line numbers as the earlier edits leave the file)" : "") + "."};
            });
        }
    }

    /**
     * A {@code no_match} answer that names the nearest candidate and how it differs, read through the file API; any
     * other failure, or a file with nothing near, is answered as it was thrown. Never applies anything.
     */
    private ToolResult nearMiss(SandboxException e, String path,
                                java.util.function.Function<String, String[]> textNeedleNote) {
        if (e.kind() != ErrorKind.NO_MATCH) {
            throw e;
        }
        NearMiss.Diagnosis d = null;
        String note = "";
        try {
            FileInfo info = fs().stat(path);
            if (info.size() <= NearMiss.MAX_CHARS) {
                String text = fs().readText(path);
                String[] wanted = textNeedleNote.apply(text);
                if (wanted != null) {
                    d = NearMiss.diagnose(wanted[0], wanted[1]);
                    note = wanted[2];
                }
            }
        } catch (SandboxException ignored) {
            // the file cannot be read for a diagnosis: the plain answer stays
        }
        if (d == null) {
            throw e;
        }
        return ToolResult.error(ErrorKind.NO_MATCH, e.getMessage() + "." + note + d.sentence(), d.fields());
    }

    private static ToolResult edited(EditResult r) {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("path", r.path());
        f.put("applied", r.applied());
        f.put("edits", r.edits());
        f.put("diff", r.diff());
        return ToolResult.ok(f);
    }

    ToolResult createDirectory(Args a) {
        String path = a.string("path");
        fs().mkdirs(path);
        return ToolResult.ok(Map.of("path", fs().stat(path).path()));
    }

    ToolResult listDirectory(Args a) {
        String path = a.optString("path", ".");
        List<FileInfo> entries = fs().list(path);
        StringBuilder sb = new StringBuilder();
        for (FileInfo e : entries) {
            String tag = e.isDirectory() ? "[DIR] " : e.isFile() ? "[FILE] " : e.isSymlink() ? "[LINK] " : "[OTHER] ";
            sb.append(tag).append(e.name());
            if (e.linkTarget() != null) {
                sb.append(" -> ").append(e.linkTarget());
            }
            sb.append('\n');
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("path", path);
        f.put("content", sb.toString());
        f.put("entries", entries.size());
        return ToolResult.ok(f);
    }

    ToolResult fileInfo(Args a) {
        FileInfo info = fs().stat(a.string("path"));
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("path", info.path());
        f.put("type", Shaping.fileType(info));
        f.put("size", info.size());
        if (info.mode() >= 0) {
            f.put("permissions", String.format("%04o", info.mode()));
        }
        f.put("modified", info.modified().toString());
        if (info.linkTarget() != null) {
            f.put("link_target", info.linkTarget());
        }
        return ToolResult.ok(f);
    }

    ToolResult moveFile(Args a) {
        String source = a.string("source");
        String destination = a.string("destination");
        fs().move(source, destination);
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("source", source);
        f.put("destination", fs().stat(destination).path());
        return ToolResult.ok(f);
    }
}
