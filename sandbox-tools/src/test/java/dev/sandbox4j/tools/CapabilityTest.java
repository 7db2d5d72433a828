package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.Language;
import dev.sandbox4j.memory.MemorySandbox;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Tool switches by capability (issue 20): turning command execution off leaves no tool that executes. */
class CapabilityTest {
    /** Valid arguments for every tool, so a call that is offered really does its work. */
    static final Map<String, Map<String, Object>> ARGS = Map.ofEntries(
            Map.entry("bash", Map.of("command", "echo hi")),
            Map.entry("exec", Map.of("program", "echo", "args", List.of("hi"))),
            Map.entry("execute_code", Map.of("language", "python", "code", "print(1)")),
            Map.entry("view", Map.of("path", "a.txt")),
            Map.entry("read_file", Map.of("path", "a.txt")),
            Map.entry("read_multiple_files", Map.of("paths", List.of("a.txt"))),
            Map.entry("write_file", Map.of("path", "w.txt", "content", "x")),
            Map.entry("create_file", Map.of("path", "c.txt", "content", "x")),
            Map.entry("str_replace", Map.of("path", "a.txt", "old_str", "one", "new_str", "uno")),
            Map.entry("edit_file", Map.of("path", "a.txt", "edits", List.of(Map.of("oldText", "two",
                    "newText", "dos")))),
            Map.entry("create_directory", Map.of("path", "d")),
            Map.entry("list_directory", Map.of("path", ".")),
            Map.entry("get_file_info", Map.of("path", "a.txt")),
            Map.entry("move_file", Map.of("source", "m.txt", "destination", "m2.txt")),
            Map.entry("search_files", Map.of("path", ".", "pattern", "*.txt")),
            Map.entry("grep", Map.of("pattern", "one")),
            Map.entry("watch_files", Map.of("path", ".")),
            Map.entry("poll_watch", Map.of("watch_id", "w1")),
            Map.entry("wait_for_file", Map.of("path", "a.txt", "timeout_ms", 1000)),
            Map.entry("stop_watch", Map.of("watch_id", "w1")),
            Map.entry("workspace_changes", Map.of("diff", true)),
            Map.entry("create_code_context", Map.of("language", "python")),
            Map.entry("run_code", Map.of("language", "python", "code", "print(1)")),
            Map.entry("destroy_code_context", Map.of("context_id", "ctx-1")),
            Map.entry("start_terminal", Map.of("command", "bash")),
            Map.entry("send_keys", Map.of("terminal_id", "1000", "keys", "ls\n")),
            Map.entry("read_terminal", Map.of("terminal_id", "1000")));

    @Test
    void everyToolHasACapabilityAndTheMappingIsTheDocumentedOne() {
        Map<String, Capability> byTool = SandboxTools.allSpecs().stream()
                .collect(Collectors.toMap(ToolSpec::name, ToolSpec::capability));
        assertThat(byTool.keySet()).containsExactlyInAnyOrderElementsOf(ARGS.keySet());
        assertThat(byTool).containsEntry("bash", Capability.RUN_COMMANDS).containsEntry("exec",
                Capability.RUN_COMMANDS).containsEntry("execute_code", Capability.RUN_CODE)
                .containsEntry("create_code_context", Capability.RUN_CODE).containsEntry("run_code", Capability.RUN_CODE)
                .containsEntry("destroy_code_context", Capability.RUN_CODE)
                .containsEntry("start_terminal", Capability.RUN_COMMANDS)
                .containsEntry("send_keys", Capability.RUN_COMMANDS)
                .containsEntry("read_terminal", Capability.RUN_COMMANDS);
        assertThat(SandboxTools.allSpecs()).filteredOn(ToolSpec::readOnly).extracting(ToolSpec::name)
                .containsExactly("view", "read_file", "read_multiple_files", "list_directory", "get_file_info",
                        "search_files", "grep", "watch_files", "poll_watch", "wait_for_file", "stop_watch",
                        "workspace_changes");
    }

    /** Each way of switching execution off; after it, calling every tool runs nothing in the sandbox. */
    @ParameterizedTest
    @ValueSource(strings = {"bash,exec", "bash", "exec", "execute_code", "run_commands", "run_code"})
    void switchingExecutionOffLeavesNoExecutingTool(String disable) {
        ToolConfig config = ToolConfig.builder().disable(disable.split(",")).build();
        List<String> offered = SandboxTools.specs(config).stream().map(ToolSpec::name).toList();
        assertThat(offered).doesNotContain("bash", "exec", "execute_code", "create_code_context", "run_code",
                        "destroy_code_context", "start_terminal", "send_keys", "read_terminal")
                .contains("view", "write_file", "str_replace");
        try (MemorySandbox sandbox = MemorySandbox.open()) {
            sandbox.onCode(Language.PYTHON, request -> dev.sandbox4j.ExecResult.of(0, "1\n", ""));
            sandbox.files().write("a.txt", "one\ntwo\n");
            sandbox.files().write("m.txt", "m");
            SandboxTools tools = new SandboxTools(sandbox, config);
            // in catalog order: watch_files makes the watch w1 that poll_watch and stop_watch use
            for (ToolSpec spec : SandboxTools.allSpecs()) {
                String tool = spec.name();
                ToolResult r = tools.call(tool, new HashMap<>(ARGS.get(tool)));
                if (!offered.contains(tool)) {
                    assertThat(r.errorType()).as(tool + ": " + r.toJson()).isEqualTo("unsupported");
                    assertThat((String) r.get("message")).contains("switched off");
                } else if (tool.equals("workspace_changes")) {
                    // offered, and answering for itself: an empty workspace has no change set
                    assertThat(r.errorType()).as(r.toJson()).isEqualTo("unsupported");
                    assertThat((String) r.get("message")).doesNotContain("switched off");
                } else {
                    assertThat(r.success()).as(tool + ": " + r.toJson()).isTrue();
                }
            }
            assertThat(sandbox.commands()).isEmpty();
            assertThat(sandbox.codeRuns()).isEmpty();
        }
    }

    @Test
    void writingOffIsTheReadOnlySetAndReadingOffLeavesNothing() {
        List<String> readOnly = SandboxTools.specs(ToolConfig.builder().readOnly(true).build()).stream()
                .map(ToolSpec::name).toList();
        assertThat(SandboxTools.specs(ToolConfig.builder().disable(Capability.WRITE_FILES).build()))
                .extracting(ToolSpec::name).containsExactlyElementsOf(readOnly);
        assertThat(SandboxTools.specs(ToolConfig.builder().disable("write_file").build()))
                .extracting(ToolSpec::name).containsExactlyElementsOf(readOnly);
        assertThat(SandboxTools.specs(ToolConfig.builder().disable("read_files").build())).isEmpty();
        assertThat(ToolConfig.builder().disable("bash").build().disabledCapabilities())
                .containsExactly(Capability.RUN_COMMANDS);
    }

    @Test
    void anUnknownNameIsRefusedNotIgnored() {
        assertThatThrownBy(() -> ToolConfig.builder().disable("bsah")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bsah").hasMessageContaining("run_commands");
    }
}
