package dev.sandbox4j.spring;

import static dev.sandbox4j.spring.ScriptedChatModel.answer;
import static dev.sandbox4j.spring.ScriptedChatModel.lastToolResponse;
import static dev.sandbox4j.spring.ScriptedChatModel.toolCall;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.Sandbox;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * A real Spring Boot application (auto-configuration, properties, Micrometer) whose Spring AI {@link ChatClient}
 * talks to a scripted model that makes real tool calls into real local (bubblewrap) sandboxes.
 */
class SpringAiLocalSandboxTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        ScriptedChatModel chatModel() {
            return new ScriptedChatModel(List.of(
                    // conversation c1
                    toolCall("write_file", "{\"path\":\"hello.py\",\"content\":\"print('hello from', __name__)\\n\"}"),
                    toolCall("bash", "{\"command\":\"python3 hello.py\"}"),
                    answer(m -> "ran it: " + lastToolResponse(m)),
                    // conversation c2: its own sandbox, so c1's file is not there
                    toolCall("view", "{\"path\":\"hello.py\"}"),
                    answer(m -> "c2 saw: " + lastToolResponse(m)),
                    // c1 again: its sandbox and file are still there; a command that runs out of time
                    toolCall("bash", "{\"command\":\"cat hello.py; sleep 30\",\"timeout\":1}"),
                    answer(m -> "slow: " + lastToolResponse(m)),
                    // c3: a code context (issue 26: the starter's decorator used to refuse them), two cells
                    toolCall("create_code_context", "{\"language\":\"python\"}"),
                    m -> toolCall("run_code", "{\"context_id\":\"" + contextId(m)
                            + "\",\"code\":\"import math\\nanswer = math.factorial(5)\"}").apply(m),
                    m -> toolCall("run_code", "{\"context_id\":\"" + contextId(m)
                            + "\",\"code\":\"answer + 1\"}").apply(m),
                    answer(m -> "cell: " + lastToolResponse(m))));
        }

        /** The context id the conversation's create_code_context returned. */
        static String contextId(List<org.springframework.ai.chat.messages.Message> messages) {
            for (org.springframework.ai.chat.messages.Message m : messages) {
                if (m instanceof org.springframework.ai.chat.messages.ToolResponseMessage t) {
                    for (var r : t.getResponses()) {
                        if (r.name().equals("create_code_context")) {
                            try {
                                return JSON.readTree(r.responseData()).get("context_id").asText();
                            } catch (Exception e) {
                                throw new AssertionError(r.responseData(), e);
                            }
                        }
                    }
                }
            }
            throw new AssertionError("no create_code_context response in " + messages);
        }
    }

    static ConfigurableApplicationContext start(String... properties) {
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
                .properties("sandbox4j.backend=local", "spring.main.banner-mode=off")
                .properties(properties).run();
    }

    static String ask(ChatClient client, SandboxToolCallbacks tools, String conversation, String question) {
        return client.prompt().user(question).tools(tools)
                .toolContext(Map.of(ChatMemory.CONVERSATION_ID, conversation)).call().content();
    }

    static JsonNode json(String answer, String prefix) throws Exception {
        assertThat(answer).startsWith(prefix);
        return JSON.readTree(answer.substring(prefix.length()));
    }

    @Test
    void chatClientRunsToolsInARealJailPerConversation() throws Exception {
        Backends.requireOrSkip("local");
        ConfigurableApplicationContext ctx = start();
        SandboxFactory factory = ctx.getBean(SandboxFactory.class);
        try {
            ScriptedChatModel model = ctx.getBean(ScriptedChatModel.class);
            SandboxToolCallbacks tools = ctx.getBean(SandboxToolCallbacks.class);
            SandboxSessions sessions = ctx.getBean(SandboxSessions.class);
            MeterRegistry registry = ctx.getBean(MeterRegistry.class);
            ChatClient client = ChatClient.builder(ctx.getBean(ChatModel.class)).build();

            JsonNode ran = json(ask(client, tools, "c1", "write hello.py and run it"), "ran it: ");
            assertThat(ran.get("success").asBoolean()).isTrue();
            assertThat(ran.get("status").asText()).isEqualTo("completed");
            assertThat(ran.get("exit_code").asInt()).isZero();
            assertThat(ran.get("stdout").asText()).isEqualTo("hello from __main__\n");

            // the model was offered the whole sandbox-tools catalogue, with its strict schemas
            List<String> names = model.toolsSeen.get(0).stream().map(ToolDefinition::name).toList();
            assertThat(names).containsExactlyElementsOf(dev.sandbox4j.tools.SandboxTools.specs(
                    dev.sandbox4j.tools.ToolConfig.defaults()).stream().map(dev.sandbox4j.tools.ToolSpec::name)
                    .toList());
            assertThat(names).contains("bash", "exec", "execute_code", "view", "write_file", "str_replace", "grep");
            JsonNode bashSchema = JSON.readTree(model.toolsSeen.get(0).stream()
                    .filter(d -> d.name().equals("bash")).findFirst().orElseThrow().inputSchema());
            assertThat(bashSchema.get("required").toString()).isEqualTo("[\"command\"]");
            assertThat(bashSchema.get("additionalProperties").asBoolean()).isFalse();

            JsonNode c2 = json(ask(client, tools, "c2", "show hello.py"), "c2 saw: ");
            assertThat(c2.get("success").asBoolean()).isFalse();
            assertThat(c2.get("error_type").asText()).isEqualTo("not_found");
            assertThat(sessions.keys()).containsExactly("conversation:c1", "conversation:c2");
            assertThat(factory.openSandboxes()).isEqualTo(2);
            assertThat(registry.get("sandbox4j.sandboxes.open").gauge().value()).isEqualTo(2.0);

            JsonNode slow = json(ask(client, tools, "c1", "run the slow one"), "slow: ");
            assertThat(slow.get("status").asText()).isEqualTo("timeout");
            assertThat(slow.get("stdout").asText()).isEqualTo("print('hello from', __name__)\n");

            // metrics: latency by backend, kind and status; the timeout counted
            assertThat(registry.get("sandbox4j.commands").tags("backend", "local", "kind", "shell", "status",
                    "completed").timer().count()).isEqualTo(1);
            assertThat(registry.get("sandbox4j.commands").tags("status", "timeout").timer().count()).isEqualTo(1);
            assertThat(registry.get("sandbox4j.commands.timeouts").tags("backend", "local").counter().count())
                    .isEqualTo(1.0);
            assertThat(registry.get("sandbox4j.sandboxes.opened").tags("backend", "local").counter().count())
                    .isEqualTo(2.0);

            // a killed command counts as a kill (a sandbox from the factory bean, outside the tools)
            try (Sandbox own = factory.open()) {
                ExecResult killed = own.shell().start(ExecRequest.shell("sleep 30")).kill();
                assertThat(killed.status()).isEqualTo(ExecStatus.KILLED);
                assertThat(factory.openSandboxes()).isEqualTo(3);
            }
            assertThat(registry.get("sandbox4j.commands.kills").tags("backend", "local").counter().count())
                    .isEqualTo(1.0);

            Health health = ctx.getBean("sandbox4jHealthIndicator", HealthIndicator.class).health(true);
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("backend", "local").containsEntry("openSandboxes", 2)
                    .containsEntry("sessionSandboxes", 2);

            assertThat(sessions.close("conversation:c2")).isTrue();
            assertThat(factory.openSandboxes()).isEqualTo(1);

            // code contexts work through the starter's sandboxes and the Spring AI tools (issue 26)
            JsonNode cell = json(ask(client, tools, "c3", "compute in a notebook"), "cell: ");
            assertThat(cell.get("success").asBoolean()).as(cell.toString()).isTrue();
            assertThat(cell.get("text").asText()).isEqualTo("121");
            assertThat(registry.get("sandbox4j.commands").tags("backend", "local", "kind", "code", "status",
                    "completed").timer().count()).isEqualTo(2);
        } finally {
            ctx.close();
        }
        // closing the context closed every sandbox it opened
        assertThat(factory.openSandboxes()).isZero();
    }
}
