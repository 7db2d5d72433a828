package dev.sandbox4j.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.function.Function;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The Anthropic Messages API as far as Claude Code uses it (POST /v1/messages, streamed as server-sent events or as
 * one JSON answer), over HTTPS on loopback with a certificate for {@code api.anthropic.test}, scripted per test: each
 * request gets the next {@link Turn} of the script (the last repeats). It records every request's headers and body.
 */
final class FakeAnthropic implements AutoCloseable {
    static final String HOST = "api.anthropic.test";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One answer: a tool call (name + input) or text, and the stop reason. */
    record Turn(String toolName, Map<String, Object> toolInput, String text, long delayMillis) {
        static Turn tool(String name, Map<String, Object> input) {
            return new Turn(name, input, null, 0);
        }

        static Turn text(String text) {
            return new Turn(null, null, text, 0);
        }

        static Turn hang(long millis) {
            return new Turn(null, null, "late", millis);
        }
    }

    /** One request as received. */
    record Received(Map<String, List<String>> headers, JsonNode body) {
        String header(String name) {
            for (var e : headers.entrySet()) {
                if (e.getKey().equalsIgnoreCase(name)) {
                    return e.getValue().get(0);
                }
            }
            return null;
        }
    }

    final List<Received> requests = new CopyOnWriteArrayList<>();
    final CountDownLatch firstRequest = new CountDownLatch(1);
    private final HttpsServer server;
    private final Path dir;
    private volatile List<Turn> script = List.of(Turn.text("hello"));
    private int next;

    FakeAnthropic() throws Exception {
        dir = Files.createTempDirectory("fake-anthropic");
        Path ks = dir.resolve("api.p12");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process p = new ProcessBuilder(keytool, "-genkeypair", "-alias", "api", "-keyalg", "EC", "-groupname",
                "secp256r1", "-dname", "CN=" + HOST, "-ext", "SAN=dns:" + HOST, "-validity", "2", "-keystore",
                ks.toString(), "-storetype", "PKCS12", "-storepass", "changeit", "-keypass", "changeit")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("keytool: " + out);
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(ks)) {
            store.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(store, "changeit".toCharArray());
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(kmf.getKeyManagers(), null, null);
        KeyStore anchors = KeyStore.getInstance(KeyStore.getDefaultType());
        anchors.load(null, null);
        anchors.setCertificateEntry("api", store.getCertificate("api"));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(anchors);
        clientTls = SSLContext.getInstance("TLS");
        clientTls.init(null, tmf.getTrustManagers(), null);
        server = HttpsServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 50);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        server.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "fake-anthropic");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/", ex -> {
            try {
                JsonNode body = JSON.readTree(ex.getRequestBody().readAllBytes());
                requests.add(new Received(Map.copyOf(ex.getRequestHeaders()), body));
                firstRequest.countDown();
                Turn t = nextTurn();
                if (t.delayMillis() > 0) {
                    Thread.sleep(t.delayMillis());
                }
                boolean stream = body.path("stream").asBoolean(false);
                byte[] answer = (stream ? sse(t, body) : whole(t, body)).getBytes(StandardCharsets.UTF_8);
                ex.getResponseHeaders().set("content-type", stream ? "text/event-stream" : "application/json");
                ex.sendResponseHeaders(200, answer.length);
                try (OutputStream o = ex.getResponseBody()) {
                    o.write(answer);
                }
            } catch (Exception e) {
                ex.sendResponseHeaders(500, -1);
                ex.close();
            }
        });
        server.start();
    }

    /** Trusts exactly this server's certificate: the egress proxy's upstream TLS in the tests. */
    final SSLContext clientTls;

    int port() {
        return server.getAddress().getPort();
    }

    InetSocketAddress address() {
        return server.getAddress();
    }

    synchronized void script(Turn... turns) {
        script = List.of(turns);
        next = 0;
    }

    private synchronized Turn nextTurn() {
        Turn t = script.get(Math.min(next, script.size() - 1));
        next++;
        return t;
    }

    private static List<Map<String, Object>> events(Turn t, JsonNode req) {
        String model = req.path("model").asText("claude");
        Map<String, Object> message = Map.of("id", "msg_" + System.nanoTime(), "type", "message", "role", "assistant",
                "model", model, "content", List.of(), "usage", Map.of("input_tokens", 10, "output_tokens", 1));
        List<Map<String, Object>> ev = new ArrayList<>();
        ev.add(Map.of("type", "message_start", "message", message));
        String stop;
        if (t.toolName() != null) {
            ev.add(Map.of("type", "content_block_start", "index", 0, "content_block", Map.of("type", "tool_use", "id",
                    "toolu_" + System.nanoTime(), "name", t.toolName(), "input", Map.of())));
            ev.add(Map.of("type", "content_block_delta", "index", 0, "delta", Map.of("type", "input_json_delta",
                    "partial_json", write(t.toolInput()))));
            stop = "tool_use";
        } else {
            ev.add(Map.of("type", "content_block_start", "index", 0, "content_block", Map.of("type", "text", "text",
                    "")));
            ev.add(Map.of("type", "content_block_delta", "index", 0, "delta", Map.of("type", "text_delta", "text",
                    t.text())));
            stop = "end_turn";
        }
        ev.add(Map.of("type", "content_block_stop", "index", 0));
        ev.add(Map.of("type", "message_delta", "delta", Map.of("stop_reason", stop), "usage", Map.of("output_tokens",
                5)));
        ev.add(Map.of("type", "message_stop"));
        return ev;
    }

    private static String sse(Turn t, JsonNode req) {
        StringBuilder sb = new StringBuilder();
        for (Map<String, Object> e : events(t, req)) {
            sb.append("event: ").append(e.get("type")).append("\ndata: ").append(write(e)).append("\n\n");
        }
        return sb.toString();
    }

    private static String whole(Turn t, JsonNode req) {
        ObjectNode m = JSON.createObjectNode();
        m.put("id", "msg_" + System.nanoTime()).put("type", "message").put("role", "assistant")
                .put("model", req.path("model").asText("claude"));
        ObjectNode block = m.putArray("content").addObject();
        if (t.toolName() != null) {
            block.put("type", "tool_use").put("id", "toolu_" + System.nanoTime()).put("name", t.toolName())
                    .set("input", JSON.valueToTree(t.toolInput()));
            m.put("stop_reason", "tool_use");
        } else {
            block.put("type", "text").put("text", t.text());
            m.put("stop_reason", "end_turn");
        }
        m.putObject("usage").put("input_tokens", 10).put("output_tokens", 5);
        return m.toString();
    }

    private static String write(Object o) {
        try {
            return JSON.writeValueAsString(o);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The {@code messages} of a request, for what it carries from earlier turns. */
    static int messageCount(Received r) {
        return r.body().path("messages").size();
    }

    static Function<String, InetAddress> resolver() {
        return name -> {
            try {
                return InetAddress.getByName("127.0.0.1");
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        };
    }

    @Override
    public void close() throws IOException {
        server.stop(0);
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) {
                Files.deleteIfExists(p);
            }
        }
        Files.deleteIfExists(dir);
    }
}
