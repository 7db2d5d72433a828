package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ExecResult;
import dev.sandbox4j.memory.MemorySandbox;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The plain-Java loop of docs/tools.md ("Plain Java: your own agent loop"), with a scripted model: the tools go out
 * as name, description and JSON schema text, the model's tool calls come back as JSON text, the results go back as
 * JSON text. Nothing here touches a JSON library.
 */
class PlainLoopExampleTest {
    /** A tool call as a model API returns it: a name and the arguments as JSON text. */
    record ModelToolCall(String name, String argumentsJson) {
    }

    @Test
    void loop_schemasOutAsText_callsInAsText_resultsOutAsText() {
        try (MemorySandbox sandbox = MemorySandbox.open()
                .onCommand("pytest -q", ExecResult.of(1, "1 failed, 2 passed\n", ""))) {
            SandboxTools tools = new SandboxTools(sandbox);
            List<String> offered = new ArrayList<>();
            for (ToolSpec spec : tools.specs()) {
                offered.add(spec.name() + " | " + spec.title() + " | " + spec.inputSchemaJson());
            }
            assertThat(offered).anySatisfy(o -> assertThat(o).startsWith(
                    "bash | Run shell command | {\"type\":\"object\",\"properties\":{\"command\":"));

            List<ModelToolCall> script = List.of(
                    new ModelToolCall("bash", "{\"command\": \"pytest -q\", \"timeout\": 300}"),
                    new ModelToolCall("write_file", "{\"path\": \"notes.md\", \"content\": \"1 test fails\\n\"}"),
                    new ModelToolCall("bash", "{\"command\": \"pytest -q\", \"timeout\": \"300\"}"),
                    new ModelToolCall("read_file", "{\"path\": \"notes.md\""));
            List<String> toTheModel = new ArrayList<>();
            for (ModelToolCall call : script) {
                toTheModel.add(tools.call(call.name(), call.argumentsJson()).toJson());
            }

            assertThat(toTheModel.get(0)).startsWith("{\"success\":true,").contains("\"exit_code\":1",
                    "1 failed, 2 passed");
            assertThat(toTheModel.get(1)).startsWith("{\"success\":true,").contains("\"bytes_written\":13");
            assertThat(sandbox.files().readText("notes.md")).isEqualTo("1 test fails\n");
            assertThat(toTheModel.get(2)).isEqualTo("{\"success\":false,\"error_type\":\"invalid_argument\","
                    + "\"message\":\"argument 'timeout' of bash must be an integer, got the string \\\"300\\\"\","
                    + "\"retryable\":false}");
            assertThat(toTheModel.get(3)).startsWith("{\"success\":false,\"error_type\":\"invalid_argument\","
                    + "\"message\":\"the arguments of read_file are not valid JSON: ");
            assertThat(sandbox.commands()).hasSize(1);
        }
    }
}
