package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.WorkspaceSource;
import dev.sandbox4j.memory.MemorySandbox;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code workspace_changes} (issue 35): the model reads its own change set, as the user will review it. */
class WorkspaceChangesToolTest {
    @TempDir
    Path repo;

    @Test
    @SuppressWarnings("unchecked")
    void listsWhatTheModelChanged_withTheDiffWhenAsked() throws Exception {
        Files.writeString(repo.resolve("README.md"), "one\ntwo\n");
        Files.writeString(repo.resolve("old.txt"), "bye\n");
        try (MemorySandbox s = MemorySandbox.open(SandboxSpec.builder().workspace(WorkspaceSource.overlayOf(repo))
                .build())) {
            SandboxTools tools = new SandboxTools(s, ToolConfig.defaults());
            assertThat(tools.call("str_replace", Map.of("path", "README.md", "old_str", "two", "new_str", "TWO"))
                    .success()).isTrue();
            assertThat(tools.call("write_file", Map.of("path", "src/new.txt", "content", "new\n")).success()).isTrue();
            s.files().delete("old.txt");
            ToolResult plain = tools.call("workspace_changes", Map.of());
            assertThat(plain.success()).as(plain.toJson()).isTrue();
            assertThat(plain.get("count")).isEqualTo(4);
            assertThat((List<Map<String, Object>>) plain.get("changes")).extracting(m -> m.get("path") + " "
                    + m.get("kind") + " " + m.get("type")).containsExactly("README.md modified file",
                    "old.txt deleted file", "src created directory", "src/new.txt created file");
            assertThat(plain.get("diff")).as("only when asked").isNull();
            assertThat(plain.get("source")).isEqualTo("overlay:" + repo);
            ToolResult withDiff = tools.call("workspace_changes", Map.of("diff", true));
            assertThat((String) withDiff.get("diff")).contains("-two\n+TWO\n", "+++ b/src/new.txt");
            assertThat(withDiff.get("truncated")).isEqualTo(false);
            assertThat(Files.readString(repo.resolve("README.md"))).as("the host is untouched").isEqualTo("one\ntwo\n");
        }
    }

    @Test
    void anEmptyWorkspace_hasNoChangeSet_typed() {
        try (MemorySandbox s = MemorySandbox.open()) {
            ToolResult r = new SandboxTools(s, ToolConfig.defaults()).call("workspace_changes", Map.of());
            assertThat(r.errorType()).isEqualTo("unsupported");
        }
    }
}
