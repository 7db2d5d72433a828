package dev.sandbox4j.mcp;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.tools.Capability;
import dev.sandbox4j.tools.ToolProfile;
import dev.sandbox4j.tools.ToolResult;
import dev.sandbox4j.tools.ToolSpec;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code create_sandbox} and {@code kill_sandbox}: the MCP server's own tools (the {@code default} profile) and
 * AgentBay's system tools (the {@code agentbay} profile, with its document's schemas: {@code create_sandbox} takes
 * nothing, {@code kill_sandbox} a {@code sandbox_id} titled "Sandbox Id"). Each acts on the calling client's sandboxes
 * only.
 */
final class SystemTools {
    private static final Logger LOG = LoggerFactory.getLogger(SystemTools.class);
    static final String AGENTBAY_ID = "The sandbox ID is the identifier for the tool execution environment. This"
            + " sandbox_id comes from the create_sandbox tool.";

    private SystemTools() {
    }

    /** The {@code sandbox_id} parameter: AgentBay's wording in its profile, sandbox4j's elsewhere. */
    static Map<String, Object> sandboxIdSchema(ToolProfile profile, boolean optional) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("type", "string");
        if (profile == ToolProfile.AGENTBAY) {
            p.put("title", "Sandbox Id");
            p.put("description", AGENTBAY_ID + (optional ? " Omit it for the default sandbox." : ""));
        } else {
            p.put("description", "Sandbox to use, from create_sandbox; omit for the default sandbox");
        }
        return p;
    }

    private static Map<String, Object> strict(Map<String, Object> properties, List<String> required) {
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", properties);
        schema.put("required", required);
        schema.put("additionalProperties", false);
        return schema;
    }

    /** The result schema: {@code success}, the fields, and the error fields. */
    private static Map<String, Object> resultSchema(Map<String, String> fields) {
        return new ToolSpec("result", "result", List.of(), Capability.READ_FILES,
                new ToolSpec.Hints(false, true, false), fields).outputSchema();
    }

    static void register(McpServer.SyncSpecification<?> spec, ToolProfile profile,
                         Function<McpSyncServerExchange, SandboxPool> pools) {
        boolean agentbay = profile == ToolProfile.AGENTBAY;
        spec.toolCall(McpSchema.Tool.builder().name("create_sandbox").title("Create sandbox")
                        .description(agentbay ? "Creates a new AgentBay sandbox environment and returns its ID"
                                + " (sandbox_id; sandboxes idle for long are closed)."
                                : "Open a new, empty sandbox (settings from the server's configuration) and"
                                + " return its sandbox_id; pass it to other tools to work in it. Sandboxes idle"
                                + " for long are closed; kill_sandbox closes one now.")
                        .inputSchema(strict(Map.of(), List.of()))
                        .outputSchema(resultSchema(Map.of("sandbox_id", "string", "backend", "string")))
                        .annotations(McpTools.annotations(false, false, false, false)).build(),
                (exchange, request) -> create(pools.apply(exchange), request));
        spec.toolCall(McpSchema.Tool.builder().name("kill_sandbox").title("Kill sandbox")
                        .description(agentbay ? "Releases resources after a task is complete: kills the sandbox's"
                                + " processes and deletes its files." : "Close a sandbox now: kill its processes"
                                + " and delete its files.")
                        .inputSchema(strict(Map.of("sandbox_id", sandboxIdSchema(profile, false)),
                                List.of("sandbox_id")))
                        .outputSchema(resultSchema(Map.of("sandbox_id", "string", "killed", "boolean")))
                        .annotations(McpTools.annotations(false, true, true, false)).build(),
                (exchange, request) -> kill(pools.apply(exchange), request));
    }

    private static McpSchema.CallToolResult toMcp(ToolResult r) {
        return McpSchema.CallToolResult.builder().addTextContent(r.toJson()).isError(!r.success())
                .structuredContent(r.fields()).build();
    }

    private static McpSchema.CallToolResult ok(Map<String, Object> f) {
        return McpSchema.CallToolResult.builder().addTextContent(McpTools.json(f)).structuredContent(f)
                .isError(false).build();
    }

    private static McpSchema.CallToolResult create(SandboxPool pool, McpSchema.CallToolRequest request) {
        if (request.arguments() != null && !request.arguments().isEmpty()) {
            return toMcp(ToolResult.error(ErrorKind.INVALID_ARGUMENT, "create_sandbox takes no arguments, got "
                    + String.join(", ", request.arguments().keySet())));
        }
        try {
            Sandbox s = pool.create();
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("success", true);
            f.put("sandbox_id", s.id());
            f.put("backend", s.info().backend());
            return ok(f);
        } catch (SandboxException e) {
            return toMcp(ToolResult.error(e));
        } catch (RuntimeException e) {
            LOG.warn("create_sandbox failed", e);
            return toMcp(ToolResult.error(ErrorKind.INTERNAL, "could not open a sandbox ("
                    + e.getClass().getSimpleName() + ")"));
        }
    }

    private static McpSchema.CallToolResult kill(SandboxPool pool, McpSchema.CallToolRequest request) {
        Map<String, Object> args = request.arguments() == null ? Map.of() : request.arguments();
        List<String> unknown = args.keySet().stream().filter(k -> !k.equals("sandbox_id")).sorted().toList();
        if (!unknown.isEmpty()) {
            return toMcp(ToolResult.error(ErrorKind.INVALID_ARGUMENT, "unknown argument(s) " + unknown
                    + " for kill_sandbox; it takes: sandbox_id"));
        }
        Object id = args.get("sandbox_id");
        if (!(id instanceof String s) || s.isBlank()) {
            return toMcp(ToolResult.error(ErrorKind.INVALID_ARGUMENT, "kill_sandbox needs sandbox_id"));
        }
        if (!pool.kill(s)) {
            return toMcp(ToolResult.error(ErrorKind.NOT_FOUND, "no open sandbox '" + s + "'; open: " + pool.ids()));
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("success", true);
        f.put("sandbox_id", s);
        f.put("killed", true);
        return ok(f);
    }
}
