package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.FileRules;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.memory.MemorySandbox;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Spacebot's set_status and read_skill, and its file rules, on the in-memory backend (the tools' logic); the local
 * jail's read-only skills mount is in {@link SpacebotSkillsMountTest}.
 */
class SpacebotToolsTest {
    static final String WEATHER = "---\nname: Weather\ndescription: \"Get the weather\"\n---\n\n# Weather\n"
            + "Run {baseDir}/scripts/wttr.sh CITY.\n";

    private static SandboxTools spacebot(Sandbox s) {
        return new SandboxTools(s, ToolConfig.builder().profile("spacebot").build());
    }

    @Test
    void profile_carriesItsToolsAndTheIdentityFileRule_asTheTestDataSays() throws Exception {
        JsonNode data = ProfileSchemaTest.published(ToolProfile.SPACEBOT);
        ToolConfig c = ToolConfig.builder().profile("spacebot").build();
        assertThat(SandboxTools.specs(c)).extracting(ToolSpec::name).containsSubsequence("shell", "file", "exec",
                "set_status", "read_skill");
        assertThat(c.fileRules().protectedPaths()).containsExactlyElementsOf(ProfileSchemaTest.names(
                data.get("protected_paths")));
        assertThat(c.fileRules().refuseSymlinks()).isEqualTo(data.get("refuse_symlinks").asBoolean());
        assertThat(ToolConfig.builder().profile("coding").build().fileRules()).isEqualTo(FileRules.NONE);
        assertThat(ToolConfig.builder().profile("spacebot").fileRules(FileRules.NONE).build().fileRules())
                .as("a profile's rules can be replaced").isEqualTo(FileRules.NONE);
    }

    @Test
    void fileTool_readsIdentityFiles_butNeverChangesThem() {
        try (MemorySandbox s = MemorySandbox.open(SandboxSpec.builder().file("SOUL.md", "I am\n")
                .file("notes/USER.md", "user\n").build())) {
            SandboxTools t = spacebot(s);
            assertThat(t.call("file", Map.of("operation", "read", "path", "SOUL.md")).get("content"))
                    .isEqualTo("I am\n");
            for (String path : List.of("SOUL.md", "./soul.md", "/workspace/IDENTITY.md", "notes/../USER.md")) {
                ToolResult r = t.call("file", Map.of("operation", "write", "path", path, "content", "x"));
                assertThat(r.errorType()).as(path).isEqualTo("permission_denied");
                assertThat((String) r.get("error")).as(path).contains("protected");
            }
            assertThat(s.files().readText("SOUL.md")).isEqualTo("I am\n");
            assertThat(s.files().exists("IDENTITY.md")).isFalse();
            assertThat(t.call("file", Map.of("operation", "write", "path", "notes.txt", "content", "x")).success())
                    .isTrue();
            assertThat(t.call("file", Map.of("operation", "write", "path", "notes/USER.md", "content", "x"))
                    .success()).as("the identity files are the workspace root's").isTrue();
            s.files().write("SOUL.md", "the host's own API is not the tools'\n");
            assertThat(s.files().readText("SOUL.md")).startsWith("the host's own");
        }
    }

    @Test
    void setStatus_keepsOneBoundedLinePerWorker_andTellsListeners() throws Exception {
        StatusBoard board = new StatusBoard();
        List<StatusBoard.Status> heard = new ArrayList<>();
        try (MemorySandbox s = MemorySandbox.open(); AutoCloseable sub = board.subscribe(heard::add)) {
            SandboxTools t = new SandboxTools(s, ToolConfig.builder().profile("spacebot").statusBoard(board).build());
            ToolResult r = t.call("set_status", Map.of("status", "  cloning the repo\nstep 1/3\u0007  "));
            assertThat(r.fields()).containsExactly(Map.entry("success", true), Map.entry("worker_id", s.id()),
                    Map.entry("status", "cloning the repo step 1/3"));
            String longer = "word ".repeat(100);
            ToolResult cut = t.call("set_status", Map.of("status", longer));
            String kept = (String) cut.get("status");
            assertThat(kept).hasSizeLessThanOrEqualTo(StatusBoard.MAX_CHARS).endsWith("word...");
            assertThat(board.get(s.id()).orElseThrow().status()).isEqualTo(kept);
            assertThat(board.get(s.id()).orElseThrow().truncated()).isTrue();
            assertThat(heard).extracting(StatusBoard.Status::status).containsExactly("cloning the repo step 1/3",
                    kept);
            assertThat(board.all()).hasSize(1);
            assertThat(t.call("set_status", Map.of("status", "  ")).errorType()).isEqualTo("invalid_argument");
            assertThat(t.call("set_status", Map.of()).errorType()).isEqualTo("invalid_argument");
            assertThat(board.all()).hasSize(1);
        }
    }

    @Test
    void statusBoard_cutsAtASpaceNeverInsideASurrogatePair_andForgets() {
        StatusBoard board = new StatusBoard();
        String emoji = "\uD83D\uDE00".repeat(200);
        String kept = board.set("w", emoji).status();
        assertThat(kept).hasSizeLessThanOrEqualTo(StatusBoard.MAX_CHARS).endsWith("...");
        assertThat(Character.isHighSurrogate(kept.charAt(kept.length() - 4))).isFalse();
        assertThat(board.set("w", "x".repeat(256)).truncated()).isFalse();
        board.remove("w");
        assertThat(board.get("w")).isEmpty();
    }

    @Test
    void readSkill_byDirectoryOrDeclaredName_withBaseDirResolved() {
        try (MemorySandbox s = MemorySandbox.open(SandboxSpec.builder()
                .file("skills/weather/SKILL.md", WEATHER).file("skills/weather/scripts/wttr.sh", "echo sun\n")
                .file("skills/gh-tool/SKILL.md", "---\nname: 'github'\n---\nUse gh.\n")
                .file("skills/plain/SKILL.md", "No frontmatter, {baseDir}.\n")
                .file("skills/broken/SKILL.md", "---\nname: broken\nno end\n")
                .file("skills/not-a-skill/README.md", "x\n").build())) {
            SandboxTools t = spacebot(s);
            ToolResult w = t.call("read_skill", Map.of("name", "WEATHER"));
            assertThat(w.fields()).containsExactly(Map.entry("success", true), Map.entry("content",
                    "# Weather\nRun /workspace/skills/weather/scripts/wttr.sh CITY.\n"),
                    Map.entry("base_path", "/workspace/skills/weather"));
            assertThat(t.call("read_skill", Map.of("name", "GitHub")).get("base_path"))
                    .isEqualTo("/workspace/skills/gh-tool");
            assertThat(t.call("read_skill", Map.of("name", "plain")).get("content"))
                    .isEqualTo("No frontmatter, /workspace/skills/plain.\n");
            assertThat(t.call("read_skill", Map.of("name", "broken")).errorType()).isEqualTo("invalid_argument");
            ToolResult missing = t.call("read_skill", Map.of("name", "not-a-skill"));
            assertThat(missing.errorType()).isEqualTo("not_found");
            assertThat((String) missing.get("message")).contains("installed: broken, github, plain, Weather");
            for (String bad : List.of("../SOUL", "weather/SKILL.md", ".", "")) {
                assertThat(t.call("read_skill", Map.of("name", bad)).errorType()).as(bad)
                        .isEqualTo("invalid_argument");
            }
        }
        try (MemorySandbox s = MemorySandbox.open()) {
            ToolResult none = spacebot(s).call("read_skill", Map.of("name", "weather"));
            assertThat(none.errorType()).isEqualTo("not_found");
            assertThat((String) none.get("message")).contains("no skills are installed");
        }
    }

    /** What the file rules are not: code in the sandbox still changes a protected file (documented). */
    static void shellStillWrites(Sandbox s) {
        ExecResult r = s.shell().run("echo changed > SOUL.md && cat SOUL.md");
        assertThat(r.stdout()).isEqualTo("changed\n");
    }
}
