package com.example.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.example.agent.AgentLoop.ToolCall;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.memory.MemorySandbox;
import dev.sandbox4j.tools.ToolConfig;
import dev.sandbox4j.tools.ToolResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The loop with a scripted model over an in-memory sandbox: files are real (in memory), commands are scripted. */
class AgentLoopTest {
    @Test
    void toolCalls_runInOrder_andErrorsAreResultsTheModelReads() {
        try (MemorySandbox sandbox = MemorySandbox.open()) {
            sandbox.onCommand("python3 greet.py", cmd -> ExecResult.of(0,
                    sandbox.files().readText("greet.py").contains("world") ? "hello, world\n" : "hello, wrold\n", ""));
            AgentLoop loop = new AgentLoop(sandbox, ToolConfig.defaults());

            List<ToolResult> results = loop.run(AgentLoop.scripted(List.of(
                    new ToolCall("write_file", Map.of("path", "greet.py", "content", "print('hello, wrold')\n")),
                    new ToolCall("bash", Map.of("command", "python3 greet.py")),
                    new ToolCall("str_replace", Map.of("path", "greet.py", "old_str", "wrold", "new_str", "world")),
                    new ToolCall("str_replace", Map.of("path", "greet.py", "old_str", "wrold", "new_str", "world")),
                    new ToolCall("bash", Map.of("command", "python3 greet.py")))), 10);

            assertEquals(5, results.size());
            assertEquals("hello, wrold\n", results.get(1).get("stdout"));
            assertTrue(results.get(2).success());
            assertFalse(results.get(3).success(), "the second replace finds nothing: a result, not an exception");
            assertEquals("no_match", results.get(3).errorType());
            assertEquals("hello, world\n", results.get(4).get("stdout"));
            assertEquals("print('hello, world')\n", sandbox.files().readText("greet.py"));
        }
    }

    @Test
    void theModelIsOfferedEachToolWithItsSchema() {
        try (MemorySandbox sandbox = MemorySandbox.open()) {
            AgentLoop loop = new AgentLoop(sandbox, ToolConfig.builder().readOnly(true).build());
            assertTrue(loop.toolsForTheModel().stream().anyMatch(t -> t.name().equals("view")));
            assertFalse(loop.toolsForTheModel().stream().anyMatch(t -> t.name().equals("bash")), "read-only");
            assertEquals("object", loop.toolsForTheModel().get(0).inputSchema().get("type"));
        }
    }
}
