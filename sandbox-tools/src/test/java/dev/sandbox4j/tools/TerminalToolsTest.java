package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.memory.MemorySandbox;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The default profile's terminal tools on a local jail and Docker: a Python REPL driven through send_keys keeping its
 * state, Ctrl-C interrupting a shell's job while the shell lives on, read_terminal's kill; memory refuses typed.
 */
class TerminalToolsTest {
    static final Map<String, Sandbox> OPEN = new HashMap<>();

    static SandboxTools tools(String backend) {
        return new SandboxTools(OPEN.computeIfAbsent(backend, Backends::open));
    }

    @AfterAll
    static void closeAll() {
        OPEN.values().forEach(Sandbox::close);
        OPEN.clear();
    }

    static ToolResult ok(ToolResult r) {
        assertThat(r.success()).as(r.toJson()).isTrue();
        return r;
    }

    /** Types {@code keys}, then reads until the output since the keys ends with {@code wanted}. */
    static String until(SandboxTools t, String id, String keys, String wanted) {
        StringBuilder seen = new StringBuilder((String) ok(t.call("send_keys", Map.of("terminal_id", id, "keys", keys,
                "wait_ms", 200))).get("output"));
        for (int i = 0; i < 50 && !seen.toString().endsWith(wanted); i++) {
            seen.append((String) ok(t.call("read_terminal", Map.of("terminal_id", id, "wait_ms", 200))).get("output"));
        }
        assertThat(seen.toString()).endsWith(wanted);
        return seen.toString();
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "docker"})
    void pythonRepl_throughSendKeys(String backend) {
        SandboxTools t = tools(backend);
        ToolResult started = ok(t.call("start_terminal", Map.of("command", "python3 -q", "wait_ms", 3000)));
        String id = (String) started.get("terminal_id");
        assertThat(started.get("running")).isEqualTo(true);
        assertThat((String) started.get("output")).endsWith(">>> ");
        until(t, id, "x = 41\n", ">>> ");
        assertThat(until(t, id, "print(x + 1)\n", ">>> ")).isEqualTo("print(x + 1)\n42\n>>> ");
        assertThat(until(t, id, "def f(:\n", ">>> ")).contains("SyntaxError");
        ToolResult end = ok(t.call("send_keys", Map.of("terminal_id", id, "keys", "exit()\n", "wait_ms", 0)));
        ToolResult done = ok(t.call("read_terminal", Map.of("terminal_id", id, "wait_ms", 20_000)));
        assertThat(done.get("running")).as(end.toJson()).isEqualTo(false);
        assertThat(done.get("exit_code")).isEqualTo(0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"local"})
    void ctrlC_interruptsTheJob_killEndsTheShell(String backend) {
        SandboxTools t = tools(backend);
        ToolResult started = ok(t.call("start_terminal", Map.of("command", "PS1='$ ' exec bash --norc -i",
                "cols", 100, "rows", 30, "wait_ms", 3000)));
        String id = (String) started.get("terminal_id");
        assertThat((String) started.get("output")).endsWith("$ ");
        assertThat(until(t, id, "stty size; echo go; sleep 60\n", "\ngo\n")).contains("\n30 100\n");
        until(t, id, "\u0003", "$ ");
        assertThat(until(t, id, "echo alive $?\n", "$ ")).contains("alive 130\n");
        ToolResult killed = ok(t.call("read_terminal", Map.of("terminal_id", id, "kill", true)));
        assertThat(killed.get("running")).isEqualTo(false);
        ToolResult bad = t.call("start_terminal", Map.of("command", "true", "cols", 0));
        assertThat(bad.errorType()).isEqualTo("invalid_argument");
    }

    @Test
    void memoryBackend_refusesTerminals_unsupported() {
        try (MemorySandbox sandbox = MemorySandbox.open()) {
            SandboxTools t = new SandboxTools(sandbox);
            assertThat(t.call("start_terminal", Map.of("command", "bash")).errorType()).isEqualTo("unsupported");
        }
    }
}
