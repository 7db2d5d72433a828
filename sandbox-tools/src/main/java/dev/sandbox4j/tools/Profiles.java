package dev.sandbox4j.tools;

import static dev.sandbox4j.tools.ToolParam.Type.BOOLEAN;
import static dev.sandbox4j.tools.ToolParam.Type.INTEGER;
import static dev.sandbox4j.tools.ToolParam.Type.KEY_VALUE_ARRAY;
import static dev.sandbox4j.tools.ToolParam.Type.STRING;
import static dev.sandbox4j.tools.ToolParam.Type.STRING_ARRAY;
import static dev.sandbox4j.tools.ToolParam.Type.STRING_MAP;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.GrepMatch;
import dev.sandbox4j.GrepOptions;
import dev.sandbox4j.GrepResult;
import dev.sandbox4j.SandboxException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The published tool surfaces ({@link ToolProfile}): each tool's spec (names, parameters, defaults, result and error
 * fields) and a handler that translates the call into the same operations the default tools use (commands through
 * {@link SandboxTools#runCommand}, the default handlers where a tool differs only in names, {@link dev.sandbox4j
 * .FileSystem} calls where a surface has an operation the default set lacks), then renames the result's fields.
 */
final class Profiles {
    private Profiles() {
    }

    /** Runs one tool of a profile. */
    interface Handler {
        ToolResult call(SandboxTools tools, Args args, ToolProgress progress);
    }

    /** A tool of a profile: what the model sees and what runs. */
    record Tool(ToolSpec spec, Handler handler) {
    }

    /** The capability of a tool of any profile, by name; null for a name that is no tool of any profile. */
    static Capability capabilityOf(String tool) {
        Capability c = Catalog.capabilityOf(tool);
        if (c != null) {
            return c;
        }
        return switch (tool) {
            case "shell", "sub_agent" -> Capability.RUN_COMMANDS;
            case "run_code", EXECUTE_CODE_NAME -> Capability.RUN_CODE;
            case "read_text_file", "read_media_file", "list_directory_with_sizes", "directory_tree",
                    "list_allowed_directories" -> Capability.READ_FILES;
            // Spacebot's file tool writes as well as reads: it goes whenever writing is off
            case "file", "file_write", "file_replace" -> Capability.WRITE_FILES;
            case "file_read", "file_search", "file_find", "file_grep", "file_glob", "file_list", "file_download" ->
                    Capability.READ_FILES;
            default -> null;
        };
    }

    /** The tool names of a profile. */
    static Set<String> names(ToolProfile profile) {
        Set<String> names = new LinkedHashSet<>();
        for (Tool t : tools(profile, ToolConfig.defaults())) {
            names.add(t.spec().name());
        }
        return names;
    }

    /** execute-code's published invocation name ({@link ToolConfig#dotlessNames()} offers it as execute_code). */
    static final String EXECUTE_CODE_NAME = "code_execution_sandbox.execute_code";

    static final List<String> EXECUTE_CODE_ERRORS = List.of("UNSUPPORTED_LANGUAGE", "SANDBOX_SETUP_FAILED",
            "EXECUTION_TIMEOUT", "RUNTIME_ERROR");

    static List<Tool> tools(ToolProfile profile, ToolConfig c) {
        Map<String, ToolSpec> base = new LinkedHashMap<>();
        for (ToolSpec s : Catalog.all(c)) {
            base.put(s.name(), s);
        }
        List<Tool> out = new ArrayList<>();
        switch (profile) {
            case DEFAULT -> {
                base.values().forEach(s -> out.add(same(s)));
                out.add(subAgent(ToolParam.Type.INTEGER)); // the coding tool, with the default surface's integers
            }
            case AGENTBAY -> {
                out.add(new Tool(spec("run_code", "Run python or javascript code in the sandbox and return what"
                        + " it printed (result), stdout, stderr, exit_code and status (completed, timeout,"
                        + " error_runtime, error_setup). timeout_s is in seconds (default 300, at most "
                        + c.maxTimeout().toSeconds() + ").",
                        List.of(req("code", STRING, "Code to execute"),
                                opt("language", STRING, "The programming language to use for code execution."
                                        + " Supported values: 'python', 'javascript'. If not specified, Python will"
                                        + " be used by default."),
                                opt("timeout_s", INTEGER, "Command execution timeout (unit: seconds). Default 300,"
                                        + " maximum " + c.maxTimeout().toSeconds() + " seconds").withDefault(300)),
                        fields("result", "string", "stdout", "string", "stderr", "string", "exit_code", "integer",
                                "status", "string")), Profiles::agentbayRunCode));
                out.add(new Tool(spec("shell", "Run a shell command (/bin/sh -c) in the sandbox and return its"
                        + " output, stdout, stderr and exit_code. timeout_ms is in milliseconds (default 1000);"
                        + " the whole process tree is killed when it expires. Each stream keeps its first and last "
                        + c.outputLimit() + " characters with a marker saying how much was cut.",
                        List.of(req("command", STRING, "The command line to run"),
                                req("timeout_ms", INTEGER, "Timeout in milliseconds (at most "
                                        + c.maxTimeout().toMillis() + ")").withDefault(1000),
                                opt("cwd", STRING, "Working directory inside the workspace"),
                                opt("envs", STRING_MAP, "Extra environment variables for this command")),
                        fields("output", "string", "stdout", "string", "stderr", "string", "exit_code", "integer",
                                "status", "string")), Profiles::agentbayShell));
                agentbayFiles(base, out);
            }
            case CODING -> {
                ToolSpec bash = base.get("bash");
                List<ToolParam> params = new ArrayList<>();
                params.add(bash.param("command"));
                params.add(req("description", STRING, "One-line description of what the command does (for logs"
                        + " and the transcript; not run)"));
                params.add(bash.param("cwd"));
                params.add(new ToolParam("timeout", ToolParam.Type.NUMBER, "Timeout in seconds, fractions allowed"
                        + " (default " + c.defaultTimeout().toSeconds() + ", at most " + c.maxTimeout().toSeconds()
                        + ")", false).withDefault(c.defaultTimeout().toSeconds()));
                out.add(new Tool(bash.reshaped("bash", bash.description() + " A call that runs long reports a"
                        + " heartbeat every " + c.heartbeatInterval().toSeconds() + " s.", params, bash.output(),
                        List.of(), Map.of()), Profiles::codingBash));
                for (String name : List.of("view", "create_file", "str_replace")) {
                    out.add(same(base.get(name)));
                }
                out.add(subAgent(ToolParam.Type.NUMBER)); // the coding document's table says number
            }
            case EXECUTE_CODE -> {
                ToolSpec ec = base.get("execute_code");
                List<ToolParam> params = List.of(ec.param("language"), ec.param("code"), ec.param("stdin_data"),
                        ec.param("timeout_ms").withDefault(c.defaultCodeTimeout().toMillis()));
                Map<String, String> result = fields("stdout", "string", "stderr", "string", "exit_code", "integer",
                        "status", "string", "duration_ms", "integer");
                Map<String, String> errorFields = new LinkedHashMap<>(result);
                errorFields.put("supported_languages", "array");
                String name = c.dotlessNames() ? "execute_code" : EXECUTE_CODE_NAME;
                out.add(new Tool(ec.reshaped(name, ec.description() + " A run that does not complete"
                        + " fails with error_type EXECUTION_TIMEOUT, RUNTIME_ERROR or SANDBOX_SETUP_FAILED and"
                        + " still carries its output; an unknown language fails with UNSUPPORTED_LANGUAGE.",
                        params, result, EXECUTE_CODE_ERRORS, errorFields)
                        .withPublishedOutputSchema(executeCodeOutput()), same(ec).handler()));
            }
            case SPACEBOT -> {
                Map<String, String> result = fields("exit_code", "integer", "stdout", "string", "stderr", "string",
                        "summary", "string");
                out.add(new Tool(spec("shell", "Run a shell command (/bin/sh -c) in the sandbox. Returns exit_code,"
                        + " stdout, stderr and a one-line summary. timeout is in seconds, 1 to 300 (default "
                        + Math.min(300, c.defaultTimeout().toSeconds()) + ").",
                        List.of(req("command", STRING, "The command line to run"),
                                opt("working_dir", STRING, "Working directory inside the workspace"),
                                opt("timeout", INTEGER, "Timeout in seconds").withRange(1, 300)
                                        .withDefault(Math.min(300, c.defaultTimeout().toSeconds()))),
                        result), Profiles::spacebotShell));
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
                                "bytes_written", "integer"), fields("error", "string")), Profiles::spacebotFile));
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
                        result), Profiles::spacebotExec));
            }
            case AIO -> aio(c, out);
            case FILESYSTEM -> FilesystemTools.add(out, c);
            default -> throw new IllegalStateException(profile.name());
        }
        return out;
    }

    // ------------------------------------------------------------------ building specs

    private static ToolParam req(String name, ToolParam.Type type, String description) {
        return new ToolParam(name, type, description, true);
    }

    private static ToolParam opt(String name, ToolParam.Type type, String description) {
        return new ToolParam(name, type, description, false);
    }

    private static ToolSpec spec(String name, String description, List<ToolParam> params, Map<String, String> out) {
        return spec(name, description, params, out, Map.of());
    }

    private static ToolSpec spec(String name, String description, List<ToolParam> params, Map<String, String> out,
                                 Map<String, String> errorFields) {
        Capability cap = capabilityOf(name);
        ToolSpec.Hints hints = switch (cap) {
            case RUN_COMMANDS, RUN_CODE -> new ToolSpec.Hints(true, false, false);
            case READ_FILES -> new ToolSpec.Hints(false, true, false);
            case WRITE_FILES -> new ToolSpec.Hints(true, false, false);
        };
        return new ToolSpec(name, description, params, cap, hints, out, List.of(), errorFields);
    }

    private static Map<String, String> fields(String... nameType) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < nameType.length; i += 2) {
            m.put(nameType[i], nameType[i + 1]);
        }
        return m;
    }

    /** A default tool as it is. */
    private static Tool same(ToolSpec spec) {
        String name = spec.name();
        return new Tool(spec, (t, a, p) -> t.dispatch(name, a, p));
    }

    /** A default tool with some parameters replaced (same name) to match a published schema. */
    private static Tool retyped(ToolSpec spec, ToolParam... replacements) {
        List<ToolParam> params = new ArrayList<>();
        for (ToolParam p : spec.params()) {
            ToolParam r = p;
            for (ToolParam q : replacements) {
                if (q.name().equals(p.name())) {
                    r = q;
                }
            }
            params.add(r);
        }
        return same(spec.reshaped(spec.name(), spec.description(), params, spec.output(), spec.errorCodes(),
                spec.errorFields()));
    }

    /** AgentBay's file tools: the default ones with the defaults, bounds and required flags its list declares. */
    private static void agentbayFiles(Map<String, ToolSpec> base, List<Tool> out) {
        out.add(same(base.get("create_directory")));
        out.add(retyped(base.get("edit_file"), base.get("edit_file").param("dryRun").withDefault(false)));
        out.add(same(base.get("get_file_info")));
        ToolSpec read = base.get("read_file");
        out.add(retyped(read, read.param("offset").withDefault(0).withMinimum(0),
                read.param("length").withMinimum(0)));
        out.add(same(base.get("read_multiple_files")));
        out.add(retyped(base.get("list_directory"), new ToolParam("path", STRING, "Directory path to list"
                + " (relative to the workspace, or absolute under /workspace)", true)));
        out.add(same(base.get("move_file")));
        out.add(retyped(base.get("search_files"), base.get("search_files").param("excludePatterns")
                .withDefault(List.of())));
        out.add(retyped(base.get("write_file"), base.get("write_file").param("mode").withDefault("overwrite")));
    }

    /** execute-code's published output schema (section 4 of its document). */
    private static Map<String, Object> executeCodeOutput() {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("stdout", Map.of("type", "string"));
        props.put("stderr", Map.of("type", "string"));
        props.put("exit_code", Map.of("type", "integer"));
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("type", "string");
        status.put("enum", List.of("completed", "timeout", "error_runtime", "error_setup"));
        props.put("status", status);
        props.put("duration_ms", Map.of("type", "integer"));
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("type", "object");
        s.put("properties", props);
        s.put("required", List.of("stdout", "stderr", "exit_code", "status", "duration_ms"));
        return s;
    }

    /** Runs a default tool with these arguments. */
    private static ToolResult reuse(SandboxTools t, String tool, Map<String, Object> args, ToolProgress p) {
        return t.dispatch(tool, new Args(tool, args), p);
    }

    /**
     * A successful result with only the named fields, in order: {@code "new=old"} renames, a plain name keeps the
     * field; absent fields stay absent. Failures pass as they are.
     */
    private static ToolResult pick(ToolResult r, String... names) {
        if (!r.success()) {
            return r;
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("success", true);
        for (String n : names) {
            int eq = n.indexOf('=');
            String to = eq < 0 ? n : n.substring(0, eq);
            String from = eq < 0 ? n : n.substring(eq + 1);
            if (r.fields().containsKey(from)) {
                f.put(to, r.get(from));
            }
        }
        return r.withFields(f);
    }

    private static void putIfPresent(Map<String, Object> m, String name, Object value) {
        if (value != null) {
            m.put(name, value);
        }
    }

    // ------------------------------------------------------------------ agentbay

    private static ToolResult agentbayShell(SandboxTools t, Args a, ToolProgress p) {
        String command = a.text("command");
        SandboxTools.Timeout timeout = t.timeout(a, "timeout_ms", Duration.ofMillis(1000), TimeUnit.MILLISECONDS);
        Map<String, String> env = a.stringMap("envs");
        ToolResult refused = t.refuseEnv(env);
        if (refused != null) {
            return refused;
        }
        ExecRequest request = ExecRequest.shell(command).withEnv(env).withTimeout(timeout.duration())
                .withOutputLimit(t.config().outputLimit());
        String cwd = a.optString("cwd", null);
        if (cwd != null && !cwd.isBlank()) {
            request = request.withCwd(cwd);
        }
        ToolResult r = t.runCommand(request, Shaping.lastProgram(command), timeout, p);
        return pick(r, "output=stdout", "stdout", "stderr", "exit_code", "status");
    }

    private static ToolResult agentbayRunCode(SandboxTools t, Args a, ToolProgress p) {
        Map<String, Object> args = new LinkedHashMap<>();
        String language = a.optString("language", "python").trim().toLowerCase(Locale.ROOT);
        language = language.isEmpty() ? "python" : language;
        if (!language.equals("python") && !language.equals("javascript")) {
            return ToolResult.error(ErrorKind.UNSUPPORTED_LANGUAGE, "run_code supports python, javascript; got '"
                    + language + "'", Map.of("supported_languages", List.of("python", "javascript")));
        }
        args.put("language", language);
        args.put("code", a.string("code"));
        Long seconds = a.optLong("timeout_s");
        if (seconds != null && seconds <= 0) {
            throw new Args.ArgException("argument 'timeout_s' of run_code must be positive, got " + seconds);
        }
        args.put("timeout_ms", (seconds == null ? 300 : seconds) * 1000);
        return pick(reuse(t, "execute_code", args, p), "result=stdout", "stdout", "stderr", "exit_code", "status");
    }

    // ------------------------------------------------------------------ coding

    /** The coding surface's fifth tool, as published: Claude Code run inside the sandbox ({@link SubAgentTool}). */
    private static Tool subAgent(ToolParam.Type turns) {
        return new Tool(spec("sub_agent", "Launch Claude Code CLI inside the sandbox as a long-running autonomous"
                + " agent. Its events arrive as progress while it works; the result carries its final answer and"
                + " the session id to resume with. Needs the CLI in the sandbox and ANTHROPIC_API_KEY there (best a"
                + " brokered credential).",
                List.of(req("prompt", STRING, "Task description"),
                        opt("model", STRING, "Model alias (resolves to ANTHROPIC_DEFAULT_*_MODEL)")
                                .withValues("sonnet", "opus", "haiku"),
                        opt("resume_session_id", STRING, "Resume a prior Claude Code session"),
                        new ToolParam("max_turns", turns, "Override SUB_AGENT_MAX_TURNS", false)),
                fields("result", "string", "session_id", "string", "is_error", "boolean", "subtype", "string",
                        "num_turns", "integer", "events", "integer", "duration_ms", "integer")),
                (t, a, p) -> new SubAgentTool(t, SubAgent.claudeCode()).run(a, p));
    }

    private static ToolResult codingBash(SandboxTools t, Args a, ToolProgress p) {
        a.string("description"); // required, for the transcript only
        String command = a.text("command");
        Double seconds = a.optDouble("timeout");
        SandboxTools.Timeout timeout;
        if (seconds == null) {
            timeout = new SandboxTools.Timeout(t.config().defaultTimeout(), null);
        } else if (seconds <= 0) {
            throw new Args.ArgException("argument 'timeout' of bash must be positive, got " + seconds);
        } else {
            Duration asked = Duration.ofMillis((long) Math.ceil(Math.min(seconds, 1e9) * 1000));
            timeout = asked.compareTo(t.config().maxTimeout()) > 0
                    ? new SandboxTools.Timeout(t.config().maxTimeout(), "timeout lowered to the maximum of "
                            + t.config().maxTimeout().toSeconds() + " s")
                    : new SandboxTools.Timeout(asked, null);
        }
        ExecRequest request = ExecRequest.shell(command).withTimeout(timeout.duration())
                .withOutputLimit(t.config().outputLimit());
        String cwd = a.optString("cwd", null);
        if (cwd != null && !cwd.isBlank()) {
            request = request.withCwd(cwd);
        }
        return t.runCommand(request, Shaping.lastProgram(command), timeout, p);
    }

    // ------------------------------------------------------------------ spacebot

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

    // ------------------------------------------------------------------ aio

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

    private static void aio(ToolConfig c, List<Tool> out) {
        Map<String, String> errno = fields("errno", "integer|null");
        out.add(new Tool(spec("file_read", "Read a text file, or the lines start_line (0-based) up to end_line"
                + " (exclusive).", List.of(req("file", STRING, FILE),
                        opt("start_line", INTEGER, "First line to read, 0-based"),
                        opt("end_line", INTEGER, "Line to stop before (exclusive)")),
                fields("file", "string", "content", "string"), errno), Profiles::aioRead));
        out.add(new Tool(spec("file_write", "Write a file (parents created): text with encoding utf-8, or binary"
                + " content as base64 with encoding base64; append adds to the end.",
                List.of(req("file", STRING, FILE), req("content", STRING, "Text, or base64 for binary content"),
                        opt("encoding", STRING, "utf-8 or base64").withValues("utf-8", "base64")
                                .withDefault("utf-8"),
                        opt("append", BOOLEAN, "Append instead of replacing").withDefault(false)),
                fields("file", "string", "bytes_written", "integer"), errno), Profiles::aioWrite));
        out.add(new Tool(spec("file_replace", "Replace the one occurrence of old_str with new_str in a file;"
                + " fails on zero or several occurrences. Returns a diff.",
                List.of(req("file", STRING, FILE), req("old_str", STRING, "Exact text to replace; must occur once"),
                        req("new_str", STRING, "Replacement text")),
                fields("file", "string", "diff", "string"), errno), Profiles::aioReplace));
        out.add(new Tool(spec("file_search", "Search one file for a regular expression (Java syntax), line by"
                + " line.", List.of(req("file", STRING, FILE), req("regex", STRING, "Regular expression")),
                fields("file", "string", "matches", "array", "line_numbers", "array", "truncated", "boolean"), errno),
                Profiles::aioSearch));
        out.add(new Tool(spec("file_find", "Find files and directories under path whose name matches a glob.",
                List.of(req("path", STRING, "Directory to search"), req("glob", STRING, "Glob, e.g. *.py")),
                fields("path", "string", "files", "array", "truncated", "boolean"), errno), Profiles::aioFind));
        out.add(new Tool(spec("file_grep", "Search file contents under path for a regular expression (Java"
                + " syntax).", List.of(req("path", STRING, "File or directory to search"),
                        req("pattern", STRING, "Regular expression"),
                        opt("include", STRING_ARRAY, "Only files matching one of these globs, e.g. [\"*.py\"]"),
                        opt("exclude", STRING_ARRAY, "Skip files and directories matching these globs"),
                        opt("case_insensitive", BOOLEAN, "Ignore case").withDefault(false),
                        opt("max_results", INTEGER, "Most matches returned").withDefault(200)),
                fields("matches", "array", "total_matches", "integer", "truncated", "boolean"), errno),
                Profiles::aioGrep));
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
                errno), Profiles::aioGlob));
        out.add(new Tool(spec("file_list", "List a directory, or a whole tree with recursive, optionally with hidden"
                + " entries and sizes.", List.of(req("path", STRING, "Directory to list"),
                        opt("recursive", BOOLEAN, "List the whole tree").withDefault(false),
                        opt("show_hidden", BOOLEAN, "Include names starting with a dot").withDefault(false),
                        opt("include_size", BOOLEAN, "Add each entry's size in bytes").withDefault(false)),
                fields("path", "string", "files", "array", "total_count", "integer", "truncated", "boolean"),
                errno), Profiles::aioList));
        out.add(new Tool(spec("file_download", "Download a file's bytes as base64 (at most "
                + c.maxReadBytes() + " bytes). change_policy abort (default) fails with error_type conflict if"
                + " the file changes during the transfer; ignore does not check.",
                List.of(req("path", STRING, FILE),
                        opt("change_policy", STRING, "abort or ignore").withValues("abort", "ignore")
                                .withDefault("abort")),
                fields("path", "string", "content", "string", "encoding", "string", "size", "integer"), errno),
                Profiles::aioDownload));
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

    // ------------------------------------------------------------------ results of a profile

    /**
     * Gives a result its profile's error shape: AIO failures carry {@code errno}; execute-code answers a run that did
     * not complete, and every failure, with its four codes.
     */
    static ToolResult finish(ToolProfile profile, String tool, ToolResult r) {
        switch (profile) {
            case AIO -> {
                if (r.success()) {
                    return r;
                }
                Map<String, Object> f = new LinkedHashMap<>(r.fields());
                f.put("errno", errno(r.errorType()));
                return r.withFields(f);
            }
            case EXECUTE_CODE -> {
                return executeCodeResult(r);
            }
            case SPACEBOT -> {
                return spacebotResult(tool, r);
            }
            default -> {
                return r;
            }
        }
    }

    /**
     * Spacebot's shapes: {@code file} results name their {@code operation}; a failure also carries {@code error}
     * (its message), the field Spacebot's document gives for a failed operation.
     */
    private static ToolResult spacebotResult(String tool, ToolResult r) {
        if (r.success()) {
            return r;
        }
        Map<String, Object> f = new LinkedHashMap<>(r.fields());
        f.put("error", r.get("message"));
        return r.withFields(f);
    }

    private static ToolResult executeCodeResult(ToolResult r) {
        Map<String, Object> f = new LinkedHashMap<>();
        for (String k : List.of("stdout", "stderr", "exit_code", "status", "duration_ms")) {
            if (r.fields().containsKey(k)) {
                f.put(k, r.get(k));
            }
        }
        if (r.success()) {
            String status = String.valueOf(r.get("status"));
            String code = switch (status) {
                case "timeout" -> "EXECUTION_TIMEOUT";
                case "error_runtime" -> "RUNTIME_ERROR";
                case "error_setup" -> "SANDBOX_SETUP_FAILED";
                default -> null;
            };
            if (code == null) {
                Map<String, Object> ok = new LinkedHashMap<>();
                ok.put("success", true);
                ok.putAll(f);
                return r.withFields(ok);
            }
            String message = switch (code) {
                case "EXECUTION_TIMEOUT" -> "the code ran out of its time (timeout_ms) and was killed; output so far"
                        + " is in stdout and stderr";
                case "RUNTIME_ERROR" -> "the code failed with exit code " + r.get("exit_code") + "; see stderr";
                default -> "the interpreter could not start; see stderr";
            };
            return ToolResult.failure(code, message, false, f);
        }
        String kind = r.errorType();
        if (kind.equals(ErrorKind.INVALID_ARGUMENT.code())) {
            return r; // a malformed call, before anything ran
        }
        String code = kind.equals(ErrorKind.UNSUPPORTED_LANGUAGE.code()) ? "UNSUPPORTED_LANGUAGE"
                : "SANDBOX_SETUP_FAILED";
        Map<String, Object> extra = new LinkedHashMap<>(f);
        if (r.fields().containsKey("supported_languages")) {
            extra.put("supported_languages", r.get("supported_languages"));
        }
        if (code.equals("SANDBOX_SETUP_FAILED")) {
            extra.put("cause", kind);
        }
        return ToolResult.failure(code, String.valueOf(r.get("message")), Boolean.TRUE.equals(r.get("retryable")),
                extra);
    }
}
