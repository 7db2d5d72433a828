package com.example.agent;

import static dev.sandbox4j.testing.langchain4j.ScriptedChatModel.answer;
import static dev.sandbox4j.testing.langchain4j.ScriptedChatModel.toolCall;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandbox4j.memory.MemorySandbox;
import dev.sandbox4j.testing.langchain4j.ScriptedChatModel;
import org.junit.jupiter.api.Test;

/** The agent loop with a scripted model (no network) over an in-memory sandbox (no jail): milliseconds. */
class CodingAgentTest {
    @Test
    void theModelsToolCalls_runInTheSandbox() {
        try (MemorySandbox sandbox = MemorySandbox.open()) {
            ScriptedChatModel model = ScriptedChatModel.of(
                    toolCall("write_file", "{\"path\":\"hello.txt\",\"content\":\"hello from the agent\\n\"}"),
                    toolCall("bash", "{\"command\":\"cat hello.txt\"}"),
                    answer(turn -> "Done. cat printed: " + turn.lastToolResult()));

            String reply = CodingAgent.create(model, sandbox).chat("Write hello.txt and show it");

            model.assertScriptFinished();
            assertTrue(reply.startsWith("Done. cat printed: {\"success\":true"), reply);
            assertTrue(reply.contains("\"stdout\":\"hello from the agent\\n\""), reply);
            assertEquals("bash", model.toolResults().get(1).toolName());
            assertEquals("hello from the agent\n", sandbox.files().readText("hello.txt"));
            assertEquals("cat hello.txt", sandbox.commands().get(0).displayCommand());
        }
    }
}
