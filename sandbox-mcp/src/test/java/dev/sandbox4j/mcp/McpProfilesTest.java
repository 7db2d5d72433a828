package dev.sandbox4j.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sandbox4j.tools.SandboxTools;
import dev.sandbox4j.tools.ToolConfig;
import dev.sandbox4j.tools.ToolProfile;
import dev.sandbox4j.tools.ToolSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each tool profile end to end: the server started with {@code --tools PROFILE}, driven by the official MCP
 * TypeScript client ({@code src/test/js/profiles.mjs}), which lists the tools and calls every one of them at least
 * once; the client validates each {@code structuredContent} against the tool's {@code outputSchema}. Skips without
 * {@code node} (fails when {@code SANDBOX4J_REQUIRE} names it) and without bubblewrap for {@code local} (fails when
 * it names {@code local}).
 */
class McpProfilesTest {
    /** One call and what its result must hold: "field=value" (compared as text), "field" (present). */
    record Call(String name, Map<String, Object> arguments, List<String> expect) {
    }

    static Call call(String name, Map<String, Object> arguments, String... expect) {
        return new Call(name, arguments, List.of(expect));
    }

    static Map<String, Object> args(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    static final String EC = "code_execution_sandbox.execute_code";

    static List<Call> calls(String profile, String backend) {
        boolean local = backend.equals("local");
        return switch (profile) {
            case "default" -> List.of(
                    call("bash", args("command", "echo hi"), "success=true", "stdout=hi\n"),
                    call("write_file", args("path", "w.txt", "content", "one\n"), "bytes_written=4"),
                    call("view", args("path", "w.txt"), "total_lines=1"),
                    // file watches: the client checks each result against the tool's outputSchema
                    call("watch_files", args("path", ".", "include", List.of("*.txt"), "debounce_ms", 0),
                            "watch_id=w1", "path="),
                    call("write_file", args("path", "seen.txt", "content", "abc"), "bytes_written=3"),
                    call("poll_watch", args("watch_id", "w1", "wait_ms", 5000), "cursor=1", "overflow=false",
                            "events"),
                    call("wait_for_file", args("path", "seen.txt", "timeout_ms", 5000), "found=true", "event"),
                    call("stop_watch", args("watch_id", "w1"), "stopped=true"),
                    call("poll_watch", args("watch_id", "w1"), "error_type=not_found"),
                    // an empty workspace has no change set: the tool answers so, typed
                    call("workspace_changes", args(), "error_type=unsupported"));
            case "agentbay" -> List.of(
                    // the document's system tools: create_sandbox, then shell with its required sandbox_id
                    call("create_sandbox", args(), "success=true", "sandbox_id"),
                    call("shell", args("sandbox_id", "$sandbox_id", "command", "echo hi", "timeout_ms", 20000),
                            "success=true", "output=hi\n", "exit_code=0"),
                    call("shell", args("command", "echo hi", "timeout_ms", 1000), "error_type=invalid_argument"),
                    local ? call("run_code", args("code", "print(6*7)", "language", "python", "timeout_s", 60),
                            "success=true", "result=42\n", "status=completed")
                            : call("run_code", args("code", "print(6*7)", "language", "python"),
                            "success=false", "error_type=unsupported_language"),
                    call("run_code", args("code", "1", "language", "ruby"), "error_type=unsupported_language"),
                    call("create_directory", args("path", "d"), "path=d"),
                    call("write_file", args("path", "d/a.txt", "content", "hello\n", "mode", "overwrite"),
                            "bytes_written=6"),
                    call("read_file", args("path", "d/a.txt", "offset", 1, "length", 3), "content=ell"),
                    call("read_multiple_files", args("paths", List.of("d/a.txt", "d/none.txt")), "failed=1"),
                    call("edit_file", args("path", "d/a.txt", "edits", List.of(Map.of("oldText", "hello",
                            "newText", "bye")), "dryRun", false), "applied=true"),
                    call("get_file_info", args("path", "d/a.txt"), "type=file", "size=4"),
                    call("list_directory", args("path", "d"), "content=[FILE] a.txt\n"),
                    call("move_file", args("source", "d/a.txt", "destination", "d/b.txt"), "destination=d/b.txt"),
                    call("search_files", args("path", ".", "pattern", "*.txt"), "count=1"),
                    call("kill_sandbox", args("sandbox_id", "$sandbox_id"), "killed=true"));
            case "coding" -> List.of(
                    call("bash", args("command", "echo hi", "description", "greets"), "stdout=hi\n",
                            "status=completed"),
                    call("create_file", args("path", "c.py", "content", "x = 1\n"), "bytes_written=6"),
                    call("create_file", args("path", "c.py", "content", "x"), "error_type=already_exists"),
                    call("str_replace", args("path", "c.py", "old_str", "x = 1", "new_str", "x = 2"), "applied=true"),
                    call("view", args("path", "c.py", "view_range", List.of(1, -1)), "content=     1\tx = 2\n"),
                    // no Claude Code CLI or key in these sandboxes: a typed failure (SubAgentTest runs the real CLI)
                    call("sub_agent", args("prompt", "fix it", "model", "haiku"), "success=false", "error_type"));
            case "execute-code" -> local ? List.of(
                    call(EC, args("language", "python", "code", "print(6*7)"),
                            "stdout=42\n", "exit_code=0", "status=completed", "duration_ms"),
                    call(EC, args("language", "python", "code", "import sys; print('x');"
                            + " sys.exit(3)"), "success=false", "error_type=RUNTIME_ERROR", "exit_code=3",
                            "stdout=x\n", "status=error_runtime"),
                    call(EC, args("language", "python", "code", "while True: pass", "timeout_ms", 500),
                            "error_type=EXECUTION_TIMEOUT", "status=timeout"),
                    call(EC, args("language", "cobol", "code", "x"),
                            "error_type=UNSUPPORTED_LANGUAGE", "supported_languages"))
                    : List.of(call(EC, args("language", "python", "code", "print(1)", "stdin_data", "",
                            "timeout_ms", 1000), "success=false", "error_type=UNSUPPORTED_LANGUAGE",
                            "retryable=false"));
            case "spacebot" -> List.of(
                    call("shell", args("command", "echo hi", "working_dir", ".", "timeout", 30), "success=true",
                            "stdout=hi\n", "exit_code=0", "summary"),
                    call("shell", args("command", "echo hi", "timeout", 301), "error_type=invalid_argument"),
                    call("file", args("operation", "write", "path", "s/n.txt", "content", "note"), "bytes_written=4"),
                    call("file", args("operation", "write", "path", "t/n.txt", "content", "x", "create_dirs", false),
                            "error_type=not_found"),
                    call("file", args("operation", "read", "path", "s/n.txt"), "content=note"),
                    call("file", args("operation", "list", "path", "s"), "entries"),
                    call("exec", args("program", "echo", "args", List.of("a b"), "env",
                            List.of(Map.of("key", "CI", "value", "1")), "timeout", 30), "stdout=a b\n", "exit_code=0"),
                    call("exec", args("program", "echo", "env", List.of(Map.of("key", "LD_PRELOAD", "value",
                            "x.so"))), "error_type=permission_denied"),
                    // issue 29: the identity files are read-only through the file tool, the status and skill tools
                    call("file", args("operation", "write", "path", "SOUL.md", "content", "x"),
                            "error_type=permission_denied", "error"),
                    call("set_status", args("status", "halfway\nthere"), "success=true", "status=halfway there",
                            "worker_id"),
                    call("file", args("operation", "write", "path", "skills/demo/SKILL.md", "content",
                            "---\nname: demo\n---\nRun {baseDir}/go.sh\n"), "bytes_written"),
                    call("read_skill", args("name", "Demo"), "content=Run /workspace/skills/demo/go.sh\n",
                            "base_path=/workspace/skills/demo"),
                    // the browser: Chromium in the jail (CI installs it); the memory backend refuses, typed
                    backend.equals("memory") ? call("browser", args("action", "launch"), "error_type=unsupported")
                            : call("browser", args("action", "launch"), "success=true"),
                    call("browser", args("action", "navigate", "url", "http://169.254.169.254/latest/"),
                            backend.equals("memory") ? "error_type=closed" : "error_type=permission_denied"),
                    call("browser", args("action", backend.equals("memory") ? "snapshot" : "screenshot"),
                            backend.equals("memory") ? "error_type=closed" : "screenshot_path"),
                    call("browser", args("action", "close"), "success=true"));
            case "aio" -> List.of(
                    call("file_write", args("file", "x/b.bin", "content", "AAEC/w==", "encoding", "base64"),
                            "bytes_written=4"),
                    call("file_write", args("file", "/workspace/x/t.txt", "content", "l0\nl1\nl2\n"), "file=x/t.txt"),
                    call("file_write", args("file", "x/t.txt", "content", "l3\n", "append", true), "bytes_written=3"),
                    call("file_read", args("file", "x/t.txt", "start_line", 1, "end_line", 3), "content=l1\nl2\n"),
                    call("file_read", args("file", "x/none.txt"), "error_type=not_found", "errno=2",
                            "retryable=false"),
                    call("file_replace", args("file", "x/t.txt", "old_str", "l3", "new_str", "L3"), "diff"),
                    call("file_search", args("file", "x/t.txt", "regex", "^l[12]$"), "line_numbers"),
                    call("file_find", args("path", "x", "glob", "*.txt"), "truncated=false"),
                    call("file_grep", args("path", "x", "pattern", "L3", "include", List.of("*.txt"),
                            "case_insensitive", true, "max_results", 10), "total_matches=1"),
                    call("file_glob", args("path", "x", "pattern", "**/*", "include_metadata", true, "files_only",
                            true, "sort_by", "size", "max_results", 5), "total_count=2"),
                    call("file_list", args("path", "x", "recursive", true, "show_hidden", true, "include_size",
                            true), "total_count=2"),
                    call("file_download", args("path", "x/b.bin", "change_policy", "abort"), "content=AAEC/w==",
                            "size=4"));
            case "filesystem" -> List.of(
                    call("write_file", args("path", "/workspace/f/a.txt", "content", "one\ntwo\n"),
                            "content=Successfully wrote to /workspace/f/a.txt"),
                    call("read_text_file", args("path", "f/a.txt", "tail", 2), "content=two\n"),
                    call("read_file", args("path", "f/a.txt", "head", 1), "content=one"),
                    call("read_media_file", args("path", "f/a.txt"), "content"),
                    call("read_multiple_files", args("paths", List.of("f/a.txt")), "content=f/a.txt:\none\ntwo\n\n"),
                    call("edit_file", args("path", "f/a.txt", "edits", List.of(Map.of("oldText", "two",
                            "newText", "2")), "dryRun", false), "content"),
                    call("create_directory", args("path", "f/d"), "content=Successfully created directory f/d"),
                    call("list_directory", args("path", "f"), "content"),
                    call("list_directory_with_sizes", args("path", "f", "sortBy", "size"), "content"),
                    call("directory_tree", args("path", "f", "excludePatterns", List.of("d")), "content"),
                    call("move_file", args("source", "f/a.txt", "destination", "f/b.txt"),
                            "content=Successfully moved f/a.txt to f/b.txt"),
                    call("search_files", args("path", "f", "pattern", "*.txt"), "content=/workspace/f/b.txt"),
                    call("get_file_info", args("path", "f/b.txt"), "content"),
                    call("list_allowed_directories", args(), "content=Allowed directories:\n/workspace"));
            case "codex" -> local ? List.of(
                    call("exec_command", args("cmd", "python3 -i -q -u", "yield_time_ms", 500), "session_id"),
                    call("write_stdin", args("session_id", "$session_id", "chars", "x = 6 * 7\n"), "session_id"),
                    call("write_stdin", args("session_id", "$session_id", "chars", "print(x)\nexit()\n",
                            "yield_time_ms", 20000), "exit_code=0"),
                    call("exec_command", args("cmd", "echo hi", "workdir", "."), "exit_code=0", "output=hi\n"),
                    call("exec_command", args("cmd", "stty size", "tty", true, "yield_time_ms", 5000), "exit_code=0",
                            "output=24 80\r\n"),
                    call("apply_patch", args("input", "*** Begin Patch\n*** Add File: p.txt\n+hi\n*** End Patch"),
                            "content=Success. Updated the following files:\nA p.txt\n"))
                    : List.of(
                    call("exec_command", args("cmd", "echo hi"), "error_type=unsupported"),
                    call("write_stdin", args("session_id", 1000, "chars", ""), "error_type=unsupported"),
                    call("apply_patch", args("input", "*** Begin Patch\n*** Add File: p.txt\n+hi\n*** End Patch"),
                            "content=Success. Updated the following files:\nA p.txt\n"));
            // Chromium in the jail; no page server reaches this server's process, so the one page is the blank
            // tab browser_tabs new opens; a refused URL, refs on a page without any: failures in Playwright's text
            case "playwright" -> List.of(
                    call("browser_navigate", args("url", "http://169.254.169.254/latest/"), "~169.254.169.254"),
                    call("browser_tabs", args("action", "new"), "content=### Result\n- 0: (current) [](about:blank)"),
                    call("browser_snapshot", args(), "~### Page\n- Page URL: about:blank\n"),
                    call("browser_click", args("element", "first button", "ref", "e0"), "~e0"),
                    call("browser_type", args("ref", "e0", "text", "x"), "~e0"),
                    call("browser_hover", args("ref", "e0"), "~e0"),
                    call("browser_press_key", args("key", "Tab"), "~### Snapshot\n```yaml\n"),
                    call("browser_navigate_back", args(), "~- Page URL: about:blank\n"), // no history: stays
                    call("browser_wait_for", args("time", 0.1), "~### Result\nWaited for 0.1\n"),
                    call("browser_take_screenshot", args("type", "png"), "~### Result\n- [Screenshot of viewport](",
                            "image/png"),
                    call("browser_close", args(), "content=### Result\nNo open tabs. Navigate to a URL to create"
                            + " one."));
            default -> throw new IllegalArgumentException(profile);
        };
    }

    @Test
    void toolsOption_choosesTheProfile_unknownNameIsRefused_disableTakesTheProfilesNames() {
        assertThat(SandboxMcpServer.Options.parse(new String[] {"--tools", "spacebot"}).toolConfig().profile())
                .isEqualTo(ToolProfile.SPACEBOT);
        assertThat(SandboxMcpServer.Options.parse(new String[0]).toolConfig().profile())
                .isEqualTo(ToolProfile.DEFAULT);
        assertThatThrownBy(() -> SandboxMcpServer.Options.parse(new String[] {"--tools", "e2b"}).toolConfig())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown tool profile 'e2b'");
        ToolConfig aio = SandboxMcpServer.Options.parse(new String[] {"--tools", "aio", "--disable", "file_write"})
                .toolConfig();
        assertThat(SandboxTools.specs(aio)).extracting(ToolSpec::name).doesNotContain("file_write", "file_replace")
                .contains("file_read", "file_download");
        ToolConfig agentbay = SandboxMcpServer.Options.parse(new String[] {"--tools", "agentbay", "--disable",
                "shell"}).toolConfig();
        assertThat(SandboxTools.specs(agentbay)).extracting(ToolSpec::name).doesNotContain("shell", "run_code");
    }

    static JsonNode drive(String backend, String profile, List<Call> calls) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return drive(java, System.getProperty("java.class.path"), backend, profile, calls);
    }

    /** Runs profiles.mjs: over stdio with a server it starts ({@code java}, class path), or over HTTP ("http", URL). */
    static JsonNode drive(String how, String where, String backend, String profile, List<Call> calls)
            throws Exception {
        Path callsFile = Files.createTempFile("profile-calls", ".json");
        List<Map<String, Object>> wire = new ArrayList<>();
        for (Call c : calls) {
            wire.add(Map.of("name", c.name(), "arguments", c.arguments()));
        }
        Files.writeString(callsFile, McpOfficialClientTest.JSON.writeValueAsString(wire));
        Path out = Files.createTempFile("mcp-profiles", ".json");
        boolean ok = McpOfficialClientTest.run(List.of("node", "profiles.mjs", how, where, backend, profile,
                        callsFile.toString()),
                McpOfficialClientTest.JS, out, 240);
        String text = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(ok).as("profiles.mjs failed for " + profile + " on " + backend + "; stdout: " + text).isTrue();
        return McpOfficialClientTest.JSON.readTree(text);
    }

    @ParameterizedTest(name = "{0} on {1}")
    @CsvSource({"default,memory", "agentbay,memory", "coding,memory", "execute-code,memory", "spacebot,memory",
            "aio,memory", "filesystem,memory", "agentbay,local", "execute-code,local", "spacebot,local",
            "aio,local", "codex,memory", "codex,local", "playwright,local"})
    void officialClient_callsEveryToolOfTheProfile(String profile, String backend) throws Exception {
        McpOfficialClientTest.requireNode();
        McpClientProcessTest.requireOrSkip(backend);
        List<Call> calls = calls(profile, backend);
        check(profile, backend, calls, drive(backend, profile, calls));
    }

    /**
     * The same over Streamable HTTP: the server mode, every profile listed and called by the official client's
     * {@code StreamableHTTPClientTransport} (memory backend; a session's own sandboxes, closed with the server: the client only closes its connection).
     */
    @ParameterizedTest(name = "{0} over HTTP")
    @ValueSource(strings = {"default", "agentbay", "coding", "execute-code", "spacebot", "aio", "filesystem",
            "codex"})
    void officialClientOverHttp_callsEveryToolOfTheProfile(String profile) throws Exception {
        McpOfficialClientTest.requireNode();
        List<Call> calls = calls(profile, "memory");
        try (SandboxMcpHttpServer server = SandboxMcpHttpServer.builder(dev.sandbox4j.memory.MemorySandbox::open,
                ToolConfig.builder().profile(profile).build()).port(0).build().start()) {
            check(profile, "memory", calls, drive("http", server.endpoint().toString(), "memory", profile, calls));
        }
    }

    private static void check(String profile, String backend, List<Call> calls, JsonNode r) {
        List<ToolSpec> specs = SandboxTools.specs(ToolConfig.builder().profile(profile).build());
        Set<String> listed = new LinkedHashSet<>();
        r.get("tools").fieldNames().forEachRemaining(listed::add);
        List<String> expected = specs.stream().map(ToolSpec::name).toList();
        for (ToolSpec spec : specs) {
            assertThat(r.at("/tools/" + spec.name() + "/title").asText()).as(profile + " " + spec.name() + " title;"
                    + " the client listed " + listed + " in " + r.get("tools"))
                    .isEqualTo(spec.title()).isNotBlank();
        }
        r.get("tools").fields().forEachRemaining(t -> assertThat(t.getValue().get("title").asText(""))
                .as(profile + " " + t.getKey() + " has a title").isNotBlank());
        boolean system = ToolProfile.fromCode(profile) == ToolProfile.AGENTBAY;
        if (ToolProfile.fromCode(profile) == ToolProfile.DEFAULT) {
            assertThat(listed).containsAll(expected).contains("create_sandbox", "kill_sandbox");
        } else {
            List<String> all = new ArrayList<>(expected);
            if (system) {
                all.addAll(List.of("create_sandbox", "kill_sandbox"));
            }
            assertThat(listed).as("exactly the profile's tools").containsExactlyInAnyOrderElementsOf(all);
            for (ToolSpec spec : specs) {
                JsonNode tool = r.get("tools").get(spec.name());
                @SuppressWarnings("unchecked")
                Map<String, Object> props = (Map<String, Object>) spec.inputSchema().get("properties");
                List<String> seen = new ArrayList<>();
                tool.get("properties").forEach(p -> seen.add(p.asText()));
                if (system) {
                    // agentbay: sandbox_id first (required by the system shell, optional elsewhere)
                    assertThat(seen.remove(0)).isEqualTo("sandbox_id");
                    assertThat(tool.get("required").toString().contains("sandbox_id"))
                            .isEqualTo(spec.name().equals("shell"));
                }
                assertThat(seen).as(spec.name() + " parameters").containsExactlyElementsOf(props.keySet());
                assertThat(tool.get("additionalProperties").asBoolean(true)).isFalse();
                List<String> outputs = new ArrayList<>();
                tool.get("outputProperties").forEach(p -> outputs.add(p.asText()));
                assertThat(outputs).as(spec.name() + " result fields").containsAll(spec.output().keySet());
            }
            Set<String> called = new LinkedHashSet<>();
            calls.forEach(c -> called.add(c.name()));
            assertThat(called).as("every tool is called at least once").containsAll(expected);
        }

        if (ToolProfile.fromCode(profile) == ToolProfile.SPACEBOT) {
            // set_status's line reaches the client as a logging notification as well
            assertThat(r.get("logs").toString()).as("logging notifications").contains("sandbox4j.status")
                    .contains("halfway there");
        }
        JsonNode results = r.get("calls");
        assertThat(results.size()).isEqualTo(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            Call c = calls.get(i);
            JsonNode got = results.get(i);
            String where = profile + " on " + backend + ", call " + (i + 1) + " " + c.name() + ": " + got;
            assertThat(got.get("textMatches").asBoolean()).as(where + " (text = structuredContent)").isTrue();
            JsonNode s = got.get("structured");
            if (checkText(c, got, where)) {
                continue;
            }
            if (s.has("success")) {
                assertThat(got.get("isError").asBoolean()).as(where + " isError")
                        .isEqualTo(!s.get("success").asBoolean());
            } else {
                assertThat(got.get("isError").asBoolean()).as(where + " isError").isFalse();
            }
            for (String e : c.expect()) {
                int eq = e.indexOf('=');
                if (eq < 0) {
                    assertThat(s.has(e)).as(where + " has " + e).isTrue();
                } else {
                    String field = e.substring(0, eq);
                    assertThat(s.has(field)).as(where + " has " + field).isTrue();
                    assertThat(s.get(field).asText()).as(where + " " + field).isEqualTo(e.substring(eq + 1));
                }
            }
        }
    }

    /**
     * A call whose expectations are text ("~part": the first text block holds it; "image/png": an image block of that
     * type follows), for surfaces that answer in markdown (playwright); failures are the message alone, isError set.
     */
    private static boolean checkText(Call c, JsonNode got, String where) {
        if (c.expect().stream().noneMatch(e -> e.startsWith("~"))) {
            return false;
        }
        String text = got.get("text").asText();
        // a result is "### Result", "### Page", ...; a failure is the message
        assertThat(got.get("isError").asBoolean()).as(where + " isError").isEqualTo(!text.startsWith("### "));
        for (String e : c.expect()) {
            if (e.startsWith("~")) {
                assertThat(text).as(where).contains(e.substring(1));
            } else {
                assertThat(got.get("images").toString()).as(where + " images").contains(e);
            }
        }
        return true;
    }
}
