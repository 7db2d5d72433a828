package dev.sandbox4j.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.tools.SandboxTools;
import dev.sandbox4j.tools.ToolConfig;
import dev.sandbox4j.tools.ToolResult;
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
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An MCP server over stdio (or, with {@code --http PORT}, over Streamable HTTP: {@link SandboxMcpHttpServer}) exposing the sandbox tools ({@code bash}, {@code view}, {@code str_replace}, ...) plus
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
 * but {@code default} and {@code agentbay} the server offers exactly that profile's tools, without
 * {@code sandbox_id}, {@code create_sandbox} or {@code kill_sandbox}, and every call goes to the one default sandbox;
 * {@code agentbay} adds its document's system tools ({@code create_sandbox}, {@code kill_sandbox}, and
 * {@code sandbox_id}, required by {@code shell}); {@code execute-code} runs each call in a fresh sandbox unless
 * {@code --keep-state}.
 *
 * <p>Stdout is the protocol channel; logs go to stderr.
 */
public final class SandboxMcpServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SandboxMcpServer.class);
    static final String VERSION = "0.1.0";

    private final ToolConfig config;
    private final SandboxPool pool;
    private final McpTools tools;
    private McpSyncServer server;
    private CancellingInput calls;

    /**
     * @param opener       opens one sandbox (for {@code create_sandbox} and the default sandbox)
     * @param config       the tool configuration (read-only, switched-off tools, timeouts)
     * @param maxSandboxes the most sandboxes open at once
     * @param idle         how long an unused sandbox stays open
     */
    public SandboxMcpServer(Supplier<Sandbox> opener, ToolConfig config, int maxSandboxes, Duration idle) {
        this(opener, config, maxSandboxes, idle, false);
    }

    /**
     * @param keepState the {@code execute-code} profile runs every call in one sandbox (its state kept) instead of a
     *                  fresh sandbox per call
     */
    public SandboxMcpServer(Supplier<Sandbox> opener, ToolConfig config, int maxSandboxes, Duration idle,
                            boolean keepState) {
        this.config = Objects.requireNonNull(config, "config");
        if (maxSandboxes < 1) {
            throw new IllegalArgumentException("maxSandboxes must be >= 1");
        }
        this.pool = new SandboxPool(opener, maxSandboxes, idle);
        this.tools = new McpTools(config, opener, keepState, exchange -> pool, new McpTools.Gate() {
            @Override
            public ToolResult begin(McpSyncServerExchange exchange, McpSchema.CallToolRequest request) {
                return calls.begin(requestId(request)) ? null
                        : ToolResult.error(ErrorKind.INTERRUPTED, request.name() + " was cancelled before it started");
            }

            @Override
            public void end(McpSyncServerExchange exchange, McpSchema.CallToolRequest request) {
                calls.end(requestId(request));
            }
        });
    }

    /** Starts serving MCP over the given streams (stdin/stdout for a real server); returns at once. */
    public synchronized void serve(InputStream in, OutputStream out) {
        var mapper = new JacksonMcpJsonMapper(new ObjectMapper());
        List<String> names = tools.names();
        calls = new CancellingInput(in, new java.util.HashSet<>(names));
        var transport = new StdioServerTransportProvider(mapper, calls, out);
        var spec = McpServer.sync(transport)
                .serverInfo("sandbox4j", VERSION)
                .instructions(tools.instructions())
                .capabilities(McpSchema.ServerCapabilities.builder().tools(true).logging().build())
                .validateToolInputs(false)
                .addToolFilter((context, tool) -> !tool.name().equals(CancellingInput.UNKNOWN_TOOL));
        spec.toolCall(McpSchema.Tool.builder().name(CancellingInput.UNKNOWN_TOOL).title("Unknown tool")
                        .description("Answers calls of tools this server does not have (never listed).")
                        .inputSchema(Map.of("type", "object")).build(),
                (exchange, request) -> {
                    throw unknownTool(request, names);
                });
        tools.register(spec);
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

    private static String requestId(McpSchema.CallToolRequest request) {
        Object id = request.meta() == null ? null : request.meta().get(CancellingInput.REQUEST_ID);
        return id == null ? null : id.toString();
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
        tools.close();
        pool.close();
    }

    // ------------------------------------------------------------------ command line

    static final class Options {
        String backend;
        String tools;
        boolean readOnly;
        List<String> disabled = new ArrayList<>();
        int maxSandboxes = 4;
        /** Sandboxes kept warm for create_sandbox and the default sandboxes (--warm N), 0: none. */
        int warm;
        private dev.sandbox4j.pool.SandboxPool warmPool;
        Duration idle = Duration.ofMinutes(30);
        Duration maxTimeout;
        Duration heartbeat;
        Integer http;
        String host = "127.0.0.1";
        String tokenFile;
        boolean keepState;
        boolean dotless;
        String aioRoot = "/home/gem/workspace";
        int maxClients = 64;
        int maxCalls = 8;

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
                    case "--http" -> o.http = Integer.parseInt(value(args, ++i, a));
                    case "--host" -> o.host = value(args, ++i, a);
                    case "--token-file" -> o.tokenFile = value(args, ++i, a);
                    case "--keep-state" -> o.keepState = true;
                    case "--warm" -> o.warm = Integer.parseInt(value(args, ++i, a));
                    case "--dotless-names" -> o.dotless = true;
                    case "--aio-root" -> o.aioRoot = value(args, ++i, a);
                    case "--max-clients" -> o.maxClients = Integer.parseInt(value(args, ++i, a));
                    case "--max-calls" -> o.maxCalls = Integer.parseInt(value(args, ++i, a));
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
                    .readOnly(readOnly).dotlessNames(dotless)
                    .disable(disabled.stream().map(String::trim).filter(s -> !s.isEmpty()).toArray(String[]::new));
            if (maxTimeout != null) {
                b.maxTimeout(maxTimeout);
            }
            if (heartbeat != null) {
                b.heartbeatInterval(heartbeat);
            }
            return b.build();
        }

        /** Opens one sandbox of the backend; with {@code --warm N}, takes it from a warm pool of N (opened at once). */
        synchronized Supplier<Sandbox> opener() {
            String name = backend;
            Supplier<Sandbox> open = () -> name == null ? Sandboxes.open(SandboxSpec.defaults())
                    : Sandboxes.open(name, SandboxSpec.defaults());
            if (warm <= 0) {
                return open;
            }
            if (warmPool == null) {
                warmPool = dev.sandbox4j.pool.SandboxPool.of(open, dev.sandbox4j.pool.PoolOptions.DEFAULTS
                        .withMax(Math.max(warm, 1024)).withMin(warm));
            }
            return warmPool::acquire;
        }

        /** Closes the warm pool, if any, and every sandbox it opened. */
        synchronized void closeWarm() {
            if (warmPool != null) {
                warmPool.close();
            }
        }
    }

    static final String USAGE = "usage: java -jar sandbox-mcp-all.jar [--backend local|docker|memory]"
            + " [--tools default|agentbay|coding|execute-code|spacebot|aio|filesystem|codex|playwright] [--read-only]"
            + " [--disable tool-or-capability,...] [--max-sandboxes N] [--idle-minutes N] [--max-timeout SECONDS]"
            + " [--heartbeat-seconds N] [--keep-state] [--warm N] [--dotless-names] [--aio-root PATH]"
            + " [--http PORT [--host ADDRESS] [--token-file FILE] [--max-clients N] [--max-calls N]]"
            + " (over HTTP the bearer token comes from --token-file or SANDBOX4J_MCP_TOKEN; required unless the"
            + " host is a loopback address)";

    /** The bearer token for --http: the first line of --token-file, else SANDBOX4J_MCP_TOKEN, else none. */
    static String token(Options o) throws IOException {
        if (o.tokenFile != null) {
            String t = java.nio.file.Files.readString(java.nio.file.Path.of(o.tokenFile)).strip();
            return t.isEmpty() ? null : t;
        }
        String env = System.getenv("SANDBOX4J_MCP_TOKEN");
        return env == null || env.isBlank() ? null : env.strip();
    }

    /** Serves MCP over Streamable HTTP until the process is stopped (SIGTERM closes every sandbox). */
    static void serveHttp(Options o, ToolConfig config) throws Exception {
        SandboxMcpHttpServer server = SandboxMcpHttpServer.builder(o.opener(), config).host(o.host).port(o.http)
                .bearerToken(token(o)).maxSandboxesPerClient(o.maxSandboxes).idleTimeout(o.idle)
                .maxClients(o.maxClients).maxConcurrentCallsPerClient(o.maxCalls).keepState(o.keepState)
                .aioWorkspacePath(o.aioRoot).build();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            o.closeWarm();
            stopped.countDown();
        }, "sandbox-mcp-shutdown"));
        server.start();
        System.err.println("sandbox4j MCP server listening on " + server.endpoint());
        stopped.await();
    }

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
        if (o.http != null) {
            try {
                serveHttp(o, config);
            } catch (IllegalArgumentException | IllegalStateException | IOException e) {
                System.err.println(e.getMessage());
                System.exit(2);
            } catch (Exception e) {
                System.err.println("sandbox4j MCP server failed: " + e);
                System.exit(1);
            }
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
        SandboxMcpServer server = new SandboxMcpServer(o.opener(), config, o.maxSandboxes, o.idle, o.keepState);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            o.closeWarm();
        }, "sandbox-mcp-shutdown"));
        server.serve(in, out);
        LOG.info("sandbox4j MCP server ready (backend {}, tools {}, read-only {})",
                o.backend == null ? "default" : o.backend, config.profile().code(), o.readOnly);
        eof.await();
        server.close();
        o.closeWarm();
        System.exit(0);
    }
}
