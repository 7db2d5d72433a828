package dev.sandbox4j.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.tools.SandboxTools;
import dev.sandbox4j.tools.ToolConfig;
import dev.sandbox4j.tools.ToolProfile;
import dev.sandbox4j.tools.ToolProgress;
import dev.sandbox4j.tools.ToolResult;
import dev.sandbox4j.tools.ToolSpec;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An MCP server over stdio exposing the sandbox tools ({@code bash}, {@code view}, {@code str_replace}, ...) plus
 * {@code create_sandbox} and {@code kill_sandbox}. Every tool takes an optional {@code sandbox_id}; without it the
 * call goes to one default sandbox the server opens on first use. Idle sandboxes are closed; a cap on open
 * sandboxes refuses politely.
 *
 * <pre>
 * java -jar sandbox-mcp-VERSION-all.jar --backend local|docker|memory [--tools PROFILE] [--read-only]
 *      [--disable bash,exec] [--max-sandboxes 4] [--idle-minutes 30] [--max-timeout 600]
 * </pre>
 *
 * <p>{@code --tools} chooses a published tool surface ({@link dev.sandbox4j.tools.ToolProfile}): with any profile
 * but {@code default} the server offers exactly that profile's tools, without {@code sandbox_id},
 * {@code create_sandbox} or {@code kill_sandbox}, and every call goes to the one default sandbox.
 *
 * <p>Stdout is the protocol channel; logs go to stderr.
 */
public final class SandboxMcpServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SandboxMcpServer.class);
    static final String VERSION = "0.1.0";

    private final ToolConfig config;
    private final SandboxPool pool;
    private McpSyncServer server;
    private CancellingInput calls;

    /**
     * @param opener       opens one sandbox (for {@code create_sandbox} and the default sandbox)
     * @param config       the tool configuration (read-only, switched-off tools, timeouts)
     * @param maxSandboxes the most sandboxes open at once
     * @param idle         how long an unused sandbox stays open
     */
    public SandboxMcpServer(Supplier<Sandbox> opener, ToolConfig config, int maxSandboxes, Duration idle) {
        this.config = Objects.requireNonNull(config, "config");
        if (maxSandboxes < 1) {
            throw new IllegalArgumentException("maxSandboxes must be >= 1");
        }
        this.pool = new SandboxPool(opener, maxSandboxes, idle);
    }

    /** Starts serving MCP over the given streams (stdin/stdout for a real server); returns at once. */
    public synchronized void serve(InputStream in, OutputStream out) {
        var mapper = new JacksonMcpJsonMapper(new ObjectMapper());
        boolean multi = multiSandbox();
        List<String> names = new ArrayList<>();
        SandboxTools.specs(config).forEach(t -> names.add(t.name()));
        if (multi) {
            names.addAll(List.of("create_sandbox", "kill_sandbox"));
        }
        calls = new CancellingInput(in, new java.util.HashSet<>(names));
        var transport = new StdioServerTransportProvider(mapper, calls, out);
        var spec = McpServer.sync(transport)
                .serverInfo("sandbox4j", VERSION)
                .instructions(multi ? "Tools to run commands and code and edit files in an isolated sandbox. Calls"
                        + " go to one default sandbox unless you pass sandbox_id (from create_sandbox)."
                        : "Tools to run commands and code and edit files in an isolated sandbox.")
                .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
                .validateToolInputs(false)
                .addToolFilter((context, tool) -> !tool.name().equals(CancellingInput.UNKNOWN_TOOL));
        spec.toolCall(McpSchema.Tool.builder().name(CancellingInput.UNKNOWN_TOOL).title("Unknown tool")
                        .description("Answers calls of tools this server does not have (never listed).")
                        .inputSchema(Map.of("type", "object")).build(),
                (exchange, request) -> {
                    throw unknownTool(request, names);
                });
        for (ToolSpec tool : SandboxTools.specs(config)) {
            spec.toolCall(McpSchema.Tool.builder().name(tool.name()).title(tool.title())
                    .description(tool.description())
                    .inputSchema(multi ? withSandboxId(tool.inputSchema()) : tool.inputSchema())
                    .outputSchema(tool.outputSchema())
                    .annotations(annotations(tool.readOnly(), tool.hints().destructive(), tool.hints().idempotent(),
                            tool.hints().openWorld()))
                    .build(),
                    (exchange, request) -> callTool(tool.name(), exchange, request));
        }
        if (!multi) {
            server = spec.build();
            return;
        }
        spec.toolCall(McpSchema.Tool.builder().name("create_sandbox").title("Create sandbox")
                        .description("Open a new, empty sandbox (settings from the server's configuration) and"
                                + " return its sandbox_id; pass it to other tools to work in it. Sandboxes idle"
                                + " for long are closed; kill_sandbox closes one now.")
                        .inputSchema(strict(Map.of(), List.of()))
                        .outputSchema(resultSchema(Map.of("sandbox_id", "string", "backend", "string")))
                        .annotations(annotations(false, false, false, false)).build(),
                (exchange, request) -> createSandbox(request));
        spec.toolCall(McpSchema.Tool.builder().name("kill_sandbox").title("Kill sandbox")
                        .description("Close a sandbox now: kill its processes and delete its files.")
                        .inputSchema(withSandboxId(strict(Map.of(), List.of("sandbox_id"))))
                        .outputSchema(resultSchema(Map.of("sandbox_id", "string", "killed", "boolean")))
                        .annotations(annotations(false, true, true, false)).build(),
                (exchange, request) -> killSandbox(request));
        server = spec.build();
    }

    /**
     * The JSON-RPC error for a call of a tool this server does not offer (MCP's protocol error for unknown tools,
     * -32602), naming it and the tools there are; a tool of the profile that is switched off says so.
     */
    private McpError unknownTool(McpSchema.CallToolRequest request, List<String> names) {
        Object asked = request.meta() == null ? null : request.meta().get(CancellingInput.TOOL_NAME);
        String name = asked == null ? request.name() : asked.toString();
        boolean switchedOff = SandboxTools.allSpecs(config.profile()).stream().anyMatch(t -> t.name().equals(name));
        String message = (switchedOff ? "tool '" + name + "' is switched off on this server (--read-only or"
                + " --disable)" : "unknown tool '" + name + "'") + "; tools: " + String.join(", ", names);
        return McpError.builder(McpSchema.ErrorCodes.INVALID_PARAMS).message(message).data(message).build();
    }

    /** Whether calls may name a sandbox: only the default profile adds sandbox_id and the two MCP-only tools. */
    private boolean multiSandbox() {
        return config.profile() == ToolProfile.DEFAULT;
    }

    private static McpSchema.ToolAnnotations annotations(boolean readOnly, boolean destructive, boolean idempotent,
                                                         boolean openWorld) {
        return new McpSchema.ToolAnnotations(null, readOnly, !readOnly && destructive, idempotent, openWorld, null);
    }

    private static Map<String, Object> strict(Map<String, Object> properties, List<String> required) {
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", properties);
        schema.put("required", required);
        schema.put("additionalProperties", false);
        return schema;
    }

    /** The result schema of the two MCP-only tools: {@code success}, their fields, and the error fields. */
    private static Map<String, Object> resultSchema(Map<String, String> fields) {
        return new ToolSpec("result", "result", List.of(), dev.sandbox4j.tools.Capability.READ_FILES,
                new ToolSpec.Hints(false, true, false), fields).outputSchema();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> withSandboxId(Map<String, Object> schema) {
        Map<String, Object> copy = new LinkedHashMap<>(schema);
        Map<String, Object> props = new LinkedHashMap<>((Map<String, Object>) schema.get("properties"));
        props.put("sandbox_id", Map.of("type", "string", "description",
                "Sandbox to use, from create_sandbox; omit for the default sandbox"));
        copy.put("properties", props);
        return copy;
    }

    /** The result as text (the JSON a model reads) and as {@code structuredContent} (the same object). */
    private static McpSchema.CallToolResult toMcp(ToolResult r) {
        var b = McpSchema.CallToolResult.builder().addTextContent(r.toJson()).isError(!r.success())
                .structuredContent(r.fields());
        for (ToolResult.Image image : r.images()) {
            b.addContent(new McpSchema.ImageContent(null, image.base64(), image.mimeType()));
        }
        return b.build();
    }

    private static String requestId(McpSchema.CallToolRequest request) {
        Object id = request.meta() == null ? null : request.meta().get(CancellingInput.REQUEST_ID);
        return id == null ? null : id.toString();
    }

    private McpSchema.CallToolResult callTool(String name, McpSyncServerExchange exchange,
                                              McpSchema.CallToolRequest request) {
        String requestId = requestId(request);
        if (!calls.begin(requestId)) {
            return toMcp(ToolResult.error(ErrorKind.INTERRUPTED, name + " was cancelled before it started"));
        }
        try {
            return runTool(name, exchange, request);
        } finally {
            calls.end(requestId);
        }
    }

    private McpSchema.CallToolResult runTool(String name, McpSyncServerExchange exchange,
                                             McpSchema.CallToolRequest request) {
        Map<String, Object> args = request.arguments() == null ? Map.of() : request.arguments();
        Object id = multiSandbox() ? args.get("sandbox_id") : null;
        try {
            if (id != null && !(id instanceof String)) {
                return toMcp(ToolResult.error(ErrorKind.INVALID_ARGUMENT, "sandbox_id must be a string"));
            }
            Sandbox sandbox = pool.get((String) id);
            Map<String, Object> rest = new LinkedHashMap<>(args);
            if (multiSandbox()) {
                rest.remove("sandbox_id");
            }
            ToolProgress progress = null;
            Object token = request.meta() == null ? null : request.meta().get("progressToken");
            if (token != null) {
                progress = (elapsedMillis, message) -> exchange.progressNotification(
                        new McpSchema.ProgressNotification(token, elapsedMillis / 1000.0, null, message));
            }
            ToolResult r = new SandboxTools(sandbox, config).call(name, rest, progress);
            return toMcp(r);
        } catch (SandboxException e) {
            return toMcp(ToolResult.error(e));
        } catch (RuntimeException e) {
            LOG.warn("tool {} failed", name, e);
            return toMcp(ToolResult.error(ErrorKind.INTERNAL, name + " failed unexpectedly ("
                    + e.getClass().getSimpleName() + ")"));
        }
    }

    private McpSchema.CallToolResult createSandbox(McpSchema.CallToolRequest request) {
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

    private McpSchema.CallToolResult killSandbox(McpSchema.CallToolRequest request) {
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

    private static McpSchema.CallToolResult ok(Map<String, Object> f) {
        return McpSchema.CallToolResult.builder().addTextContent(json(f)).structuredContent(f).isError(false)
                .build();
    }

    private static String json(Map<String, Object> f) {
        try {
            return new ObjectMapper().writeValueAsString(f);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public synchronized void close() {
        if (server != null) {
            try {
                server.closeGracefully();
            } catch (RuntimeException e) {
                LOG.debug("close: {}", e.toString());
            }
        }
        pool.close();
    }

    // ------------------------------------------------------------------ command line

    static final class Options {
        String backend;
        String tools;
        boolean readOnly;
        List<String> disabled = new ArrayList<>();
        int maxSandboxes = 4;
        Duration idle = Duration.ofMinutes(30);
        Duration maxTimeout;
        Duration heartbeat;

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--backend" -> o.backend = value(args, ++i, a);
                    case "--read-only" -> o.readOnly = true;
                    case "--tools" -> o.tools = value(args, ++i, a);
                    case "--disable" -> o.disabled.addAll(Arrays.asList(value(args, ++i, a).split(",")));
                    case "--max-sandboxes" -> o.maxSandboxes = Integer.parseInt(value(args, ++i, a));
                    case "--idle-minutes" -> o.idle = Duration.ofMinutes(Long.parseLong(value(args, ++i, a)));
                    case "--idle-seconds" -> o.idle = Duration.ofSeconds(Long.parseLong(value(args, ++i, a)));
                    case "--max-timeout" -> o.maxTimeout = Duration.ofSeconds(Long.parseLong(value(args, ++i, a)));
                    case "--heartbeat-seconds" -> o.heartbeat = Duration.ofSeconds(Long.parseLong(value(args, ++i,
                            a)));
                    default -> throw new IllegalArgumentException("unknown option " + a + "\n" + USAGE);
                }
            }
            return o;
        }

        private static String value(String[] args, int i, String option) {
            if (i >= args.length) {
                throw new IllegalArgumentException(option + " needs a value\n" + USAGE);
            }
            return args[i];
        }

        ToolConfig toolConfig() {
            ToolConfig.Builder b = ToolConfig.builder().profile(tools == null ? "default" : tools)
                    .readOnly(readOnly)
                    .disable(disabled.stream().map(String::trim).filter(s -> !s.isEmpty()).toArray(String[]::new));
            if (maxTimeout != null) {
                b.maxTimeout(maxTimeout);
            }
            if (heartbeat != null) {
                b.heartbeatInterval(heartbeat);
            }
            return b.build();
        }

        Supplier<Sandbox> opener() {
            String name = backend;
            return () -> name == null ? Sandboxes.open(SandboxSpec.defaults())
                    : Sandboxes.open(name, SandboxSpec.defaults());
        }
    }

    static final String USAGE = "usage: java -jar sandbox-mcp-all.jar [--backend local|docker|memory]"
            + " [--tools default|agentbay|coding|execute-code|spacebot|aio] [--read-only]"
            + " [--disable tool-or-capability,...] [--max-sandboxes N] [--idle-minutes N] [--max-timeout SECONDS]"
            + " [--heartbeat-seconds N]";

    /** Runs the server on stdin/stdout until stdin closes. */
    public static void main(String[] args) throws InterruptedException {
        Options o;
        ToolConfig config;
        try {
            o = Options.parse(args);
            config = o.toolConfig();
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        CountDownLatch eof = new CountDownLatch(1);
        InputStream in = new FilterInputStream(System.in) {
            @Override
            public int read() throws IOException {
                int b = super.read();
                if (b < 0) {
                    eof.countDown();
                }
                return b;
            }

            @Override
            public int read(byte[] buf, int off, int len) throws IOException {
                int n = super.read(buf, off, len);
                if (n < 0) {
                    eof.countDown();
                }
                return n;
            }
        };
        OutputStream out = System.out;
        System.setOut(System.err); // nothing else may write to the protocol channel
        SandboxMcpServer server = new SandboxMcpServer(o.opener(), config, o.maxSandboxes, o.idle);
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "sandbox-mcp-shutdown"));
        server.serve(in, out);
        LOG.info("sandbox4j MCP server ready (backend {}, tools {}, read-only {})",
                o.backend == null ? "default" : o.backend, config.profile().code(), o.readOnly);
        eof.await();
        server.close();
        System.exit(0);
    }
}
