package dev.sandbox4j.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.tools.ToolConfig;
import dev.sandbox4j.tools.ToolResult;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.DispatcherType;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.function.Supplier;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MCP server over Streamable HTTP (MCP's current transport) at {@code /mcp}, for several clients at once: each
 * client (MCP session) has sandboxes of its own, closed when it ends its session or idles out, and limits of its own
 * on open sandboxes and concurrent calls. A bearer token is required unless the server listens on a loopback address
 * only; request bodies are bounded; {@link #close()} stops taking requests, lets running ones finish for a moment,
 * then closes every sandbox.
 *
 * <p>The same port serves AIO Sandbox's file API at {@code /v1/file/*} ({@link AioFileApi}: its documented client
 * code runs unchanged) over one server-wide sandbox, behind the same token.
 *
 * <pre>{@code
 * try (SandboxMcpHttpServer server = SandboxMcpHttpServer.builder(() -> Sandboxes.open("docker", spec), config)
 *         .host("0.0.0.0").port(8080).bearerToken(System.getenv("SANDBOX4J_MCP_TOKEN")).build().start()) {
 *     ... // clients connect to server.endpoint()
 * }
 * }</pre>
 */
public final class SandboxMcpHttpServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SandboxMcpHttpServer.class);

    private final Builder b;
    private final Clients clients;
    private final McpTools tools;
    private Server jetty;
    private McpSyncServer mcp;
    private HttpServletStreamableServerTransportProvider transport;
    private AioFileApi aio;
    private int port;

    private SandboxMcpHttpServer(Builder b) {
        this.b = b;
        this.clients = new Clients(b.opener, b.maxSandboxesPerClient, b.maxCallsPerClient, b.maxClients, b.idle);
        this.tools = new McpTools(b.config, b.opener, b.keepState, clients::pool, new McpTools.Gate() {
            @Override
            public ToolResult begin(McpSyncServerExchange exchange, McpSchema.CallToolRequest request) {
                return clients.begin(exchange.sessionId());
            }

            @Override
            public void end(McpSyncServerExchange exchange, McpSchema.CallToolRequest request) {
                clients.end(exchange.sessionId());
            }
        });
    }

    /**
     * @param opener opens one sandbox (every client's sandboxes come from it)
     * @param config the tool configuration: profile, read-only, switched-off tools, timeouts
     */
    public static Builder builder(Supplier<Sandbox> opener, ToolConfig config) {
        return new Builder(opener, config);
    }

    /** Starts listening; returns once the port is bound. */
    public synchronized SandboxMcpHttpServer start() {
        if (jetty != null) {
            throw new IllegalStateException("already started");
        }
        transport = HttpServletStreamableServerTransportProvider.builder()
                .jsonMapper(new JacksonMcpJsonMapper(new ObjectMapper()))
                .mcpEndpoint("/mcp")
                .maxRequestSize(b.maxRequestBytes)
                .keepAliveInterval(Duration.ofSeconds(30))
                .build();
        var spec = McpServer.sync(transport)
                .serverInfo("sandbox4j", SandboxMcpServer.VERSION)
                .instructions(tools.instructions())
                .capabilities(McpSchema.ServerCapabilities.builder().tools(true).logging().build())
                .validateToolInputs(false);
        tools.register(spec);
        mcp = spec.build();

        QueuedThreadPool threads = new QueuedThreadPool(b.maxThreads, 4, 60_000);
        threads.setName("sandbox-mcp-http");
        threads.setDaemon(true);
        jetty = new Server(threads);
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost(b.host);
        connector.setPort(b.port);
        connector.setIdleTimeout(Duration.ofMinutes(5).toMillis());
        jetty.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        ServletHolder servlet = new ServletHolder("mcp", transport);
        servlet.setAsyncSupported(true);
        context.addServlet(servlet, "/mcp");
        aio = new AioFileApi(b.opener, b.config, b.aioRoot, b.maxTransferBytes);
        ServletHolder files = new ServletHolder("aio-files", aio);
        files.getRegistration().setMultipartConfig(new jakarta.servlet.MultipartConfigElement(
                System.getProperty("java.io.tmpdir"), b.maxTransferBytes, b.maxTransferBytes + (1 << 20), 1 << 20));
        context.addServlet(files, "/v1/file/*");
        FilterHolder guard = new FilterHolder(new HttpGuard(b.bearerToken, b.maxRequestBytes, b.maxTransferBytes,
                clients));
        guard.setAsyncSupported(true);
        context.addFilter(guard, "/*", EnumSet.of(DispatcherType.REQUEST));
        jetty.setHandler(context);
        jetty.setStopTimeout(b.shutdownGrace.toMillis());
        try {
            jetty.start();
        } catch (Exception e) {
            close();
            throw new IllegalStateException("cannot listen on " + b.host + ":" + b.port + ": " + e.getMessage(), e);
        }
        port = connector.getLocalPort();
        LOG.info("sandbox4j MCP server on http://{}:{}/mcp (tools {}, token {})", b.host, port,
                b.config.profile().code(), b.bearerToken == null ? "none (loopback only)" : "required");
        return this;
    }

    /** The port listened on (the one chosen when the builder asked for port 0). */
    public int port() {
        return port;
    }

    /** The MCP endpoint, such as {@code http://127.0.0.1:8080/mcp}. */
    public URI endpoint() {
        String host = b.host.contains(":") ? "[" + b.host + "]" : b.host;
        return URI.create("http://" + host + ":" + port + "/mcp");
    }

    /** How many clients have sandboxes open now (for monitoring and tests). */
    public int openClients() {
        return clients.size();
    }

    /** How many sandboxes are open across all clients (for monitoring and tests). */
    public int openSandboxes() {
        return clients.sandboxes();
    }

    /** Stops taking requests, waits up to the shutdown grace for running ones, then closes every sandbox. */
    @Override
    public synchronized void close() {
        if (mcp != null) {
            try {
                mcp.closeGracefully();
            } catch (RuntimeException e) {
                LOG.debug("close: {}", e.toString());
            }
        }
        if (aio != null) {
            aio.endStreams(); // SSE streams would hold the graceful stop for its whole grace
        }
        if (jetty != null) {
            try {
                jetty.stop();
            } catch (Exception e) {
                LOG.debug("stop: {}", e.toString());
            }
        }
        if (aio != null) {
            aio.shutdown();
        }
        tools.close();
        clients.close();
    }

    /** Configures a {@link SandboxMcpHttpServer}. */
    public static final class Builder {
        private final Supplier<Sandbox> opener;
        private final ToolConfig config;
        private String host = "127.0.0.1";
        private int port = 8080;
        private String bearerToken;
        private int maxSandboxesPerClient = 4;
        private int maxCallsPerClient = 8;
        private int maxClients = 64;
        private int maxRequestBytes = 4 << 20;
        private long maxTransferBytes = 512L << 20;
        private String aioRoot = "/home/gem/workspace";
        private int maxThreads = 200;
        private Duration idle = Duration.ofMinutes(30);
        private Duration shutdownGrace = Duration.ofSeconds(10);
        private boolean keepState;

        private Builder(Supplier<Sandbox> opener, ToolConfig config) {
            this.opener = Objects.requireNonNull(opener, "opener");
            this.config = Objects.requireNonNull(config, "config");
        }

        /** The address to listen on (default 127.0.0.1); anything but loopback requires a bearer token. */
        public Builder host(String host) {
            this.host = Objects.requireNonNull(host, "host");
            return this;
        }

        /** The port (default 8080; 0 for any free port, see {@link SandboxMcpHttpServer#port()}). */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port " + port + " is not a TCP port");
            }
            this.port = port;
            return this;
        }

        /** The token every request must carry as {@code Authorization: Bearer TOKEN}; null for none. */
        public Builder bearerToken(String token) {
            if (token != null && token.length() < 16) {
                throw new IllegalArgumentException("the bearer token must have at least 16 characters");
            }
            this.bearerToken = token;
            return this;
        }

        /** The most sandboxes one client may have open (default 4). */
        public Builder maxSandboxesPerClient(int n) {
            this.maxSandboxesPerClient = positive(n, "maxSandboxesPerClient");
            return this;
        }

        /** The most tool calls one client may have running at once (default 8). */
        public Builder maxConcurrentCallsPerClient(int n) {
            this.maxCallsPerClient = positive(n, "maxConcurrentCallsPerClient");
            return this;
        }

        /** The most clients with sandboxes at once (default 64). */
        public Builder maxClients(int n) {
            this.maxClients = positive(n, "maxClients");
            return this;
        }

        /** The largest request body in bytes (default 4 MiB); a larger one is refused with 413. */
        /**
         * The largest upload to and download from AIO's file API (default 512 MiB; uploads are also held to the
         * sandbox's workspace quota).
         */
        public Builder maxTransferBytes(long n) {
            if (n <= 0) {
                throw new IllegalArgumentException("maxTransferBytes must be positive, got " + n);
            }
            this.maxTransferBytes = n;
            return this;
        }

        /**
         * The absolute path AIO clients use for the workspace in the file API (default {@code /home/gem/workspace},
         * AIO's own, so its documented client code runs unchanged); answers give paths under it.
         */
        public Builder aioWorkspacePath(String path) {
            new AioShapes(Objects.requireNonNull(path, "path")); // validates
            this.aioRoot = path;
            return this;
        }

        public Builder maxRequestBytes(int n) {
            this.maxRequestBytes = positive(n, "maxRequestBytes");
            return this;
        }

        /** The most HTTP worker threads (default 200). */
        public Builder maxThreads(int n) {
            this.maxThreads = Math.max(8, n);
            return this;
        }

        /** How long a client may stay silent before its sandboxes are closed (default 30 minutes). */
        public Builder idleTimeout(Duration idle) {
            if (idle.isZero() || idle.isNegative()) {
                throw new IllegalArgumentException("idle timeout must be positive");
            }
            this.idle = idle;
            return this;
        }

        /** How long {@link SandboxMcpHttpServer#close()} lets running requests finish (default 10 s). */
        public Builder shutdownGrace(Duration grace) {
            this.shutdownGrace = Objects.requireNonNull(grace, "grace");
            return this;
        }

        /** The {@code execute-code} profile keeps one sandbox per client instead of a fresh one per call. */
        public Builder keepState(boolean keep) {
            this.keepState = keep;
            return this;
        }

        /** The server, not started; refuses a non-loopback address without a bearer token. */
        public SandboxMcpHttpServer build() {
            if (bearerToken == null && !loopback(host)) {
                throw new IllegalArgumentException("listening on " + host + " needs a bearer token: only a"
                        + " loopback address (127.0.0.1, ::1, localhost) may go without one");
            }
            return new SandboxMcpHttpServer(this);
        }

        private static boolean loopback(String host) {
            try {
                for (InetAddress a : InetAddress.getAllByName(host)) {
                    if (!a.isLoopbackAddress()) {
                        return false;
                    }
                }
                return true;
            } catch (UnknownHostException e) {
                return false;
            }
        }

        private static int positive(int n, String what) {
            if (n < 1) {
                throw new IllegalArgumentException(what + " must be >= 1, got " + n);
            }
            return n;
        }
    }

    static ToolResult refused(String message) {
        return ToolResult.error(ErrorKind.BACKEND_UNAVAILABLE, message);
    }
}
