package com.example.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.modelcontextprotocol.spec.McpSchema;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The client against a real server process over stdio, with in-memory sandboxes (no jail, no engine needed). */
class SandboxMcpClientTest {
    @Test
    void listsTheToolsAndEditsAFileThroughThem() {
        try (SandboxMcpClient mcp = new SandboxMcpClient("memory")) {
            assertTrue(mcp.toolNames().containsAll(java.util.List.of("bash", "view", "write_file", "str_replace")),
                    mcp.toolNames().toString());
            mcp.call("write_file", Map.of("path", "notes.txt", "content", "todo: ship\n"));
            McpSchema.CallToolResult edit = mcp.call("str_replace", Map.of("path", "notes.txt",
                    "old_str", "todo", "new_str", "done"));
            assertTrue(!Boolean.TRUE.equals(edit.isError()), SandboxMcpClient.text(edit));
            String cat = SandboxMcpClient.text(mcp.call("bash", Map.of("command", "cat notes.txt")));
            assertTrue(cat.contains("done: ship"), cat);
            McpSchema.CallToolResult missing = mcp.call("view", Map.of("path", "nope.txt"));
            assertEquals(Boolean.TRUE, missing.isError());
            assertTrue(SandboxMcpClient.text(missing).contains("not_found"), SandboxMcpClient.text(missing));
        }
    }
}
