package dev.sandbox4j.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.memory.MemorySandbox;
import dev.sandbox4j.tools.ToolConfig;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Streamable HTTP server driven by the MCP Java SDK's own HTTP client (a real client, over a real socket):
 * listing and calling, two clients that cannot see each other's sandboxes, refusals without the token, sandboxes
 * closed when a session ends, idles out or the server closes, bounded bodies, execute-code's fresh sandbox per call.
 */
class McpHttpServerTest {
    static final String TOKEN = "test-token-0123456789abcdef";
    final List<Sandbox> opened = new CopyOnWriteArrayList<>();
    final List<McpSyncClient> clients = new ArrayList<>();
    SandboxMcpHttpServer server;

    Supplier<Sandbox> opener() {
        return () -> {
            Sandbox s = MemorySandbox.open();
            opened.add(s);
            return s;
        };
    }

    SandboxMcpHttpServer start(ToolConfig config, Duration idle) {
        server = SandboxMcpHttpServer.builder(opener(), config).port(0).bearerToken(TOKEN).idleTimeout(idle)
                .maxRequestBytes(64 * 1024).build().start();
        return server;
    }

    McpSyncClient client(String token) {
        HttpRequest.Builder request = HttpRequest.newBuilder();
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        var transport = HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + server.port())
                .endpoint("/mcp").requestBuilder(request).build();
        McpSyncClient c = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(30))
                .initializationTimeout(Duration.ofSeconds(30)).build();
        clients.add(c);
        return c;
    }

    static Map<String, Object> call(McpSyncClient c, String tool, Map<String, Object> args) {
        McpSchema.CallToolResult r = c.callTool(new McpSchema.CallToolRequest(tool, args));
        @SuppressWarnings("unchecked")
        Map<String, Object> s = (Map<String, Object>) r.structuredContent();
        return s;
    }

    @AfterEach
    void stop() {
        clients.forEach(McpSyncClient::close);
        if (server != null) {
            server.close();
        }
    }

    @Test
    void listAndCall_overHttp() {
        start(ToolConfig.defaults(), Duration.ofMinutes(5));
        McpSyncClient c = client(TOKEN);
        c.initialize();
        List<String> names = c.listTools().tools().stream().map(McpSchema.Tool::name).toList();
        assertThat(names).contains("bash", "view", "write_file", "create_sandbox", "kill_sandbox");
        assertThat(call(c, "write_file", Map.of("path", "a.txt", "content", "hello"))).containsEntry("success", true);
        assertThat(call(c, "read_file", Map.of("path", "a.txt"))).containsEntry("content", "hello");
        assertThat(server.openClients()).isEqualTo(1);
        assertThat(server.openSandboxes()).isEqualTo(1);
    }

    @Test
    void twoClients_doNotSeeEachOthersSandboxes() {
        start(ToolConfig.defaults(), Duration.ofMinutes(5));
        McpSyncClient a = client(TOKEN);
        McpSyncClient b = client(TOKEN);
        a.initialize();
        b.initialize();
        call(a, "write_file", Map.of("path", "secret.txt", "content", "a's"));
        assertThat(call(b, "read_file", Map.of("path", "secret.txt"))).containsEntry("error_type", "not_found");
        String id = (String) call(a, "create_sandbox", Map.of()).get("sandbox_id");
        assertThat(call(b, "read_file", Map.of("path", "x", "sandbox_id", id))).containsEntry("error_type",
                "not_found");
        assertThat(call(b, "kill_sandbox", Map.of("sandbox_id", id))).containsEntry("error_type", "not_found");
        assertThat(call(a, "kill_sandbox", Map.of("sandbox_id", id))).containsEntry("killed", true);
        assertThat(server.openClients()).isEqualTo(2);
    }

    @Test
    void withoutTheToken_refused() throws Exception {
        start(ToolConfig.defaults(), Duration.ofMinutes(5));
        assertThatThrownBy(() -> client(null).initialize()).isInstanceOf(RuntimeException.class);
        assertThatThrownBy(() -> client("wrong-token-0123456789").initialize()).isInstanceOf(RuntimeException.class);
        HttpResponse<String> raw = HttpClient.newHttpClient().send(HttpRequest.newBuilder(server.endpoint())
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(raw.statusCode()).isEqualTo(401);
        assertThat(raw.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v)
                .startsWith("Bearer"));
        assertThat(raw.body()).contains("\"error\":\"unauthorized\"").doesNotContain("Exception");
        assertThat(opened).isEmpty();
    }

    @Test
    void bodiesOverTheLimit_refusedWith413() throws Exception {
        start(ToolConfig.defaults(), Duration.ofMinutes(5));
        String big = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"" + "a".repeat(70_000)
                + "\"}}";
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(server.endpoint())
                .header("Authorization", "Bearer " + TOKEN).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(big)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(r.body()).contains("too_large").doesNotContain("Exception");
    }

    @Test
    void sessionEnd_closesTheClientsSandboxes() {
        start(ToolConfig.defaults(), Duration.ofMinutes(5));
        McpSyncClient a = client(TOKEN);
        McpSyncClient b = client(TOKEN);
        a.initialize();
        b.initialize();
        call(a, "bash", Map.of("command", "echo a"));
        call(a, "create_sandbox", Map.of());
        call(b, "bash", Map.of("command", "echo b"));
        assertThat(opened).hasSize(3);
        a.closeGracefully();
        assertThat(opened.subList(0, 2)).noneMatch(Sandbox::isOpen);
        assertThat(opened.get(2).isOpen()).as("the other client's sandbox stays").isTrue();
        assertThat(server.openClients()).isEqualTo(1);
    }

    @Test
    void silentClient_sandboxesClosedAfterTheIdleTimeout() throws Exception {
        start(ToolConfig.defaults(), Duration.ofMillis(600));
        McpSyncClient a = client(TOKEN);
        a.initialize();
        call(a, "bash", Map.of("command", "echo a"));
        assertThat(opened).hasSize(1);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (opened.get(0).isOpen() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(opened.get(0).isOpen()).isFalse();
        assertThat(server.openClients()).isZero();
    }

    @Test
    void close_closesEverySandbox() {
        start(ToolConfig.defaults(), Duration.ofMinutes(5));
        McpSyncClient a = client(TOKEN);
        a.initialize();
        call(a, "bash", Map.of("command", "echo a"));
        call(a, "create_sandbox", Map.of());
        long start = System.nanoTime();
        server.close();
        long millis = (System.nanoTime() - start) / 1_000_000;
        System.err.println("close took " + millis + " ms");
        assertThat(opened).hasSize(2).noneMatch(Sandbox::isOpen);
        assertThat(millis).as("close with a connected client").isLessThan(5_000);
    }

    @Test
    void executeCode_freshSandboxPerCall_filesystem_textAndStructuredContent() {
        start(ToolConfig.builder().profile("execute-code").build(), Duration.ofMinutes(5));
        McpSyncClient a = client(TOKEN);
        a.initialize();
        assertThat(a.listTools().tools()).extracting(McpSchema.Tool::name)
                .containsExactly("code_execution_sandbox.execute_code");
        for (int i = 0; i < 3; i++) {
            a.callTool(new McpSchema.CallToolRequest("code_execution_sandbox.execute_code",
                    Map.of("language", "python", "code", "print(1)")));
        }
        // three calls, three sandboxes used and closed; the warm spare may be open
        assertThat(opened.size()).isBetween(3, 4);
        assertThat(opened.stream().filter(Sandbox::isOpen).count()).isLessThanOrEqualTo(1);
        server.close();
        assertThat(opened).noneMatch(Sandbox::isOpen);
    }

    @Test
    void filesystemProfile_answersAsTheReferenceServer() {
        start(ToolConfig.builder().profile("filesystem").build(), Duration.ofMinutes(5));
        McpSyncClient a = client(TOKEN);
        a.initialize();
        McpSchema.CallToolResult w = a.callTool(new McpSchema.CallToolRequest("write_file",
                Map.of("path", "/workspace/n.txt", "content", "one\ntwo\n")));
        assertThat(((McpSchema.TextContent) w.content().get(0)).text()).isEqualTo("Successfully wrote to"
                + " /workspace/n.txt");
        assertThat(w.structuredContent()).isEqualTo(Map.of("content", "Successfully wrote to /workspace/n.txt"));
        McpSchema.CallToolResult head = a.callTool(new McpSchema.CallToolRequest("read_text_file",
                Map.of("path", "n.txt", "head", 1)));
        assertThat(head.structuredContent()).isEqualTo(Map.of("content", "one"));
        McpSchema.CallToolResult missing = a.callTool(new McpSchema.CallToolRequest("read_text_file",
                Map.of("path", "none.txt")));
        assertThat(missing.isError()).isTrue();
        assertThat(missing.structuredContent()).isNull();
    }

    @Test
    void nonLoopbackWithoutToken_refusedAtBuild() {
        assertThatThrownBy(() -> SandboxMcpHttpServer.builder(opener(), ToolConfig.defaults()).host("0.0.0.0")
                .build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bearer token");
        SandboxMcpHttpServer loopback = SandboxMcpHttpServer.builder(opener(), ToolConfig.defaults())
                .host("127.0.0.1").port(0).build();
        loopback.close();
        assertThat(URI.create("http://127.0.0.1:1/mcp").getPath()).isEqualTo("/mcp");
    }
}
