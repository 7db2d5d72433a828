package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ProcessInfo;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.memory.MemorySandbox;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The codex profile's {@code exec_command} and {@code write_stdin} on a local jail and Docker: a Python REPL driven
 * through several calls keeping its state, a command that yields and then finishes, Codex's truncation, tty: true
 * under Codex's terminal, unknown sessions, and commands killed when the sandbox closes. The result text is Codex's
 * layout.
 */
class CodexExecTest {
    static final Map<String, Sandbox> OPEN = new HashMap<>();
    static final Pattern RUNNING = Pattern.compile("Process running with session ID (\\d+)\n");

    static SandboxTools tools(String backend) {
        Sandbox s = OPEN.computeIfAbsent(backend, Backends::open);
        return new SandboxTools(s, ToolConfig.builder().profile("codex").build());
    }

    @AfterAll
    static void closeAll() {
        OPEN.values().forEach(Sandbox::close);
        OPEN.clear();
    }

    static String text(ToolResult r) {
        assertThat(r.success()).as(r.toJson()).isTrue();
        String t = r.text();
        assertThat(t).matches("(?s)Chunk ID: [0-9a-f]{6}\nWall time: \\d+\\.\\d{4} seconds\n"
                + "(Process exited with code -?\\d+|Process running with session ID \\d+)\n"
                + "Original token count: \\d+\nOutput:\n.*");
        return t;
    }

    static long session(String text) {
        Matcher m = RUNNING.matcher(text);
        assertThat(m.find()).as(text).isTrue();
        return Long.parseLong(m.group(1));
    }

    static String output(String text) {
        return text.substring(text.indexOf("\nOutput:\n") + "\nOutput:\n".length());
    }

    /** Polls with write_stdin until the output so far contains {@code wanted}. */
    static String until(SandboxTools t, long id, String chars, String wanted) {
        StringBuilder seen = new StringBuilder();
        String last = text(t.call("write_stdin", Map.of("session_id", id, "chars", chars, "yield_time_ms", 500)));
        seen.append(output(last));
        for (int i = 0; i < 20 && !seen.toString().contains(wanted); i++) {
            last = text(t.call("write_stdin", Map.of("session_id", id, "chars", "", "yield_time_ms", 500)));
            seen.append(output(last));
        }
        assertThat(seen.toString()).contains(wanted);
        return seen.toString();
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "docker"})
    void pythonRepl_keepsItsStateAcrossWriteStdinCalls(String backend) {
        SandboxTools t = tools(backend);
        String first = text(t.call("exec_command", Map.of("cmd", "python3 -i -q -u", "yield_time_ms", 500)));
        long id = session(first);
        until(t, id, "x = 41\n", ">>>");
        assertThat(until(t, id, "print(x + 1)\n", "42\n")).contains("42\n");
        assertThat(until(t, id, "def f(:\n", "SyntaxError")).contains("SyntaxError");
        assertThat(until(t, id, "print(x * 2)\n", "82\n")).as("state kept after the error").contains("82\n");
        String end = text(t.call("write_stdin", Map.of("session_id", id, "chars", "exit()\n",
                "yield_time_ms", 5000)));
        assertThat(end).contains("Process exited with code 0\n").doesNotContain("session ID");
    }

    /** MCP progress while a call yields: a heartbeat each interval of the wait, none once the answer is back. */
    @Test
    void aYieldingCall_sendsProgressWhileItWaits() {
        Sandbox s = OPEN.computeIfAbsent("local", Backends::open);
        SandboxTools t = new SandboxTools(s, ToolConfig.builder().profile("codex")
                .heartbeatInterval(Duration.ofMillis(200)).build());
        java.util.List<String> beats = new java.util.concurrent.CopyOnWriteArrayList<>();
        String first = text(t.call("exec_command", Map.of("cmd", "sleep 1.5; echo done", "yield_time_ms", 10_000),
                (ms, message) -> beats.add(ms + " " + message)));
        assertThat(first).contains("Process exited with code 0\n");
        assertThat(beats).as("about 7 heartbeats in 1.5 s").hasSizeGreaterThanOrEqualTo(3)
                .allMatch(b -> b.contains("still running"));
        int after = beats.size();
        text(t.call("exec_command", Map.of("cmd", "true", "yield_time_ms", 10_000),
                (ms, message) -> beats.add(ms + " " + message)));
        assertThat(beats).as("a call answered at once sends none").hasSize(after);
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "docker"})
    void commandThatYields_thenFinishes_withItsExitCode(String backend) {
        SandboxTools t = tools(backend);
        String first = text(t.call("exec_command", Map.of("cmd", "echo start; sleep 2; echo done; exit 3",
                "yield_time_ms", 250)));
        long id = session(first);
        assertThat(output(first)).isEqualTo("start\n");
        String end = text(t.call("write_stdin", Map.of("session_id", id, "yield_time_ms", 30_000)));
        assertThat(end).contains("Process exited with code 3\n");
        assertThat(output(end)).as("only what came after the first call").isEqualTo("done\n");
        t.sandbox().files().mkdirs("sub");
        String quick = text(t.call("exec_command", Map.of("cmd", "pwd", "workdir", "sub", "yield_time_ms", 10_000,
                "shell", "/bin/bash", "login", false)));
        assertThat(quick).contains("Process exited with code 0\n");
        assertThat(output(quick)).endsWith("/sub\n");
    }

    @ParameterizedTest
    @ValueSource(strings = {"local"})
    void outputOverTheTokenBudget_isTruncatedAsCodexDoes(String backend) {
        SandboxTools t = tools(backend);
        ToolResult r = t.call("exec_command", Map.of("cmd", "for i in $(seq 1 1000); do echo line$i; done",
                "max_output_tokens", 100));
        String out = output(text(r));
        assertThat(r.get("original_token_count")).isEqualTo(CodexExec.approxTokens(allLines(1000)));
        assertThat(out).startsWith("Warning: truncated output (original token count: "
                + CodexExec.approxTokens(allLines(1000)) + ")\nTotal output lines: 1000\n\nline1\nline2\n")
                .contains(" tokens truncated\u2026").endsWith("line1000\n");
        assertThat(out.getBytes(java.nio.charset.StandardCharsets.UTF_8).length).isLessThan(600);
    }

    static String allLines(int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 1; i <= n; i++) {
            b.append("line").append(i).append('\n');
        }
        return b.toString();
    }

    @Test
    void truncate_matchesCodexsArithmetic() {
        assertThat(CodexExec.truncate("abc", 1)).isEqualTo("abc");
        // 20 bytes, budget 8: 4 bytes of head, 4 of tail, (20 - 8) / 4 = 3 tokens removed
        assertThat(CodexExec.truncate("0123456789abcdefghij", 2)).isEqualTo("Warning: truncated output (original"
                + " token count: 5)\nTotal output lines: 1\n\n0123\u20263 tokens truncated\u2026ghij");
        // a character is never cut: é is 2 bytes
        assertThat(CodexExec.truncate("ééééé", 1)).endsWith("\n\né\u20262 tokens truncated\u2026é");
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "docker"})
    void tty_runsUnderCodexsTerminal_writeStdinTypesIntoIt(String backend) {
        SandboxTools t = tools(backend);
        String first = text(t.call("exec_command", Map.of("cmd", "stty size; echo $TERM; python3 -q", "tty", true,
                "yield_time_ms", 2000)));
        long id = session(first);
        // Codex's PTY (24 rows of 80 columns, TERM=dumb) and its raw bytes: the terminal's CR LF stay
        assertThat(output(first)).startsWith("24 80\r\ndumb\r\n");
        String answer = until(t, id, "print(6 * 7)\n", "42\r\n");
        assertThat(answer).as("the terminal echoes what is typed").contains("print(6 * 7)\r\n");
        String end = text(t.call("write_stdin", Map.of("session_id", id, "chars", "exit()\n", "yield_time_ms", 5000)));
        assertThat(end).contains("Process exited with code 0\n");
        ToolResult unknown = t.call("write_stdin", Map.of("session_id", 999_999, "chars", "x"));
        assertThat(unknown.errorType()).isEqualTo("not_found");
        assertThat(unknown.get("message")).isEqualTo("Unknown process id 999999");
    }

    @Test
    void memoryBackend_refusesExecCommand_unsupported() {
        try (MemorySandbox sandbox = MemorySandbox.open()) {
            SandboxTools t = new SandboxTools(sandbox, ToolConfig.builder().profile("codex").build());
            assertThat(t.call("exec_command", Map.of("cmd", "echo hi")).errorType()).isEqualTo("unsupported");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "docker"})
    void closingTheSandbox_killsItsSessions(String backend) {
        Sandbox sandbox = Backends.open(backend);
        try {
            SandboxTools t = new SandboxTools(sandbox, ToolConfig.builder().profile("codex").build());
            long id = session(text(t.call("exec_command", Map.of("cmd", "sleep 300", "yield_time_ms", 250))));
            List<ProcessInfo> running = sandbox.shell().processes().list();
            assertThat(running).filteredOn(p -> p.id().equals(String.valueOf(id))).singleElement()
                    .extracting(ProcessInfo::running).isEqualTo(true);
            sandbox.close();
            assertThat(t.call("write_stdin", Map.of("session_id", id)).success()).isFalse();
        } finally {
            sandbox.close();
        }
    }
}
