package dev.sandbox4j.tools;

import static dev.sandbox4j.tools.Profiles.opt;
import static dev.sandbox4j.tools.Profiles.req;
import static dev.sandbox4j.tools.ToolParam.Type.BOOLEAN;
import static dev.sandbox4j.tools.ToolParam.Type.NUMBER;
import static dev.sandbox4j.tools.ToolParam.Type.STRING;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.Feature;
import dev.sandbox4j.ProcessInfo;
import dev.sandbox4j.ProcessOutput;
import dev.sandbox4j.Processes;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.Terminal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Codex's unified exec tools over {@link Processes}: {@code exec_command} starts a command and waits up to
 * {@code yield_time_ms} for it; if it still runs, its id comes back as the session id, and {@code write_stdin} sends
 * input to it and returns the output since the last call. Limits, defaults and the result text are Codex's
 * ({@code codex-rs/core/src/unified_exec}, {@code codex-rs/utils/output-truncation}).
 */
final class CodexExec {
    static final long MIN_YIELD_MS = 250;
    static final long MIN_EMPTY_YIELD_MS = 5_000;
    static final long MAX_YIELD_MS = 30_000;
    static final long MAX_EMPTY_YIELD_MS = 300_000;
    static final long EXEC_YIELD_MS = 10_000;
    static final long WRITE_YIELD_MS = 250;
    static final long MAX_OUTPUT_TOKENS = 10_000;

    /**
     * How far the tools have read each session's output, per sandbox (its registry): a tool set made per call (as
     * the Spring adapter does) continues where the last call stopped, as Codex's one session manager does.
     */
    private static final Map<Processes, Map<String, Long>> CURSORS =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    private static Map<String, Long> cursors(Processes processes) {
        return CURSORS.computeIfAbsent(processes, k -> new ConcurrentHashMap<>());
    }

    private CodexExec() {
    }

    static List<ToolParam> execParams() {
        return List.of(req("cmd", STRING, "Shell command to execute."),
                opt("workdir", STRING, "Optional working directory to run the command in; defaults to the turn cwd."),
                opt("shell", STRING, "Shell binary to launch. Defaults to the user's default shell."),
                opt("tty", BOOLEAN, "Whether to allocate a TTY for the command. Defaults to false (plain pipes); set"
                        + " to true to open a PTY and access TTY process."),
                opt("yield_time_ms", NUMBER, "How long to wait (in milliseconds) for output before yielding."),
                opt("max_output_tokens", NUMBER, "Maximum number of tokens to return. Excess output will be"
                        + " truncated."),
                opt("login", BOOLEAN, "Whether to run the shell with -l/-i semantics. Defaults to true."));
    }

    static List<ToolParam> writeParams() {
        return List.of(req("session_id", NUMBER, "Identifier of the running unified exec session."),
                opt("chars", STRING, "Bytes to write to stdin (may be empty to poll)."),
                opt("yield_time_ms", NUMBER, "How long to wait (in milliseconds) for output before yielding."),
                opt("max_output_tokens", NUMBER, "Maximum number of tokens to return. Excess output will be"
                        + " truncated."));
    }

    /** Codex's {@code unified_exec_output_schema}. */
    static Map<String, Object> outputSchema() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("chunk_id", Map.of("type", "string", "description", "Chunk identifier included when the response"
                + " reports one."));
        p.put("wall_time_seconds", Map.of("type", "number", "description", "Elapsed wall time spent waiting for"
                + " output in seconds."));
        p.put("exit_code", Map.of("type", "number", "description", "Process exit code when the command finished"
                + " during this call."));
        p.put("session_id", Map.of("type", "number", "description", "Session identifier to pass to write_stdin"
                + " when the process is still running."));
        p.put("original_token_count", Map.of("type", "number", "description", "Approximate token count before"
                + " output truncation."));
        p.put("output", Map.of("type", "string", "description", "Command output text, possibly truncated."));
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("type", "object");
        s.put("properties", p);
        s.put("required", List.of("wall_time_seconds", "output"));
        s.put("additionalProperties", false);
        return s;
    }

    /**
     * The terminal of {@code tty: true}: Codex's (codex-rs/utils/pty/src/pty.rs: 24 rows of 80 columns; its unified
     * exec sets {@code TERM=dumb}) and its output as the terminal wrote it, as Codex returns it (lossy UTF-8, no
     * stripping).
     */
    static final Terminal CODEX_TTY = new Terminal(80, 24, "dumb", true);

    static ToolResult execCommand(SandboxTools t, Args a, ToolProgress p) {
        boolean tty = a.optBool("tty", false);
        if (tty && !t.sandbox().info().features().contains(Feature.TERMINAL)) {
            throw new SandboxException(ErrorKind.UNSUPPORTED, "tty=true needs a terminal, which this sandbox does not"
                    + " have; run it again without tty (programs that insist on a terminal, such as REPLs, usually"
                    + " have a flag for pipes, like python3 -i -u)");
        }
        String cmd = a.text("cmd");
        String shell = a.optString("shell", null);
        ExecRequest request = shell == null || shell.isBlank() ? ExecRequest.shell(cmd)
                : ExecRequest.argv(shell, a.optBool("login", true) ? "-lc" : "-c", cmd);
        String workdir = a.optString("workdir", null);
        if (workdir != null && !workdir.isBlank()) {
            request = request.withCwd(workdir);
        }
        if (tty) {
            request = request.withTerminal(CODEX_TTY);
        }
        long yield = clamp(a.optLong("yield_time_ms", EXEC_YIELD_MS), MIN_YIELD_MS, MAX_YIELD_MS);
        long start = System.nanoTime();
        ProcessInfo info = t.sandbox().shell().processes().start(request);
        return collect(t, info.id(), yield, start, tokens(a), p);
    }

    static ToolResult writeStdin(SandboxTools t, Args a, ToolProgress p) {
        String id = sessionId(a);
        String chars = a.optString("chars", "");
        Processes processes = t.sandbox().shell().processes();
        try {
            processes.info(id);
        } catch (SandboxException e) {
            if (e.kind() == ErrorKind.NOT_FOUND) {
                throw new SandboxException(ErrorKind.NOT_FOUND, "Unknown process id " + id);
            }
            throw e;
        }
        long start = System.nanoTime();
        if (!chars.isEmpty()) {
            processes.writeStdin(id, chars.getBytes(StandardCharsets.UTF_8));
        }
        long asked = a.optLong("yield_time_ms", WRITE_YIELD_MS);
        long yield = chars.isEmpty() ? clamp(asked, MIN_EMPTY_YIELD_MS, MAX_EMPTY_YIELD_MS)
                : clamp(asked, MIN_YIELD_MS, MAX_YIELD_MS);
        return collect(t, id, yield, start, tokens(a), p);
    }

    private static String sessionId(Args a) {
        Double d = a.optDouble("session_id");
        if (d == null || d != Math.rint(d) || d < 0) {
            throw new Args.ArgException("session_id must be the whole number exec_command returned");
        }
        return String.valueOf(d.longValue());
    }

    private static long tokens(Args a) {
        long n = a.optLong("max_output_tokens", MAX_OUTPUT_TOKENS);
        if (n < 0) {
            throw new Args.ArgException("max_output_tokens must not be negative");
        }
        return Math.min(n, 1L << 20);
    }

    private static long clamp(long v, long min, long max) {
        return Math.max(min, Math.min(max, v));
    }

    /**
     * Waits up to {@code yield} ms for the command to end, then answers with the output since the last read; while it
     * waits, a client that asked for progress (MCP's {@code progressToken}) gets a heartbeat each interval.
     */
    private static ToolResult collect(SandboxTools t, String id, long yield, long startNanos, long maxTokens,
                                      ToolProgress p) {
        Processes processes = t.sandbox().shell().processes();
        Map<String, Long> cursors = cursors(processes);
        long from = cursors.getOrDefault(id, 0L);
        ProcessOutput out = t.await(() -> processes.read(id, from, Duration.ofMillis(yield)), p);
        cursors.put(id, out.next());
        if (!out.running()) {
            cursors.remove(id);
        }
        double wall = (System.nanoTime() - startNanos) / 1e9;
        String text = out.text();
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("chunk_id", chunkId());
        f.put("wall_time_seconds", wall);
        if (out.running()) {
            f.put("session_id", Long.parseLong(id));
        } else {
            f.put("exit_code", out.exitCode());
        }
        f.put("original_token_count", approxTokens(text));
        f.put("output", truncate(text, maxTokens));
        return ToolResult.ok(f).withText(render(f));
    }

    /** Codex's {@code response_text}. */
    static String render(Map<String, Object> f) {
        StringBuilder b = new StringBuilder();
        b.append("Chunk ID: ").append(f.get("chunk_id")).append('\n');
        b.append("Wall time: ").append(String.format(Locale.ROOT, "%.4f", (Double) f.get("wall_time_seconds")))
                .append(" seconds\n");
        if (f.containsKey("exit_code")) {
            b.append("Process exited with code ").append(f.get("exit_code")).append('\n');
        }
        if (f.containsKey("session_id")) {
            b.append("Process running with session ID ").append(f.get("session_id")).append('\n');
        }
        b.append("Original token count: ").append(f.get("original_token_count")).append('\n');
        b.append("Output:\n").append(f.get("output"));
        return b.toString();
    }

    private static String chunkId() {
        return String.format(Locale.ROOT, "%06x", ThreadLocalRandom.current().nextInt(1 << 24));
    }

    /** Codex's {@code approx_token_count}: UTF-8 bytes / 4, rounded up. */
    static long approxTokens(String text) {
        return (utf8(text).length + 3L) / 4;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Codex's {@code formatted_truncate_text} with a token budget: text over {@code 4 * maxTokens} UTF-8 bytes keeps
     * its head and tail around {@code …N tokens truncated…}, under a warning with the original counts.
     */
    static String truncate(String text, long maxTokens) {
        byte[] b = utf8(text);
        long budget = maxTokens * 4;
        if (b.length <= budget) {
            return text;
        }
        long lines = text.lines().count();
        String marker = "\u2026" + ((b.length - budget + 3) / 4) + " tokens truncated\u2026";
        String middle = budget == 0 ? marker : head(b, (int) (budget / 2)) + marker
                + tail(b, (int) (budget - budget / 2));
        return "Warning: truncated output (original token count: " + approxTokens(text) + ")\nTotal output lines: "
                + lines + "\n\n" + middle;
    }

    /** The longest prefix of whole characters within {@code max} bytes. */
    private static String head(byte[] b, int max) {
        int end = Math.min(max, b.length);
        while (end > 0 && end < b.length && (b[end] & 0xC0) == 0x80) {
            end--;
        }
        return new String(b, 0, end, StandardCharsets.UTF_8);
    }

    /** The longest suffix of whole characters within {@code max} bytes. */
    private static String tail(byte[] b, int max) {
        int start = Math.max(0, b.length - max);
        while (start < b.length && (b[start] & 0xC0) == 0x80) {
            start++;
        }
        return new String(b, start, b.length - start, StandardCharsets.UTF_8);
    }
}
