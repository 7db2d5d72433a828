package dev.sandbox4j.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Drives the server process with the official MCP TypeScript client ({@code @modelcontextprotocol/sdk}, pinned in
 * {@code src/test/js/package.json}) through {@code src/test/js/scenarios.mjs}, and checks what it saw: strict input
 * schemas, annotations and titles, {@code structuredContent} valid against {@code outputSchema} (the client
 * validates it), unknown arguments and mistyped ones refused, an unknown tool named in the error, partial output in
 * progress notifications, cancellation killing the process tree, and no warning in the server's log (the SDK's
 * {@code No handler registered for notification method: notifications/cancelled} included).
 * Skips when {@code node} is not installed, unless {@code SANDBOX4J_REQUIRE} names {@code node}.
 */
class McpOfficialClientTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Path JS = Path.of("src", "test", "js");

    static boolean run(List<String> command, Path dir, Path output, long seconds) throws Exception {
        Process p = new ProcessBuilder(command).directory(dir.toFile())
                .redirectOutput(output.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError(command + " did not finish in " + seconds + " s");
        }
        return p.exitValue() == 0;
    }

    static void requireNode() throws Exception {
        boolean node;
        try {
            node = run(List.of("node", "--version"), JS, Files.createTempFile("node", ".txt"), 30);
        } catch (java.io.IOException e) {
            node = false;
        }
        dev.sandbox4j.testing.Required.orSkip("node", node ? java.util.Optional.empty()
                : java.util.Optional.of("node is not installed"));
        if (!Files.isDirectory(JS.resolve("node_modules/@modelcontextprotocol/sdk"))) {
            assertThat(run(List.of("npm", "ci", "--no-audit", "--no-fund"), JS,
                    Files.createTempFile("npm", ".txt"), 300)).as("npm ci in " + JS).isTrue();
        }
    }

    static JsonNode scenarios(String backend) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path out = Files.createTempFile("mcp-scenarios", ".json");
        List<String> command = new ArrayList<>(List.of("node", "scenarios.mjs", java,
                System.getProperty("java.class.path"), backend));
        boolean ok = run(command, JS, out, 240);
        String text = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(ok).as("scenarios.mjs failed; stdout: " + text).isTrue();
        return JSON.readTree(text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "local"})
    void officialClientSeesACompleteServer(String backend) throws Exception {
        requireNode();
        McpClientProcessTest.requireOrSkip(backend);
        JsonNode r = scenarios(backend);

        JsonNode tools = r.get("tools");
        assertThat(tools.size()).isEqualTo(30);
        tools.fields().forEachRemaining(t -> {
            assertThat(t.getValue().get("additionalProperties").asBoolean(true)).as(t.getKey()).isFalse();
            assertThat(t.getValue().get("outputSchemaType").asText()).as(t.getKey()).isEqualTo("object");
            assertThat(t.getValue().get("annotations").has("readOnlyHint")).as(t.getKey()).isTrue();
        });
        assertThat(tools.at("/view/annotations/readOnlyHint").asBoolean()).isTrue();
        assertThat(tools.at("/bash/annotations/readOnlyHint").asBoolean()).isFalse();
        assertThat(tools.at("/bash/annotations/destructiveHint").asBoolean()).isTrue();
        assertThat(tools.at("/bash/annotations/idempotentHint").asBoolean()).isFalse();
        assertThat(tools.at("/bash/annotations/openWorldHint").asBoolean(true)).isFalse();
        assertThat(tools.at("/create_directory/annotations/idempotentHint").asBoolean()).isTrue();
        assertThat(tools.at("/create_directory/annotations/destructiveHint").asBoolean(true)).isFalse();
        assertThat(tools.at("/write_file/annotations/destructiveHint").asBoolean()).isTrue();
        assertThat(tools.at("/watch_files/annotations/readOnlyHint").asBoolean()).isTrue();
        assertThat(tools.at("/watch_files/annotations/idempotentHint").asBoolean(true)).isFalse();
        assertThat(tools.at("/poll_watch/annotations/readOnlyHint").asBoolean()).isTrue();
        for (dev.sandbox4j.tools.ToolSpec spec : dev.sandbox4j.tools.SandboxTools.allSpecs()) {
            assertThat(tools.at("/" + spec.name() + "/title").asText()).as(spec.name()).isEqualTo(spec.title());
        }
        assertThat(tools.at("/bash/title").asText()).isEqualTo("Run shell command");
        assertThat(tools.at("/create_sandbox/title").asText()).isEqualTo("Create sandbox");
        assertThat(tools.at("/kill_sandbox/title").asText()).isEqualTo("Kill sandbox");
        assertThat(tools.has(CancellingInput.UNKNOWN_TOOL)).as("the hidden tool is not listed").isFalse();

        r.get("strict").fields().forEachRemaining(e -> {
            assertThat(e.getValue().get("isError").asBoolean()).as(e.getKey()).isTrue();
            assertThat(e.getValue().at("/structured/error_type").asText()).as(e.getKey()).isEqualTo("invalid_argument");
        });
        assertThat(r.at("/strict/stringTimeout/structured/message").asText())
                .isEqualTo("argument 'timeout' of bash must be an integer, got the string \"5\"");
        assertThat(r.at("/strict/fractionTimeout/structured/message").asText())
                .isEqualTo("argument 'timeout' of bash must be an integer, got the number 1.5");
        assertThat(r.at("/strict/barePaths/structured/message").asText()).contains("must be an array of strings");
        assertThat(r.at("/strict/stringBoolean/structured/message").asText()).contains("must be a boolean");
        assertThat(r.at("/unknownTool/code").asInt()).isEqualTo(-32602);
        assertThat(r.at("/unknownTool/rejected").asText()).contains("unknown tool 'no_such_tool'", "tools: bash,",
                "kill_sandbox").doesNotContain("invalid_tool_name");
        assertThat(r.at("/afterCancels/stdout").asText()).as("a cancel of no running call harms nothing")
                .isEqualTo("still here\n");

        assertThat(r.at("/echo/structured/stdout").asText()).isEqualTo("hi\n");
        assertThat(r.at("/echo/structured")).isEqualTo(r.at("/echo/text"));
        assertThat(r.at("/unknownArgument/isError").asBoolean()).isTrue();
        assertThat(r.at("/unknownArgument/structured/error_type").asText()).isEqualTo("invalid_argument");
        assertThat(r.at("/unknownArgument/structured/message").asText()).contains("'colour'", "command");
        assertThat(r.at("/unknownKillArgument/structured/error_type").asText()).isEqualTo("invalid_argument");

        String log = r.get("serverLog").asText();
        assertThat(log).as("the server's log was captured").contains("sandbox4j MCP server ready");
        assertThat(log).as("no warning for notifications/cancelled").doesNotContain("No handler registered")
                .doesNotContain("notifications/cancelled").doesNotContain("WARN");
        if (backend.equals("memory")) {
            return;
        }
        List<String> messages = new ArrayList<>();
        r.at("/progress/messages").forEach(m -> messages.add(m.asText()));
        assertThat(messages).as("heartbeats while the command ran").hasSizeGreaterThanOrEqualTo(2);
        assertThat(String.join("\n", messages)).contains("still running", "new stdout", "tick1", "tick2");
        assertThat(r.at("/progress/result/stdout").asText()).isEqualTo("tick1\ntick2\ntick3\ntick4\n");

        JsonNode cancel = r.get("cancel");
        assertThat(cancel.get("rejected").asText()).as("the client's call ends on abort").isNotEmpty();
        String check = cancel.at("/check/stdout").asText();
        assertThat(check).as("every process of the cancelled command is gone: " + check).contains("gone")
                .doesNotContain("alive");
        assertThat(check.lines().filter(l -> l.startsWith("gone")).count()).isEqualTo(3);
        assertThat(cancel.get("checkAfterMs").asLong()).as("the next call is answered promptly, not after the"
                + " cancelled command's 298 s").isLessThan(10_000);
    }
}
