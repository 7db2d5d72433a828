package dev.sandbox4j.tools;

import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ProcessInfo;
import dev.sandbox4j.ProcessOutput;
import dev.sandbox4j.Processes;
import dev.sandbox4j.Terminal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The default profile's terminal tools over {@link Processes} and {@link Terminal}: {@code start_terminal} starts a
 * program under a terminal and answers with its first output, {@code send_keys} types into it and answers with what
 * came since, {@code read_terminal} reads (or kills). Output is the terminal's text (control sequences and the
 * alternate screen stripped), capped head+tail at the configured output limit per answer.
 */
final class TerminalTools {
    static final int DEFAULT_COLS = 120;
    static final int DEFAULT_ROWS = 40;

    /** Where the tools last stopped reading each terminal, per sandbox (its registry), as CodexExec keeps them. */
    private static final Map<Processes, Map<String, Long>> CURSORS = Collections.synchronizedMap(new WeakHashMap<>());

    private TerminalTools() {
    }

    private static Map<String, Long> cursors(Processes processes) {
        return CURSORS.computeIfAbsent(processes, k -> new ConcurrentHashMap<>());
    }

    static ToolResult start(SandboxTools t, Args a, ToolProgress p) {
        int cols = (int) a.optLong("cols", DEFAULT_COLS);
        int rows = (int) a.optLong("rows", DEFAULT_ROWS);
        ExecRequest request = ExecRequest.shell(a.text("command")).withTerminal(Terminal.of(cols, rows));
        String cwd = a.optString("cwd", null);
        if (cwd != null && !cwd.isBlank()) {
            request = request.withCwd(cwd);
        }
        ProcessInfo info = t.sandbox().shell().processes().start(request);
        return answer(t, info.id(), a.optLong("wait_ms", 1000), false);
    }

    static ToolResult sendKeys(SandboxTools t, Args a, ToolProgress p) {
        String id = a.text("terminal_id");
        Processes processes = t.sandbox().shell().processes();
        processes.writeStdin(id, a.string("keys").getBytes(StandardCharsets.UTF_8));
        return answer(t, id, a.optLong("wait_ms", 500), false);
    }

    static ToolResult read(SandboxTools t, Args a, ToolProgress p) {
        return answer(t, a.text("terminal_id"), a.optLong("wait_ms", 0), a.optBool("kill", false));
    }

    /** Waits up to {@code waitMs} for the program to end, then answers with the text since the last answer. */
    private static ToolResult answer(SandboxTools t, String id, long waitMs, boolean kill) {
        Processes processes = t.sandbox().shell().processes();
        if (kill) {
            processes.kill(id);
        }
        Map<String, Long> cursors = cursors(processes);
        ProcessOutput out = processes.read(id, cursors.getOrDefault(id, 0L), Duration.ofMillis(waitMs));
        if (out.running()) {
            cursors.put(id, out.next());
        } else {
            cursors.remove(id);
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("terminal_id", id);
        f.put("running", out.running());
        if (!out.running()) {
            f.put("exit_code", out.exitCode());
        }
        String text = out.text();
        int cap = t.config().outputLimit();
        if (text.length() > 2L * cap) {
            int omitted = text.length() - 2 * cap;
            f.put("omitted_chars", omitted);
            text = text.substring(0, cap) + "\n[... " + omitted + " characters omitted ...]\n"
                    + text.substring(text.length() - cap);
        }
        if (out.skipped() > 0) {
            f.put("note", out.skipped() + " bytes of older output are no longer kept");
        }
        f.put("output", text);
        return ToolResult.ok(f);
    }
}
