package dev.sandbox4j.tools;

import static dev.sandbox4j.tools.Profiles.fields;
import static dev.sandbox4j.tools.Profiles.opt;
import static dev.sandbox4j.tools.Profiles.pick;
import static dev.sandbox4j.tools.Profiles.putIfPresent;
import static dev.sandbox4j.tools.Profiles.req;
import static dev.sandbox4j.tools.Profiles.reuse;
import static dev.sandbox4j.tools.Profiles.spec;
import static dev.sandbox4j.tools.ToolParam.Type.BOOLEAN;
import static dev.sandbox4j.tools.ToolParam.Type.INTEGER;
import static dev.sandbox4j.tools.ToolParam.Type.KEY_VALUE_ARRAY;
import static dev.sandbox4j.tools.ToolParam.Type.STRING;
import static dev.sandbox4j.tools.ToolParam.Type.STRING_ARRAY;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.tools.Profiles.Tool;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The Spacebot surface ({@link ToolProfile#SPACEBOT}): shell, file, exec, browser ({@link BrowserTool}), set_status
 * ({@link StatusTool}), read_skill ({@link SkillTool}) and its failure shape. Its file rules
 * ({@link ToolConfig#fileRules()}) protect the identity files and refuse symbolic links.
 */
final class SpacebotProfile {
    private SpacebotProfile() {
    }

    /** Spacebot's shell, file, exec, set_status and read_skill. */
    static void add(ToolConfig c, List<Tool> out) {
        Map<String, String> result = fields("exit_code", "integer", "stdout", "string", "stderr", "string",
                "summary", "string");
        out.add(new Tool(spec("shell", "Run a shell command (/bin/sh -c) in the sandbox. Returns exit_code,"
                + " stdout, stderr and a one-line summary. timeout is in seconds, 1 to 300 (default "
                + Math.min(300, c.defaultTimeout().toSeconds()) + ").",
                List.of(req("command", STRING, "The command line to run"),
                        opt("working_dir", STRING, "Working directory inside the workspace"),
                        opt("timeout", INTEGER, "Timeout in seconds").withRange(1, 300)
                                .withDefault(Math.min(300, c.defaultTimeout().toSeconds()))),
                result), SpacebotProfile::spacebotShell));
        out.add(new Tool(spec("file", "Read, write or list files in the sandbox workspace. operation"
                + " read returns content; write replaces the file with content (create_dirs creates"
                + " missing parent directories, default true); list returns entries with name,"
                + " entry_type (file, directory, other) and size.",
                List.of(req("operation", STRING, "read, write or list").withValues("read", "write", "list"),
                        req("path", STRING, "Path relative to the workspace (or absolute under"
                                + " /workspace)"),
                        opt("content", STRING, "The text to write (operation write)"),
                        opt("create_dirs", BOOLEAN, "Create missing parent directories on write")
                                .withDefault(true)),
                fields("operation", "string", "path", "string", "content", "string", "entries", "array",
                        "bytes_written", "integer"), fields("error", "string")), SpacebotProfile::spacebotFile));
        out.add(new Tool(spec("exec", "Run one program with an argument list, without a shell, with"
                + " optional environment variables as [{key, value}]. Variables that hijack the loader or"
                + " an interpreter (" + String.join(", ", c.blockedEnv()) + ") are refused. timeout is"
                + " in seconds, 1 to 300.",
                List.of(req("program", STRING, "Program to run, by name on PATH or by path"),
                        opt("args", STRING_ARRAY, "Arguments, one per element"),
                        opt("env", KEY_VALUE_ARRAY, "Environment variables for this command"),
                        opt("cwd", STRING, "Working directory inside the workspace"),
                        opt("timeout", INTEGER, "Timeout in seconds").withRange(1, 300)
                                .withDefault(Math.min(300, c.defaultTimeout().toSeconds()))),
                result), SpacebotProfile::spacebotExec));
        out.add(BrowserTool.spacebot(c));
        StatusTool.add(c, out);
        SkillTool.add(c, out);
    }

    private static ToolResult spacebotShell(SandboxTools t, Args a, ToolProgress p) {
        Map<String, Object> args = new LinkedHashMap<>();
        args.put("command", a.text("command"));
        putIfPresent(args, "cwd", a.optString("working_dir", null));
        putIfPresent(args, "timeout", a.optLong("timeout"));
        return pick(reuse(t, "bash", args, p), "exit_code", "stdout", "stderr", "summary");
    }

    private static ToolResult spacebotExec(SandboxTools t, Args a, ToolProgress p) {
        Map<String, Object> args = new LinkedHashMap<>();
        args.put("program", a.text("program"));
        args.put("args", a.strings("args", false));
        args.put("env", a.keyValues("env"));
        putIfPresent(args, "cwd", a.optString("cwd", null));
        putIfPresent(args, "timeout", a.optLong("timeout"));
        return pick(reuse(t, "exec", args, p), "exit_code", "stdout", "stderr", "summary");
    }

    private static ToolResult spacebotFile(SandboxTools t, Args a, ToolProgress p) {
        String operation = a.text("operation").toLowerCase(Locale.ROOT);
        String path = a.string("path");
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("operation", operation);
        switch (operation) {
            case "read" -> {
                FileInfo info = t.fs().stat(path);
                if (info.isDirectory()) {
                    throw new SandboxException(ErrorKind.IS_A_DIRECTORY, path + " is a directory; use operation"
                            + " list");
                }
                if (info.size() > t.config().maxReadBytes()) {
                    throw new SandboxException(ErrorKind.TOO_LARGE, path + " is " + info.size() + " bytes, more"
                            + " than " + t.config().maxReadBytes() + " to read at once; read part of it with"
                            + " shell (head, tail, sed -n)");
                }
                f.put("path", info.path());
                f.put("content", t.fs().readText(path));
            }
            case "write" -> {
                Object content = a.map().get("content");
                if (content == null) {
                    throw new Args.ArgException("operation write of file needs argument 'content'");
                }
                String text = t.checkWriteSize(a.string("content"));
                if (!a.optBool("create_dirs", true)) {
                    requireParent(t, path);
                }
                t.fs().write(path, text);
                f.put("path", t.fs().stat(path).path());
                f.put("bytes_written", text.getBytes(StandardCharsets.UTF_8).length);
            }
            case "list" -> {
                List<Object> entries = new ArrayList<>();
                for (FileInfo e : t.fs().list(path)) {
                    Map<String, Object> one = new LinkedHashMap<>();
                    one.put("name", e.name());
                    one.put("entry_type", e.isFile() ? "file" : e.isDirectory() ? "directory" : "other");
                    one.put("size", e.size());
                    entries.add(one);
                }
                f.put("path", t.fs().stat(path).path());
                f.put("entries", entries);
            }
            default -> throw new Args.ArgException("operation must be read, write or list, got '" + operation + "'");
        }
        return ToolResult.ok(f);
    }

    private static void requireParent(SandboxTools t, String path) {
        String trimmed = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        int slash = trimmed.lastIndexOf('/');
        if (slash <= 0) {
            return; // the workspace root, or "/x" which the file system judges
        }
        String parent = trimmed.substring(0, slash);
        if (!t.fs().exists(parent)) {
            throw new SandboxException(ErrorKind.NOT_FOUND, "parent directory " + parent + " does not exist"
                    + " (create_dirs is false)");
        }
        if (!t.fs().stat(parent).isDirectory()) {
            throw new SandboxException(ErrorKind.NOT_A_DIRECTORY, parent + " is not a directory");
        }
    }

    /**
     * Spacebot's shapes: {@code file} results name their {@code operation}; a failure also carries {@code error}
     * (its message), the field Spacebot's document gives for a failed operation.
     */
    static ToolResult spacebotResult(String tool, ToolResult r) {
        if (r.success()) {
            return r;
        }
        Map<String, Object> f = new LinkedHashMap<>(r.fields());
        f.put("error", r.get("message"));
        return r.withFields(f);
    }
}
