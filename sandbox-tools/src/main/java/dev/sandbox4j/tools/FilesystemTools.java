package dev.sandbox4j.tools;

import static dev.sandbox4j.tools.ToolParam.Type.EDIT_ARRAY;
import static dev.sandbox4j.tools.ToolParam.Type.NUMBER;
import static dev.sandbox4j.tools.ToolParam.Type.STRING;
import static dev.sandbox4j.tools.ToolParam.Type.STRING_ARRAY;

import dev.sandbox4j.EditResult;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.SandboxException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code filesystem} profile: the tools of the reference MCP filesystem server
 * ({@code @modelcontextprotocol/server-filesystem}) with its names, parameters, text results and
 * {@code structuredContent} shape ({@code {content}}), rooted at the workspace ({@value #ROOT}, its one allowed
 * directory). Every operation goes through the sandbox's {@link dev.sandbox4j.FileSystem}, so the sandbox's path
 * checks, size caps and refusals (an edit whose text is not found exactly, a CRLF file) apply where the reference
 * would rewrite the file.
 */
final class FilesystemTools {
    /** The workspace as the reference names its allowed directory. */
    static final String ROOT = "/workspace";
    /** Entries a listing, tree or search walks at most. */
    private static final int MAX_ENTRIES = 10_000;

    private FilesystemTools() {
    }

    private static ToolParam req(String name, ToolParam.Type type, String description) {
        return new ToolParam(name, type, description, true);
    }

    private static ToolParam opt(String name, ToolParam.Type type, String description) {
        return new ToolParam(name, type, description, false);
    }

    private static final String PATH = "Path under " + ROOT + " (absolute, or relative to it)";

    /** The reference's outputSchema of every tool but read_media_file. */
    static Map<String, Object> textOutput() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("type", "object");
        s.put("properties", Map.of("content", Map.of("type", "string")));
        s.put("required", List.of("content"));
        s.put("additionalProperties", false);
        return s;
    }

    private static Map<String, Object> mediaOutput() {
        Map<String, Object> block = new LinkedHashMap<>();
        block.put("type", "object");
        Map<String, Object> bp = new LinkedHashMap<>();
        bp.put("type", Map.of("type", "string", "enum", List.of("image", "audio")));
        bp.put("data", Map.of("type", "string"));
        bp.put("mimeType", Map.of("type", "string"));
        block.put("properties", bp);
        block.put("required", List.of("type", "data", "mimeType"));
        block.put("additionalProperties", false);
        Map<String, Object> res = new LinkedHashMap<>();
        res.put("type", "object");
        Map<String, Object> rp = new LinkedHashMap<>();
        rp.put("uri", Map.of("type", "string"));
        rp.put("mimeType", Map.of("type", "string"));
        rp.put("blob", Map.of("type", "string"));
        res.put("properties", rp);
        res.put("required", List.of("uri", "blob"));
        res.put("additionalProperties", false);
        Map<String, Object> resource = new LinkedHashMap<>();
        resource.put("type", "object");
        Map<String, Object> rsp = new LinkedHashMap<>();
        rsp.put("type", Map.of("type", "string", "const", "resource"));
        rsp.put("resource", res);
        resource.put("properties", rsp);
        resource.put("required", List.of("type", "resource"));
        resource.put("additionalProperties", false);
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("type", "object");
        s.put("properties", Map.of("content", Map.of("type", "array", "items",
                Map.of("anyOf", List.of(block, resource)))));
        s.put("required", List.of("content"));
        s.put("additionalProperties", false);
        return s;
    }

    private static ToolSpec spec(String name, String description, List<ToolParam> params, Capability cap,
                                 ToolSpec.Hints hints) {
        return new ToolSpec(name, description, params, cap, hints, Map.of("content", "string"), List.of(),
                Map.of(), name.equals("read_media_file") ? mediaOutput() : textOutput());
    }

    private static final ToolSpec.Hints READ = new ToolSpec.Hints(false, true, false);

    static void add(List<Profiles.Tool> out, ToolConfig c) {
        List<ToolParam> headTail = List.of(req("path", STRING, PATH),
                opt("tail", NUMBER, "If provided, returns only the last N lines of the file"),
                opt("head", NUMBER, "If provided, returns only the first N lines of the file"));
        Capability r = Capability.READ_FILES;
        Capability w = Capability.WRITE_FILES;
        out.add(new Profiles.Tool(spec("read_file", "Read the complete contents of a file as text. DEPRECATED: Use"
                + " read_text_file instead.", headTail, r, READ), FilesystemTools::readText));
        out.add(new Profiles.Tool(spec("read_text_file", "Read the complete contents of a file as text (at most "
                + c.maxReadBytes() + " bytes at once). Use 'head' for the first N lines or 'tail' for the last N"
                + " lines. Only works within " + ROOT + ".", headTail, r, READ), FilesystemTools::readText));
        out.add(new Profiles.Tool(spec("read_media_file", "Read a file and return it as a base64-encoded content"
                + " block with its MIME type: image and audio files as image/audio content, any other file as an"
                + " embedded resource.", List.of(req("path", STRING, PATH)), r, READ), FilesystemTools::readMedia));
        out.add(new Profiles.Tool(spec("read_multiple_files", "Read several files at once; each file's content"
                + " comes with its path, and a failed read does not stop the others.",
                List.of(req("paths", STRING_ARRAY, "Array of file paths to read. Each path must be a string"
                        + " pointing to a valid file within allowed directories.").withMinItems(1)), r, READ),
                FilesystemTools::readMultiple));
        out.add(new Profiles.Tool(spec("write_file", "Create a new file or completely overwrite an existing file"
                + " with new content.", List.of(req("path", STRING, PATH), req("content", STRING, "The text")),
                w, new ToolSpec.Hints(true, true, false)), FilesystemTools::write));
        out.add(new Profiles.Tool(spec("edit_file", "Make line-based edits to a text file. Each edit replaces an"
                + " exact text (it must occur exactly once at its turn, whitespace included) with new content."
                + " Returns a git-style diff of the changes; dryRun previews it without changing the file.",
                List.of(req("path", STRING, PATH), req("edits", EDIT_ARRAY, "The edits, applied in order"),
                        opt("dryRun", ToolParam.Type.BOOLEAN, "Preview changes using git-style diff format")
                                .withDefault(false)), w, new ToolSpec.Hints(true, false, false)),
                FilesystemTools::edit));
        out.add(new Profiles.Tool(spec("create_directory", "Create a directory and any missing parents; succeeds"
                + " silently if it exists.", List.of(req("path", STRING, PATH)), w,
                new ToolSpec.Hints(false, true, false)), FilesystemTools::mkdirs));
        out.add(new Profiles.Tool(spec("list_directory", "List a directory: one line per entry, [FILE] or [DIR]"
                + " and the name.", List.of(req("path", STRING, PATH)), r, READ), FilesystemTools::list));
        out.add(new Profiles.Tool(spec("list_directory_with_sizes", "List a directory with sizes, then totals.",
                List.of(req("path", STRING, PATH), opt("sortBy", STRING, "Sort entries by name or size")
                        .withValues("name", "size").withDefault("name")), r, READ), FilesystemTools::listSizes));
        out.add(new Profiles.Tool(spec("directory_tree", "A recursive tree of a directory as JSON (2-space"
                + " indentation): entries with name, type (file or directory) and children for directories.",
                List.of(req("path", STRING, PATH), opt("excludePatterns", STRING_ARRAY, "Globs of paths to leave"
                        + " out").withDefault(List.of())), r, READ), FilesystemTools::tree));
        out.add(new Profiles.Tool(spec("move_file", "Move or rename a file or directory; fails if the destination"
                + " exists.", List.of(req("source", STRING, PATH), req("destination", STRING, PATH)), w,
                new ToolSpec.Hints(true, false, false)), FilesystemTools::move));
        out.add(new Profiles.Tool(spec("search_files", "Recursively search for files and directories whose path"
                + " relative to 'path' matches a glob ('*.ext' in that directory, '**/*.ext' at any depth)."
                + " Returns full paths, one per line.", List.of(req("path", STRING, PATH),
                        req("pattern", STRING, "Glob matched against the path relative to 'path'"),
                        opt("excludePatterns", STRING_ARRAY, "Globs of paths to skip").withDefault(List.of())),
                r, READ), FilesystemTools::search));
        out.add(new Profiles.Tool(spec("get_file_info", "Metadata of a file or directory: size, created, modified,"
                + " accessed, isDirectory, isFile, permissions.", List.of(req("path", STRING, PATH)), r, READ),
                FilesystemTools::info));
        out.add(new Profiles.Tool(spec("list_allowed_directories", "The directories this server may access ("
                + ROOT + ", the sandbox's workspace), subdirectories included.", List.of(), r, READ),
                (t, a, p) -> text("Allowed directories:\n" + ROOT)));
    }

    static ToolResult text(String content) {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("content", content);
        return ToolResult.ok(f);
    }

    /** A path as the reference shows it: absolute under the workspace. */
    static String absolute(String relative) {
        return relative.isEmpty() ? ROOT : ROOT + "/" + relative;
    }

    // ------------------------------------------------------------------ reading

    private static Long lines(Args a, String name) {
        Double d = a.optDouble(name);
        if (d == null) {
            return null;
        }
        if (d != Math.floor(d) || d < 0) {
            throw new Args.ArgException("argument '" + name + "' must be a whole number of lines >= 0, got " + d);
        }
        return d.longValue();
    }

    private static ToolResult readText(SandboxTools t, Args a, ToolProgress p) {
        String path = a.string("path");
        Long head = lines(a, "head");
        Long tail = lines(a, "tail");
        // the reference treats 0 as absent (a falsy number)
        head = head != null && head == 0 ? null : head;
        tail = tail != null && tail == 0 ? null : tail;
        if (head != null && tail != null) {
            throw new Args.ArgException("Cannot specify both head and tail parameters simultaneously");
        }
        FileInfo info = t.fs().stat(path);
        if (info.isDirectory()) {
            throw new SandboxException(ErrorKind.IS_A_DIRECTORY, path + " is a directory; use list_directory");
        }
        int max = t.config().maxReadBytes();
        if (head != null) {
            int n = (int) Math.min(head, Integer.MAX_VALUE);
            String text = info.size() <= max ? t.fs().readText(path) : t.fs().readText(path, 1, n);
            return text(bounded(headLines(text, n), max));
        }
        if (tail != null) {
            long from = Math.max(0, info.size() - max);
            String text = new String(t.fs().readBytes(path, from, (int) Math.min(max, info.size())),
                    StandardCharsets.UTF_8).replace("\r\n", "\n");
            String[] split = text.split("\n", -1);
            if (from > 0 && split.length - 1 <= tail) {
                throw new SandboxException(ErrorKind.TOO_LARGE, "the last " + tail + " lines of " + path + " hold"
                        + " more than " + max + " bytes; ask for fewer lines");
            }
            int start = (int) Math.max(from > 0 ? 1 : 0, split.length - tail);
            return text(String.join("\n", java.util.Arrays.asList(split).subList(start, split.length)));
        }
        if (info.size() > max) {
            throw new SandboxException(ErrorKind.TOO_LARGE, path + " is " + info.size() + " bytes, more than "
                    + max + " to read at once; use head or tail");
        }
        return text(t.fs().readText(path));
    }

    /** The reference's head: the first n lines, joined by newlines (no newline after the last). */
    static String headLines(String text, int n) {
        String[] split = text.split("\n", -1);
        int count = split.length;
        if (text.endsWith("\n")) {
            count--; // the text after the last newline is empty: no line
        }
        return String.join("\n", java.util.Arrays.asList(split).subList(0, Math.min(n, count)));
    }

    private static String bounded(String text, int max) {
        if (text.length() > max) {
            throw new SandboxException(ErrorKind.TOO_LARGE, "the lines asked for hold " + text.length()
                    + " characters, more than " + max + "; ask for fewer lines");
        }
        return text;
    }

    private static final Map<String, String> MEDIA = Map.ofEntries(Map.entry(".png", "image/png"),
            Map.entry(".jpg", "image/jpeg"), Map.entry(".jpeg", "image/jpeg"), Map.entry(".gif", "image/gif"),
            Map.entry(".webp", "image/webp"), Map.entry(".bmp", "image/bmp"), Map.entry(".svg", "image/svg+xml"),
            Map.entry(".mp3", "audio/mpeg"), Map.entry(".wav", "audio/wav"), Map.entry(".ogg", "audio/ogg"),
            Map.entry(".flac", "audio/flac"));

    private static ToolResult readMedia(SandboxTools t, Args a, ToolProgress p) {
        String path = a.string("path");
        FileInfo info = t.fs().stat(path);
        if (info.isDirectory()) {
            throw new SandboxException(ErrorKind.IS_A_DIRECTORY, path + " is a directory");
        }
        if (info.size() > t.config().maxReadBytes()) {
            throw new SandboxException(ErrorKind.TOO_LARGE, path + " is " + info.size() + " bytes, more than the "
                    + t.config().maxReadBytes() + " a media read returns");
        }
        String name = info.name().toLowerCase(Locale.ROOT);
        int dot = name.lastIndexOf('.');
        String mime = dot < 0 ? null : MEDIA.get(name.substring(dot));
        mime = mime == null ? "application/octet-stream" : mime;
        String data = Base64.getEncoder().encodeToString(t.fs().readBytes(path));
        Map<String, Object> block = new LinkedHashMap<>();
        if (mime.startsWith("image/") || mime.startsWith("audio/")) {
            block.put("type", mime.startsWith("image/") ? "image" : "audio");
            block.put("data", data);
            block.put("mimeType", mime);
        } else {
            Map<String, Object> resource = new LinkedHashMap<>();
            resource.put("uri", "file://" + absolute(info.path()));
            resource.put("mimeType", mime);
            resource.put("blob", data);
            block.put("type", "resource");
            block.put("resource", resource);
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("content", List.of(block));
        return ToolResult.ok(f);
    }

    private static ToolResult readMultiple(SandboxTools t, Args a, ToolProgress p) {
        List<String> paths = a.strings("paths", true);
        if (paths.isEmpty()) {
            throw new Args.ArgException("At least one file path must be provided");
        }
        List<String> parts = new ArrayList<>();
        long total = 0;
        for (String path : paths) {
            String part;
            try {
                FileInfo info = t.fs().stat(path);
                if (info.isDirectory()) {
                    throw new SandboxException(ErrorKind.IS_A_DIRECTORY, path + " is a directory");
                }
                if (total + info.size() > t.config().maxReadBytes()) {
                    throw new SandboxException(ErrorKind.TOO_LARGE, "reading it would pass the " + t.config()
                            .maxReadBytes() + " bytes one call returns; read it alone");
                }
                String content = t.fs().readText(path);
                total += info.size();
                part = path + ":\n" + content + "\n";
            } catch (SandboxException e) {
                part = path + ": Error - " + e.getMessage();
            }
            parts.add(part);
        }
        return text(String.join("\n---\n", parts));
    }

    // ------------------------------------------------------------------ writing

    private static ToolResult write(SandboxTools t, Args a, ToolProgress p) {
        String path = a.string("path");
        t.fs().write(path, t.checkWriteSize(a.string("content")));
        return text("Successfully wrote to " + path);
    }

    private static ToolResult edit(SandboxTools t, Args a, ToolProgress p) {
        String path = a.string("path");
        ToolResult r = t.dispatch("edit_file", a, p);
        if (!r.success()) {
            return r;
        }
        String diff = String.valueOf(r.get("diff"));
        String fence = "```";
        while (diff.contains(fence)) {
            fence += "`";
        }
        // the file changes only without dryRun: the default edit_file already chose preview or edit
        return text(fence + "diff\n" + diff + (diff.endsWith("\n") || diff.isEmpty() ? "" : "\n") + fence
                + "\n\n");
    }

    private static ToolResult mkdirs(SandboxTools t, Args a, ToolProgress p) {
        String path = a.string("path");
        t.fs().mkdirs(path);
        return text("Successfully created directory " + path);
    }

    private static ToolResult move(SandboxTools t, Args a, ToolProgress p) {
        String source = a.string("source");
        String destination = a.string("destination");
        t.fs().move(source, destination);
        return text("Successfully moved " + source + " to " + destination);
    }

    // ------------------------------------------------------------------ listing

    private static List<FileInfo> entries(SandboxTools t, String path, int depth) {
        FileInfo dir = t.fs().stat(path);
        if (!dir.isDirectory()) {
            throw new SandboxException(ErrorKind.NOT_A_DIRECTORY, path + " is not a directory");
        }
        List<FileInfo> all = t.fs().list(path, depth);
        if (all.size() > MAX_ENTRIES) {
            throw new SandboxException(ErrorKind.TOO_LARGE, path + " holds more than " + MAX_ENTRIES + " entries"
                    + (depth > 1 ? " below it; choose a smaller directory or exclude some" : ""));
        }
        return all;
    }

    private static ToolResult list(SandboxTools t, Args a, ToolProgress p) {
        List<String> lines = new ArrayList<>();
        for (FileInfo e : entries(t, a.string("path"), 1)) {
            lines.add((e.isDirectory() ? "[DIR] " : "[FILE] ") + e.name());
        }
        return text(String.join("\n", lines));
    }

    /** The reference's size format: bytes below 1 KB, else two decimals of KB, MB, GB or TB. */
    static String formatSize(long bytes) {
        String[] units = {"B", "KB", "MB", "GB", "TB"};
        if (bytes <= 0) {
            return "0 B";
        }
        int i = (int) Math.floor(Math.log(bytes) / Math.log(1024));
        if (i <= 0) {
            return bytes + " " + units[0];
        }
        int unit = Math.min(i, units.length - 1);
        return String.format(Locale.ROOT, "%.2f %s", bytes / Math.pow(1024, unit), units[unit]);
    }

    private static ToolResult listSizes(SandboxTools t, Args a, ToolProgress p) {
        String sortBy = a.optString("sortBy", "name");
        List<FileInfo> entries = new ArrayList<>(entries(t, a.string("path"), 1));
        if (sortBy.equals("size")) {
            entries.sort(Comparator.comparingLong((FileInfo e) -> e.isDirectory() ? 0 : e.size()).reversed());
        } else {
            entries.sort(Comparator.comparing(FileInfo::name));
        }
        List<String> lines = new ArrayList<>();
        long files = 0;
        long dirs = 0;
        long total = 0;
        for (FileInfo e : entries) {
            String name = String.format("%-30s", e.name());
            if (e.isDirectory()) {
                dirs++;
                lines.add("[DIR] " + name + " ");
            } else {
                files++;
                total += e.size();
                lines.add("[FILE] " + name + " " + String.format("%10s", formatSize(e.size())));
            }
        }
        lines.add("");
        lines.add("Total: " + files + " files, " + dirs + " directories");
        lines.add("Combined size: " + formatSize(total));
        return text(String.join("\n", lines));
    }

    private static ToolResult tree(SandboxTools t, Args a, ToolProgress p) {
        String path = a.string("path");
        List<Glob> excludes = Glob.all(a.strings("excludePatterns", false), true);
        String base = t.fs().stat(path).path();
        Map<String, List<Map<String, Object>>> children = new LinkedHashMap<>();
        children.put(base, new ArrayList<>());
        for (FileInfo e : entries(t, path, 256)) {
            String parent = e.path().contains("/") ? e.path().substring(0, e.path().lastIndexOf('/')) : "";
            List<Map<String, Object>> siblings = children.get(parent);
            if (siblings == null || Glob.anyMatches(excludes, Glob.relative(base, e.path()))) {
                continue; // excluded, or under an excluded directory
            }
            Map<String, Object> node = new LinkedHashMap<>();
            node.put("name", e.name());
            node.put("type", e.isDirectory() ? "directory" : "file");
            if (e.isDirectory()) {
                List<Map<String, Object>> mine = new ArrayList<>();
                node.put("children", mine);
                children.put(e.path(), mine);
            }
            siblings.add(node);
        }
        return text(Json.writePretty(children.get(base)));
    }

    private static ToolResult search(SandboxTools t, Args a, ToolProgress p) {
        String path = a.string("path");
        Glob pattern = Glob.of(a.string("pattern"));
        List<Glob> excludes = Glob.all(a.strings("excludePatterns", false), false);
        String base = t.fs().stat(path).path();
        List<String> found = new ArrayList<>();
        List<String> excludedDirs = new ArrayList<>();
        for (FileInfo e : entries(t, path, 256)) {
            String rel = Glob.relative(base, e.path());
            if (excludedDirs.stream().anyMatch(d -> rel.startsWith(d + "/"))) {
                continue;
            }
            if (Glob.anyMatches(excludes, rel)) {
                if (e.isDirectory()) {
                    excludedDirs.add(rel);
                }
                continue;
            }
            if (pattern.matches(rel)) {
                found.add(absolute(e.path()));
            }
        }
        return text(found.isEmpty() ? "No matches found" : String.join("\n", found));
    }

    private static ToolResult info(SandboxTools t, Args a, ToolProgress p) {
        String path = a.string("path");
        FileInfo info = t.fs().stat(path);
        Times times = Times.of(t, info);
        List<String> lines = new ArrayList<>();
        lines.add("size: " + info.size());
        lines.add("created: " + times.created());
        lines.add("modified: " + Times.js(info.modified()));
        lines.add("accessed: " + times.accessed());
        lines.add("isDirectory: " + info.isDirectory());
        lines.add("isFile: " + info.isFile());
        lines.add("permissions: " + (info.mode() < 0 ? "unknown" : String.format("%03o", info.mode() & 0777)));
        return text(String.join("\n", lines));
    }
}
