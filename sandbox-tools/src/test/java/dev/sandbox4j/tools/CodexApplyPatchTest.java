package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.FileInfo;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.memory.MemorySandbox;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The codex profile's {@code apply_patch} against Codex's own scenario fixtures ({@code src/test/resources/codex},
 * from openai/codex): the files before, the patch, the files after compared whole (files and directories), on
 * memory, a local jail and Docker. Then the refusals: nothing changes when any hunk fails, and a hunk that does not
 * match names the nearest lines.
 */
class CodexApplyPatchTest {
    static final Map<String, Sandbox> OPEN = new HashMap<>();

    static Sandbox sandbox(String backend) {
        return OPEN.computeIfAbsent(backend, b -> b.equals("memory") ? MemorySandbox.open() : Backends.open(b));
    }

    @AfterAll
    static void closeAll() {
        OPEN.values().forEach(Sandbox::close);
        OPEN.clear();
    }

    static Path scenarios() {
        try {
            URL index = CodexApplyPatchTest.class.getResource("/codex/apply_patch/scenarios/index.txt");
            return Path.of(index.toURI()).getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static Stream<Arguments> cases() throws IOException {
        List<Arguments> out = new ArrayList<>();
        for (String backend : List.of("memory", "local", "docker")) {
            for (String s : Files.readAllLines(scenarios().resolve("index.txt"))) {
                if (!s.isBlank()) {
                    out.add(Arguments.of(backend, s));
                }
            }
        }
        return out.stream();
    }

    /** Files (path to text) and directories (path to null) under a directory of the host. */
    static Map<String, String> hostTree(Path root) throws IOException {
        Map<String, String> tree = new TreeMap<>();
        if (!Files.isDirectory(root)) {
            return tree;
        }
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                if (p.equals(root)) {
                    continue;
                }
                String rel = root.relativize(p).toString();
                tree.put(rel, Files.isDirectory(p) ? null : Files.readString(p, StandardCharsets.UTF_8));
            }
        }
        return tree;
    }

    static Map<String, String> workspaceTree(Sandbox sandbox) {
        Map<String, String> tree = new TreeMap<>();
        for (FileInfo f : sandbox.files().list(".", 20)) {
            tree.put(f.path(), f.isDirectory() ? null : sandbox.files().readText(f.path()));
        }
        return tree;
    }

    static void reset(Sandbox sandbox, Map<String, String> input) {
        for (FileInfo f : sandbox.files().list(".")) {
            sandbox.files().deleteRecursively(f.path());
        }
        input.forEach((path, text) -> {
            if (text != null) {
                sandbox.files().write(path, text);
            }
        });
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void codexScenario_endsWithTheExpectedTree(String backend, String scenario) throws IOException {
        Sandbox sandbox = sandbox(backend);
        Path dir = scenarios().resolve(scenario);
        reset(sandbox, hostTree(dir.resolve("input")));
        SandboxTools t = new SandboxTools(sandbox, ToolConfig.builder().profile("codex").build());
        ToolResult r = t.call("apply_patch", Map.of("input", Files.readString(dir.resolve("patch.txt"))));

        Map<String, String> expected = hostTree(dir.resolve("expected"));
        if (scenario.startsWith("015_")) {
            // Codex keeps the Add File hunk applied before the failing update; sandbox4j changes nothing
            expected = hostTree(dir.resolve("input"));
        }
        assertThat(workspaceTree(sandbox)).as(scenario + " on " + backend + ": " + r.toJson())
                .isEqualTo(expected);
        boolean rejects = scenario.matches("0(0[5-9]|1[235])_.*");
        assertThat(r.success()).as(r.toJson()).isEqualTo(!rejects);
        if (!rejects) {
            assertThat((String) r.get("content")).startsWith("Success. Updated the following files:\n");
        }
    }

    SandboxTools memoryTools(MemorySandbox sandbox) {
        return new SandboxTools(sandbox, ToolConfig.builder().profile("codex").build());
    }

    @Test
    void successText_listsAddedModifiedDeleted_asCodexPrintsThem() {
        try (MemorySandbox sandbox = MemorySandbox.open()) {
            sandbox.files().write("modify.txt", "line1\nline2\n");
            sandbox.files().write("delete.txt", "x\n");
            ToolResult r = memoryTools(sandbox).call("apply_patch", Map.of("input", "*** Begin Patch\n"
                    + "*** Add File: nested/new.txt\n+created\n*** Delete File: delete.txt\n"
                    + "*** Update File: modify.txt\n@@\n-line2\n+changed\n*** End Patch"));
            assertThat(r.get("content")).isEqualTo("Success. Updated the following files:\nA nested/new.txt\n"
                    + "M modify.txt\nD delete.txt\n");
        }
    }

    @Test
    void failingHunk_changesNothing_andNamesTheNearestLines() {
        try (MemorySandbox sandbox = MemorySandbox.open()) {
            sandbox.files().write("a.py", "def f():\n    return  1\n");
            sandbox.files().write("b.txt", "keep\n");
            ToolResult r = memoryTools(sandbox).call("apply_patch", Map.of("input", "*** Begin Patch\n"
                    + "*** Update File: b.txt\n@@\n-keep\n+changed\n*** Add File: c.txt\n+new\n"
                    + "*** Update File: a.py\n@@\n-    return 2\n+    return 3\n*** End Patch"));
            assertThat(r.success()).isFalse();
            assertThat(r.errorType()).isEqualTo("no_match");
            assertThat((String) r.get("message")).startsWith("Failed to find expected lines in a.py:\n    return 2")
                    .contains("line 2");
            assertThat(r.get("nearest_line")).isEqualTo(2);
            assertThat(sandbox.files().readText("b.txt")).isEqualTo("keep\n");
            assertThat(sandbox.files().exists("c.txt")).isFalse();
        }
    }

    @Test
    void parseErrors_areCodexsTexts_andPathRefusalsAreTheFileApis() {
        try (MemorySandbox sandbox = MemorySandbox.open()) {
            SandboxTools t = memoryTools(sandbox);
            ToolResult bad = t.call("apply_patch", Map.of("input", "*** Begin Patch\n*** Frobnicate File: foo\n"
                    + "*** End Patch"));
            assertThat(bad.get("message")).isEqualTo("apply_patch verification failed: invalid hunk at line 2,"
                    + " '*** Frobnicate File: foo' is not a valid hunk header. Valid hunk headers: '*** Add File:"
                    + " {path}', '*** Delete File: {path}', '*** Update File: {path}'");
            assertThat(bad.errorType()).isEqualTo("invalid_argument");
            ToolResult first = t.call("apply_patch", Map.of("input", "bad"));
            assertThat(first.get("message")).isEqualTo("apply_patch verification failed: invalid patch: The first"
                    + " line of the patch must be '*** Begin Patch'");
            ToolResult heredoc = t.call("apply_patch", Map.of("input", "<<'EOF'\n*** Begin Patch\n*** Add File: h.txt"
                    + "\n+hi\n*** End Patch\nEOF\n"));
            assertThat(heredoc.success()).as(heredoc.toJson()).isTrue();
            ToolResult escape = t.call("apply_patch", Map.of("input", "*** Begin Patch\n*** Add File: ../out.txt\n"
                    + "+x\n*** End Patch"));
            assertThat(escape.success()).isFalse();
            assertThat(escape.errorType()).isEqualTo("invalid_path");
            assertThat(sandbox.files().exists("h.txt")).isTrue();
        }
    }
}
