package dev.sandbox4j.tools;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.OutputListener;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A coding-agent CLI run inside a sandbox as one autonomous task: Claude Code in non-interactive mode
 * ({@code claude -p --output-format stream-json}), its events streamed back as they come, its final answer and session
 * id returned as data, resumable, cancellable (the whole process tree is killed).
 *
 * <p>The CLI calls its model through the sandbox's network policy; give it the key as a brokered credential, so only a
 * placeholder is inside:
 * <pre>{@code
 * NetworkPolicy.allowDomains("api.anthropic.com").withCredential(Credential.header("x-api-key", key)
 *         .forHost("api.anthropic.com").exposedAs("ANTHROPIC_API_KEY"))
 * // and the spec's env ANTHROPIC_BASE_URL=http://api.anthropic.com: plain HTTP to the proxy, which calls HTTPS
 * }</pre>
 * The CLI runs with its permission prompts off ({@code --dangerously-skip-permissions}): the sandbox is the boundary.
 * Auto-update, telemetry and other non-essential traffic are off. {@code scripts/install-claude-code.sh} puts the CLI
 * where the local jail and the Docker image find it.
 */
public final class SubAgent {
    /** The model aliases the CLI resolves through {@code ANTHROPIC_DEFAULT_<ALIAS>_MODEL}. */
    public enum Model {
        SONNET, OPUS, HAIKU;

        String alias() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** One task. {@code maxTurns} null: the sandbox's {@code SUB_AGENT_MAX_TURNS}, else {@link #DEFAULT_MAX_TURNS}. */
    public record Request(String prompt, Model model, String resumeSessionId, Integer maxTurns, Duration timeout) {
        public Request {
            Objects.requireNonNull(prompt, "prompt");
            if (prompt.isBlank()) {
                throw new IllegalArgumentException("the prompt is empty");
            }
            if (maxTurns != null && maxTurns < 1) {
                throw new IllegalArgumentException("maxTurns must be at least 1, not " + maxTurns);
            }
            if (resumeSessionId != null && !resumeSessionId.matches("[A-Za-z0-9_-]{1,128}")) {
                throw new IllegalArgumentException("a session id is letters, digits, '-' and '_' (at most 128)");
            }
            timeout = timeout == null ? DEFAULT_TIMEOUT : timeout;
        }

        public static Request of(String prompt) {
            return new Request(prompt, null, null, null, null);
        }

        public Request withModel(Model m) {
            return new Request(prompt, m, resumeSessionId, maxTurns, timeout);
        }

        public Request resuming(String sessionId) {
            return new Request(prompt, model, sessionId, maxTurns, timeout);
        }

        public Request withMaxTurns(int turns) {
            return new Request(prompt, model, resumeSessionId, turns, timeout);
        }

        public Request withTimeout(Duration t) {
            return new Request(prompt, model, resumeSessionId, maxTurns, t);
        }
    }

    /** One line of the CLI's event stream: its {@code type}, {@code subtype} (or null) and the line itself. */
    public record Event(String type, String subtype, String json) {
    }

    /**
     * How the task ended: the CLI's final answer, its session id (for {@link Request#resuming}), whether it ended in an
     * error ({@code subtype}: {@code success}, {@code error_max_turns}, ...), the turns taken, the events seen, and the
     * tail of the CLI's stderr.
     */
    public record Result(String answer, String sessionId, boolean error, String subtype, int turns, int events,
            String stderr) {
    }

    public static final int DEFAULT_MAX_TURNS = 30;
    static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(30);
    /** A longer event line (a huge tool result) is reported as an {@code oversized} event, not parsed. */
    static final int MAX_LINE = 4 << 20;
    private static final List<String> QUIET_ENV = List.of("DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1",
            "DISABLE_ERROR_REPORTING=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "IS_SANDBOX=1");

    private final String cli;

    private SubAgent(String cli) {
        this.cli = cli;
    }

    /** Claude Code, found as {@code claude} on the sandbox's PATH. */
    public static SubAgent claudeCode() {
        return new SubAgent("claude");
    }

    /** Claude Code at {@code path} inside the sandbox. */
    public static SubAgent claudeCode(String path) {
        return new SubAgent(Objects.requireNonNull(path, "path"));
    }

    /**
     * Runs {@code request} to its end in {@code sandbox}, passing each event to {@code events} as it comes (on the
     * sandbox's output thread: return quickly). An interrupt of the caller kills the CLI's tree.
     *
     * @throws SandboxException {@link ErrorKind#UNSUPPORTED} without the CLI, {@link ErrorKind#INVALID_ARGUMENT}
     *     without a key in the sandbox, {@link ErrorKind#TIMEOUT} after the request's timeout (the tree killed),
     *     {@link ErrorKind#INTERRUPTED}, or the CLI's own failure when it ended without a result
     */
    public Result run(Sandbox sandbox, Request request, Consumer<Event> events) {
        Running r = start(sandbox, request, events);
        try {
            return r.await();
        } finally {
            r.cancel();
        }
    }

    /** Starts {@code request}; the caller awaits or cancels the returned task. */
    public Running start(Sandbox sandbox, Request request, Consumer<Event> events) {
        int sandboxDefault = preflight(sandbox);
        int turns = request.maxTurns() != null ? request.maxTurns() : sandboxDefault;
        Lines lines = new Lines(events == null ? e -> { } : events);
        ExecHandle h = sandbox.shell().start(ExecRequest.argv(argv(request, turns)).withEnv(env())
                .withTimeout(request.timeout()).withOutputLimit(4000), lines);
        return new Running(h, lines, request.timeout());
    }

    /** A task in flight. */
    public static final class Running {
        private final ExecHandle handle;
        private final Lines lines;
        private final Duration timeout;

        private Running(ExecHandle handle, Lines lines, Duration timeout) {
            this.handle = handle;
            this.lines = lines;
            this.timeout = timeout;
        }

        /** Waits for the end (at most the request's timeout, plus a grace for the kill). */
        public Result await() {
            Optional<ExecResult> done = handle.await(timeout.plusSeconds(10));
            ExecResult r = done.orElseGet(handle::kill);
            lines.flush();
            return lines.result(r);
        }

        /** Kills the CLI's whole tree if it still runs; idempotent. */
        public void cancel() {
            if (handle.isAlive()) {
                handle.kill();
            }
        }
    }

    private List<String> argv(Request request, int turns) {
        List<String> a = new ArrayList<>(List.of(cli, "-p", request.prompt(), "--output-format", "stream-json",
                "--verbose", "--dangerously-skip-permissions", "--max-turns", Integer.toString(turns)));
        if (request.model() != null) {
            a.addAll(List.of("--model", request.model().alias()));
        }
        if (request.resumeSessionId() != null) {
            a.addAll(List.of("--resume", request.resumeSessionId()));
        }
        return a;
    }

    private static Map<String, String> env() {
        Map<String, String> m = new java.util.LinkedHashMap<>();
        for (String kv : QUIET_ENV) {
            m.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
        }
        return m;
    }

    /**
     * One round trip that says what is missing, in words a user can act on; returns the sandbox's
     * {@code SUB_AGENT_MAX_TURNS}, else {@link #DEFAULT_MAX_TURNS}.
     */
    private int preflight(Sandbox sandbox) {
        ExecResult r = sandbox.shell().run(ExecRequest.argv("sh", "-c", "command -v \"$1\" >/dev/null || exit 3; "
                + "[ -n \"${ANTHROPIC_API_KEY:-}${ANTHROPIC_AUTH_TOKEN:-}\" ] || exit 4; "
                + "printf %s \"${SUB_AGENT_MAX_TURNS:-}\"", "sub-agent", cli));
        if (r.exitCode() == 3) {
            throw new SandboxException(ErrorKind.UNSUPPORTED, "the Claude Code CLI (" + cli + ") is not in the "
                    + "sandbox: install it with scripts/install-claude-code.sh (npm package @anthropic-ai/claude-code)");
        }
        if (r.exitCode() == 4) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "the sandbox has no ANTHROPIC_API_KEY: give it as "
                    + "a brokered credential, NetworkPolicy.Credential.header(\"x-api-key\", key).forHost("
                    + "\"api.anthropic.com\").exposedAs(\"ANTHROPIC_API_KEY\"), so only a placeholder is inside");
        }
        if (r.exitCode() != 0) {
            throw new SandboxException(ErrorKind.IO_ERROR, "checking for the sub-agent's CLI failed: " + r.stderr());
        }
        String v = r.stdout().strip();
        try {
            return v.isEmpty() ? DEFAULT_MAX_TURNS : Math.max(1, Integer.parseInt(v));
        } catch (NumberFormatException e) {
            return DEFAULT_MAX_TURNS;
        }
    }

    /** Splits stdout into lines, parses each as an event, keeps the last result. */
    static final class Lines implements OutputListener {
        private final Consumer<Event> sink;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();
        private boolean oversized;
        private int count;
        private Map<?, ?> result;

        Lines(Consumer<Event> sink) {
            this.sink = sink;
        }

        @Override
        public synchronized void onStdoutBytes(byte[] chunk) {
            for (byte b : chunk) {
                if (b == '\n') {
                    emit();
                } else if (line.size() < MAX_LINE) {
                    line.write(b);
                } else {
                    oversized = true;
                }
            }
        }

        synchronized void flush() {
            if (line.size() > 0) {
                emit();
            }
        }

        private void emit() {
            String text = line.toString(StandardCharsets.UTF_8);
            line.reset();
            Event e;
            if (oversized) {
                oversized = false;
                e = new Event("oversized", null, "{\"type\":\"oversized\"}");
            } else {
                e = parse(text);
                if (e == null) {
                    return;
                }
            }
            count++;
            try {
                sink.accept(e);
            } catch (RuntimeException ignored) {
                // a listener's failure must not lose the result
            }
        }

        private Event parse(String text) {
            if (text.isBlank()) {
                return null;
            }
            try {
                Object v = Json.parse(text);
                if (v instanceof Map<?, ?> m && m.get("type") instanceof String type) {
                    if (type.equals("result")) {
                        result = m;
                    }
                    return new Event(type, m.get("subtype") instanceof String s ? s : null, text);
                }
            } catch (RuntimeException notJson) {
                // the CLI printed something else on stdout: kept as text
            }
            return new Event("text", null, Json.write(Map.of("type", "text", "text", text)));
        }

        synchronized Result result(ExecResult r) {
            String err = r.stderr();
            if (result == null) {
                ErrorKind kind = switch (r.status()) {
                    case TIMEOUT -> ErrorKind.TIMEOUT;
                    case KILLED -> ErrorKind.INTERRUPTED;
                    default -> ErrorKind.IO_ERROR;
                };
                throw new SandboxException(kind, "the sub-agent ended without a result (" + r.status() + ", exit "
                        + r.exitCode() + "): " + tail(err));
            }
            Object turns = result.get("num_turns");
            return new Result(result.get("result") instanceof String s ? s : "",
                    result.get("session_id") instanceof String s ? s : null,
                    Boolean.TRUE.equals(result.get("is_error")),
                    result.get("subtype") instanceof String s ? s : null,
                    turns instanceof Number n ? n.intValue() : 0, count, tail(err));
        }

        private static String tail(String s) {
            return s.length() <= 2000 ? s : s.substring(s.length() - 2000);
        }
    }
}
