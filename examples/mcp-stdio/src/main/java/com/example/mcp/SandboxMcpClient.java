package com.example.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
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

/**
 * An MCP client (the official Java SDK) that starts the sandbox4j MCP server over stdio and calls its tools: what an
 * agent host does with any MCP server. The server runs in a child JVM on this program's class path; a real host would
 * start {@code java -jar sandbox-mcp-VERSION-all.jar --backend local} the same way.
 */
public final class SandboxMcpClient implements AutoCloseable {
    private final McpSyncClient client;

    /** Starts the server with {@code backend} (local, docker or memory) and connects to it. */
    public SandboxMcpClient(String backend) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ServerParameters server = ServerParameters.builder(java)
                .args("-cp", System.getProperty("java.class.path"), "dev.sandbox4j.mcp.SandboxMcpServer",
                        "--backend", backend)
                .build();
        client = McpClient.sync(new StdioClientTransport(server, new JacksonMcpJsonMapper(new ObjectMapper())))
                .requestTimeout(Duration.ofSeconds(60))
                .build();
        client.initialize();
    }

    /** The tools the server offers, by name. */
    public List<String> toolNames() {
        return client.listTools().tools().stream().map(McpSchema.Tool::name).toList();
    }

    /** Calls one tool; the result's text is the tool's JSON answer. */
    public McpSchema.CallToolResult call(String tool, Map<String, Object> arguments) {
        return client.callTool(new McpSchema.CallToolRequest(tool, arguments));
    }

    /** The text of a result (the tools answer with one JSON text block). */
    public static String text(McpSchema.CallToolResult result) {
        return ((McpSchema.TextContent) result.content().get(0)).text();
    }

    @Override
    public void close() {
        client.closeGracefully();
    }

    /** Runs a command and edits a file in a real sandbox of this machine's backend. */
    public static void main(String[] args) {
        String backend = args.length > 0 ? args[0] : "local";
        try (SandboxMcpClient mcp = new SandboxMcpClient(backend)) {
            System.out.println("tools: " + mcp.toolNames());
            System.out.println(text(mcp.call("write_file", Map.of("path", "hello.py",
                    "content", "print('hello from the sandbox')\n"))));
            System.out.println(text(mcp.call("bash", Map.of("command", "python3 hello.py"))));
        }
    }
}
