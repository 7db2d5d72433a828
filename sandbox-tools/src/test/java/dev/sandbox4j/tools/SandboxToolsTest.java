package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.Language;
import dev.sandbox4j.memory.MemorySandbox;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SandboxToolsTest {
    MemorySandbox sandbox;
    SandboxTools tools;

    @BeforeEach
    void open() {
        sandbox = MemorySandbox.open();
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

    private static void assertError(ToolResult r, String type, String... messageParts) {
        assertThat(r.success()).as(r.toJson()).isFalse();
        assertThat(r.errorType()).as(r.toJson()).isEqualTo(type);
        assertThat(r.get("retryable")).isInstanceOf(Boolean.class);
        assertThat((String) r.get("message")).doesNotContain("\tat ");
        if (messageParts.length > 0) {
            assertThat((String) r.get("message")).contains(messageParts);
        }
    }

    @Test
    void catalogHasTheIssuesToolsAndParameterNames() {
        Map<String, List<String>> params = SandboxTools.allSpecs().stream().collect(Collectors.toMap(
                ToolSpec::name, s -> s.params().stream().map(ToolParam::name).collect(Collectors.toList())));
        assertThat(params).containsEntry("bash", List.of("command", "cwd", "timeout"))
                .containsEntry("exec", List.of("program", "args", "env", "cwd", "timeout"))
                .containsEntry("execute_code", List.of("language", "code", "stdin_data", "timeout_ms"))
                .containsEntry("view", List.of("path", "view_range"))
                .containsEntry("read_file", List.of("path", "offset", "length"))
                .containsEntry("read_multiple_files", List.of("paths"))
                .containsEntry("write_file", List.of("path", "content", "mode"))
                .containsEntry("create_file", List.of("path", "content"))
                .containsEntry("str_replace", List.of("path", "old_str", "new_str"))
                .containsEntry("edit_file", List.of("path", "edits", "dryRun"))
                .containsEntry("create_directory", List.of("path"))
                .containsEntry("list_directory", List.of("path"))
                .containsEntry("get_file_info", List.of("path"))
                .containsEntry("move_file", List.of("source", "destination"))
                .containsEntry("search_files", List.of("path", "pattern", "excludePatterns"))
                .containsEntry("grep", List.of("pattern", "path", "include", "exclude", "case_insensitive",
                        "max_results"))
                .containsEntry("create_code_context", List.of("language"))
                .containsEntry("run_code", List.of("code", "language", "context_id", "timeout_s"))
                .containsEntry("destroy_code_context", List.of("context_id"))
                .containsEntry("watch_files", List.of("path", "recursive", "include", "exclude", "debounce_ms"))
                .containsEntry("poll_watch", List.of("watch_id", "cursor", "wait_ms"))
                .containsEntry("wait_for_file", List.of("path", "event", "timeout_ms"))
                .containsEntry("stop_watch", List.of("watch_id"))
                .containsEntry("start_terminal", List.of("command", "cwd", "cols", "rows", "wait_ms"))
                .containsEntry("send_keys", List.of("terminal_id", "keys", "wait_ms"))
                .containsEntry("read_terminal", List.of("terminal_id", "wait_ms", "kill"));
        assertThat(params).hasSize(27);
        ToolSpec bash = SandboxTools.allSpecs().get(0);
        assertThat(bash.inputSchema()).containsEntry("required", List.of("command"));
        assertThat(bash.description()).contains("no match", "15000");
        assertThat(Json.write(SandboxTools.allSpecs().get(9).inputSchema())).contains("\"oldText\"",
                "\"newText\"");
    }

    @Test
    void readOnlyAndDisabledToolSets() {
        List<String> ro = SandboxTools.specs(ToolConfig.builder().readOnly(true).build()).stream()
                .map(ToolSpec::name).collect(Collectors.toList());
        assertThat(ro).containsExactly("view", "read_file", "read_multiple_files", "list_directory",
                "get_file_info", "search_files", "grep", "watch_files", "poll_watch", "wait_for_file", "stop_watch",
                "workspace_changes");
        SandboxTools readOnly = new SandboxTools(sandbox, ToolConfig.builder().readOnly(true).build());
        assertError(readOnly.call("write_file", Map.of("path", "a", "content", "x")), "permission_denied",
                "read-only");
        assertThat(sandbox.files().exists("a")).isFalse();
        SandboxTools noBash = new SandboxTools(sandbox, ToolConfig.builder().disable("bash").build());
        assertThat(noBash.specs()).extracting(ToolSpec::name).doesNotContain("bash", "exec", "execute_code")
                .contains("view");
        assertError(noBash.call("bash", Map.of("command", "echo")), "unsupported", "switched off");
        assertError(tools.call("rm_rf", Map.of()), "unsupported", "unknown tool");
    }

    @Test
    void bashReturnsExitCodeOutputAndSummary() {
        ToolResult r = call("bash", "command", "echo hello");
        assertThat(r.success()).isTrue();
        assertThat(r.get("exit_code")).isEqualTo(0);
        assertThat(r.get("stdout")).isEqualTo("hello\n");
        assertThat(r.get("status")).isEqualTo("completed");
        assertThat((String) r.get("summary")).startsWith("exit 0");
        assertThat(r.toJson()).startsWith("{\"success\":true,\"status\":\"completed\",\"exit_code\":0,");
        assertThat(sandbox.commands().get(0).timeout()).isEqualTo(Duration.ofSeconds(120));
        assertThat(sandbox.commands().get(0).outputLimit()).isEqualTo(15_000);

        ToolResult missing = call("bash", "command", "nosuch");
        assertThat(missing.success()).isTrue();
        assertThat(missing.get("exit_code")).isEqualTo(127);
        assertThat((String) missing.get("summary")).contains("command not found");
    }

    @Test
    void semanticExitCodes() {
        sandbox.onCommandMatching(".*grep.*|rg .*", req -> ExecResult.of(1, "", ""))
                .onCommandMatching("diff .*|cmp .*", req -> ExecResult.of(1, "< a\n> b\n", ""))
                .onCommandMatching("make.*", req -> ExecResult.of(1, "", "boom\n"));
        ToolResult grep = call("bash", "command", "cat x | grep -q foo");
        assertThat(grep.get("meaning")).isEqualTo("no_match");
        assertThat((String) grep.get("summary")).contains("no match; not an error");
        assertThat(call("bash", "command", "rg foo src").get("meaning")).isEqualTo("no_match");
        assertThat(call("bash", "command", "diff a b").get("meaning")).isEqualTo("files_differ");
        assertThat(call("bash", "command", "cmp a b").get("summary").toString()).contains("files differ");
        ToolResult make = call("bash", "command", "make");
        assertThat(make.get("meaning")).isNull();
        assertThat((String) make.get("summary")).contains("failed");
        assertThat(Shaping.lastProgram("cd src && LC_ALL=C /usr/bin/grep -r x .")).isEqualTo("grep");
        assertThat(Shaping.lastProgram("timeout 5 diff a b")).isEqualTo("diff");
    }

    @Test
    void longOutputIsCutHeadAndTail() {
        String big = "a".repeat(20_000) + "MIDDLE" + "b".repeat(20_000);
        sandbox.onCommand("big", req -> ExecResult.of(0, big, ""));
        ToolResult r = call("bash", "command", "big");
        String out = (String) r.get("stdout");
        assertThat(out).startsWith("a".repeat(15_000)).endsWith("b".repeat(15_000)).doesNotContain("MIDDLE")
                .contains("characters truncated");
        assertThat(r.get("stdout_omitted_chars")).isEqualTo(10_006L);
        assertThat(Shaping.cap(big, 15_000)).hasSize(30_000 + "\n[... 10006 characters (0 lines) truncated ...]\n".length());
    }

    @Test
    void timeoutsDefaultClampAndBadValues() {
        sandbox.onCommand("sleep 999", req -> ExecResult.of(ExecStatus.TIMEOUT, 137, "partial", "")
                .withDuration(req.timeout()).withDetail("timed out"));
        ToolResult r = call("bash", "command", "sleep 999", "timeout", 5000);
        assertThat(r.get("status")).isEqualTo("timeout");
        assertThat((String) r.get("summary")).contains("timed out", "lowered to the maximum of 600 s");
        assertThat(sandbox.commands().get(0).timeout()).isEqualTo(Duration.ofSeconds(600));
        assertThat(r.get("stdout")).isEqualTo("partial");
        call("bash", "command", "true", "timeout", 7);
        assertThat(sandbox.commands().get(1).timeout()).isEqualTo(Duration.ofSeconds(7));
        assertError(call("bash", "command", "true", "timeout", 0), "invalid_argument", "positive");
        assertError(call("bash", "command", "true", "timeout", "soon"), "invalid_argument", "timeout",
                "integer");
    }

    @Test
    void heartbeatWhileACommandRuns() {
        sandbox.onCommand("slow", req -> {
            try {
                Thread.sleep(400);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return ExecResult.of(0, "done\n", "");
        });
        SandboxTools fast = new SandboxTools(sandbox, ToolConfig.builder()
                .heartbeatInterval(Duration.ofMillis(50)).build());
        List<String> beats = new CopyOnWriteArrayList<>();
        ToolResult r = fast.call("bash", Map.of("command", "slow"), (ms, msg) -> beats.add(msg));
        assertThat(r.get("stdout")).isEqualTo("done\n");
        assertThat(beats).hasSizeGreaterThanOrEqualTo(3).allMatch(m -> m.startsWith("still running"));
    }

    @Test
    void execRunsArgvAndRefusesHijackingEnv() {
        sandbox.onCommand("python3 -c print(1)", req -> ExecResult.of(0, req.env().toString(), ""));
        ToolResult ok = call("exec", "program", "python3", "args", List.of("-c", "print(1)"), "env",
                Map.of("CI", "1"));
        assertThat(ok.success()).as(ok.toJson()).isTrue();
        assertThat(ok.get("stdout")).isEqualTo("{CI=1}");
        assertThat(sandbox.commands().get(0).argv()).containsExactly("python3", "-c", "print(1)");
        for (String bad : List.of("LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES",
                "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "NODE_OPTIONS", "RUBYOPT", "PERL5OPT", "PERL5LIB",
                "BASH_ENV", "ENV")) {
            ToolResult r = call("exec", "program", "python3", "env", Map.of(bad, "/tmp/x.so"));
            assertError(r, "permission_denied", bad, "hijack");
        }
        assertThat(sandbox.commands()).hasSize(1);
        SandboxTools custom = new SandboxTools(sandbox, ToolConfig.builder().blockedEnv(List.of("CI")).build());
        assertError(custom.call("exec", Map.of("program", "x", "env", Map.of("CI", "1"))), "permission_denied",
                "CI");
        assertThat(custom.call("exec", Map.of("program", "true", "env", Map.of("LD_PRELOAD", "x"))).success())
                .isTrue();
        assertError(call("exec", "program", "true", "env", Map.of("1BAD", "x")), "invalid_argument", "1BAD");
        assertError(call("exec", "program", "true", "env", Map.of("A", 3)), "invalid_argument", "string");
        assertError(call("exec", "program", "true", "args", List.of(1, 2)), "invalid_argument", "args");
        assertError(call("exec", "program", "true", "args", Map.of("a", "b")), "invalid_argument", "args");
    }

    @Test
    void executeCode() {
        sandbox.onCode(Language.PYTHON, req -> ExecResult.of(req.stdin() == null ? 0 : 3,
                "ran " + req.code() + " stdin=" + req.stdin(), ""));
        ToolResult r = call("execute_code", "language", "py", "code", "print(1)", "stdin_data", "in");
        assertThat(r.get("status")).isEqualTo("error_runtime");
        assertThat(r.get("exit_code")).isEqualTo(3);
        assertThat(r.get("stdout")).isEqualTo("ran print(1) stdin=in");
        assertThat(r.fields()).containsKeys("stderr", "duration_ms");
        assertThat(sandbox.codeRuns().get(0).timeout()).isEqualTo(Duration.ofMillis(5000));
        ToolResult ok = call("execute_code", "language", "python", "code", "x", "timeout_ms", 250);
        assertThat(ok.get("status")).isEqualTo("completed");
        assertThat(sandbox.codeRuns().get(1).timeout()).isEqualTo(Duration.ofMillis(250));

        ToolResult cobol = call("execute_code", "language", "cobol", "code", "x");
        assertError(cobol, "unsupported_language", "cobol", "python");
        assertThat(cobol.get("supported_languages")).isEqualTo(List.of("python"));
        assertError(call("execute_code", "language", "javascript", "code", "1"), "unsupported_language",
                "supported: python");
        assertError(call("execute_code", "language", "python"), "invalid_argument", "code");
    }

    @Test
    void viewTextDirectoryAndRanges() {
        sandbox.files().write("src/a.py", "one\ntwo\nthree\n");
        sandbox.files().write("src/pkg/b.py", "x\n");
        sandbox.files().write("src/pkg/deep/c.py", "x\n");
        ToolResult r = call("view", "path", "src/a.py");
        assertThat(r.get("content")).isEqualTo("     1\tone\n     2\ttwo\n     3\tthree\n");
        assertThat(r.get("total_lines")).isEqualTo(3);
        ToolResult part = call("view", "path", "src/a.py", "view_range", List.of(2, -1));
        assertThat(part.get("content")).isEqualTo("     2\ttwo\n     3\tthree\n");
        assertThat(call("view", "path", "src/a.py", "view_range", List.of(2, 2)).get("content"))
                .isEqualTo("     2\ttwo\n");
        assertError(call("view", "path", "src/a.py", "view_range", List.of(3, 1)), "invalid_argument",
                "view_range");
        assertError(call("view", "path", "src/a.py", "view_range", List.of(9, -1)), "invalid_argument",
                "has 3 lines");
        assertError(call("view", "path", "src/a.py", "view_range", List.of(1)), "invalid_argument");
        ToolResult dir = call("view", "path", "src");
        assertThat(dir.get("type")).isEqualTo("directory");
        assertThat((String) dir.get("content")).contains("a.py\n", "pkg/\n", "  b.py\n", "  deep/\n")
                .doesNotContain("c.py");
        assertError(call("view", "path", "../etc/passwd"), "invalid_path");
        assertError(call("view", "path", "/etc/passwd"), "invalid_path");
        assertError(call("view", "path", "nope.txt"), "not_found");
        assertError(call("view"), "invalid_argument", "path");
        assertError(call("view", "path", 42), "invalid_argument", "string");
    }

    @Test
    void viewLongTextIsCutWithAHint() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 20_000; i++) {
            sb.append("line number ").append(i).append('\n');
        }
        sandbox.files().write("long.txt", sb.toString());
        ToolResult r = call("view", "path", "long.txt");
        assertThat(((String) r.get("content")).length()).isLessThanOrEqualTo(60_000);
        assertThat(r.get("truncated")).isEqualTo(true);
        assertThat((String) r.get("note")).contains("view_range");
    }

    @Test
    void viewBinaryAndImage() throws Exception {
        byte[] bin = {0, 1, 2, 3, (byte) 0xFF};
        sandbox.files().write("data.bin", bin);
        ToolResult r = call("view", "path", "data.bin");
        assertThat(r.get("type")).isEqualTo("binary");
        assertThat(r.get("mime_type")).isEqualTo("application/octet-stream");
        assertThat(Base64.getDecoder().decode((String) r.get("content"))).isEqualTo(bin);
        assertThat(r.images()).isEmpty();

        BufferedImage img = new BufferedImage(1024, 512, BufferedImage.TYPE_INT_RGB);
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        ImageIO.write(img, "png", png);
        sandbox.files().write("pic.png", png.toByteArray());
        ToolResult pic = call("view", "path", "pic.png");
        assertThat(pic.get("mime_type")).isEqualTo("image/png");
        assertThat(pic.get("image_width")).isEqualTo(1024);
        assertThat(pic.images()).hasSize(1);
        BufferedImage thumb = ImageIO.read(new java.io.ByteArrayInputStream(
                Base64.getDecoder().decode(pic.images().get(0).base64())));
        assertThat(thumb.getWidth()).isEqualTo(256);
        assertThat(thumb.getHeight()).isEqualTo(128);
        assertThat(pic.toJson()).doesNotContain(pic.images().get(0).base64());
    }

    @Test
    void readFileAndMultiple() {
        sandbox.files().write("t.txt", "0123456789");
        ToolResult all = call("read_file", "path", "t.txt");
        assertThat(all.get("content")).isEqualTo("0123456789");
        assertThat(all.get("eof")).isEqualTo(true);
        ToolResult part = call("read_file", "path", "t.txt", "offset", 2, "length", 3);
        assertThat(part.get("content")).isEqualTo("234");
        assertThat(part.get("eof")).isEqualTo(false);
        assertError(call("read_file", "path", "t.txt", "offset", -1), "invalid_argument", "offset");
        sandbox.files().write("b.bin", new byte[] {1, 0, 2});
        assertThat(call("read_file", "path", "b.bin").get("encoding")).isEqualTo("base64");
        SandboxTools small = new SandboxTools(sandbox, ToolConfig.builder().maxReadBytes(4).build());
        ToolResult chunk = small.call("read_file", Map.of("path", "t.txt"));
        assertThat(chunk.get("content")).isEqualTo("0123");
        assertThat((String) chunk.get("note")).contains("offset 4");

        ToolResult multi = call("read_multiple_files", "paths", List.of("t.txt", "missing.txt", "../x"));
        assertThat(multi.success()).isTrue();
        assertThat(multi.get("failed")).isEqualTo(2);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> files = (List<Map<String, Object>>) multi.get("files");
        assertThat(files.get(0)).containsEntry("success", true).containsEntry("content", "0123456789");
        assertThat(files.get(1)).containsEntry("success", false).containsEntry("error_type", "not_found");
        assertThat(files.get(2)).containsEntry("error_type", "invalid_path");
        assertError(call("read_multiple_files", "paths", List.of()), "invalid_argument");
        assertError(call("read_multiple_files", "paths", List.of(1, 2)), "invalid_argument", "strings");
    }

    @Test
    void writeCreateAppendAndLimits() {
        assertThat(call("write_file", "path", "a/b/c.txt", "content", "hi").success()).isTrue();
        assertThat(call("write_file", "path", "a/b/c.txt", "content", "!", "mode", "append").success()).isTrue();
        assertThat(sandbox.files().readText("a/b/c.txt")).isEqualTo("hi!");
        assertError(call("write_file", "path", "a/b/c.txt", "content", "x", "mode", "truncate"),
                "invalid_argument", "mode");
        assertError(call("create_file", "path", "a/b/c.txt", "content", "x"), "already_exists");
        assertThat(call("create_file", "path", "new.txt", "content", "n").get("bytes_written")).isEqualTo(1);
        assertError(call("write_file", "path", "../out.txt", "content", "x"), "invalid_path");
        assertError(call("write_file", "path", "x.txt"), "invalid_argument", "content");
        SandboxTools tiny = new SandboxTools(sandbox, ToolConfig.builder().maxWriteChars(10).build());
        assertError(tiny.call("write_file", Map.of("path", "big", "content", "x".repeat(11))), "too_large",
                "append");
        assertThat(sandbox.files().exists("big")).isFalse();
    }

    @Test
    void strReplaceAndEditFile() {
        sandbox.files().write("m.py", "a = 1\nb = 1\nc = 2\n");
        ToolResult amb = call("str_replace", "path", "m.py", "old_str", "= 1", "new_str", "= 3");
        assertError(amb, "ambiguous_match", "2 matches");
        assertError(call("str_replace", "path", "m.py", "old_str", "zzz", "new_str", "y"), "no_match");
        assertError(call("str_replace", "path", "m.py", "old_str", "", "new_str", "y"), "invalid_argument");
        ToolResult ok = call("str_replace", "path", "m.py", "old_str", "c = 2", "new_str", "c = 4");
        assertThat((String) ok.get("diff")).contains("--- a/m.py", "+++ b/m.py", "-c = 2", "+c = 4");
        assertThat(sandbox.files().readText("m.py")).endsWith("c = 4\n");

        ToolResult dry = call("edit_file", "path", "m.py", "dryRun", true, "edits",
                List.of(Map.of("oldText", "a = 1", "newText", "a = 9"), Map.of("oldText", "b = 1", "newText", "")));
        assertThat(dry.get("applied")).isEqualTo(false);
        assertThat((String) dry.get("diff")).contains("+a = 9");
        assertThat(sandbox.files().readText("m.py")).startsWith("a = 1");
        ToolResult wet = call("edit_file", "path", "m.py", "edits",
                List.of(Map.of("oldText", "a = 1", "newText", "a = 9")));
        assertThat(wet.get("applied")).isEqualTo(true);
        assertThat(sandbox.files().readText("m.py")).startsWith("a = 9");
        assertError(call("edit_file", "path", "m.py", "edits", List.of(Map.of("oldText", "x"))),
                "invalid_argument", "newText");
        assertError(call("edit_file", "path", "m.py", "edits", "a->b"), "invalid_argument", "edits");
        assertError(call("edit_file", "path", "m.py", "edits", List.of(Map.of("oldText", "nope", "newText", ""))),
                "no_match");
    }

    @Test
    void directoriesInfoMoveSearchGrep() {
        assertThat(call("create_directory", "path", "d/e").success()).isTrue();
        sandbox.files().write("d/f.txt", "Hello\nworld\n");
        sandbox.files().write("d/e/g.java", "class G { // hello\n}\n");
        assertThat(call("list_directory", "path", "d").get("content")).isEqualTo("[DIR] e\n[FILE] f.txt\n");
        assertThat((String) call("list_directory").get("content")).contains("[DIR] d");
        ToolResult info = call("get_file_info", "path", "d/f.txt");
        assertThat(info.get("type")).isEqualTo("file");
        assertThat(info.get("size")).isEqualTo(12L);
        assertThat(info.fields()).containsKeys("modified", "permissions");

        assertError(call("move_file", "source", "d/f.txt", "destination", "d/e"), "already_exists");
        assertThat(call("move_file", "source", "d/f.txt", "destination", "d/h.txt").success()).isTrue();
        assertError(call("move_file", "source", "d/h.txt", "destination", "../../h.txt"), "invalid_path");

        ToolResult found = call("search_files", "path", ".", "pattern", "*.java");
        assertThat(found.get("matches")).isEqualTo(List.of("d/e/g.java"));
        assertThat(call("search_files", "path", ".", "pattern", "*", "excludePatterns", List.of("e"))
                .get("matches")).isEqualTo(List.of("d", "d/h.txt"));

        ToolResult g = call("grep", "pattern", "hello", "case_insensitive", true);
        assertThat(g.get("matches")).isEqualTo(List.of("d/e/g.java:1: class G { // hello", "d/h.txt:1: Hello"));
        assertThat(call("grep", "pattern", "hello", "include", "*.txt").get("count")).isEqualTo(0);
        assertThat(call("grep", "pattern", "o", "max_results", 1).get("truncated")).isEqualTo(true);
        assertError(call("grep", "pattern", "("), "invalid_argument");
        assertError(call("grep", "pattern", "x", "max_results", 0), "invalid_argument");
        assertError(call("grep", "pattern", "x", "path", "../.."), "invalid_path");
    }

    /** Issue 17: grep says what it did not search, and that the cap was (not) reached. */
    @Test
    void grep_reportsSkippedFilesAndTruncated() {
        sandbox.files().write("a.txt", "needle\n");
        sandbox.files().write("blob.bin", new byte[] {'n', 'e', 'e', 'd', 'l', 'e', 0, '\n'});
        ToolResult g = call("grep", "pattern", "needle");
        assertThat(g.get("matches")).isEqualTo(List.of("a.txt:1: needle"));
        assertThat(g.get("truncated")).isEqualTo(false);
        assertThat(g.get("skipped")).isEqualTo(List.of(Map.of("path", "blob.bin", "reason", "binary", "detail",
                "a NUL byte at offset 6")));
        assertThat(g.get("skipped_count")).isEqualTo(1L);
        assertThat((String) g.get("note")).contains("1 file(s) not searched");
        assertThat(g.toJson()).contains("\"skipped\":[{\"path\":\"blob.bin\",\"reason\":\"binary\"");
        assertError(call("grep", "pattern", "needle", "path", "blob.bin"), "invalid_argument");
        ToolResult clean = call("grep", "pattern", "needle", "path", "a.txt");
        assertThat(clean.fields()).doesNotContainKeys("skipped", "skipped_count", "timed_out", "note");
    }

    @Test
    void sandboxErrorsBecomeResults() {
        sandbox.onCommand("explode", req -> {
            throw new IllegalStateException("secret /host/path");
        });
        ToolResult r = call("bash", "command", "explode");
        assertError(r, "internal");
        assertThat(r.toJson()).doesNotContain("/host/path");
        sandbox.close();
        assertError(call("view", "path", "x"), "closed");
        assertError(call("bash", "command", ""), "invalid_argument", "empty");
        List<String> missing = new ArrayList<>();
        for (ToolSpec spec : SandboxTools.allSpecs()) {
            if (spec.params().stream().anyMatch(ToolParam::required)) {
                ToolResult none = tools.call(spec.name(), Map.of());
                assertThat(none.errorType()).as(spec.name()).isEqualTo("invalid_argument");
                missing.add(spec.name());
            }
        }
        assertThat(missing).hasSize(25);
    }

    @Test
    void jsonEscapes() {
        assertThat(Json.write(Map.of("k", "a\"b\\c\n\u0001"))).isEqualTo("{\"k\":\"a\\\"b\\\\c\\n\\u0001\"}");
        assertThat(Json.write(List.of(1, 2.5, true))).isEqualTo("[1,2.5,true]");
    }
}
