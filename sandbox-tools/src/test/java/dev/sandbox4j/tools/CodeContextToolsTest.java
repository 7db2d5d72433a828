package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.CodeResult;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Language;
import dev.sandbox4j.memory.MemorySandbox;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** create_code_context, run_code and destroy_code_context over scripted contexts (issue 13). */
class CodeContextToolsTest {
    MemorySandbox sandbox;
    SandboxTools tools;

    @BeforeEach
    void open() {
        sandbox = MemorySandbox.open()
                .onCode(Language.PYTHON, r -> ExecResult.of(0, "once " + r.code() + "\n", ""))
                .onContextCode(Language.PYTHON, (state, r) -> {
                    // "N" adds N to a running total and returns it; "png" returns a figure
                    if (r.code().equals("png")) {
                        return new CodeResult(CodeResult.Status.COMPLETED, r.language(), ExecResult.of(0, "", ""), "",
                                new byte[] {(byte) 0x89, 'P', 'N', 'G'});
                    }
                    long total = (Long) state.getOrDefault("total", 0L) + Long.parseLong(r.code());
                    state.put("total", total);
                    return new CodeResult(CodeResult.Status.COMPLETED, r.language(), ExecResult.of(0, "added\n", ""),
                            Long.toString(total), null);
                });
        tools = new SandboxTools(sandbox);
    }

    @AfterEach
    void close() {
        sandbox.close();
    }

    private ToolResult call(String tool, Object... kv) {
        Map<String, Object> args = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            args.put((String) kv[i], kv[i + 1]);
        }
        return tools.call(tool, args);
    }

    @Test
    void createRunDestroy_keepsStateAndEndsWithNotFound() {
        ToolResult created = call("create_code_context", "language", "python");
        assertThat(created.success()).as(created.toJson()).isTrue();
        String id = (String) created.get("context_id");
        assertThat(id).isNotBlank();
        assertThat(created.get("language")).isEqualTo("python");

        assertThat(call("run_code", "code", "40", "context_id", id).get("text")).isEqualTo("40");
        ToolResult second = call("run_code", "code", "2", "context_id", id, "timeout_s", 7, "language", "py");
        assertThat(second.success()).as(second.toJson()).isTrue();
        assertThat(second.get("text")).isEqualTo("42");
        assertThat(second.get("stdout")).isEqualTo("added\n");
        assertThat(second.get("status")).isEqualTo("completed");
        assertThat(second.get("context_id")).isEqualTo(id);

        ToolResult png = call("run_code", "code", "png", "context_id", id);
        assertThat(png.get("png")).isEqualTo(true);
        assertThat(png.images()).hasSize(1);
        assertThat(png.images().get(0).mimeType()).isEqualTo("image/png");

        ToolResult wrong = call("run_code", "code", "1", "context_id", id, "language", "javascript");
        assertThat(wrong.errorType()).isEqualTo("invalid_argument");

        ToolResult destroyed = call("destroy_code_context", "context_id", id);
        assertThat(destroyed.success()).as(destroyed.toJson()).isTrue();
        assertThat(sandbox.openContexts()).isEmpty();
        ToolResult after = call("run_code", "code", "1", "context_id", id);
        assertThat(after.errorType()).as(after.toJson()).isEqualTo("not_found");
        assertThat(call("destroy_code_context", "context_id", id).errorType()).isEqualTo("not_found");
    }

    @Test
    void runCode_withoutContext_runsOnce_andNeedsALanguage() {
        ToolResult once = call("run_code", "code", "print(1)", "language", "python", "timeout_s", 3);
        assertThat(once.success()).as(once.toJson()).isTrue();
        assertThat(once.get("stdout")).isEqualTo("once print(1)\n");
        assertThat(sandbox.codeRuns().get(0).timeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(call("run_code", "code", "1").errorType()).isEqualTo("invalid_argument");
        assertThat(call("run_code", "code", "1", "language", "javascript").errorType())
                .isEqualTo("unsupported_language");
        assertThat(call("create_code_context", "language", "javascript").errorType())
                .isEqualTo("unsupported_language");
    }

    @Test
    void contextTools_offTogetherWithRunCode() {
        SandboxTools off = new SandboxTools(sandbox, ToolConfig.builder().disable("run_code").build());
        assertThat(off.specs()).extracting(ToolSpec::name)
                .doesNotContain("create_code_context", "run_code", "destroy_code_context", "execute_code");
        assertThat(off.call("create_code_context", Map.of("language", "python")).errorType())
                .isEqualTo("unsupported");
        assertThat(sandbox.openContexts()).isEmpty();
    }
}
