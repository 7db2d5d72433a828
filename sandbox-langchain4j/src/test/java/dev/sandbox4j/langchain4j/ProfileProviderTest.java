package dev.sandbox4j.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonArraySchema;
import dev.langchain4j.model.chat.request.json.JsonEnumSchema;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.sandbox4j.memory.MemorySandbox;
import dev.sandbox4j.tools.ToolConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A profile's tools through the LangChain4j provider: names, enumerated values, {key, value} arrays. */
class ProfileProviderTest {
    static ToolSpecification named(Map<ToolSpecification, ToolExecutor> tools, String name) {
        return tools.keySet().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void spacebotAndAgentbay_offerTheirSurface() {
        try (MemorySandbox sandbox = MemorySandbox.open()) {
            Map<ToolSpecification, ToolExecutor> spacebot = new SandboxToolProvider(sandbox,
                    ToolConfig.builder().profile("spacebot").build()).tools();
            assertThat(spacebot.keySet()).extracting(ToolSpecification::name).containsExactly("shell", "file", "exec",
                    "browser", "set_status", "read_skill");
            JsonArraySchema env = (JsonArraySchema) named(spacebot, "exec").parameters().properties().get("env");
            assertThat(((JsonObjectSchema) env.items()).required()).containsExactly("key", "value");
            JsonEnumSchema op = (JsonEnumSchema) named(spacebot, "file").parameters().properties().get("operation");
            assertThat(op.enumValues()).containsExactly("read", "write", "list");

            ToolSpecification exec = named(spacebot, "exec");
            String answer = spacebot.get(exec).execute(ToolExecutionRequest.builder().name("exec")
                    .arguments("{\"program\":\"echo\",\"args\":[\"hi\"],\"env\":[{\"key\":\"CI\",\"value\":\"1\"}]}")
                    .build(), null);
            assertThat(answer).contains("\"stdout\":\"hi\\n\"").contains("\"summary\"");

            Map<ToolSpecification, ToolExecutor> agentbay = new SandboxToolProvider(sandbox,
                    ToolConfig.builder().profile("agentbay").build()).tools();
            assertThat(agentbay.keySet()).extracting(ToolSpecification::name).contains("shell", "run_code",
                    "read_multiple_files").doesNotContain("bash", "view");
        }
    }

    /** The codex profile's model text is Codex's, not a JSON object (exec_command needs a registry: local). */
    @Test
    void codex_answersInCodexsText() {
        try (MemorySandbox sandbox = MemorySandbox.open()) {
            Map<ToolSpecification, ToolExecutor> codex = new SandboxToolProvider(sandbox,
                    ToolConfig.builder().profile("codex").build()).tools();
            assertThat(codex.keySet()).extracting(ToolSpecification::name)
                    .containsExactly("exec_command", "write_stdin", "apply_patch");
            String answer = codex.get(named(codex, "apply_patch")).execute(ToolExecutionRequest.builder()
                    .name("apply_patch").arguments("{\"input\":\"*** Begin Patch\\n*** Add File: a.txt\\n+hi\\n"
                            + "*** End Patch\"}").build(), null);
            assertThat(answer).isEqualTo("Success. Updated the following files:\nA a.txt\n");
            assertThat(sandbox.files().readText("a.txt")).isEqualTo("hi\n");
        }
    }
}
