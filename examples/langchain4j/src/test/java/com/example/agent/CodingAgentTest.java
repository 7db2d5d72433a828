package com.example.agent;

import static com.example.agent.ScriptedChatModel.answer;
import static com.example.agent.ScriptedChatModel.toolCall;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sandbox4j.memory.MemorySandbox;
import org.junit.jupiter.api.Test;

/** The agent loop with a scripted model (no network) over an in-memory sandbox (no jail): milliseconds. */
class CodingAgentTest {
    @Test
    void theModelsToolCalls_runInTheSandbox() {
        try (MemorySandbox sandbox = MemorySandbox.open()) {
            ScriptedChatModel model = new ScriptedChatModel(
                    toolCall("write_file", "{\"path\":\"hello.txt\",\"content\":\"hello from the agent\\n\"}"),
                    toolCall("bash", "{\"command\":\"cat hello.txt\"}"),
                    answer(lastToolResult -> "Done. cat printed: " + lastToolResult));

            String reply = CodingAgent.create(model, sandbox).chat("Write hello.txt and show it");

            assertTrue(reply.startsWith("Done. cat printed: {\"success\":true"), reply);
            assertTrue(reply.contains("\"stdout\":\"hello from the agent\\n\""), reply);
            assertEquals("hello from the agent\n", sandbox.files().readText("hello.txt"));
            assertEquals("cat hello.txt", sandbox.commands().get(0).displayCommand());
        }
    }
}
