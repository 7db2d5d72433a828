package com.example.agent;

import static dev.sandbox4j.testing.springai.ScriptedChatModel.answer;
import static dev.sandbox4j.testing.springai.ScriptedChatModel.toolCall;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.spring.SandboxFactory;
import dev.sandbox4j.testing.springai.ScriptedChatModel;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.web.client.RestClient;

/**
 * The application over HTTP, with a scripted model instead of OpenAI (no network, no key) and in-memory sandboxes
 * instead of jails: the ChatClient's real tool loop calls the sandbox tools, which write and read a file.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "sandbox4j.backend=memory",
        "spring.ai.model.chat=none",          // our ChatModel bean instead of OpenAI's
        "spring.ai.openai.api-key=unused"})
class AgentControllerTest {
    @TestConfiguration
    static class Model {
        @Bean
        ScriptedChatModel chatModel() {
            return ScriptedChatModel.of(
                    toolCall("write_file", "{\"path\":\"notes/plan.md\",\"content\":\"1. test\\n2. ship\\n\"}"),
                    toolCall("bash", "{\"command\":\"cat notes/plan.md\"}"),
                    answer(turn -> "The plan file says: " + turn.lastToolResult()));
        }
    }

    @Autowired
    Environment environment;

    @Autowired
    SandboxFactory sandboxes;

    @Autowired
    ScriptedChatModel model;

    @Test
    void aTask_runsTheToolLoopInTheConversationsSandbox() {
        RestClient http = RestClient.create("http://localhost:" + environment.getProperty("local.server.port"));

        String reply = http.post().uri("/agent/c1").body("Write a two-step plan to notes/plan.md and show it")
                .retrieve().body(String.class);

        assertThat(reply).startsWith("The plan file says: {\"success\":true")
                .contains("\"stdout\":\"1. test\\n2. ship\\n\"");
        assertThat(sandboxes.openSandboxes()).as("conversation c1's sandbox, kept for its next task").isEqualTo(1);
        model.assertScriptFinished();
        assertThat(model.toolResults()).extracting(r -> r.name()).containsExactly("write_file", "bash");
    }
}
