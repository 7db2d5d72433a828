package dev.sandbox4j.tools;

import java.util.Locale;
import java.util.Map;

/**
 * Short human-readable tool titles, for user interfaces (MCP's {@code title}). The published surfaces the profiles
 * reproduce name their tools but give no titles, so every title here is ours; a tool name means the same operation
 * in every profile that has it ({@code shell} in agentbay and spacebot), so one table serves all.
 */
final class Titles {
    private static final Map<String, String> TITLES = Map.ofEntries(
            // default
            Map.entry("bash", "Run shell command"),
            Map.entry("exec", "Run program"),
            Map.entry("execute_code", "Execute code"),
            Map.entry("view", "View file or directory"),
            Map.entry("read_file", "Read file"),
            Map.entry("read_multiple_files", "Read multiple files"),
            Map.entry("write_file", "Write file"),
            Map.entry("create_file", "Create file"),
            Map.entry("str_replace", "Replace text in file"),
            Map.entry("sub_agent", "Run a coding agent"),
            Map.entry("edit_file", "Edit file"),
            Map.entry("create_directory", "Create directory"),
            Map.entry("list_directory", "List directory"),
            Map.entry("get_file_info", "Get file info"),
            Map.entry("move_file", "Move or rename file"),
            Map.entry("search_files", "Find files by name"),
            Map.entry("grep", "Search file contents"),
            Map.entry("watch_files", "Watch files"),
            Map.entry("poll_watch", "Poll file changes"),
            Map.entry("workspace_changes", "List workspace changes"),
            Map.entry("wait_for_file", "Wait for file"),
            Map.entry("stop_watch", "Stop watching files"),
            Map.entry("create_code_context", "Create code context"),
            Map.entry("run_code", "Run code"),
            Map.entry("destroy_code_context", "Destroy code context"),
            // agentbay, spacebot
            Map.entry("shell", "Run shell command"),
            Map.entry("file", "Read, write or list files"),
            Map.entry("browser", "Drive a headless browser"),
            Map.entry("browser_close", "Close browser"),
            Map.entry("browser_evaluate", "Evaluate JavaScript"),
            Map.entry("browser_press_key", "Press a key"),
            Map.entry("browser_type", "Type text"),
            Map.entry("browser_navigate", "Navigate to a URL"),
            Map.entry("browser_navigate_back", "Go back"),
            Map.entry("browser_take_screenshot", "Take a screenshot"),
            Map.entry("browser_snapshot", "Page snapshot"),
            Map.entry("browser_click", "Click"),
            Map.entry("browser_hover", "Hover mouse"),
            Map.entry("browser_tabs", "Manage tabs"),
            Map.entry("browser_wait_for", "Wait for"),
            Map.entry("set_status", "Set worker status"),
            Map.entry("read_skill", "Read installed skill"),
            // aio (one tool per /v1/file/* endpoint)
            Map.entry("file_read", "Read file"),
            Map.entry("file_write", "Write file"),
            Map.entry("file_replace", "Replace text in file"),
            Map.entry("file_search", "Search in file"),
            Map.entry("file_find", "Find files by glob"),
            Map.entry("file_grep", "Search file contents"),
            Map.entry("file_glob", "List files by glob"),
            Map.entry("file_list", "List directory"),
            Map.entry("file_download", "Download file"),
            // execute-code's published name
            Map.entry("code_execution_sandbox.execute_code", "Run code snippet"),
            // filesystem (the reference MCP filesystem server's titles)
            Map.entry("read_text_file", "Read Text File"),
            Map.entry("read_media_file", "Read Media File"),
            Map.entry("list_directory_with_sizes", "List Directory with Sizes"),
            Map.entry("directory_tree", "Directory Tree"),
            Map.entry("list_allowed_directories", "List Allowed Directories"),
            // terminals
            Map.entry("start_terminal", "Start terminal"),
            Map.entry("send_keys", "Type into terminal"),
            Map.entry("read_terminal", "Read terminal"),
            // codex
            Map.entry("exec_command", "Run command"),
            Map.entry("write_stdin", "Write to command"),
            Map.entry("apply_patch", "Apply patch"));

    private Titles() {
    }

    /** Whether the table has a title for this tool name. */
    static boolean known(String name) {
        return TITLES.containsKey(name);
    }

    /** The title of a tool: from the table, else its name with spaces for underscores ("My tool"). */
    static String of(String name) {
        String t = TITLES.get(name);
        if (t != null) {
            return t;
        }
        String words = name.replace('_', ' ').replace('-', ' ').trim();
        return words.isEmpty() ? name : words.substring(0, 1).toUpperCase(Locale.ROOT) + words.substring(1);
    }
}
