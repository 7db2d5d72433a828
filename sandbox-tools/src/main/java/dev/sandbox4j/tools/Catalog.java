package dev.sandbox4j.tools;

import static dev.sandbox4j.tools.ToolParam.Type.BOOLEAN;
import static dev.sandbox4j.tools.ToolParam.Type.EDIT_ARRAY;
import static dev.sandbox4j.tools.ToolParam.Type.INTEGER;
import static dev.sandbox4j.tools.ToolParam.Type.INTEGER_ARRAY;
import static dev.sandbox4j.tools.ToolParam.Type.STRING;
import static dev.sandbox4j.tools.ToolParam.Type.STRING_ARRAY;
import static dev.sandbox4j.tools.ToolParam.Type.STRING_MAP;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The tool definitions: names, descriptions for a model, parameters. */
final class Catalog {
    private Catalog() {
    }

    private static ToolParam req(String name, ToolParam.Type type, String description) {
        return new ToolParam(name, type, description, true);
    }

    private static ToolParam opt(String name, ToolParam.Type type, String description) {
        return new ToolParam(name, type, description, false);
    }

    private static ToolSpec spec(String name, String description, List<ToolParam> params) {
        return new ToolSpec(name, description, params, capabilityOf(name), hintsOf(name), outputOf(name));
    }

    /** The capability of each tool, by name; null for a name that is no tool. */
    static Capability capabilityOf(String tool) {
        return switch (tool) {
            case "bash", "exec", "start_terminal", "send_keys", "read_terminal" -> Capability.RUN_COMMANDS;
            case "execute_code" -> Capability.RUN_CODE;
            case "create_code_context", "run_code", "destroy_code_context" -> Capability.RUN_CODE;
            case "write_file", "create_file", "str_replace", "edit_file", "create_directory", "move_file" ->
                    Capability.WRITE_FILES;
            case "view", "read_file", "read_multiple_files", "list_directory", "get_file_info", "search_files",
                    "grep", "watch_files", "poll_watch", "wait_for_file", "stop_watch", "workspace_changes" ->
                    Capability.READ_FILES;
            default -> null;
        };
    }

    private static ToolSpec.Hints hintsOf(String tool) {
        return switch (capabilityOf(tool)) {
            // a command or snippet may do anything inside the sandbox; it reaches out only where the network
            // policy allows (none by default)
            case RUN_COMMANDS, RUN_CODE -> new ToolSpec.Hints(true, false, false);
            // watch_files starts a new watch on every call
            case READ_FILES -> new ToolSpec.Hints(false, !tool.equals("watch_files"), false);
            case WRITE_FILES -> switch (tool) {
                case "write_file", "str_replace", "edit_file" -> new ToolSpec.Hints(true, false, false);
                case "create_file", "create_directory" -> new ToolSpec.Hints(false, true, false);
                default -> new ToolSpec.Hints(false, false, false); // move_file: never replaces its destination
            };
        };
    }

    private static final Map<String, String> EXEC_OUTPUT = fields("status", "string", "exit_code", "integer",
            "stdout", "string", "stderr", "string", "duration_ms", "integer", "meaning", "string",
            "stdout_omitted_chars", "integer", "stdout_omitted_lines", "integer", "stderr_omitted_chars", "integer",
            "stderr_omitted_lines", "integer", "detail", "string", "summary", "string", "language", "string",
            "note", "string");

    private static final Map<String, String> CODE_CONTEXT_OUTPUT = withFields(EXEC_OUTPUT, "text", "string",
            "context_id", "string", "png", "boolean");

    private static Map<String, String> withFields(Map<String, String> base, String... nameType) {
        Map<String, String> m = new LinkedHashMap<>(base);
        m.putAll(fields(nameType));
        return m;
    }

    /** The fields of a successful result of each tool, with their JSON types. */
    private static Map<String, String> outputOf(String tool) {
        return switch (tool) {
            case "bash", "exec", "execute_code" -> EXEC_OUTPUT;
            case "create_code_context" -> fields("context_id", "string", "language", "string");
            case "run_code" -> CODE_CONTEXT_OUTPUT;
            case "destroy_code_context" -> fields("context_id", "string", "destroyed", "boolean");
            case "start_terminal", "send_keys", "read_terminal" -> fields("terminal_id", "string", "running",
                    "boolean", "exit_code", "integer", "output", "string", "omitted_chars", "integer", "note",
                    "string");
            case "view" -> fields("path", "string", "type", "string", "content", "string", "total_lines", "integer",
                    "truncated", "boolean", "note", "string", "entries", "integer", "size", "integer", "mime_type",
                    "string", "encoding", "string", "image_width", "integer", "image_height", "integer",
                    "thumbnail", "string");
            case "read_file" -> fields("path", "string", "size", "integer", "offset", "integer", "length", "integer",
                    "eof", "boolean", "encoding", "string", "content", "string", "note", "string");
            case "read_multiple_files" -> fields("files", "array", "failed", "integer");
            case "write_file" -> fields("path", "string", "mode", "string", "bytes_written", "integer");
            case "create_file" -> fields("path", "string", "bytes_written", "integer");
            case "str_replace", "edit_file" -> fields("path", "string", "applied", "boolean", "edits", "integer",
                    "diff", "string");
            case "create_directory" -> fields("path", "string");
            case "list_directory" -> fields("path", "string", "content", "string", "entries", "integer");
            case "get_file_info" -> fields("path", "string", "type", "string", "size", "integer", "permissions",
                    "string", "modified", "string", "link_target", "string");
            case "move_file" -> fields("source", "string", "destination", "string");
            case "search_files" -> fields("matches", "array", "count", "integer", "truncated", "boolean",
                    "note", "string");
            case "grep" -> fields("matches", "array", "count", "integer", "truncated", "boolean", "timed_out",
                    "boolean", "skipped", "array", "skipped_count", "integer", "note", "string");
            case "watch_files" -> fields("watch_id", "string", "path", "string");
            case "poll_watch" -> fields("events", "array", "cursor", "integer", "overflow", "boolean", "truncated",
                    "boolean", "note", "string");
            case "wait_for_file" -> fields("found", "boolean", "event", "object", "note", "string");
            case "stop_watch" -> fields("watch_id", "string", "stopped", "boolean");
            case "workspace_changes" -> fields("source", "string", "changes", "array", "count", "integer", "diff",
                    "string", "truncated", "boolean");
            default -> throw new IllegalArgumentException(tool);
        };
    }

    private static Map<String, String> fields(String... nameType) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < nameType.length; i += 2) {
            m.put(nameType[i], nameType[i + 1]);
        }
        return m;
    }

    private static final String PATH = "Path relative to the workspace (or absolute under /workspace)";

    static List<ToolSpec> all(ToolConfig c) {
        long defSec = c.defaultTimeout().toSeconds();
        long maxSec = c.maxTimeout().toSeconds();
        int cap = c.outputLimit();
        return List.of(
                spec("bash",
                        "Run a shell command (/bin/sh -c) in the sandbox, with the workspace as working directory."
                                + " Files persist between calls; processes do not: everything a command starts,"
                                + " background jobs (&, nohup) included, ends when it returns or times out. Returns"
                                + " exit_code, stdout, stderr, status (completed, timeout, killed) and a one-line"
                                + " summary. Each stream keeps its first and last " + cap + " characters with a"
                                + " marker saying how much was cut, so filter long output (grep, head, tail)."
                                + " grep/rg exit 1 means no match and diff/cmp exit 1 means the files differ:"
                                + " these are answers, not failures. There is no network unless the sandbox"
                                + " grants it.",
                        List.of(req("command", STRING, "The command line to run, e.g. 'ls -la src && make test'"),
                                opt("cwd", STRING, "Working directory inside the workspace; default the workspace"
                                        + " root"),
                                opt("timeout", INTEGER, "Timeout in seconds (default " + defSec + ", at most "
                                        + maxSec + "); the whole process tree is killed when it expires"))),
                spec("exec",
                        "Run one program with an argument list, without a shell (no quoting or globbing), with"
                                + " optional extra environment variables. Variables that hijack the loader or"
                                + " interpreters (LD_PRELOAD, PYTHONPATH, NODE_OPTIONS, ...) are refused. Returns"
                                + " the same fields as bash.",
                        List.of(req("program", STRING, "Program to run, by name on PATH or by path, e.g. 'python3'"),
                                opt("args", STRING_ARRAY, "Arguments, one per element"),
                                opt("env", STRING_MAP, "Extra environment variables for this command only"),
                                opt("cwd", STRING, "Working directory inside the workspace"),
                                opt("timeout", INTEGER, "Timeout in seconds (default " + defSec + ", at most "
                                        + maxSec + ")"))),
                spec("execute_code",
                        "Run a code snippet in an interpreter in the sandbox and return stdout, stderr,"
                                + " exit_code, status (completed, timeout, error_runtime, error_setup) and"
                                + " duration_ms. Print what you want to see. Languages: python, javascript, bash"
                                + " (when the sandbox has their runtime).",
                        List.of(req("language", STRING, "Language: python, javascript or bash"),
                                req("code", STRING, "The source code to run"),
                                opt("stdin_data", STRING, "Text fed to the program's standard input"),
                                opt("timeout_ms", INTEGER, "Timeout in milliseconds (default "
                                        + c.defaultCodeTimeout().toMillis() + ")"))),
                spec("view",
                        "Look at a file or directory. A text file comes with line numbers (use view_range for"
                                + " part of a long file); a directory lists two levels; a binary file comes as"
                                + " base64 with its MIME type, and an image also as a thumbnail where the client"
                                + " shows images.",
                        List.of(req("path", STRING, PATH),
                                opt("view_range", INTEGER_ARRAY, "[start, end] line numbers, 1-indexed and"
                                        + " inclusive; end -1 means to the end of the file"))),
                spec("read_file",
                        "Read a file's content, or a byte range of it. UTF-8 text comes as text, other content"
                                + " as base64 (field encoding says which). Large files come in chunks: use offset"
                                + " and length to read on.",
                        List.of(req("path", STRING, PATH),
                                opt("offset", INTEGER, "Byte offset to start at (default 0)"),
                                opt("length", INTEGER, "Number of bytes to read (default and maximum "
                                        + c.maxReadBytes() + ")"))),
                spec("read_multiple_files",
                        "Read several files at once. Each file has its own result; one failing does not stop"
                                + " the others.",
                        List.of(req("paths", STRING_ARRAY, "Paths of the files to read"))),
                spec("write_file",
                        "Write text to a file, creating it and its parent directories. mode 'overwrite'"
                                + " (default) replaces the file; 'append' adds to its end. Prefer str_replace or"
                                + " edit_file for changing part of an existing file.",
                        List.of(req("path", STRING, PATH),
                                req("content", STRING, "The text to write"),
                                opt("mode", STRING, "overwrite (default) or append").withValues("overwrite", "append"))),
                spec("create_file",
                        "Create a new file with the given text (parent directories are created). Fails if the"
                                + " file already exists.",
                        List.of(req("path", STRING, PATH), req("content", STRING, "The text of the new file"))),
                spec("str_replace",
                        "Replace one exact occurrence of old_str with new_str in a file. old_str must match"
                                + " exactly once, whitespace included; the call fails, saying how many matches it"
                                + " found, on zero or several (add surrounding lines to make it unique). Returns"
                                + " a diff.",
                        List.of(req("path", STRING, PATH),
                                req("old_str", STRING, "The exact text to replace; must occur exactly once"),
                                req("new_str", STRING, "The replacement text (may be empty to delete)"))),
                spec("edit_file",
                        "Apply several exact-text edits to a file, in order, all or none. Each oldText must"
                                + " occur exactly once at its turn. Returns a git-style unified diff; with"
                                + " dryRun the file is not changed and the diff shows what would change.",
                        List.of(req("path", STRING, PATH),
                                req("edits", EDIT_ARRAY, "The edits, applied in order"),
                                opt("dryRun", BOOLEAN, "Preview the diff without changing the file"
                                        + " (default false)"))),
                spec("create_directory",
                        "Create a directory and any missing parents; succeeds if it already exists.",
                        List.of(req("path", STRING, PATH))),
                spec("list_directory",
                        "List a directory's entries, each prefixed with [FILE] or [DIR] ([LINK] for a symbolic"
                                + " link).",
                        List.of(opt("path", STRING, PATH + "; default the workspace root"))),
                spec("get_file_info",
                        "Describe a file or directory without reading it: type, size, permissions, last"
                                + " modification time, link target.",
                        List.of(req("path", STRING, PATH))),
                spec("move_file",
                        "Move or rename a file or directory. Fails if the destination already exists.",
                        List.of(req("source", STRING, "Path to move"),
                                req("destination", STRING, "New path; must not exist yet"))),
                spec("search_files",
                        "Find files and directories by name with a glob, recursively under a path: '*.py'"
                                + " matches by name at any depth, 'src/**/*.java' matches paths. Returns"
                                + " workspace-relative paths.",
                        List.of(req("path", STRING, "Directory to search under ('.' for the workspace)"),
                                req("pattern", STRING, "Glob: *, **, ?, [abc], {a,b}"),
                                opt("excludePatterns", STRING_ARRAY, "Globs of paths to skip, e.g."
                                        + " ['node_modules', '.git']"))),
                spec("grep",
                        "Search file contents for a regular expression (Java syntax), line by line, under a"
                                + " directory or in one file, any file size. Returns matches as 'path:line: text'"
                                + " (long lines cut around the match, with a marker), 'truncated' when"
                                + " max_results was reached, and 'skipped': files not searched with the reason"
                                + " (binary, link, special_file, unreadable, vanished, time_budget).",
                        List.of(req("pattern", STRING, "Regular expression to search for"),
                                opt("path", STRING, "File or directory to search (default the workspace)"),
                                opt("include", STRING, "Only search files matching this glob, e.g. '*.java'"),
                                opt("exclude", STRING, "Skip files and directories matching this glob"),
                                opt("case_insensitive", BOOLEAN, "Ignore case (default false)"),
                                opt("max_results", INTEGER, "Stop after this many matches (default 200)"))),
                // file watches
                spec("watch_files",
                        "Start watching a file or directory for changes made by commands (a build, a server, a"
                                + " background job) or by file tools; read them with poll_watch, end the watch"
                                + " with stop_watch. Changes are recorded from now on. Returns watch_id. A sandbox"
                                + " holds at most 64 watches.",
                        List.of(req("path", STRING, PATH + "; '.' for the whole workspace"),
                                opt("recursive", BOOLEAN, "Include changes in subdirectories (default true)")
                                        .withDefault(true),
                                opt("include", STRING_ARRAY, "Only paths matching one of these globs, e.g."
                                        + " ['**/*.py']; default every path"),
                                opt("exclude", STRING_ARRAY, "Drop paths matching these globs, e.g."
                                        + " ['node_modules', '.git']"),
                                opt("debounce_ms", INTEGER, "Writes to one file closer together than this are one"
                                        + " write event; 0 reports every write").withDefault(100)
                                        .withRange(0, 60_000))),
                spec("poll_watch",
                        "Read a watch's changes after a cursor: each event has seq, kind (create, write,"
                                + " remove, rename, chmod), path, from_path (renames), is_dir, size and mtime."
                                + " Pass the returned cursor to the next call. With wait_ms the call waits that"
                                + " long for the first change. overflow true means changes were lost: look at the"
                                + " files again.",
                        List.of(req("watch_id", STRING, "The watch, from watch_files"),
                                opt("cursor", INTEGER, "Return events after this one (default 0: all still"
                                        + " buffered)").withDefault(0),
                                opt("wait_ms", INTEGER, "Milliseconds to wait for a change when none is there yet"
                                        + " (default 0: answer at once)").withDefault(0).withRange(0, 60_000))),
                spec("wait_for_file",
                        "Wait until a path is created (default), written, removed, renamed or has its mode"
                                + " changed, e.g. the output file of a background job. A create is found at once"
                                + " when the path already exists, a remove when it does not. Returns found and the"
                                + " event, or found false after timeout_ms.",
                        List.of(req("path", STRING, PATH),
                                opt("event", STRING, "What to wait for (default create)").withValues("create",
                                        "write", "remove", "rename", "chmod").withDefault("create"),
                                opt("timeout_ms", INTEGER, "How long to wait, in milliseconds (default 30000)")
                                        .withDefault(30_000).withRange(1, 300_000))),
                spec("stop_watch",
                        "End a watch started with watch_files; its unread events are dropped.",
                        List.of(req("watch_id", STRING, "The watch to end"))),
                // the change set of a workspace that started from a host directory (issue 35)
                spec("workspace_changes",
                        "List what you changed in the workspace since it was opened from the user's directory"
                                + " (created, modified, deleted: path, kind, type), as the user will review it;"
                                + " with diff true also the unified diff (binary files named, not shown). Fails"
                                + " with unsupported when the workspace did not start from a copy or overlay.",
                        List.of(opt("diff", BOOLEAN, "Also return the unified diff (default false)")
                                .withDefault(false))),
                // code contexts (issue 13)
                spec("create_code_context",
                        "Start a code context: a long-lived python or javascript interpreter whose variables,"
                                + " imports and working directory last across run_code calls, like notebook"
                                + " cells. Returns context_id. Destroy it when done (destroy_code_context).",
                        List.of(req("language", STRING, "Language: python or javascript"))),
                spec("run_code",
                        "Run code in a code context (context_id from create_code_context; state is kept) or,"
                                + " without context_id, once in a fresh interpreter. Returns stdout, stderr,"
                                + " status (completed, timeout, error_runtime, error_setup), the value of the last"
                                + " expression as text, and a python matplotlib figure as an image. A timeout"
                                + " interrupts the run and keeps the context when it can; otherwise the context"
                                + " is restarted empty and detail says so.",
                        List.of(req("code", STRING, "The source code to run"),
                                opt("language", STRING, "Language: python, javascript (bash without context_id);"
                                        + " required without context_id"),
                                opt("context_id", STRING, "The context to run in, from create_code_context"),
                                opt("timeout_s", INTEGER, "Timeout in seconds (default "
                                        + c.defaultCodeTimeout().toSeconds() + ", at most " + maxSec + ")"))),
                spec("destroy_code_context",
                        "End a code context and its interpreter; its state is gone.",
                        List.of(req("context_id", STRING, "The context to end"))),
                // terminals (issue 32)
                spec("start_terminal",
                        "Start a program under a terminal (a shell, a REPL, an installer that asks questions,"
                                + " anything that needs a TTY) and return its first output and terminal_id. It keeps"
                                + " running: type into it with send_keys, read more with read_terminal. Output is"
                                + " the terminal's text (colours and full-screen drawing removed).",
                        List.of(req("command", STRING, "The command line to run, e.g. 'python3' or 'bash'"),
                                opt("cwd", STRING, "Working directory (default the workspace)"),
                                opt("cols", INTEGER, "Terminal width (default 120)").withDefault(120)
                                        .withRange(1, 4096),
                                opt("rows", INTEGER, "Terminal height (default 40)").withDefault(40)
                                        .withRange(1, 4096),
                                opt("wait_ms", INTEGER, "How long to wait for output before answering (default"
                                        + " 1000)").withDefault(1000).withRange(0, 60_000))),
                spec("send_keys",
                        "Type into a terminal from start_terminal and return the output since the last call."
                                + " End a line with \\n to press Enter; \\u0003 is Ctrl-C (interrupts the running"
                                + " job), \\u0004 is Ctrl-D (end of input).",
                        List.of(req("terminal_id", STRING, "The terminal, from start_terminal"),
                                req("keys", STRING, "The characters to type"),
                                opt("wait_ms", INTEGER, "How long to wait for output before answering (default"
                                        + " 500)").withDefault(500).withRange(0, 60_000))),
                spec("read_terminal",
                        "Return a terminal's output since the last call, waiting up to wait_ms for its program"
                                + " to end; with kill true end the program and everything it started first. When"
                                + " running is false, exit_code says how it ended.",
                        List.of(req("terminal_id", STRING, "The terminal, from start_terminal"),
                                opt("wait_ms", INTEGER, "How long to wait for the program to end (default 0)")
                                        .withDefault(0).withRange(0, 300_000),
                                opt("kill", BOOLEAN, "Kill the program first (default false)").withDefault(false))));
    }
}
