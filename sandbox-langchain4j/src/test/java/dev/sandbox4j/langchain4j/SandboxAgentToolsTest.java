package dev.sandbox4j.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.agent.tool.ToolSpecifications;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.tool.DefaultToolExecutor;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.memory.MemorySandbox;
import dev.sandbox4j.tools.SandboxTools;
import dev.sandbox4j.tools.ToolConfig;
import dev.sandbox4j.tools.ToolParam;
import dev.sandbox4j.tools.ToolSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SandboxAgentToolsTest {
    static final ObjectMapper JSON = new ObjectMapper();
    MemorySandbox sandbox;

    @BeforeEach
    void open() {
        sandbox = MemorySandbox.open();
    }

    @AfterEach
    void close() {
        sandbox.close();
    }

    static Map<String, ToolSpecification> byName(List<ToolSpecification> specs) {
        return specs.stream().collect(Collectors.toMap(ToolSpecification::name, Function.identity()));
    }

    @Test
    void toolMethodSchemasUseTheCatalogsNamesAndRequiredFlags() throws Exception {
        Map<String, ToolSpecification> specs = byName(ToolSpecifications.toolSpecificationsFrom(
                new SandboxAgentTools(sandbox)));
        assertThat(specs).hasSize(28);
        for (ToolSpec tool : SandboxTools.allSpecs()) {
            ToolSpecification s = specs.get(tool.name());
            assertThat(s).as(tool.name()).isNotNull();
            JsonObjectSchema params = s.parameters();
            assertThat(params.properties().keySet()).as(tool.name())
                    .containsExactlyElementsOf(tool.params().stream().map(ToolParam::name).toList());
            assertThat(params.required() == null ? List.of() : params.required()).as(tool.name())
                    .containsExactlyInAnyOrderElementsOf(tool.params().stream().filter(ToolParam::required)
                            .map(ToolParam::name).toList());
            assertThat(s.description()).isNotBlank();
        }
        String editJson = specs.get("edit_file").parameters().properties().get("edits").toString();
        assertThat(editJson).contains("oldText", "newText");
    }

    private static String run(Object tools, String name, String args) throws Exception {
        ToolSpecification spec = byName(ToolSpecifications.toolSpecificationsFrom(tools)).get(name);
        var method = java.util.Arrays.stream(tools.getClass().getMethods())
                .filter(m -> m.isAnnotationPresent(dev.langchain4j.agent.tool.Tool.class)
                        && m.getAnnotation(dev.langchain4j.agent.tool.Tool.class).name().equals(spec.name()))
                .findFirst().orElseThrow();
        ToolExecutionRequest req = ToolExecutionRequest.builder().id("1").name(name).arguments(args).build();
        return new DefaultToolExecutor(tools, method).execute(req, "memory");
    }

    @Test
    void defaultToolExecutorRunsToolsAndReturnsStructuredJson() throws Exception {
        sandbox.onCommand("pytest -q", ExecResult.of(0, "3 passed\n", ""));
        SandboxAgentTools tools = new SandboxAgentTools(sandbox);
        JsonNode bash = JSON.readTree(run(tools, "bash", "{\"command\":\"pytest -q\",\"timeout\":30}"));
        assertThat(bash.get("success").asBoolean()).isTrue();
        assertThat(bash.get("stdout").asText()).isEqualTo("3 passed\n");
        assertThat(bash.get("exit_code").asInt()).isZero();

        run(tools, "write_file", "{\"path\":\"a.txt\",\"content\":\"x = 1\\nx = 1\\n\"}");
        JsonNode amb = JSON.readTree(run(tools, "str_replace",
                "{\"path\":\"a.txt\",\"old_str\":\"x = 1\",\"new_str\":\"y\"}"));
        assertThat(amb.get("success").asBoolean()).isFalse();
        assertThat(amb.get("error_type").asText()).isEqualTo("ambiguous_match");
        assertThat(amb.get("message").asText()).contains("2 matches");
        assertThat(amb.get("retryable").asBoolean()).isFalse();

        JsonNode edit = JSON.readTree(run(tools, "edit_file", "{\"path\":\"a.txt\",\"dryRun\":true,"
                + "\"edits\":[{\"oldText\":\"x = 1\\nx\",\"newText\":\"z\"}]}"));
        assertThat(edit.get("diff").asText()).contains("+z");
        assertThat(sandbox.files().readText("a.txt")).isEqualTo("x = 1\nx = 1\n");

        JsonNode env = JSON.readTree(run(tools, "exec", "{\"program\":\"true\",\"env\":{\"LD_PRELOAD\":\"x\"}}"));
        assertThat(env.get("error_type").asText()).isEqualTo("permission_denied");
        JsonNode view = JSON.readTree(run(tools, "view", "{\"path\":\"a.txt\",\"view_range\":[2,-1]}"));
        assertThat(view.get("content").asText()).isEqualTo("     2\tx = 1\n");
        JsonNode escape = JSON.readTree(run(tools, "read_file", "{\"path\":\"../../etc/passwd\"}"));
        assertThat(escape.get("error_type").asText()).isEqualTo("invalid_path");
        JsonNode missing = JSON.readTree(run(tools, "create_file", "{\"path\":\"b.txt\"}"));
        assertThat(missing.get("error_type").asText()).isEqualTo("invalid_argument");
    }

    @Test
    void toolProviderHonoursReadOnlyAndReturnsErrorsAsResults() throws Exception {
        SandboxToolProvider provider = new SandboxToolProvider(sandbox, ToolConfig.builder().readOnly(true)
                .build());
        Map<ToolSpecification, ToolExecutor> tools = provider.tools();
        assertThat(tools.keySet()).extracting(ToolSpecification::name).containsExactly("view", "read_file",
                "read_multiple_files", "list_directory", "get_file_info", "search_files", "grep", "watch_files",
                "poll_watch", "wait_for_file", "stop_watch", "workspace_changes");
        ToolSpecification grep = tools.keySet().stream().filter(s -> s.name().equals("grep")).findFirst()
                .orElseThrow();
        assertThat(grep.parameters().properties()).containsKeys("pattern", "include", "case_insensitive");
        assertThat(grep.parameters().required()).containsExactly("pattern");
        assertThat(grep.description()).contains("regular expression");
        sandbox.files().write("x.txt", "hello\n");
        ToolExecutor exec = tools.get(grep);
        String ok = exec.execute(ToolExecutionRequest.builder().name("grep").arguments("{\"pattern\":\"hel+\"}")
                .build(), null);
        assertThat(JSON.readTree(ok).get("matches").get(0).asText()).isEqualTo("x.txt:1: hello");
        String bad = exec.execute(ToolExecutionRequest.builder().name("grep").arguments("{not json").build(), null);
        assertThat(JSON.readTree(bad).get("error_type").asText()).isEqualTo("invalid_argument");
        String wrongType = exec.execute(ToolExecutionRequest.builder().name("grep")
                .arguments("{\"pattern\":\"x\",\"max_results\":\"many\"}").build(), null);
        assertThat(JSON.readTree(wrongType).get("message").asText()).contains("max_results", "integer");
        assertThat(new SandboxToolProvider(sandbox).tools()).hasSize(28);
    }

    interface Agent {
        String chat(String message);
    }

    /** A scripted model: asks for the given tool calls in turn, then answers with the last tool result. */
    static final class ScriptedModel implements ChatModel {
        final List<ToolExecutionRequest> calls;
        final List<ChatRequest> seen = new CopyOnWriteArrayList<>();
        int next;

        ScriptedModel(ToolExecutionRequest... calls) {
            this.calls = List.of(calls);
        }

        @Override
        public ChatResponse doChat(ChatRequest request) {
            seen.add(request);
            if (next < calls.size()) {
                return ChatResponse.builder().aiMessage(AiMessage.from(calls.get(next++))).build();
            }
            List<ChatMessage> messages = request.messages();
            ChatMessage last = messages.get(messages.size() - 1);
            String text = last instanceof ToolExecutionResultMessage r ? r.text() : "no tool result";
            return ChatResponse.builder().aiMessage(AiMessage.from(text)).build();
        }
    }

    static ToolExecutionRequest callOf(String id, String name, String args) {
        return ToolExecutionRequest.builder().id(id).name(name).arguments(args).build();
    }

    static String agentRun(Sandbox sandbox, boolean provider) throws Exception {
        ScriptedModel model = new ScriptedModel(
                callOf("1", "write_file", "{\"path\":\"hello.txt\",\"content\":\"hi there\\n\"}"),
                callOf("2", "str_replace", "{\"path\":\"hello.txt\",\"old_str\":\"hi\",\"new_str\":\"hello\"}"),
                callOf("3", "bash", "{\"command\":\"cat hello.txt\"}"));
        var builder = AiServices.builder(Agent.class).chatModel(model);
        Agent agent = provider ? builder.toolProvider(new SandboxToolProvider(sandbox)).build()
                : builder.tools(new SandboxAgentTools(sandbox)).build();
        String answer = agent.chat("say hello in a file");
        List<String> offered = model.seen.get(0).toolSpecifications().stream().map(ToolSpecification::name)
                .toList();
        assertThat(offered).contains("bash", "str_replace", "view", "grep");
        return answer;
    }

    @Test
    void aiServicesAgentDrivesTheToolsOnTheMemoryBackend() throws Exception {
        for (boolean provider : new boolean[] {false, true}) {
            try (MemorySandbox box = MemorySandbox.open()) {
                JsonNode last = JSON.readTree(agentRun(box, provider));
                assertThat(last.get("stdout").asText()).isEqualTo("hello there\n");
                assertThat(box.files().readText("hello.txt")).isEqualTo("hello there\n");
            }
        }
    }

}
