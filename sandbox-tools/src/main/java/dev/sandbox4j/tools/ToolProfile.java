package dev.sandbox4j.tools;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Which published tool surface a tool set exposes: its tool names, parameter names and units, defaults, required
 * fields, result fields and error codes. Every profile is a naming and shape layer over the same operations (the
 * same output caps, structured errors, retryable table and capability switches); docs/tools.md has a table per
 * profile.
 */
public enum ToolProfile {
    /** sandbox4j's own set: {@code bash}, {@code exec}, {@code execute_code}, {@code view} and the file tools. */
    DEFAULT("default"),
    /** AgentBay's CodeSpace tools: {@code shell}, {@code run_code} and its filesystem tools (the MCP server adds
     * its system tools {@code create_sandbox}, {@code kill_sandbox} and {@code sandbox_id}). */
    AGENTBAY("agentbay"),
    /** The coding server: {@code bash} (with heartbeats every 15 s, {@code description} required), {@code view},
     * {@code create_file}, {@code str_replace}. */
    CODING("coding"),
    /** The execute-code spec: one tool, {@code code_execution_sandbox.execute_code} ({@code execute_code} with
     * {@link ToolConfig#dotlessNames()}), with its status, output schema and error codes. */
    EXECUTE_CODE("execute-code"),
    /** Spacebot: {@code shell}, {@code file} (read, write, list) and {@code exec}. */
    SPACEBOT("spacebot"),
    /** AIO sandbox's file API, one tool per endpoint: {@code file_read}, {@code file_write}, ... */
    AIO("aio"),
    /** The reference MCP filesystem server ({@code @modelcontextprotocol/server-filesystem}): {@code read_text_file},
     * {@code read_media_file}, {@code directory_tree}, ... with its text results and {@code {content}} structured
     * content, rooted at the workspace. */
    FILESYSTEM("filesystem"),
    /** OpenAI Codex's tools: {@code exec_command} (a command that may keep running, found again by its session id),
     * {@code write_stdin} (input to it and the output since) and {@code apply_patch} (V4A patches, applied whole or
     * not at all), with Codex's result texts. */
    CODEX("codex"),
    /** Playwright MCP's browser tools ({@code browser_navigate}, {@code browser_snapshot}, {@code browser_click},
     * ...) over a headless Chromium inside the sandbox ({@link Browser}), with its markdown text results. */
    PLAYWRIGHT("playwright");

    private final String code;

    ToolProfile(String code) {
        this.code = code;
    }

    /** The name used in configuration and by the MCP server's {@code --tools}, such as {@code execute-code}. */
    public String code() {
        return code;
    }

    /** The profile for a name such as {@code agentbay}; an unknown name is an {@link IllegalArgumentException}. */
    public static ToolProfile fromCode(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        for (ToolProfile p : values()) {
            if (p.code.equals(n)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown tool profile '" + name + "'; profiles: "
                + Arrays.stream(values()).map(ToolProfile::code).collect(Collectors.joining(", ")));
    }
}
