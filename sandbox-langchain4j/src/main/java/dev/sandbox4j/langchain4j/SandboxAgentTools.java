package dev.sandbox4j.langchain4j;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.tools.SandboxTools;
import dev.sandbox4j.tools.ToolConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The sandbox tools as LangChain4j {@code @Tool} methods, for {@code AiServices.builder(..).tools(..)}.
 * Every method returns the tool's JSON result; errors are results ({@code success:false}, {@code error_type},
 * {@code message}, {@code retryable}), never exceptions.
 *
 * <pre>{@code
 * Agent agent = AiServices.builder(Agent.class).chatModel(model)
 *     .tools(new SandboxAgentTools(sandbox)).build();
 * }</pre>
 *
 * <p>Every method is always exposed here; switched-off or writing tools in a read-only configuration answer
 * with an error result. To hide them from the model, use {@link SandboxToolProvider}, which also carries the full
 * descriptions of {@code sandbox-tools}.
 */
public class SandboxAgentTools {
    /** One exact-text edit of {@code edit_file}. */
    public record EditArg(@P(name = "oldText", description = "Exact text to find; must occur exactly once") String oldText,
                          @P(name = "newText", description = "Text to put in its place") String newText) {
    }

    private final SandboxTools tools;

    public SandboxAgentTools(Sandbox sandbox) {
        this(new SandboxTools(sandbox));
    }

    public SandboxAgentTools(Sandbox sandbox, ToolConfig config) {
        this(new SandboxTools(sandbox, config));
    }

    public SandboxAgentTools(SandboxTools tools) {
        this.tools = tools;
    }

    private String call(String tool, Object... kv) {
        Map<String, Object> args = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            if (kv[i + 1] != null) {
                args.put((String) kv[i], kv[i + 1]);
            }
        }
        return tools.call(tool, args).text();
    }

    @Tool(name = "bash", value = "Run a shell command (/bin/sh -c) in the sandbox, workspace as working directory;"
            + " state persists between calls. Returns exit_code, stdout, stderr, status and a summary. Each stream"
            + " keeps its first and last 15000 characters. grep/rg exit 1 = no match, diff/cmp exit 1 = files"
            + " differ: answers, not failures.")
    public String bash(@P(name = "command", description = "The command line to run") String command,
                       @P(name = "cwd", description = "Working directory inside the workspace", required = false)
                       String cwd,
                       @P(name = "timeout", description = "Timeout in seconds (default 120)", required = false)
                       Integer timeout) {
        return call("bash", "command", command, "cwd", cwd, "timeout", timeout);
    }

    @Tool(name = "exec", value = "Run one program with an argument list, without a shell, with optional extra"
            + " environment variables (loader/interpreter hijacking ones such as LD_PRELOAD are refused).")
    public String exec(@P(name = "program", description = "Program to run, e.g. python3") String program,
                       @P(name = "args", description = "Arguments, one per element", required = false)
                       List<String> args,
                       @P(name = "env", description = "Extra environment variables (name to value)",
                               required = false) Map<String, String> env,
                       @P(name = "cwd", description = "Working directory inside the workspace", required = false)
                       String cwd,
                       @P(name = "timeout", description = "Timeout in seconds (default 120)", required = false)
                       Integer timeout) {
        return call("exec", "program", program, "args", args, "env", env, "cwd", cwd, "timeout", timeout);
    }

    @Tool(name = "execute_code", value = "Run a code snippet (python, javascript or bash) and return stdout,"
            + " stderr, exit_code, status (completed, timeout, error_runtime, error_setup) and duration_ms.")
    public String executeCode(@P(name = "language", description = "python, javascript or bash") String language,
                              @P(name = "code", description = "The source code to run") String code,
                              @P(name = "stdin_data", description = "Text for standard input", required = false)
                              String stdinData,
                              @P(name = "timeout_ms", description = "Timeout in milliseconds (default 5000)",
                                      required = false) Integer timeoutMs) {
        return call("execute_code", "language", language, "code", code, "stdin_data", stdinData, "timeout_ms",
                timeoutMs);
    }

    @Tool(name = "view", value = "Look at a file (with line numbers; binary as base64 with its MIME type) or a"
            + " directory (two levels).")
    public String view(@P(name = "path", description = "Path in the workspace") String path,
                       @P(name = "view_range", description = "[start, end] lines, 1-indexed, inclusive; end -1 ="
                               + " to the end", required = false) List<Integer> viewRange) {
        return call("view", "path", path, "view_range", viewRange);
    }

    @Tool(name = "read_file", value = "Read a file, or a byte range of it (offset, length); text as UTF-8, other"
            + " content as base64.")
    public String readFile(@P(name = "path", description = "Path in the workspace") String path,
                           @P(name = "offset", description = "Byte offset (default 0)", required = false)
                           Long offset,
                           @P(name = "length", description = "Bytes to read", required = false) Long length) {
        return call("read_file", "path", path, "offset", offset, "length", length);
    }

    @Tool(name = "read_multiple_files", value = "Read several files at once; one failing does not stop the others.")
    public String readMultipleFiles(@P(name = "paths", description = "Paths of the files") List<String> paths) {
        return call("read_multiple_files", "paths", paths);
    }

    @Tool(name = "write_file", value = "Write text to a file (parents created); mode overwrite (default) or append.")
    public String writeFile(@P(name = "path", description = "Path in the workspace") String path,
                            @P(name = "content", description = "The text to write") String content,
                            @P(name = "mode", description = "overwrite or append", required = false) String mode) {
        return call("write_file", "path", path, "content", content, "mode", mode);
    }

    @Tool(name = "create_file", value = "Create a new file with the given text; fails if it exists.")
    public String createFile(@P(name = "path", description = "Path in the workspace") String path,
                             @P(name = "content", description = "The text of the new file") String content) {
        return call("create_file", "path", path, "content", content);
    }

    @Tool(name = "str_replace", value = "Replace the one exact occurrence of old_str with new_str in a file; fails"
            + " on zero or several matches, saying how many. Returns a diff.")
    public String strReplace(@P(name = "path", description = "Path in the workspace") String path,
                             @P(name = "old_str", description = "Exact text to replace; must occur once")
                             String oldStr,
                             @P(name = "new_str", description = "Replacement text") String newStr) {
        return call("str_replace", "path", path, "old_str", oldStr, "new_str", newStr);
    }

    @Tool(name = "edit_file", value = "Apply several exact-text edits to a file in order, all or none; returns a"
            + " git-style diff. dryRun previews without changing the file.")
    public String editFile(@P(name = "path", description = "Path in the workspace") String path,
                           @P(name = "edits", description = "Edits applied in order") List<EditArg> edits,
                           @P(name = "dryRun", description = "Preview only (default false)", required = false)
                           Boolean dryRun) {
        List<Map<String, Object>> list = null;
        if (edits != null) {
            list = new ArrayList<>();
            for (EditArg e : edits) {
                Map<String, Object> m = new LinkedHashMap<>();
                if (e != null) {
                    m.put("oldText", e.oldText());
                    m.put("newText", e.newText());
                }
                list.add(m);
            }
        }
        return call("edit_file", "path", path, "edits", list, "dryRun", dryRun);
    }

    @Tool(name = "create_directory", value = "Create a directory and missing parents.")
    public String createDirectory(@P(name = "path", description = "Path in the workspace") String path) {
        return call("create_directory", "path", path);
    }

    @Tool(name = "list_directory", value = "List a directory; entries prefixed [FILE] or [DIR].")
    public String listDirectory(@P(name = "path", description = "Directory (default the workspace root)",
            required = false) String path) {
        return call("list_directory", "path", path);
    }

    @Tool(name = "get_file_info", value = "Describe a file: type, size, permissions, modification time.")
    public String getFileInfo(@P(name = "path", description = "Path in the workspace") String path) {
        return call("get_file_info", "path", path);
    }

    @Tool(name = "move_file", value = "Move or rename a file or directory; fails if the destination exists.")
    public String moveFile(@P(name = "source", description = "Path to move") String source,
                           @P(name = "destination", description = "New path") String destination) {
        return call("move_file", "source", source, "destination", destination);
    }

    @Tool(name = "search_files", value = "Find files by glob ('*.py' by name at any depth, 'src/**/*.java' by"
            + " path) under a directory.")
    public String searchFiles(@P(name = "path", description = "Directory to search ('.' for all)") String path,
                              @P(name = "pattern", description = "Glob") String pattern,
                              @P(name = "excludePatterns", description = "Globs to skip", required = false)
                              List<String> excludePatterns) {
        return call("search_files", "path", path, "pattern", pattern, "excludePatterns", excludePatterns);
    }

    @Tool(name = "grep", value = "Search file contents for a regex (Java syntax); matches as 'path:line: text'.")
    public String grep(@P(name = "pattern", description = "Regular expression") String pattern,
                       @P(name = "path", description = "File or directory (default all)", required = false)
                       String path,
                       @P(name = "include", description = "Only files matching this glob", required = false)
                       String include,
                       @P(name = "exclude", description = "Skip files matching this glob", required = false)
                       String exclude,
                       @P(name = "case_insensitive", description = "Ignore case", required = false)
                       Boolean caseInsensitive,
                       @P(name = "max_results", description = "Stop after this many matches (default 200)",
                               required = false) Integer maxResults) {
        return call("grep", "pattern", pattern, "path", path, "include", include, "exclude", exclude,
                "case_insensitive", caseInsensitive, "max_results", maxResults);
    }

    // file watches

    @Tool(name = "watch_files", value = "Start watching a file or directory for changes (by commands or file tools);"
            + " returns watch_id for poll_watch and stop_watch.")
    public String watchFiles(@P(name = "path", description = "File or directory ('.' for the workspace)") String path,
                             @P(name = "recursive", description = "Include subdirectories (default true)",
                                     required = false) Boolean recursive,
                             @P(name = "include", description = "Only paths matching these globs", required = false)
                             List<String> include,
                             @P(name = "exclude", description = "Drop paths matching these globs", required = false)
                             List<String> exclude,
                             @P(name = "debounce_ms", description = "Writes to one file closer than this are one"
                                     + " event (default 100)", required = false) Integer debounceMs) {
        return call("watch_files", "path", path, "recursive", recursive, "include", include, "exclude", exclude,
                "debounce_ms", debounceMs);
    }

    @Tool(name = "poll_watch", value = "Read a watch's changes after a cursor (seq, kind, path, from_path, is_dir,"
            + " size, mtime), waiting up to wait_ms for the first; pass the returned cursor next time.")
    public String pollWatch(@P(name = "watch_id", description = "From watch_files") String watchId,
                            @P(name = "cursor", description = "Events after this one (default 0)", required = false)
                            Long cursor,
                            @P(name = "wait_ms", description = "Milliseconds to wait for a change, 0 to 60000"
                                    + " (default 0)", required = false) Integer waitMs) {
        return call("poll_watch", "watch_id", watchId, "cursor", cursor, "wait_ms", waitMs);
    }

    @Tool(name = "wait_for_file", value = "Wait until a path is created (default), written, removed, renamed or"
            + " chmodded; returns found and the event.")
    public String waitForFile(@P(name = "path", description = "Path in the workspace") String path,
                              @P(name = "event", description = "create, write, remove, rename or chmod (default"
                                      + " create)", required = false) String event,
                              @P(name = "timeout_ms", description = "Milliseconds to wait (default 30000, at most"
                                      + " 300000)", required = false) Integer timeoutMs) {
        return call("wait_for_file", "path", path, "event", event, "timeout_ms", timeoutMs);
    }

    @Tool(name = "stop_watch", value = "End a watch started with watch_files.")
    public String stopWatch(@P(name = "watch_id", description = "The watch to end") String watchId) {
        return call("stop_watch", "watch_id", watchId);
    }

    @Tool(name = "workspace_changes", value = "List what you changed in the workspace since it was opened from the"
            + " user's directory (path, kind, type), as the user will review it; with diff true also the unified diff.")
    public String workspaceChanges(@P(name = "diff", description = "Also return the unified diff (default false)",
            required = false) Boolean diff) {
        return call("workspace_changes", "diff", diff);
    }

    // code contexts (issue 13)

    @Tool(name = "create_code_context", value = "Start a python or javascript code context whose variables, imports"
            + " and working directory last across run_code calls; returns context_id.")
    public String createCodeContext(@P(name = "language", description = "python or javascript") String language) {
        return call("create_code_context", "language", language);
    }

    @Tool(name = "run_code", value = "Run code in a code context (context_id; state kept) or once without one;"
            + " returns stdout, stderr, status, and the last expression's value as text.")
    public String runCode(@P(name = "code", description = "The source code to run") String code,
                          @P(name = "language", description = "python or javascript; required without context_id",
                                  required = false) String language,
                          @P(name = "context_id", description = "From create_code_context", required = false)
                          String contextId,
                          @P(name = "timeout_s", description = "Timeout in seconds (default 5)", required = false)
                          Integer timeoutS) {
        return call("run_code", "code", code, "language", language, "context_id", contextId, "timeout_s", timeoutS);
    }

    @Tool(name = "destroy_code_context", value = "End a code context and its interpreter.")
    public String destroyCodeContext(@P(name = "context_id", description = "The context to end") String contextId) {
        return call("destroy_code_context", "context_id", contextId);
    }

    @Tool(name = "start_terminal", value = "Start a program under a terminal (a shell, a REPL, an installer that asks"
            + " questions); returns its first output and terminal_id. Type with send_keys, read with read_terminal.")
    public String startTerminal(@P(name = "command", description = "The command line, e.g. 'python3'") String command,
                                @P(name = "cwd", description = "Working directory", required = false) String cwd,
                                @P(name = "cols", description = "Width (default 120)", required = false) Integer cols,
                                @P(name = "rows", description = "Height (default 40)", required = false) Integer rows,
                                @P(name = "wait_ms", description = "Wait for output (default 1000)", required = false)
                                Integer waitMs) {
        return call("start_terminal", "command", command, "cwd", cwd, "cols", cols, "rows", rows, "wait_ms", waitMs);
    }

    @Tool(name = "send_keys", value = "Type into a terminal and return the output since the last call; \\n is"
            + " Enter, \\u0003 Ctrl-C, \\u0004 Ctrl-D.")
    public String sendKeys(@P(name = "terminal_id", description = "From start_terminal") String terminalId,
                           @P(name = "keys", description = "The characters to type") String keys,
                           @P(name = "wait_ms", description = "Wait for output (default 500)", required = false)
                           Integer waitMs) {
        return call("send_keys", "terminal_id", terminalId, "keys", keys, "wait_ms", waitMs);
    }

    @Tool(name = "read_terminal", value = "Return a terminal's output since the last call, waiting up to wait_ms for"
            + " its program to end; kill true ends it first.")
    public String readTerminal(@P(name = "terminal_id", description = "From start_terminal") String terminalId,
                               @P(name = "wait_ms", description = "Wait for the end (default 0)", required = false)
                               Integer waitMs,
                               @P(name = "kill", description = "Kill the program first", required = false)
                               Boolean kill) {
        return call("read_terminal", "terminal_id", terminalId, "wait_ms", waitMs, "kill", kill);
    }

    @Tool(name = "sub_agent", value = "Launch the Claude Code CLI inside the sandbox as an autonomous agent on a task;"
            + " returns its final answer (result) and the session_id to resume with. Needs the CLI and"
            + " ANTHROPIC_API_KEY in the sandbox (best a brokered credential).")
    public String subAgent(@P(name = "prompt", description = "Task description") String prompt,
                           @P(name = "model", description = "sonnet, opus or haiku", required = false) String model,
                           @P(name = "resume_session_id", description = "Resume a prior Claude Code session",
                                   required = false) String resumeSessionId,
                           @P(name = "max_turns", description = "Override SUB_AGENT_MAX_TURNS", required = false)
                           Integer maxTurns) {
        return call("sub_agent", "prompt", prompt, "model", model, "resume_session_id", resumeSessionId,
                "max_turns", maxTurns);
    }
}
