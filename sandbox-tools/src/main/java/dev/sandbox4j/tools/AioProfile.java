package dev.sandbox4j.tools;

import static dev.sandbox4j.tools.Profiles.fields;
import static dev.sandbox4j.tools.Profiles.opt;
import static dev.sandbox4j.tools.Profiles.pick;
import static dev.sandbox4j.tools.Profiles.req;
import static dev.sandbox4j.tools.Profiles.reuse;
import static dev.sandbox4j.tools.Profiles.spec;
import static dev.sandbox4j.tools.ToolParam.Type.BOOLEAN;
import static dev.sandbox4j.tools.ToolParam.Type.INTEGER;
import static dev.sandbox4j.tools.ToolParam.Type.STRING;
import static dev.sandbox4j.tools.ToolParam.Type.STRING_ARRAY;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.GrepMatch;
import dev.sandbox4j.GrepOptions;
import dev.sandbox4j.GrepResult;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.tools.Profiles.Tool;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The AIO surface ({@link ToolProfile#AIO}): the file_* tools and their errno. */
final class AioProfile {
    private AioProfile() {
    }

    /** AIO errors carry {@code errno}: the POSIX number of the kind, or null when none fits. */
    static Integer errno(String errorType) {
        return switch (errorType) {
            case "not_found" -> 2;          // ENOENT
            case "io_error" -> 5;           // EIO
            case "permission_denied" -> 13; // EACCES
            case "already_exists" -> 17;    // EEXIST
            case "not_a_directory" -> 20;   // ENOTDIR
            case "is_a_directory" -> 21;    // EISDIR
            case "invalid_path", "invalid_argument" -> 22; // EINVAL
            case "too_large" -> 27;         // EFBIG
            case "directory_not_empty" -> 39; // ENOTEMPTY
            default -> null;
        };
    }

    private static final String FILE = "Absolute file path under /workspace, or relative to the workspace";
    private static final int MAX_LISTED = 10_000;

    static void aio(ToolConfig c, List<Tool> out) {
        Map<String, String> errno = fields("errno", "integer|null");
        out.add(new Tool(spec("file_read", "Read a text file, or the lines start_line (0-based) up to end_line"
                + " (exclusive).", List.of(req("file", STRING, FILE),
                        opt("start_line", INTEGER, "First line to read, 0-based"),
                        opt("end_line", INTEGER, "Line to stop before (exclusive)")),
                fields("file", "string", "content", "string"), errno), AioProfile::aioRead));
        out.add(new Tool(spec("file_write", "Write a file (parents created): text with encoding utf-8, or binary"
                + " content as base64 with encoding base64; append adds to the end.",
                List.of(req("file", STRING, FILE), req("content", STRING, "Text, or base64 for binary content"),
                        opt("encoding", STRING, "utf-8 or base64").withValues("utf-8", "base64")
                                .withDefault("utf-8"),
                        opt("append", BOOLEAN, "Append instead of replacing").withDefault(false)),
                fields("file", "string", "bytes_written", "integer"), errno), AioProfile::aioWrite));
        out.add(new Tool(spec("file_replace", "Replace the one occurrence of old_str with new_str in a file;"
                + " fails on zero or several occurrences. Returns a diff.",
                List.of(req("file", STRING, FILE), req("old_str", STRING, "Exact text to replace; must occur once"),
                        req("new_str", STRING, "Replacement text")),
                fields("file", "string", "diff", "string"), errno), AioProfile::aioReplace));
        out.add(new Tool(spec("file_search", "Search one file for a regular expression (Java syntax), line by"
                + " line.", List.of(req("file", STRING, FILE), req("regex", STRING, "Regular expression")),
                fields("file", "string", "matches", "array", "line_numbers", "array", "truncated", "boolean"), errno),
                AioProfile::aioSearch));
        out.add(new Tool(spec("file_find", "Find files and directories under path whose name matches a glob.",
                List.of(req("path", STRING, "Directory to search"), req("glob", STRING, "Glob, e.g. *.py")),
                fields("path", "string", "files", "array", "truncated", "boolean"), errno), AioProfile::aioFind));
        out.add(new Tool(spec("file_grep", "Search file contents under path for a regular expression (Java"
                + " syntax).", List.of(req("path", STRING, "File or directory to search"),
                        req("pattern", STRING, "Regular expression"),
                        opt("include", STRING_ARRAY, "Only files matching one of these globs, e.g. [\"*.py\"]"),
                        opt("exclude", STRING_ARRAY, "Skip files and directories matching these globs"),
                        opt("case_insensitive", BOOLEAN, "Ignore case").withDefault(false),
                        opt("max_results", INTEGER, "Most matches returned").withDefault(200)),
                fields("matches", "array", "total_matches", "integer", "truncated", "boolean"), errno),
                AioProfile::aioGrep));
        out.add(new Tool(spec("file_glob", "Match files under path with a glob (**, *, ?, [...]), optionally with"
                + " size and modification time, sorted.", List.of(req("path", STRING, "Base directory"),
                        req("pattern", STRING, "Glob pattern"),
                        opt("exclude", STRING_ARRAY, "Globs to exclude"),
                        opt("include_hidden", BOOLEAN, "Include names starting with a dot").withDefault(false),
                        opt("files_only", BOOLEAN, "Only files, not directories").withDefault(false),
                        opt("include_metadata", BOOLEAN, "Add size and modified").withDefault(false),
                        opt("max_results", INTEGER, "Most results returned").withDefault(1000),
                        opt("sort_by", STRING, "path, name, size or modified")
                                .withValues("path", "name", "size", "modified").withDefault("path")),
                fields("path", "string", "files", "array", "total_count", "integer", "truncated", "boolean"),
                errno), AioProfile::aioGlob));
        out.add(new Tool(spec("file_list", "List a directory, or a whole tree with recursive, optionally with hidden"
                + " entries and sizes.", List.of(req("path", STRING, "Directory to list"),
                        opt("recursive", BOOLEAN, "List the whole tree").withDefault(false),
                        opt("show_hidden", BOOLEAN, "Include names starting with a dot").withDefault(false),
                        opt("include_size", BOOLEAN, "Add each entry's size in bytes").withDefault(false)),
                fields("path", "string", "files", "array", "total_count", "integer", "truncated", "boolean"),
                errno), AioProfile::aioList));
        out.add(new Tool(spec("file_download", "Download a file's bytes as base64 (at most "
                + c.maxReadBytes() + " bytes). change_policy abort (default) fails with error_type conflict if"
                + " the file changes during the transfer; ignore does not check.",
                List.of(req("path", STRING, FILE),
                        opt("change_policy", STRING, "abort or ignore").withValues("abort", "ignore")
                                .withDefault("abort")),
                fields("path", "string", "content", "string", "encoding", "string", "size", "integer"), errno),
                AioProfile::aioDownload));
    }

    private static ToolResult aioRead(SandboxTools t, Args a, ToolProgress p) {
        String file = a.string("file");
        Long start = a.optLong("start_line");
        Long end = a.optLong("end_line");
        if ((start != null && start < 0) || (end != null && end < 0)) {
            throw new Args.ArgException("start_line and end_line must be >= 0");
        }
        if (start != null && end != null && end < start) {
            throw new Args.ArgException("end_line (" + end + ") must not be before start_line (" + start + ")");
        }
        FileInfo info = t.fs().stat(file);
        if (info.isDirectory()) {
            throw new SandboxException(ErrorKind.IS_A_DIRECTORY, file + " is a directory; use file_list");
        }
        String content;
        if (start == null && end == null) {
            if (info.size() > t.config().maxReadBytes()) {
                throw new SandboxException(ErrorKind.TOO_LARGE, file + " is " + info.size() + " bytes, more than "
                        + t.config().maxReadBytes() + " to read at once; read a line range (start_line, end_line)");
            }
            content = t.fs().readText(file);
        } else {
            long from = start == null ? 0 : start;
            if (end != null && end.equals(from)) {
                content = "";
            } else {
                // 0-based [start, end) is 1-based [start + 1, end]
                content = t.fs().readText(file, (int) Math.min(Integer.MAX_VALUE, from + 1),
                        end == null ? -1 : (int) Math.min(Integer.MAX_VALUE, end));
            }
            if (content.length() > t.config().maxReadBytes()) {
                throw new SandboxException(ErrorKind.TOO_LARGE, "the lines asked for hold " + content.length()
                        + " characters, more than " + t.config().maxReadBytes() + "; read a smaller range");
            }
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("file", info.path());
        f.put("content", content);
        return ToolResult.ok(f);
    }

    private static ToolResult aioWrite(SandboxTools t, Args a, ToolProgress p) {
        String file = a.string("file");
        String content = t.checkWriteSize(a.string("content"));
        String encoding = a.optString("encoding", "utf-8").toLowerCase(Locale.ROOT);
        boolean append = a.optBool("append", false);
        byte[] bytes;
        if (encoding.equals("base64")) {
            try {
                bytes = Base64.getDecoder().decode(content.replaceAll("\\s+", ""));
            } catch (IllegalArgumentException e) {
                return ToolResult.failure("decode_error", "content is not valid base64: " + e.getMessage(), false,
                        Map.of());
            }
        } else {
            bytes = content.getBytes(StandardCharsets.UTF_8);
        }
        if (append) {
            t.fs().append(file, bytes);
        } else {
            t.fs().write(file, bytes);
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("file", t.fs().stat(file).path());
        f.put("bytes_written", bytes.length);
        return ToolResult.ok(f);
    }

    private static ToolResult aioReplace(SandboxTools t, Args a, ToolProgress p) {
        Map<String, Object> args = new LinkedHashMap<>();
        args.put("path", a.string("file"));
        args.put("old_str", a.string("old_str"));
        args.put("new_str", a.string("new_str"));
        return pick(reuse(t, "str_replace", args, p), "file=path", "diff");
    }

    private static ToolResult aioSearch(SandboxTools t, Args a, ToolProgress p) {
        String file = a.string("file");
        String regex = a.string("regex");
        if (regex.isEmpty()) {
            throw new Args.ArgException("argument 'regex' of file_search must not be empty");
        }
        FileInfo info = t.fs().stat(file);
        if (info.isDirectory()) {
            throw new SandboxException(ErrorKind.IS_A_DIRECTORY, file + " is a directory; use file_grep");
        }
        GrepResult r = t.fs().grep(regex, file, GrepOptions.defaults().withMaxResults(1000));
        List<String> lines = new ArrayList<>();
        List<Integer> numbers = new ArrayList<>();
        for (GrepMatch m : r.matches()) {
            lines.add(m.line());
            numbers.add(m.lineNumber());
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("file", info.path());
        f.put("matches", lines);
        f.put("line_numbers", numbers);
        f.put("truncated", r.truncated());
        return ToolResult.ok(f);
    }

    private static ToolResult aioFind(SandboxTools t, Args a, ToolProgress p) {
        String path = a.string("path");
        String glob = a.text("glob");
        List<String> found = t.fs().find(glob, path, List.of());
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("path", t.fs().stat(path).path());
        f.put("files", found.size() > 1000 ? found.subList(0, 1000) : found);
        f.put("truncated", found.size() > 1000);
        return ToolResult.ok(f);
    }

    private static ToolResult aioGrep(SandboxTools t, Args a, ToolProgress p) {
        String path = a.string("path");
        String pattern = a.string("pattern");
        if (pattern.isEmpty()) {
            throw new Args.ArgException("argument 'pattern' of file_grep must not be empty");
        }
        long max = a.optLong("max_results", 200);
        if (max <= 0 || max > 100_000) {
            throw new Args.ArgException("max_results must be between 1 and 100000, got " + max);
        }
        GrepOptions options = GrepOptions.defaults().withCaseInsensitive(a.optBool("case_insensitive", false))
                .withMaxResults((int) max);
        List<String> include = a.strings("include", false);
        List<String> exclude = a.strings("exclude", false);
        if (!include.isEmpty()) {
            options = options.withIncludes(include.toArray(String[]::new));
        }
        if (!exclude.isEmpty()) {
            options = options.withExcludes(exclude.toArray(String[]::new));
        }
        GrepResult r = t.fs().grep(pattern, path, options);
        List<Object> matches = new ArrayList<>();
        for (GrepMatch m : r.matches()) {
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("file", m.path());
            one.put("line_number", m.lineNumber());
            one.put("line", m.line());
            matches.add(one);
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("matches", matches);
        f.put("total_matches", matches.size());
        f.put("truncated", r.truncated());
        return ToolResult.ok(f);
    }

    private static boolean hidden(String relative) {
        for (String segment : relative.split("/")) {
            if (segment.startsWith(".") && !segment.equals(".") && !segment.equals("..")) {
                return true;
            }
        }
        return false;
    }

    private static String relativeTo(String base, String path) {
        if (base.isEmpty()) {
            return path;
        }
        return path.startsWith(base + "/") ? path.substring(base.length() + 1) : path;
    }

    private static ToolResult aioGlob(SandboxTools t, Args a, ToolProgress p) {
        String path = a.string("path");
        String pattern = a.text("pattern");
        List<String> exclude = a.strings("exclude", false);
        boolean includeHidden = a.optBool("include_hidden", false);
        boolean filesOnly = a.optBool("files_only", false);
        boolean metadata = a.optBool("include_metadata", false);
        long max = a.optLong("max_results", 1000);
        if (max <= 0 || max > 100_000) {
            throw new Args.ArgException("max_results must be between 1 and 100000, got " + max);
        }
        String sortBy = a.optString("sort_by", "path").toLowerCase(Locale.ROOT);
        String base = t.fs().stat(path).path();
        boolean needStat = filesOnly || metadata || sortBy.equals("size") || sortBy.equals("modified");
        List<FileInfo> hits = new ArrayList<>();
        for (String found : t.fs().find(pattern, path, exclude)) {
            if (!includeHidden && hidden(relativeTo(base, found))) {
                continue;
            }
            FileInfo info;
            if (needStat) {
                try {
                    info = t.fs().stat(found);
                } catch (SandboxException e) {
                    if (e.kind() == ErrorKind.NOT_FOUND) {
                        continue; // vanished since the walk
                    }
                    throw e;
                }
            } else {
                info = FileInfo.other(found, -1, -1, java.time.Instant.EPOCH);
            }
            if (filesOnly && !info.isFile()) {
                continue;
            }
            hits.add(info);
        }
        Comparator<FileInfo> order = switch (sortBy) {
            case "name" -> Comparator.comparing(FileInfo::name).thenComparing(FileInfo::path);
            case "size" -> Comparator.comparingLong(FileInfo::size).thenComparing(FileInfo::path);
            case "modified" -> Comparator.comparing(FileInfo::modified).thenComparing(FileInfo::path);
            default -> Comparator.comparing(FileInfo::path);
        };
        hits.sort(order);
        List<Object> files = new ArrayList<>();
        for (FileInfo info : hits.subList(0, (int) Math.min(max, hits.size()))) {
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("path", info.path());
            if (metadata) {
                one.put("is_dir", info.isDirectory());
                one.put("size", info.size());
                one.put("modified", info.modified().toString());
            }
            files.add(one);
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("path", base);
        f.put("files", files);
        f.put("total_count", hits.size());
        f.put("truncated", hits.size() > max);
        return ToolResult.ok(f);
    }

    private static ToolResult aioList(SandboxTools t, Args a, ToolProgress p) {
        String path = a.string("path");
        boolean recursive = a.optBool("recursive", false);
        boolean hidden = a.optBool("show_hidden", false);
        boolean sizes = a.optBool("include_size", false);
        FileInfo dir = t.fs().stat(path);
        if (!dir.isDirectory()) {
            throw new SandboxException(ErrorKind.NOT_A_DIRECTORY, path + " is not a directory");
        }
        // 256 levels is the deepest walk FileSystem.list does
        int depth = recursive ? 256 : 1;
        List<FileInfo> entries = hidden ? t.fs().list(path, depth) : t.fs().listVisible(path, depth);
        List<Object> files = new ArrayList<>();
        for (FileInfo e : entries.subList(0, Math.min(MAX_LISTED, entries.size()))) {
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("name", e.name());
            one.put("path", e.path());
            one.put("type", Shaping.fileType(e));
            if (sizes) {
                one.put("size", e.size());
            }
            files.add(one);
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("path", dir.path());
        f.put("files", files);
        f.put("total_count", entries.size());
        f.put("truncated", entries.size() > MAX_LISTED);
        return ToolResult.ok(f);
    }

    private static ToolResult aioDownload(SandboxTools t, Args a, ToolProgress p) {
        String path = a.string("path");
        boolean abort = a.optString("change_policy", "abort").equalsIgnoreCase("abort");
        FileInfo info = t.fs().stat(path);
        if (info.isDirectory()) {
            throw new SandboxException(ErrorKind.IS_A_DIRECTORY, path + " is a directory");
        }
        if (info.size() > t.config().maxReadBytes()) {
            throw new SandboxException(ErrorKind.TOO_LARGE, path + " is " + info.size() + " bytes, more than the "
                    + t.config().maxReadBytes() + " a download returns; read it in parts with file_read");
        }
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        if (abort) {
            t.fs().readToUnchanged(path, sink);
        } else {
            t.fs().readTo(path, sink);
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("path", info.path());
        f.put("content", Base64.getEncoder().encodeToString(sink.toByteArray()));
        f.put("encoding", "base64");
        f.put("size", sink.size());
        return ToolResult.ok(f);
    }
}
