package dev.sandbox4j.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.memory.MemorySandbox;
import dev.sandbox4j.tools.ToolConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Drives the server in-process over piped streams with raw JSON-RPC lines, as an MCP client would. */
class SandboxMcpServerTest {
    static final ObjectMapper JSON = new ObjectMapper();

    SandboxMcpServer server;
    OutputStream toServer;
    final BlockingQueue<JsonNode> fromServer = new LinkedBlockingQueue<>();
    final List<JsonNode> notifications = new ArrayList<>();
    int nextId = 1;

    void start(ToolConfig config, int max, Duration idle) throws Exception {
        server = new SandboxMcpServer(() -> MemorySandbox.open()
                .onContextCode(dev.sandbox4j.Language.PYTHON, (state, req) -> {
                    // each run adds its number to the context's total and returns it as the value
                    long total = (Long) state.getOrDefault("total", 0L) + Long.parseLong(req.code().trim());
                    state.put("total", total);
                    return new dev.sandbox4j.CodeResult(dev.sandbox4j.CodeResult.Status.COMPLETED, req.language(),
                            ExecResult.of(0, "", ""), Long.toString(total), null);
                })
                .onCommand("pytest -q", ExecResult.of(0, "3 passed\n", ""))
                .onCommand("slow", req -> {
                    try {
                        Thread.sleep(1_300);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return ExecResult.of(0, "finally\n", "");
                }), config.toBuilder().heartbeatInterval(Duration.ofMillis(300)).build(), max, idle);
        PipedInputStream serverIn = new PipedInputStream(1 << 20);
        toServer = new PipedOutputStream(serverIn);
        PipedInputStream clientIn = new PipedInputStream(1 << 20);
        PipedOutputStream serverOut = new PipedOutputStream(clientIn);
        server.serve(serverIn, serverOut);
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(clientIn, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    fromServer.add(JSON.readTree(line));
                }
            } catch (Exception ignored) {
                // pipe closed
            }
        });
        reader.setDaemon(true);
        reader.start();
        JsonNode init = request("initialize", Map.of("protocolVersion", "2025-06-18", "capabilities", Map.of(),
                "clientInfo", Map.of("name", "test", "version", "1")));
        assertThat(init.at("/result/serverInfo/name").asText()).isEqualTo("sandbox4j");
        send(Map.of("jsonrpc", "2.0", "method", "notifications/initialized"));
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    void send(Object message) throws Exception {
        toServer.write((JSON.writeValueAsString(message) + "\n").getBytes(StandardCharsets.UTF_8));
        toServer.flush();
    }

    JsonNode request(String method, Object params) throws Exception {
        int id = nextId++;
        send(Map.of("jsonrpc", "2.0", "id", id, "method", method, "params", params));
        while (true) {
            JsonNode m = fromServer.poll(20, TimeUnit.SECONDS);
            assertThat(m).as("reply to " + method).isNotNull();
            if (m.has("id") && m.get("id").asInt() == id && !m.has("method")) {
                return m;
            }
            notifications.add(m);
        }
    }

    JsonNode call(String tool, Map<String, Object> args) throws Exception {
        JsonNode reply = request("tools/call", Map.of("name", tool, "arguments", args));
        return reply.get("result");
    }

    static JsonNode payload(JsonNode result) throws Exception {
        return JSON.readTree(result.at("/content/0/text").asText());
    }

    List<String> toolNames() throws Exception {
        List<String> names = new ArrayList<>();
        request("tools/list", Map.of()).at("/result/tools").forEach(t -> names.add(t.get("name").asText()));
        return names;
    }

    @Test
    void unknownOrSwitchedOffTool_protocolErrorNamingIt_hiddenToolNotListed() throws Exception {
        start(ToolConfig.builder().disable("run_commands").build(), 4, Duration.ofMinutes(5));
        JsonNode unknown = request("tools/call", Map.of("name", "rm_rf", "arguments", Map.of()));
        assertThat(unknown.at("/error/code").asInt()).isEqualTo(-32602);
        assertThat(unknown.at("/error/message").asText()).startsWith("unknown tool 'rm_rf'; tools: view, read_file,")
                .contains("create_sandbox", "kill_sandbox").doesNotContain("bash", "execute_code");
        JsonNode off = request("tools/call", Map.of("name", "bash", "arguments", Map.of("command", "pytest -q")));
        assertThat(off.at("/error/code").asInt()).isEqualTo(-32602);
        assertThat(off.at("/error/message").asText()).startsWith("tool 'bash' is switched off on this server");
        JsonNode hidden = request("tools/call", Map.of("name", CancellingInput.UNKNOWN_TOOL, "arguments", Map.of()));
        assertThat(hidden.at("/error/message").asText()).startsWith("unknown tool '" + CancellingInput.UNKNOWN_TOOL);
        assertThat(toolNames()).doesNotContain(CancellingInput.UNKNOWN_TOOL, "bash");
        JsonNode tools = request("tools/list", Map.of()).at("/result/tools");
        tools.forEach(t -> assertThat(t.path("title").asText()).as(t.get("name").asText()).isNotBlank());
        assertThat(payload(call("list_directory", Map.of())).get("success").asBoolean()).isTrue();
    }

    @Test
    void listsToolsAndRunsThemEndToEnd() throws Exception {
        start(ToolConfig.defaults(), 4, Duration.ofMinutes(5));
        JsonNode tools = request("tools/list", Map.of()).at("/result/tools");
        List<String> names = toolNames();
        assertThat(names).contains("bash", "exec", "execute_code", "view", "read_file", "read_multiple_files",
                "write_file", "create_file", "str_replace", "edit_file", "create_directory", "list_directory",
                "get_file_info", "move_file", "search_files", "grep", "watch_files", "poll_watch", "wait_for_file",
                "stop_watch", "workspace_changes", "create_code_context", "run_code", "destroy_code_context",
                "start_terminal", "send_keys", "read_terminal", "sub_agent", "create_sandbox", "kill_sandbox")
                .hasSize(30);
        for (JsonNode t : tools) {
            if (!t.get("name").asText().equals("create_sandbox")) {
                assertThat(t.at("/inputSchema/properties/sandbox_id/type").asText()).isEqualTo("string");
            }
        }

        JsonNode bash = call("bash", Map.of("command", "pytest -q"));
        assertThat(bash.get("isError").asBoolean()).isFalse();
        JsonNode out = payload(bash);
        assertThat(out.get("stdout").asText()).isEqualTo("3 passed\n");
        assertThat(out.get("exit_code").asInt()).isZero();

        assertThat(payload(call("write_file", Map.of("path", "m.py", "content", "a = 1\nb = 1\n")))
                .get("success").asBoolean()).isTrue();
        JsonNode amb = call("str_replace", Map.of("path", "m.py", "old_str", "= 1", "new_str", "= 2"));
        assertThat(amb.get("isError").asBoolean()).isTrue();
        JsonNode err = payload(amb);
        assertThat(err.get("success").asBoolean()).isFalse();
        assertThat(err.get("error_type").asText()).isEqualTo("ambiguous_match");
        assertThat(err.get("message").asText()).contains("2 matches");
        assertThat(err.has("retryable")).isTrue();

        JsonNode missing = payload(call("view", Map.of()));
        assertThat(missing.get("error_type").asText()).isEqualTo("invalid_argument");
        JsonNode escape = payload(call("view", Map.of("path", "../../etc/passwd")));
        assertThat(escape.get("error_type").asText()).isEqualTo("invalid_path");
        JsonNode wrongType = payload(call("bash", Map.of("command", "x", "timeout", "later")));
        assertThat(wrongType.get("error_type").asText()).isEqualTo("invalid_argument");
        JsonNode env = payload(call("exec", Map.of("program", "x", "env", Map.of("NODE_OPTIONS", "--require=x"))));
        assertThat(env.get("error_type").asText()).isEqualTo("permission_denied");
    }

    @Test
    void codeContextsLastAcrossToolCalls() throws Exception {
        start(ToolConfig.defaults(), 4, Duration.ofMinutes(5));
        String id = payload(call("create_code_context", Map.of("language", "python"))).get("context_id").asText();
        assertThat(id).isNotBlank();
        assertThat(payload(call("run_code", Map.of("context_id", id, "code", "40"))).get("text").asText())
                .isEqualTo("40");
        JsonNode second = payload(call("run_code", Map.of("context_id", id, "code", "2", "timeout_s", 5)));
        assertThat(second.get("text").asText()).as("state kept from the previous call").isEqualTo("42");
        assertThat(second.get("status").asText()).isEqualTo("completed");
        assertThat(payload(call("destroy_code_context", Map.of("context_id", id))).get("destroyed").asBoolean())
                .isTrue();
        assertThat(payload(call("run_code", Map.of("context_id", id, "code", "1"))).get("error_type").asText())
                .isEqualTo("not_found");
    }

    @Test
    void twoSandboxesAtOnceKillAndTheCap() throws Exception {
        start(ToolConfig.defaults(), 2, Duration.ofMinutes(5));
        String a = payload(call("create_sandbox", Map.of())).get("sandbox_id").asText();
        String b = payload(call("create_sandbox", Map.of())).get("sandbox_id").asText();
        assertThat(a).isNotEqualTo(b);
        call("write_file", Map.of("sandbox_id", a, "path", "f.txt", "content", "in a"));
        call("write_file", Map.of("sandbox_id", b, "path", "f.txt", "content", "in b"));
        assertThat(payload(call("read_file", Map.of("sandbox_id", a, "path", "f.txt"))).get("content").asText())
                .isEqualTo("in a");
        assertThat(payload(call("read_file", Map.of("sandbox_id", b, "path", "f.txt"))).get("content").asText())
                .isEqualTo("in b");
        JsonNode third = payload(call("create_sandbox", Map.of()));
        assertThat(third.get("success").asBoolean()).isFalse();
        assertThat(third.get("message").asText()).contains("2 sandboxes are open", "kill_sandbox");
        JsonNode defaultRefused = payload(call("bash", Map.of("command", "pytest -q")));
        assertThat(defaultRefused.get("error_type").asText()).isEqualTo("backend_unavailable");

        assertThat(payload(call("kill_sandbox", Map.of("sandbox_id", a))).get("killed").asBoolean()).isTrue();
        JsonNode gone = payload(call("view", Map.of("sandbox_id", a, "path", "f.txt")));
        assertThat(gone.get("error_type").asText()).isEqualTo("not_found");
        assertThat(gone.get("message").asText()).contains("killed");
        assertThat(payload(call("kill_sandbox", Map.of("sandbox_id", a))).get("error_type").asText())
                .isEqualTo("not_found");
        assertThat(payload(call("bash", Map.of("command", "pytest -q"))).get("exit_code").asInt()).isZero();
    }

    @Test
    void readOnlyModeHidesWritingTools() throws Exception {
        start(ToolConfig.builder().readOnly(true).build(), 4, Duration.ofMinutes(5));
        assertThat(toolNames()).containsExactlyInAnyOrder("view", "read_file", "read_multiple_files",
                "list_directory", "get_file_info", "search_files", "grep", "watch_files", "poll_watch",
                "wait_for_file", "stop_watch", "workspace_changes", "create_sandbox", "kill_sandbox");
        JsonNode reply = request("tools/call", Map.of("name", "write_file", "arguments",
                Map.of("path", "x", "content", "y")));
        assertThat(reply.toString()).doesNotContain("\"success\":true");
    }

    @Test
    void idleSandboxesExpire() throws Exception {
        start(ToolConfig.defaults(), 4, Duration.ofMillis(300));
        String a = payload(call("create_sandbox", Map.of())).get("sandbox_id").asText();
        Thread.sleep(900);
        JsonNode gone = payload(call("view", Map.of("sandbox_id", a, "path", ".")));
        assertThat(gone.get("error_type").asText()).isEqualTo("not_found");
        assertThat(gone.get("message").asText()).contains("expired");
    }

    @Test
    void longCommandsSendProgressNotifications() throws Exception {
        start(ToolConfig.defaults(), 4, Duration.ofMinutes(5));
        JsonNode reply = request("tools/call", Map.of("name", "bash", "arguments", Map.of("command", "slow"),
                "_meta", Map.of("progressToken", "tok-1")));
        assertThat(payload(reply.get("result")).get("stdout").asText()).isEqualTo("finally\n");
        List<JsonNode> progress = notifications.stream()
                .filter(n -> "notifications/progress".equals(n.path("method").asText())).toList();
        assertThat(progress).hasSizeGreaterThanOrEqualTo(2);
        assertThat(progress.get(0).at("/params/progressToken").asText()).isEqualTo("tok-1");
        assertThat(progress.get(0).at("/params/message").asText()).startsWith("still running");
    }
}
