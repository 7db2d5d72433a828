package dev.sandbox4j.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.memory.MemorySandbox;
import dev.sandbox4j.tools.ToolConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The Streamable HTTP server driven by the official MCP TypeScript client ({@code src/test/js/http.mjs},
 * {@code StreamableHTTPClientTransport}): tools listed and called, two clients isolated, no token refused, a
 * terminated session's sandboxes closed; on the in-memory backend, a real local jail and a real Docker container.
 * Skips without {@code node} (fails when {@code SANDBOX4J_REQUIRE} names it).
 */
class McpHttpOfficialClientTest {
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"memory", "local", "docker"})
    void officialTypeScriptClient_overStreamableHttp(String backend) throws Exception {
        McpOfficialClientTest.requireNode();
        McpClientProcessTest.requireOrSkip(backend);
        List<Sandbox> opened = new CopyOnWriteArrayList<>();
        String token = "ts-client-token-0123456789";
        try (SandboxMcpHttpServer server = SandboxMcpHttpServer.builder(() -> {
            Sandbox s = backend.equals("memory") ? MemorySandbox.open()
                    : dev.sandbox4j.Sandboxes.open(backend, dev.sandbox4j.SandboxSpec.defaults());
            opened.add(s);
            return s;
        }, ToolConfig.defaults()).port(0).bearerToken(token).idleTimeout(Duration.ofMinutes(5)).build().start()) {
            Path out = Files.createTempFile("mcp-http", ".json");
            boolean ok = McpOfficialClientTest.run(List.of("node", "http.mjs", server.endpoint().toString(), token),
                    McpOfficialClientTest.JS, out, 120);
            String text = Files.readString(out, StandardCharsets.UTF_8);
            assertThat(ok).as("http.mjs failed; stdout: " + text).isTrue();
            JsonNode r = McpOfficialClientTest.JSON.readTree(text);
            assertThat(r.get("tools").toString()).contains("\"bash\"", "\"create_sandbox\"");
            assertThat(r.at("/write/success").asBoolean()).isTrue();
            assertThat(r.at("/readOwn/content").asText()).isEqualTo("a's");
            assertThat(r.at("/readOther/error_type").asText()).isEqualTo("not_found");
            assertThat(r.at("/otherUsesId/error_type").asText()).isEqualTo("not_found");
            assertThat(r.at("/bash/stdout").asText()).isEqualTo("hi\n");
            assertThat(r.get("noToken").asText()).isNotEqualTo("connected").contains("unauthorized");
            // opened in call order: a's default, b's default, a's created one. a terminated its session (DELETE):
            // its two are closed; b only closed its connection, so its sandbox waits for the idle timeout or close
            assertThat(opened).hasSize(3);
            assertThat(opened.get(0).isOpen()).isFalse();
            assertThat(opened.get(2).isOpen()).isFalse();
            assertThat(opened.get(1).isOpen()).isTrue();
        }
        assertThat(opened).noneMatch(Sandbox::isOpen);
    }
}
