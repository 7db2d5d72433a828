package dev.sandbox4j.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.memory.MemorySandbox;
import dev.sandbox4j.tools.ToolConfig;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Load over Streamable HTTP: {@code sandbox4j.measure.clients} clients (16) x {@code sandbox4j.measure.calls} calls
 * (200) of {@code write_file} + {@code read_file} on the in-memory backend, every call checked, then no sandbox left
 * open and none of the server's threads left; p50/p99 per call printed against the same calls over
 * stdio (one client, the server as a child process). Runs with {@code -Dsandbox4j.measure=true}.
 */
@EnabledIfSystemProperty(named = "sandbox4j.measure", matches = "true")
@org.junit.jupiter.api.Timeout(value = 30, unit = java.util.concurrent.TimeUnit.MINUTES)
class McpHttpLoadMeasure {
    static final String TOKEN = "load-token-0123456789abcdef";

    static long[] percentiles(List<Long> nanos) {
        List<Long> sorted = new ArrayList<>(nanos);
        Collections.sort(sorted);
        return new long[] {sorted.get(sorted.size() / 2) / 1000, sorted.get((int) (sorted.size() * 0.99)) / 1000};
    }

    static void calls(McpSyncClient c, int n, int who, List<Long> latencies, AtomicInteger failures) {
        for (int i = 0; i < n; i++) {
            long start = System.nanoTime();
            McpSchema.CallToolResult w = c.callTool(new McpSchema.CallToolRequest("write_file",
                    java.util.Map.of("path", "f" + (i % 10) + ".txt", "content", who + ":" + i)));
            McpSchema.CallToolResult r = c.callTool(new McpSchema.CallToolRequest("read_file",
                    java.util.Map.of("path", "f" + (i % 10) + ".txt")));
            latencies.add((System.nanoTime() - start) / 2);
            Object content = ((java.util.Map<?, ?>) r.structuredContent()).get("content");
            if (Boolean.TRUE.equals(w.isError()) || !(who + ":" + i).equals(content)) {
                failures.incrementAndGet();
            }
        }
    }

    @Test
    void sixteenClients_twoHundredCallsEach() throws Exception {
        int clients = Integer.getInteger("sandbox4j.measure.clients", 16);
        int n = Integer.getInteger("sandbox4j.measure.calls", 200);
        List<Sandbox> opened = new CopyOnWriteArrayList<>();
        int threadsBefore = Thread.activeCount();
        List<Long> http = new CopyOnWriteArrayList<>();
        AtomicInteger failures = new AtomicInteger();
        try (SandboxMcpHttpServer server = SandboxMcpHttpServer.builder(() -> {
            Sandbox s = MemorySandbox.open();
            opened.add(s);
            return s;
        }, ToolConfig.defaults()).port(0).bearerToken(TOKEN).build().start()) {
            ExecutorService pool = Executors.newFixedThreadPool(clients);
            List<Future<?>> done = new ArrayList<>();
            for (int k = 0; k < clients; k++) {
                int who = k;
                done.add(pool.submit(() -> {
                    var transport = HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + server.port())
                            .endpoint("/mcp").requestBuilder(HttpRequest.newBuilder().header("Authorization",
                                    "Bearer " + TOKEN)).build();
                    McpSyncClient c = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(60)).build();
                    c.initialize();
                    calls(c, n, who, http, failures);
                    c.closeGracefully();
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            pool.shutdown();
            assertThat(failures.get()).as("failed calls").isZero();
            assertThat(server.openSandboxes()).as("sandboxes left open after every client ended").isZero();
            assertThat(opened).hasSize(clients).noneMatch(Sandbox::isOpen);
        }
        Thread.sleep(1000);
        int threadsAfter = Thread.activeCount();
        // the server's own threads (Jetty's pool, the client sweeper, warm spares) are gone; the SDK clients' reactor
        // and HttpClient threads in this JVM are not the server's
        List<String> serverThreads = Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                .filter(name -> name.startsWith("sandbox-mcp")).toList();

        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        var stdio = new StdioClientTransport(ServerParameters.builder(java).args("-cp",
                System.getProperty("java.class.path"), "dev.sandbox4j.mcp.SandboxMcpServer", "--backend", "memory")
                .build(), new JacksonMcpJsonMapper(new ObjectMapper()));
        List<Long> viaStdio = new CopyOnWriteArrayList<>();
        AtomicInteger stdioFailures = new AtomicInteger();
        McpSyncClient c = McpClient.sync(stdio).requestTimeout(Duration.ofSeconds(60)).build();
        c.initialize();
        calls(c, n, 0, viaStdio, stdioFailures);
        c.closeGracefully();

        long[] h = percentiles(http);
        long[] s = percentiles(viaStdio);
        System.out.printf("HTTP %d clients x %d calls x 2 tools: p50 %d us, p99 %d us per call; stdio 1 client:"
                + " p50 %d us, p99 %d us; threads before %d, after %d%n", clients, n, h[0], h[1], s[0], s[1],
                threadsBefore, threadsAfter);
        assertThat(stdioFailures.get()).isZero();
        assertThat(serverThreads).as("server threads left after close").isEmpty();
    }
}
