package dev.sandbox4j.tools;

import static dev.sandbox4j.tools.Profiles.fields;
import static dev.sandbox4j.tools.Profiles.opt;
import static dev.sandbox4j.tools.Profiles.req;
import static dev.sandbox4j.tools.Profiles.same;
import static dev.sandbox4j.tools.Profiles.spec;
import static dev.sandbox4j.tools.ToolParam.Type.STRING;

import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.tools.Profiles.Tool;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The coding surface ({@link ToolProfile#CODING}) and its sub_agent tool, which the default surface shares. */
final class CodingProfile {
    private CodingProfile() {
    }

    /** The coding surface: bash with a description and seconds, view, create_file, str_replace, sub_agent. */
    static void add(ToolConfig c, Map<String, ToolSpec> base, List<Tool> out) {
        ToolSpec bash = base.get("bash");
        List<ToolParam> params = new ArrayList<>();
        params.add(bash.param("command"));
        params.add(req("description", STRING, "One-line description of what the command does (for logs"
                + " and the transcript; not run)"));
        params.add(bash.param("cwd"));
        params.add(new ToolParam("timeout", ToolParam.Type.NUMBER, "Timeout in seconds, fractions allowed"
                + " (default " + c.defaultTimeout().toSeconds() + ", at most " + c.maxTimeout().toSeconds()
                + ")", false).withDefault(c.defaultTimeout().toSeconds()));
        out.add(new Tool(bash.reshaped("bash", bash.description() + " A call that runs long reports a"
                + " heartbeat every " + c.heartbeatInterval().toSeconds() + " s.", params, bash.output(),
                List.of(), Map.of()), CodingProfile::codingBash));
        for (String name : List.of("view", "create_file", "str_replace")) {
            out.add(same(base.get(name)));
        }
        out.add(subAgent(ToolParam.Type.NUMBER)); // the coding document's table says number
    }

    /** The coding surface's fifth tool, as published: Claude Code run inside the sandbox ({@link SubAgentTool}). */
    static Tool subAgent(ToolParam.Type turns) {
        return new Tool(spec("sub_agent", "Launch Claude Code CLI inside the sandbox as a long-running autonomous"
                + " agent. Its events arrive as progress while it works; the result carries its final answer and"
                + " the session id to resume with. Needs the CLI in the sandbox and ANTHROPIC_API_KEY there (best a"
                + " brokered credential).",
                List.of(req("prompt", STRING, "Task description"),
                        opt("model", STRING, "Model alias (resolves to ANTHROPIC_DEFAULT_*_MODEL)")
                                .withValues("sonnet", "opus", "haiku"),
                        opt("resume_session_id", STRING, "Resume a prior Claude Code session"),
                        new ToolParam("max_turns", turns, "Override SUB_AGENT_MAX_TURNS", false)),
                fields("result", "string", "session_id", "string", "is_error", "boolean", "subtype", "string",
                        "num_turns", "integer", "events", "integer", "duration_ms", "integer")),
                (t, a, p) -> new SubAgentTool(t, SubAgent.claudeCode()).run(a, p));
    }

    private static ToolResult codingBash(SandboxTools t, Args a, ToolProgress p) {
        a.string("description"); // required, for the transcript only
        String command = a.text("command");
        Double seconds = a.optDouble("timeout");
        SandboxTools.Timeout timeout;
        if (seconds == null) {
            timeout = new SandboxTools.Timeout(t.config().defaultTimeout(), null);
        } else if (seconds <= 0) {
            throw new Args.ArgException("argument 'timeout' of bash must be positive, got " + seconds);
        } else {
            Duration asked = Duration.ofMillis((long) Math.ceil(Math.min(seconds, 1e9) * 1000));
            timeout = asked.compareTo(t.config().maxTimeout()) > 0
                    ? new SandboxTools.Timeout(t.config().maxTimeout(), "timeout lowered to the maximum of "
                            + t.config().maxTimeout().toSeconds() + " s")
                    : new SandboxTools.Timeout(asked, null);
        }
        ExecRequest request = ExecRequest.shell(command).withTimeout(timeout.duration())
                .withOutputLimit(t.config().outputLimit());
        String cwd = a.optString("cwd", null);
        if (cwd != null && !cwd.isBlank()) {
            request = request.withCwd(cwd);
        }
        return t.runCommand(request, Shaping.lastProgram(command), timeout, p);
    }
}
