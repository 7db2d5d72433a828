package dev.sandbox4j.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.tools.SandboxTools;
import dev.sandbox4j.tools.ToolConfig;
import dev.sandbox4j.tools.ToolProfile;
import dev.sandbox4j.tools.ToolProgress;
import dev.sandbox4j.tools.ToolResult;
import dev.sandbox4j.tools.ToolSpec;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A tool configuration's tools on an MCP server, for stdio and Streamable HTTP alike: registers them (plus
 * {@code create_sandbox} and {@code kill_sandbox} where the profile has them), finds the calling client's sandboxes,
 * and shapes each result the way its surface publishes it.
 *
 * <ul>
 *   <li>{@code default} and {@code agentbay}: calls may name a sandbox ({@code sandbox_id}, from
 *       {@code create_sandbox}); agentbay's {@code shell} requires it, as its document's system shell does;
 *   <li>{@code execute-code}: every call runs in a fresh sandbox, taken from a warm pool (one opened ahead) and closed
 *       afterwards,
 *       unless state is kept (then every call goes to the client's one sandbox);
 *   <li>{@code filesystem}: the text is the tool's text and {@code structuredContent} is {@code {content}}; a failure
 *       is its message with {@code isError} and no structured content, as the reference server answers.
 * </ul>
 */
final class McpTools implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(McpTools.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Admits a call (cancellation, per-client limits) and releases it. */
    interface Gate {
        /** Null to go ahead, else the refusal to answer with. */
        ToolResult begin(McpSyncServerExchange exchange, McpSchema.CallToolRequest request);

        void end(McpSyncServerExchange exchange, McpSchema.CallToolRequest request);
    }

    private final ToolConfig config;
    private final Function<McpSyncServerExchange, SandboxPool> pools;
    private final Gate gate;
    /** execute-code's fresh sandbox per call: one opened ahead while the call runs (sandbox-core's warm pool). */
    /**
     * One warm, refilled by one thread; max only bounds runaway growth (calls in flight are bounded by the
     * transport); a failed open fails the call that waited for it, the next call tries again.
     */
    private static final dev.sandbox4j.pool.PoolOptions SPARE = new dev.sandbox4j.pool.PoolOptions(1, 1024, 1,
            java.time.Duration.ofMinutes(10), java.time.Duration.ofMinutes(2));
    private final dev.sandbox4j.pool.SandboxPool spare;

    /**
     * @param opener    opens a fresh sandbox (execute-code's per-call sandboxes)
     * @param keepState execute-code runs every call in the client's one sandbox instead of a fresh one
     * @param pools     the calling client's sandboxes
     */
    McpTools(ToolConfig config, Supplier<Sandbox> opener, boolean keepState,
             Function<McpSyncServerExchange, SandboxPool> pools, Gate gate) {
        this.config = config;
        this.pools = pools;
        this.gate = gate;
        this.spare = config.profile() == ToolProfile.EXECUTE_CODE && !keepState
                ? dev.sandbox4j.pool.SandboxPool.of(opener, SPARE) : null;
    }

    /** Whether calls may name a sandbox and the profile has create_sandbox and kill_sandbox. */
    boolean multiSandbox() {
        return config.profile() == ToolProfile.DEFAULT || config.profile() == ToolProfile.AGENTBAY;
    }

    /** The names of every tool served. */
    List<String> names() {
        List<String> names = new ArrayList<>();
        SandboxTools.specs(config).forEach(t -> names.add(t.name()));
        if (multiSandbox()) {
            names.addAll(List.of("create_sandbox", "kill_sandbox"));
        }
        return names;
    }

    String instructions() {
        return multiSandbox() ? "Tools to run commands and code and edit files in an isolated sandbox. Calls go to"
                + " one default sandbox unless you pass sandbox_id (from create_sandbox)."
                : "Tools to run commands and code and edit files in an isolated sandbox.";
    }

    void register(McpServer.SyncSpecification<?> spec) {
        for (ToolSpec tool : SandboxTools.specs(config)) {
            spec.toolCall(McpSchema.Tool.builder().name(tool.name()).title(tool.title())
                            .description(tool.description())
                            .inputSchema(multiSandbox() ? withSandboxId(tool) : tool.inputSchema())
                            .outputSchema(tool.outputSchema())
                            .annotations(annotations(tool.readOnly(), tool.hints().destructive(),
                                    tool.hints().idempotent(), tool.hints().openWorld()))
                            .build(),
                    (exchange, request) -> guarded(tool, exchange, request));
        }
        if (multiSandbox()) {
            SystemTools.register(spec, config.profile(), pools);
        }
    }

    static McpSchema.ToolAnnotations annotations(boolean readOnly, boolean destructive, boolean idempotent,
                                                 boolean openWorld) {
        return new McpSchema.ToolAnnotations(null, readOnly, !readOnly && destructive, idempotent, openWorld, null);
    }

    /** The tool's schema with {@code sandbox_id}: optional, but required by agentbay's system-level shell. */
    @SuppressWarnings("unchecked")
    private Map<String, Object> withSandboxId(ToolSpec tool) {
        Map<String, Object> schema = tool.inputSchema();
        Map<String, Object> copy = new LinkedHashMap<>(schema);
        Map<String, Object> props = new LinkedHashMap<>();
        boolean system = config.profile() == ToolProfile.AGENTBAY && tool.name().equals("shell");
        props.put("sandbox_id", SystemTools.sandboxIdSchema(config.profile(), !system));
        props.putAll((Map<String, Object>) schema.get("properties"));
        copy.put("properties", props);
        if (system) {
            List<String> required = new ArrayList<>();
            required.add("sandbox_id");
            required.addAll((List<String>) schema.get("required"));
            copy.put("required", required);
        }
        return copy;
    }

    private McpSchema.CallToolResult guarded(ToolSpec tool, McpSyncServerExchange exchange,
                                             McpSchema.CallToolRequest request) {
        ToolResult refused = gate.begin(exchange, request);
        if (refused != null) {
            return toMcp(tool, refused);
        }
        try {
            return run(tool, exchange, request);
        } finally {
            gate.end(exchange, request);
        }
    }

    private McpSchema.CallToolResult run(ToolSpec tool, McpSyncServerExchange exchange,
                                         McpSchema.CallToolRequest request) {
        String name = tool.name();
        Map<String, Object> args = request.arguments() == null ? Map.of() : request.arguments();
        Object id = multiSandbox() ? args.get("sandbox_id") : null;
        Sandbox fresh = null;
        try {
            if (id != null && !(id instanceof String)) {
                return toMcp(tool, ToolResult.error(ErrorKind.INVALID_ARGUMENT, "sandbox_id must be a string"));
            }
            boolean system = config.profile() == ToolProfile.AGENTBAY && name.equals("shell");
            if (system && (id == null || ((String) id).isBlank())) {
                return toMcp(tool, ToolResult.error(ErrorKind.INVALID_ARGUMENT, "missing required argument"
                        + " 'sandbox_id' for shell; call create_sandbox for one"));
            }
            Sandbox sandbox;
            if (spare != null) {
                try {
                    sandbox = fresh = spare.acquire();
                } catch (RuntimeException e) {
                    return toMcp(tool, setupFailed(e));
                }
            } else {
                sandbox = pools.apply(exchange).get((String) id);
            }
            Map<String, Object> rest = new LinkedHashMap<>(args);
            if (multiSandbox()) {
                rest.remove("sandbox_id");
            }
            ToolResult result = new SandboxTools(sandbox, config).call(name, rest, progress(exchange, request));
            announceStatus(exchange, name, result);
            return toMcp(tool, result);
        } catch (SandboxException e) {
            return toMcp(tool, ToolResult.error(e));
        } catch (RuntimeException e) {
            LOG.warn("tool {} failed", name, e);
            return toMcp(tool, ToolResult.error(ErrorKind.INTERNAL, name + " failed unexpectedly ("
                    + e.getClass().getSimpleName() + ")"));
        } finally {
            if (fresh != null) {
                try {
                    fresh.close();
                } catch (RuntimeException e) {
                    LOG.warn("closing sandbox {} failed: {}", fresh.id(), e.toString());
                }
            }
        }
    }

    private static ToolProgress progress(McpSyncServerExchange exchange, McpSchema.CallToolRequest request) {
        Object token = request.meta() == null ? null : request.meta().get("progressToken");
        if (token == null) {
            return null;
        }
        return (elapsedMillis, message) -> exchange.progressNotification(
                new McpSchema.ProgressNotification(token, elapsedMillis / 1000.0, null, message));
    }

    /**
     * A status set with {@code set_status} (Spacebot) goes to the client as a logging notification too (level
     * notice, logger {@code sandbox4j.status}, data the JSON {@code {"worker_id", "status"}}), so a client shows a
     * worker's progress where it shows server messages. A client gone by then loses nothing it asked for.
     */
    private static void announceStatus(McpSyncServerExchange exchange, String tool, ToolResult r) {
        if (!tool.equals("set_status") || !r.success()) {
            return;
        }
        try {
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("worker_id", r.get("worker_id"));
            data.put("status", r.get("status"));
            exchange.loggingNotification(new McpSchema.LoggingMessageNotification(McpSchema.LoggingLevel.NOTICE,
                    "sandbox4j.status", JSON.writeValueAsString(data)));
        } catch (IOException | RuntimeException e) {
            LOG.debug("the status notification was not sent", e);
        }
    }

    /** execute-code's answer when no sandbox could be opened for the call. */
    private static ToolResult setupFailed(RuntimeException e) {
        String why = e instanceof SandboxException s ? s.getMessage() : e.getClass().getSimpleName();
        return ToolResult.failure("SANDBOX_SETUP_FAILED", "no sandbox could be opened for this run: " + why, true);
    }

    /**
     * The result as its surface publishes it. A tool whose surface declares its own result schema gets exactly that
     * as {@code structuredContent} (no {@code success}) and, on failure, no structured content at all (clients
     * validate structured content against the schema even on errors); others get the result object as both.
     */
    static McpSchema.CallToolResult toMcp(ToolSpec tool, ToolResult r) {
        if (tool.publishedOutputSchema() == null) {
            var b = McpSchema.CallToolResult.builder().addTextContent(r.toJson()).isError(!r.success())
                    .structuredContent(r.fields());
            for (ToolResult.Image image : r.images()) {
                b.addContent(new McpSchema.ImageContent(null, image.base64(), image.mimeType()));
            }
            return b.build();
        }
        boolean textResults = isFilesystemTool(tool);
        if (!r.success()) {
            String text = textResults ? String.valueOf(r.get("message")) : r.toJson();
            return McpSchema.CallToolResult.builder().addTextContent(text).isError(true).build();
        }
        Map<String, Object> structured = new LinkedHashMap<>(r.fields());
        structured.remove("success");
        var b = McpSchema.CallToolResult.builder().structuredContent(structured).isError(false);
        Object content = structured.get("content");
        if (textResults && content instanceof String s) {
            b.addTextContent(s);
            for (ToolResult.Image image : r.images()) { // playwright's screenshot: its text, then the image
                b.addContent(new McpSchema.ImageContent(null, image.base64(), image.mimeType()));
            }
        } else if (textResults && content instanceof List<?> blocks) {
            blocks.forEach(block -> b.addContent(block((Map<?, ?>) block)));
        } else if (!r.text().equals(r.toJson())) {
            b.addTextContent(r.text()); // the surface's own text (Codex's exec output)
        } else {
            b.addTextContent(json(structured));
        }
        return b.build();
    }

    private static boolean isFilesystemTool(ToolSpec tool) {
        Object props = tool.outputSchema().get("properties");
        return props instanceof Map<?, ?> m && m.size() == 1 && m.containsKey("content");
    }

    /** One content block of read_media_file: image, audio or an embedded resource. */
    private static McpSchema.Content block(Map<?, ?> block) {
        String type = String.valueOf(block.get("type"));
        if (type.equals("image")) {
            return new McpSchema.ImageContent(null, (String) block.get("data"), (String) block.get("mimeType"));
        }
        if (type.equals("audio")) {
            return new McpSchema.AudioContent(null, (String) block.get("data"), (String) block.get("mimeType"));
        }
        Map<?, ?> res = (Map<?, ?>) block.get("resource");
        return new McpSchema.EmbeddedResource(null, new McpSchema.BlobResourceContents((String) res.get("uri"),
                (String) res.get("mimeType"), (String) res.get("blob")));
    }

    static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        if (spare != null) {
            spare.close();
        }
    }
}
