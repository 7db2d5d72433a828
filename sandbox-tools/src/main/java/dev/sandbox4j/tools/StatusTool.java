package dev.sandbox4j.tools;

import static dev.sandbox4j.tools.Profiles.fields;
import static dev.sandbox4j.tools.Profiles.req;
import static dev.sandbox4j.tools.ToolParam.Type.STRING;

import dev.sandbox4j.tools.Profiles.Tool;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Spacebot's {@code set_status}: a worker's one-line progress status, kept on the configuration's
 * {@link StatusBoard} under the sandbox's id (the worker), where the Java API, an MCP client (a logging notification)
 * and Spring's health and metrics see it. It changes nothing in the sandbox, so read-only mode keeps it.
 */
final class StatusTool {
    private StatusTool() {
    }

    static void add(ToolConfig c, List<Tool> out) {
        out.add(new Tool(new ToolSpec("set_status", "Update your worker status to give the channel visibility into"
                + " your progress. Status appears in the channel's status block. Use it periodically during"
                + " long-running tasks so the user knows you're making progress.",
                List.of(req("status", STRING, "A concise status message describing your current progress (1-2"
                        + " sentences). Maximum " + StatusBoard.MAX_CHARS + " characters.")),
                Capability.READ_FILES, new ToolSpec.Hints(false, true, false),
                fields("worker_id", "string", "status", "string")), StatusTool::setStatus));
    }

    private static ToolResult setStatus(SandboxTools t, Args a, ToolProgress p) {
        String asked = a.text("status");
        StatusBoard.Status s = t.config().statusBoard().set(t.sandbox().id(), asked);
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("worker_id", s.workerId());
        f.put("status", s.status());
        return ToolResult.ok(f);
    }
}
