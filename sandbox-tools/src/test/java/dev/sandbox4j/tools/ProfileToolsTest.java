package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Language;
import dev.sandbox4j.memory.MemorySandbox;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What the profiles do on the in-memory backend: the same operations under each surface's names and shapes. */
@SuppressWarnings("unchecked")
class ProfileToolsTest {
    static SandboxTools tools(MemorySandbox sandbox, String profile) {
        return new SandboxTools(sandbox, ToolConfig.builder().profile(profile).build());
    }

    @ParameterizedTest
    @EnumSource(ToolProfile.class)
    void switchingCommandsOff_leavesNoExecutingTool_readOnly_leavesOnlyReaders(ToolProfile profile) {
        List<ToolSpec> noCommands = SandboxTools.specs(ToolConfig.builder().profile(profile)
                .disable(Capability.RUN_COMMANDS).build());
        assertThat(noCommands).extracting(ToolSpec::capability).as(profile.code())
                .doesNotContain(Capability.RUN_COMMANDS, Capability.RUN_CODE);
        List<ToolSpec> readOnly = SandboxTools.specs(ToolConfig.builder().profile(profile).readOnly(true).build());
        assertThat(readOnly).as(profile.code()).allSatisfy(s -> assertThat(s.capability())
                .isEqualTo(Capability.READ_FILES));
        for (ToolSpec spec : SandboxTools.allSpecs(profile)) {
            // a tool name of the profile switches its capability off, like the default tools' names
            List<ToolSpec> left = SandboxTools.specs(ToolConfig.builder().profile(profile).disable(spec.name())
                    .build());
            assertThat(left).extracting(ToolSpec::name).as(profile.code() + " without " + spec.name())
                    .doesNotContain(spec.name());
            assertThat(left).allSatisfy(s -> assertThat(s.capability().reach()).doesNotContain(spec.capability()));
        }
    }

    @Test
    void unknownProfile_isRefused_otherProfilesToolIsUnknownHere() {
        assertThatThrownBy(() -> ToolConfig.builder().profile("e2b")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("agentbay").hasMessageContaining("execute-code");
        try (MemorySandbox sandbox = MemorySandbox.open()) {
            ToolResult r = tools(sandbox, "coding").call("shell", Map.of("command", "echo hi"));
            assertThat(r.errorType()).isEqualTo("unsupported");
            assertThat((String) r.get("message")).contains("unknown tool 'shell'", "bash");
        }
    }

    @Test
    void spacebotReadOnly_dropsTheFileTool_becauseItWrites() {
        assertThat(SandboxTools.specs(ToolConfig.builder().profile("spacebot").readOnly(true).build()))
                .extracting(ToolSpec::name).containsExactly("set_status", "read_skill");
        try (MemorySandbox sandbox = MemorySandbox.open()) {
            ToolResult r = new SandboxTools(sandbox, ToolConfig.builder().profile("spacebot").readOnly(true).build())
                    .call("file", Map.of("operation", "read", "path", "x"));
            assertThat(r.errorType()).isEqualTo("permission_denied");
        }
    }

    @Test
    void coding_heartbeatsEvery15s_unlessSet_andBashTakesADescription() {
        assertThat(ToolConfig.builder().profile("coding").build().heartbeatInterval()).isEqualTo(Duration.ofSeconds(15));
        assertThat(ToolConfig.defaults().heartbeatInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(ToolConfig.builder().profile("coding").heartbeatInterval(Duration.ofSeconds(2)).build()
                .heartbeatInterval()).isEqualTo(Duration.ofSeconds(2));
        try (MemorySandbox sandbox = MemorySandbox.open()) {
            ToolResult r = tools(sandbox, "coding").call("bash", Map.of("command", "echo hi", "description",
                    "says hi"));
            assertThat(r.get("stdout")).isEqualTo("hi\n");
            assertThat(r.get("exit_code")).isEqualTo(0);
        }
    }

    @Test
    void agentbay_shellAndRunCode() {
        try (MemorySandbox sandbox = MemorySandbox.open()) {
            sandbox.onCode(Language.PYTHON, req -> ExecResult.of(0, "42\n", ""));
            SandboxTools t = tools(sandbox, "agentbay");
            ToolResult sh = t.call("shell", Map.of("command", "echo hi", "timeout_ms", 1000));
            assertThat(sh.fields()).containsOnlyKeys("success", "output", "stdout", "stderr", "exit_code", "status");
            assertThat(sh.get("output")).isEqualTo("hi\n");
            assertThat(sandbox.commands().get(0).timeout()).isEqualTo(Duration.ofMillis(1000));
            assertThat(t.call("shell", Map.of("command", "env", "timeout_ms", 1000, "envs",
                    Map.of("LD_PRELOAD", "x.so"))).errorType()).isEqualTo("permission_denied");

            ToolResult code = t.call("run_code", Map.of("code", "print(42)", "language", "python"));
            assertThat(code.fields()).containsOnlyKeys("success", "result", "stdout", "stderr", "exit_code", "status");
            assertThat(code.get("result")).isEqualTo("42\n");
            assertThat(sandbox.codeRuns().get(0).timeout()).isEqualTo(Duration.ofSeconds(300));
            ToolResult ruby = t.call("run_code", Map.of("code", "puts 1", "language", "ruby"));
            assertThat(ruby.errorType()).isEqualTo("unsupported_language");
            // the document: language may be left out, Python is the default
            ToolResult noLanguage = t.call("run_code", Map.of("code", "print(1)"));
            assertThat(noLanguage.errorType()).as(noLanguage.toJson()).isNotEqualTo("invalid_argument");
            assertThat((String) ruby.get("message")).contains("python, javascript");
            // the filesystem tools are today's, unchanged
            assertThat(t.call("write_file", Map.of("path", "a/b.txt", "content", "x", "mode", "append")).success())
                    .isTrue();
        }
    }

    @Test
    void executeCode_statusesAndFailuresUseTheSpecsCodes() {
        try (MemorySandbox sandbox = MemorySandbox.open()) {
            sandbox.onCode(Language.PYTHON, req -> req.code().contains("raise")
                    ? ExecResult.of(1, "partial\n", "Traceback: boom\n") : ExecResult.of(0, "ok\n", ""));
            SandboxTools t = tools(sandbox, "execute-code");
            ToolResult ok = t.call(Profiles.EXECUTE_CODE_NAME, Map.of("language", "python", "code", "print('ok')"));
            assertThat(ok.fields()).containsOnlyKeys("success", "stdout", "stderr", "exit_code", "status",
                    "duration_ms");
            assertThat(sandbox.codeRuns().get(0).timeout()).isEqualTo(Duration.ofMillis(5000));

            ToolResult failed = t.call(Profiles.EXECUTE_CODE_NAME, Map.of("language", "python", "code", "raise X"));
            assertThat(failed.success()).isFalse();
            assertThat(failed.errorType()).isEqualTo("RUNTIME_ERROR");
            assertThat(failed.get("stderr")).isEqualTo("Traceback: boom\n");
            assertThat(failed.get("stdout")).isEqualTo("partial\n");
            assertThat(failed.get("exit_code")).isEqualTo(1);
            assertThat(failed.get("retryable")).isEqualTo(false);

            ToolResult cobol = t.call(Profiles.EXECUTE_CODE_NAME, Map.of("language", "cobol", "code", "x"));
            assertThat(cobol.errorType()).isEqualTo("UNSUPPORTED_LANGUAGE");
            assertThat((List<Object>) cobol.get("supported_languages")).containsExactly("python");

            sandbox.close();
            ToolResult closed = t.call(Profiles.EXECUTE_CODE_NAME, Map.of("language", "python", "code", "1"));
            assertThat(closed.errorType()).isEqualTo("SANDBOX_SETUP_FAILED");
            assertThat(closed.get("cause")).isEqualTo("closed");
        }
    }

    @Test
    void spacebot_shellFileExec() {
        try (MemorySandbox sandbox = MemorySandbox.open()) {
            SandboxTools t = tools(sandbox, "spacebot");
            ToolResult sh = t.call("shell", Map.of("command", "pwd", "working_dir", "."));
            assertThat(sh.fields()).containsOnlyKeys("success", "exit_code", "stdout", "stderr", "summary");
            assertThat(t.call("shell", Map.of("command", "pwd", "timeout", 301)).errorType())
                    .isEqualTo("invalid_argument");
            assertThat(t.call("shell", Map.of("command", "pwd", "timeout", 0)).errorType())
                    .isEqualTo("invalid_argument");

            assertThat(t.call("file", Map.of("operation", "write", "path", "deep/x.txt", "content", "hi",
                    "create_dirs", false)).errorType()).isEqualTo("not_found");
            assertThat(sandbox.files().exists("deep")).isFalse();
            ToolResult w = t.call("file", Map.of("operation", "write", "path", "deep/x.txt", "content", "hi"));
            assertThat(w.get("bytes_written")).isEqualTo(2);
            assertThat(t.call("file", Map.of("operation", "read", "path", "deep/x.txt")).get("content"))
                    .isEqualTo("hi");
            sandbox.files().mkdirs("deep/sub");
            ToolResult list = t.call("file", Map.of("operation", "list", "path", "deep"));
            assertThat(list.get("entries")).isEqualTo(List.of(
                    Map.of("name", "sub", "entry_type", "directory", "size", sandbox.files().stat("deep/sub").size()),
                    Map.of("name", "x.txt", "entry_type", "file", "size", 2L)));
            assertThat(t.call("file", Map.of("operation", "delete", "path", "x")).errorType())
                    .isEqualTo("invalid_argument");

            for (String name : List.of("LD_PRELOAD", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "PYTHONPATH",
                    "PYTHONSTARTUP", "NODE_OPTIONS", "RUBYOPT", "PERL5OPT", "PERL5LIB", "BASH_ENV", "ENV")) {
                ToolResult r = t.call("exec", Map.of("program", "echo", "env",
                        List.of(Map.of("key", "CI", "value", "1"), Map.of("key", name, "value", "x"))));
                assertThat(r.errorType()).as(name).isEqualTo("permission_denied");
                assertThat((List<Object>) r.get("refused_env")).as(name).containsExactly(name);
            }
            ToolResult ex = t.call("exec", Map.of("program", "echo", "args", List.of("a b"), "env",
                    List.of(Map.of("key", "CI", "value", "1"))));
            assertThat(ex.get("stdout")).isEqualTo("a b\n");
            assertThat(sandbox.commands().get(sandbox.commands().size() - 1).env()).containsEntry("CI", "1");
            assertThat(t.call("exec", Map.of("program", "echo", "env", List.of(Map.of("name", "CI"))))
                    .errorType()).isEqualTo("invalid_argument");
        }
    }

    /** A sandbox whose file system lets {@code readTo} stream, then changes the file, as a writer racing a download. */
    static dev.sandbox4j.Sandbox racingWrites(MemorySandbox memory) {
        dev.sandbox4j.FileSystem real = memory.files();
        dev.sandbox4j.FileSystem racing = (dev.sandbox4j.FileSystem) java.lang.reflect.Proxy.newProxyInstance(
                ProfileToolsTest.class.getClassLoader(), new Class<?>[] {dev.sandbox4j.FileSystem.class},
                (proxy, method, args) -> {
                    if (method.isDefault()) {
                        return java.lang.reflect.InvocationHandler.invokeDefault(proxy, method, args);
                    }
                    Object r = method.invoke(real, args);
                    if (method.getName().equals("readTo")) {
                        real.append((String) args[0], "written during the transfer\n");
                    }
                    return r;
                });
        return (dev.sandbox4j.Sandbox) java.lang.reflect.Proxy.newProxyInstance(
                ProfileToolsTest.class.getClassLoader(), new Class<?>[] {dev.sandbox4j.Sandbox.class},
                (proxy, method, args) -> method.getName().equals("files") ? racing : method.invoke(memory, args));
    }

    @Test
    void aioDownload_fileChangedDuringTheTransfer_conflictUnlessIgnored() {
        try (MemorySandbox memory = MemorySandbox.open()) {
            memory.files().write("log.txt", "first\n");
            SandboxTools t = new SandboxTools(racingWrites(memory), ToolConfig.builder().profile("aio").build());
            ToolResult abort = t.call("file_download", Map.of("path", "log.txt"));
            assertThat(abort.fields()).containsEntry("success", false).containsEntry("error_type", "conflict")
                    .containsEntry("retryable", true).containsKey("errno");
            assertThat((String) abort.get("message")).contains("log.txt", "changed while it was being read");
            ToolResult ignore = t.call("file_download", Map.of("path", "log.txt", "change_policy", "ignore"));
            assertThat(ignore.success()).isTrue();
            assertThat(new String(Base64.getDecoder().decode((String) ignore.get("content")),
                    StandardCharsets.UTF_8)).startsWith("first\nwritten during the transfer\n");
        }
    }

    @Test
    void aio_fileApi() {
        try (MemorySandbox sandbox = MemorySandbox.open()) {
            SandboxTools t = tools(sandbox, "aio");
            byte[] binary = {0, 1, 2, (byte) 0xff, 10};
            ToolResult w = t.call("file_write", Map.of("file", "/workspace/bin/b.dat", "content",
                    Base64.getEncoder().encodeToString(binary), "encoding", "base64"));
            assertThat(w.get("bytes_written")).isEqualTo(5);
            assertThat(sandbox.files().readBytes("bin/b.dat")).isEqualTo(binary);
            assertThat(t.call("file_write", Map.of("file", "bin/b.dat", "content", "AAE=", "encoding", "base64",
                    "append", true)).success()).isTrue();
            assertThat(sandbox.files().readBytes("bin/b.dat")).hasSize(7);
            ToolResult bad = t.call("file_write", Map.of("file", "x", "content", "%%%", "encoding", "base64"));
            assertThat(bad.errorType()).isEqualTo("decode_error");
            assertThat(bad.fields()).containsKey("errno");

            sandbox.files().write("t.txt", "l0\nl1\nl2\nl3\n");
            assertThat(t.call("file_read", Map.of("file", "t.txt", "start_line", 1, "end_line", 3)).get("content"))
                    .isEqualTo("l1\nl2\n");
            assertThat(t.call("file_read", Map.of("file", "t.txt", "start_line", 2)).get("content"))
                    .isEqualTo("l2\nl3\n");
            assertThat(t.call("file_read", Map.of("file", "t.txt")).get("content")).isEqualTo("l0\nl1\nl2\nl3\n");

            ToolResult missing = t.call("file_read", Map.of("file", "nope.txt"));
            assertThat(missing.fields()).containsEntry("error_type", "not_found").containsEntry("errno", 2)
                    .containsEntry("retryable", false);

            ToolResult rep = t.call("file_replace", Map.of("file", "t.txt", "old_str", "l2", "new_str", "L2"));
            assertThat((String) rep.get("diff")).contains("+L2");
            assertThat(t.call("file_replace", Map.of("file", "t.txt", "old_str", "l", "new_str", "x"))
                    .errorType()).isEqualTo("ambiguous_match");

            ToolResult search = t.call("file_search", Map.of("file", "t.txt", "regex", "l[13]"));
            assertThat(search.get("line_numbers")).isEqualTo(List.of(2, 4));
            assertThat(search.get("matches")).isEqualTo(List.of("l1", "l3"));

            sandbox.files().write("src/a.py", "import os\n");
            sandbox.files().write("src/.hidden/h.py", "import sys\n");
            sandbox.files().write("src/big.py", "x = 1\n".repeat(100));
            assertThat((List<Object>) t.call("file_find", Map.of("path", "src", "glob", "*.py")).get("files"))
                    .contains("src/a.py", "src/big.py");
            ToolResult grep = t.call("file_grep", Map.of("path", "src", "pattern", "IMPORT", "case_insensitive", true,
                    "include", List.of("*.py"), "exclude", List.of(".hidden")));
            assertThat(grep.get("matches")).isEqualTo(List.of(Map.of("file", "src/a.py", "line_number", 1, "line",
                    "import os")));

            ToolResult glob = t.call("file_glob", Map.of("path", "src", "pattern", "**/*.py",
                    "include_metadata", true, "sort_by", "size", "files_only", true));
            assertThat((List<Object>) glob.get("files")).extracting(f -> (Object) ((Map<?, ?>) f).get("path"))
                    .containsExactly("src/a.py", "src/big.py");
            assertThat(((Map<?, ?>) ((List<Object>) glob.get("files")).get(1)).get("size")).isEqualTo(600L);
            ToolResult hidden = t.call("file_glob", Map.of("path", "src", "pattern", "**/*.py", "include_hidden", true,
                    "max_results", 1));
            assertThat(hidden.get("total_count")).isEqualTo(3);
            assertThat(hidden.get("truncated")).isEqualTo(true);

            ToolResult flat = t.call("file_list", Map.of("path", "src"));
            assertThat((List<Object>) flat.get("files")).extracting(f -> (Object) ((Map<?, ?>) f).get("name"))
                    .containsExactly("a.py", "big.py");
            ToolResult tree = t.call("file_list", Map.of("path", "src", "recursive", true, "show_hidden", true,
                    "include_size", true));
            assertThat((List<Object>) tree.get("files")).extracting(f -> (Object) ((Map<?, ?>) f).get("path"))
                    .containsExactly("src/.hidden", "src/.hidden/h.py", "src/a.py", "src/big.py");
            assertThat(((Map<?, ?>) ((List<Object>) tree.get("files")).get(1)).get("size")).isEqualTo(11L);

            ToolResult down = t.call("file_download", Map.of("path", "bin/b.dat"));
            assertThat(Base64.getDecoder().decode((String) down.get("content"))).hasSize(7).startsWith(binary);
            assertThat(t.call("file_download", Map.of("path", "src/a.py", "change_policy", "ignore"))
                    .get("content")).isEqualTo(Base64.getEncoder().encodeToString("import os\n"
                    .getBytes(StandardCharsets.UTF_8)));
            assertThat(t.call("file_download", Map.of("path", "src", "change_policy", "abort")).fields())
                    .containsEntry("error_type", "is_a_directory").containsEntry("errno", 21);
        }
    }
}
