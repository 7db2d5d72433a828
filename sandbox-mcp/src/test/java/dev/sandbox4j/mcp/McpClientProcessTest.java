package dev.sandbox4j.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.spi.SandboxProvider;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Starts the server as a separate process and drives it with the MCP Java SDK's client over stdio. */
class McpClientProcessTest {
    static final ObjectMapper JSON = new ObjectMapper();

    static void requireOrSkip(String backend) {
        if (backend.equals("memory")) {
            return;
        }
        Optional<String> why = Sandboxes.providers().stream().filter(p -> p.name().equals(backend)).findFirst()
                .map(SandboxProvider::unavailableReason).orElse(Optional.of("not on the class path"));
        dev.sandbox4j.testing.Required.orSkip(backend, why);
    }

    static JsonNode payload(McpSchema.CallToolResult r) throws Exception {
        return JSON.readTree(((McpSchema.TextContent) r.content().get(0)).text());
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "local"})
    void sdkClientDrivesTheServerProcess(String backend) throws Exception {
        requireOrSkip(backend);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ServerParameters params = ServerParameters.builder(java).args("-cp", System.getProperty("java.class.path"),
                "dev.sandbox4j.mcp.SandboxMcpServer", "--backend", backend, "--max-sandboxes", "3").build();
        var transport = new StdioClientTransport(params, new JacksonMcpJsonMapper(new ObjectMapper()));
        try (McpSyncClient client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(60)).build()) {
            client.initialize();
            List<String> names = client.listTools().tools().stream().map(McpSchema.Tool::name).toList();
            assertThat(names).hasSize(30).contains("bash", "str_replace", "sub_agent", "workspace_changes",
                    "start_terminal", "create_sandbox", "kill_sandbox");

            JsonNode echo = payload(client.callTool(new McpSchema.CallToolRequest("bash",
                    Map.of("command", "echo hello"))));
            assertThat(echo.get("stdout").asText()).isEqualTo("hello\n");

            String a = payload(client.callTool(new McpSchema.CallToolRequest("create_sandbox", Map.of())))
                    .get("sandbox_id").asText();
            String b = payload(client.callTool(new McpSchema.CallToolRequest("create_sandbox", Map.of())))
                    .get("sandbox_id").asText();
            client.callTool(new McpSchema.CallToolRequest("write_file",
                    Map.of("sandbox_id", a, "path", "x.txt", "content", "one\none\n")));
            McpSchema.CallToolResult inB = client.callTool(new McpSchema.CallToolRequest("view",
                    Map.of("sandbox_id", b, "path", "x.txt")));
            assertThat(inB.isError()).isTrue();
            assertThat(payload(inB).get("error_type").asText()).isEqualTo("not_found");
            McpSchema.CallToolResult amb = client.callTool(new McpSchema.CallToolRequest("str_replace",
                    Map.of("sandbox_id", a, "path", "x.txt", "old_str", "one", "new_str", "two")));
            assertThat(amb.isError()).isTrue();
            assertThat(payload(amb).get("error_type").asText()).isEqualTo("ambiguous_match");
            JsonNode edit = payload(client.callTool(new McpSchema.CallToolRequest("edit_file",
                    Map.of("sandbox_id", a, "path", "x.txt", "edits",
                            List.of(Map.of("oldText", "one\none", "newText", "two"))))));
            assertThat(edit.get("diff").asText()).contains("+two");
            JsonNode catA = payload(client.callTool(new McpSchema.CallToolRequest("bash",
                    Map.of("sandbox_id", a, "command", "cat x.txt"))));
            assertThat(catA.get("stdout").asText()).isEqualTo("two\n");
            JsonNode cap = payload(client.callTool(new McpSchema.CallToolRequest("create_sandbox", Map.of())));
            assertThat(cap.get("success").asBoolean()).isFalse();
            assertThat(payload(client.callTool(new McpSchema.CallToolRequest("kill_sandbox",
                    Map.of("sandbox_id", b)))).get("killed").asBoolean()).isTrue();
            assertThat(payload(client.callTool(new McpSchema.CallToolRequest("view",
                    Map.of("sandbox_id", b, "path", ".")))).get("error_type").asText()).isEqualTo("not_found");
            JsonNode lang = payload(client.callTool(new McpSchema.CallToolRequest("execute_code",
                    Map.of("language", "cobol", "code", "x"))));
            assertThat(lang.get("error_type").asText()).isEqualTo("unsupported_language");
        }
    }
}
