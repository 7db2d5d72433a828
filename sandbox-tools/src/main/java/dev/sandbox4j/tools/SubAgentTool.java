package dev.sandbox4j.tools;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The {@code sub_agent} tool of the coding surface: "Launch Claude Code CLI inside the sandbox as a long-running
 * autonomous agent", with {@code prompt}, {@code model} ({@code sonnet | opus | haiku}), {@code resume_session_id} and
 * {@code max_turns}, over {@link SubAgent}. While it runs, every CLI event becomes a progress heartbeat (the kind of
 * event, the tool it called), so an MCP client sees the agent work; the answer and the session id come back as data.
 */
final class SubAgentTool {
    private final SandboxTools tools;
    private final SubAgent agent;

    SubAgentTool(SandboxTools tools, SubAgent agent) {
        this.tools = tools;
        this.agent = agent;
    }

    ToolResult run(Args a, ToolProgress progress) {
        SubAgent.Request r = SubAgent.Request.of(a.text("prompt"));
        String model = a.optString("model", null);
        if (model != null) {
            try {
                r = r.withModel(SubAgent.Model.valueOf(model.toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new Args.ArgException("argument 'model' of sub_agent must be one of sonnet, opus, haiku, got '"
                        + model + "'");
            }
        }
        String resume = a.optString("resume_session_id", null);
        if (resume != null) {
            r = r.resuming(resume);
        }
        Double turns = a.optDouble("max_turns");
        if (turns != null) {
            if (turns < 1 || turns > 10_000 || turns != Math.rint(turns)) {
                throw new Args.ArgException("argument 'max_turns' of sub_agent must be a whole number 1..10000, got "
                        + turns);
            }
            r = r.withMaxTurns(turns.intValue());
        }
        long start = System.nanoTime();
        AtomicInteger seen = new AtomicInteger();
        AtomicReference<String> last = new AtomicReference<>("");
        SubAgent.Running running = agent.start(tools.sandbox(), r, e -> {
            seen.incrementAndGet();
            last.set(e.subtype() == null ? e.type() : e.type() + "/" + e.subtype());
            if (progress != null) {
                long ms = (System.nanoTime() - start) / 1_000_000;
                SandboxTools.heartbeat(progress, ms, "sub-agent event " + seen.get() + ": " + last.get());
            }
        });
        SubAgent.Result result;
        try {
            result = running.await();
        } finally {
            running.cancel();
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("result", result.answer());
        f.put("session_id", result.sessionId());
        f.put("is_error", result.error());
        f.put("subtype", result.subtype());
        f.put("num_turns", result.turns());
        f.put("events", result.events());
        f.put("duration_ms", Duration.ofNanos(System.nanoTime() - start).toMillis());
        return ToolResult.ok(f);
    }
}
