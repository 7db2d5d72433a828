package dev.sandbox4j.tools;

import static dev.sandbox4j.tools.ToolParam.Type.BOOLEAN;
import static dev.sandbox4j.tools.ToolParam.Type.EDIT_ARRAY;
import static dev.sandbox4j.tools.ToolParam.Type.INTEGER;
import static dev.sandbox4j.tools.ToolParam.Type.INTEGER_ARRAY;
import static dev.sandbox4j.tools.ToolParam.Type.STRING;
import static dev.sandbox4j.tools.ToolParam.Type.STRING_ARRAY;
import static dev.sandbox4j.tools.ToolParam.Type.STRING_MAP;

import java.util.List;

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

    private static final String PATH = "Path relative to the workspace (or absolute under /workspace)";

    static List<ToolSpec> all(ToolConfig c) {
        long defSec = c.defaultTimeout().toSeconds();
        long maxSec = c.maxTimeout().toSeconds();
        int cap = c.outputLimit();
        return List.of(
                new ToolSpec("bash",
                        "Run a shell command (/bin/sh -c) in the sandbox, with the workspace as working directory."
                                + " Processes, files and background servers persist between calls. Returns"
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
                                        + maxSec + "); the whole process tree is killed when it expires")),
                        false),
                new ToolSpec("exec",
                        "Run one program with an argument list, without a shell (no quoting or globbing), with"
                                + " optional extra environment variables. Variables that hijack the loader or"
                                + " interpreters (LD_PRELOAD, PYTHONPATH, NODE_OPTIONS, ...) are refused. Returns"
                                + " the same fields as bash.",
                        List.of(req("program", STRING, "Program to run, by name on PATH or by path, e.g. 'python3'"),
                                opt("args", STRING_ARRAY, "Arguments, one per element"),
                                opt("env", STRING_MAP, "Extra environment variables for this command only"),
                                opt("cwd", STRING, "Working directory inside the workspace"),
                                opt("timeout", INTEGER, "Timeout in seconds (default " + defSec + ", at most "
                                        + maxSec + ")")),
                        false),
                new ToolSpec("execute_code",
                        "Run a code snippet in an interpreter in the sandbox and return stdout, stderr,"
                                + " exit_code, status (completed, timeout, error_runtime, error_setup) and"
                                + " duration_ms. Print what you want to see. Languages: python, javascript, bash"
                                + " (when the sandbox has their runtime).",
                        List.of(req("language", STRING, "Language: python, javascript or bash"),
                                req("code", STRING, "The source code to run"),
                                opt("stdin_data", STRING, "Text fed to the program's standard input"),
                                opt("timeout_ms", INTEGER, "Timeout in milliseconds (default "
                                        + c.defaultCodeTimeout().toMillis() + ")")),
                        false),
                new ToolSpec("view",
                        "Look at a file or directory. A text file comes with line numbers (use view_range for"
                                + " part of a long file); a directory lists two levels; a binary file comes as"
                                + " base64 with its MIME type, and an image also as a thumbnail where the client"
                                + " shows images.",
                        List.of(req("path", STRING, PATH),
                                opt("view_range", INTEGER_ARRAY, "[start, end] line numbers, 1-indexed and"
                                        + " inclusive; end -1 means to the end of the file")),
                        true),
                new ToolSpec("read_file",
                        "Read a file's content, or a byte range of it. UTF-8 text comes as text, other content"
                                + " as base64 (field encoding says which). Large files come in chunks: use offset"
                                + " and length to read on.",
                        List.of(req("path", STRING, PATH),
                                opt("offset", INTEGER, "Byte offset to start at (default 0)"),
                                opt("length", INTEGER, "Number of bytes to read (default and maximum "
                                        + c.maxReadBytes() + ")")),
                        true),
                new ToolSpec("read_multiple_files",
                        "Read several files at once. Each file has its own result; one failing does not stop"
                                + " the others.",
                        List.of(req("paths", STRING_ARRAY, "Paths of the files to read")),
                        true),
                new ToolSpec("write_file",
                        "Write text to a file, creating it and its parent directories. mode 'overwrite'"
                                + " (default) replaces the file; 'append' adds to its end. Prefer str_replace or"
                                + " edit_file for changing part of an existing file.",
                        List.of(req("path", STRING, PATH),
                                req("content", STRING, "The text to write"),
                                opt("mode", STRING, "overwrite (default) or append")),
                        false),
                new ToolSpec("create_file",
                        "Create a new file with the given text (parent directories are created). Fails if the"
                                + " file already exists.",
                        List.of(req("path", STRING, PATH), req("content", STRING, "The text of the new file")),
                        false),
                new ToolSpec("str_replace",
                        "Replace one exact occurrence of old_str with new_str in a file. old_str must match"
                                + " exactly once, whitespace included; the call fails, saying how many matches it"
                                + " found, on zero or several (add surrounding lines to make it unique). Returns"
                                + " a diff.",
                        List.of(req("path", STRING, PATH),
                                req("old_str", STRING, "The exact text to replace; must occur exactly once"),
                                req("new_str", STRING, "The replacement text (may be empty to delete)")),
                        false),
                new ToolSpec("edit_file",
                        "Apply several exact-text edits to a file, in order, all or none. Each oldText must"
                                + " occur exactly once at its turn. Returns a git-style unified diff; with"
                                + " dryRun the file is not changed and the diff shows what would change.",
                        List.of(req("path", STRING, PATH),
                                req("edits", EDIT_ARRAY, "The edits, applied in order"),
                                opt("dryRun", BOOLEAN, "Preview the diff without changing the file"
                                        + " (default false)")),
                        false),
                new ToolSpec("create_directory",
                        "Create a directory and any missing parents; succeeds if it already exists.",
                        List.of(req("path", STRING, PATH)),
                        false),
                new ToolSpec("list_directory",
                        "List a directory's entries, each prefixed with [FILE] or [DIR] ([LINK] for a symbolic"
                                + " link).",
                        List.of(opt("path", STRING, PATH + "; default the workspace root")),
                        true),
                new ToolSpec("get_file_info",
                        "Describe a file or directory without reading it: type, size, permissions, last"
                                + " modification time, link target.",
                        List.of(req("path", STRING, PATH)),
                        true),
                new ToolSpec("move_file",
                        "Move or rename a file or directory. Fails if the destination already exists.",
                        List.of(req("source", STRING, "Path to move"),
                                req("destination", STRING, "New path; must not exist yet")),
                        false),
                new ToolSpec("search_files",
                        "Find files and directories by name with a glob, recursively under a path: '*.py'"
                                + " matches by name at any depth, 'src/**/*.java' matches paths. Returns"
                                + " workspace-relative paths.",
                        List.of(req("path", STRING, "Directory to search under ('.' for the workspace)"),
                                req("pattern", STRING, "Glob: *, **, ?, [abc], {a,b}"),
                                opt("excludePatterns", STRING_ARRAY, "Globs of paths to skip, e.g."
                                        + " ['node_modules', '.git']")),
                        true),
                new ToolSpec("grep",
                        "Search file contents for a regular expression (Java syntax), line by line, under a"
                                + " directory or in one file. Binary files are skipped. Returns matches as"
                                + " 'path:line: text'.",
                        List.of(req("pattern", STRING, "Regular expression to search for"),
                                opt("path", STRING, "File or directory to search (default the workspace)"),
                                opt("include", STRING, "Only search files matching this glob, e.g. '*.java'"),
                                opt("exclude", STRING, "Skip files and directories matching this glob"),
                                opt("case_insensitive", BOOLEAN, "Ignore case (default false)"),
                                opt("max_results", INTEGER, "Stop after this many matches (default 200)")),
                        true));
    }
}
