package dev.sandbox4j.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.memory.MemorySandbox;
import dev.sandbox4j.testing.Required;
import dev.sandbox4j.tools.ToolConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * AIO Sandbox's file API on the HTTP server, driven by the clients its document shows: its Python ({@code requests})
 * and Node ({@code fetch}) integration code as written with only the base URL changed, {@code curl} for every
 * endpoint (upload and download included), and a real SSE client ({@code eventsource}) for the watch events.
 */
class AioHttpApiTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Path AIO = Path.of("src", "test", "aio");
    final AtomicReference<Sandbox> sandbox = new AtomicReference<>();
    SandboxMcpHttpServer server;
    @TempDir
    Path tmp;

    String start(Supplier<Sandbox> opener, String token) {
        Supplier<Sandbox> capturing = () -> {
            Sandbox s = opener.get();
            sandbox.set(s);
            return s;
        };
        server = SandboxMcpHttpServer.builder(capturing, ToolConfig.defaults()).port(0).bearerToken(token)
                .maxTransferBytes(8 << 20).build().start();
        return "http://127.0.0.1:" + server.port();
    }

    static Supplier<Sandbox> memory(SandboxSpec spec) {
        return () -> MemorySandbox.open(spec);
    }

    /** A backend's opener, skipping (or failing, when required) where the backend cannot run. */
    static Supplier<Sandbox> backend(String name, SandboxSpec spec) {
        McpClientProcessTest.requireOrSkip(name);
        return name.equals("memory") ? memory(spec) : () -> Sandboxes.open(name, spec);
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    static String exec(Path dir, long seconds, String... command) throws Exception {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(seconds, TimeUnit.SECONDS)).as(String.join(" ", command)).isTrue();
        String text = new String(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(String.join(" ", command) + " said: " + text).isZero();
        return text;
    }

    static boolean has(String tool) {
        try {
            return new ProcessBuilder(tool, "--version").redirectErrorStream(true).start().waitFor() == 0;
        } catch (Exception e) {
            return false;
        }
    }

    static JsonNode post(String base, String route, String body) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base + route))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode node = JSON.readTree(r.body());
        ((com.fasterxml.jackson.databind.node.ObjectNode) node).put("_status", r.statusCode());
        return node;
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"memory", "docker"})
    void theDocumentsPythonClient_runsAsWritten(String backendName) throws Exception {
        Required.orSkip("python", has("python3") ? Optional.empty() : Optional.of("no python3"));
        String base = start(backend(backendName, SandboxSpec.builder().file("src/a.py", "print(1)\n").file("src/b.py", "")
                .file("src/notes.md", "x").file("data/x.txt", "hello\n").build()), null);
        String out = exec(AIO, 60, "python3", "doc_client.py", base);
        assertThat(out).contains("{\"debug\": false}", "Found: /home/gem/workspace/src/a.py",
                "Found: /home/gem/workspace/src/b.py", "File does not exist").doesNotContain("notes.md");
        Sandbox s = sandbox.get();
        assertThat(s.files().readText("config.json")).isEqualTo("{\"debug\": false}\n");
        assertThat(s.files().readText("app.log")).isEqualTo("Process started\n");
        assertThat(s.files().readText("data/x_processed.txt")).isEqualTo("HELLO\n");
    }

    @Test
    void theDocumentsNodeClient_runsAsWritten() throws Exception {
        McpOfficialClientTest.requireNode();
        String base = start(memory(SandboxSpec.builder().file("data.txt", "some data")
                .file("config.json", "{\"debug\": false}\n").build()), null);
        String out = exec(AIO, 60, "node", "doc_client.mjs", base);
        assertThat(out).contains("File content: some data");
        assertThat(sandbox.get().files().readText("config.json")).isEqualTo("{\"debug\": true}\n");
    }

    @Test
    void jsonEndpoints_answerTheDocumentsShapes() throws Exception {
        String base = start(memory(SandboxSpec.builder().file("notes/a.txt", "l0\nl1\nl2\nl3\n")
                .file("notes/.hidden", "h").file("src/TODO.py", "# todo: x\n").build()), null);
        JsonNode read = post(base, "/v1/file/read", "{\"file\":\"/home/gem/workspace/notes/a.txt\",\"start_line\":1,"
                + "\"end_line\":3,\"sudo\":false}");
        assertThat(read.get("success").asBoolean()).as(read.toString()).isTrue();
        assertThat(read.get("message").asText()).isEqualTo("File read successfully");
        assertThat(read.at("/data/content").asText()).isEqualTo("l1\nl2\n");
        assertThat(read.at("/data/line_count").asInt()).isEqualTo(2);
        assertThat(read.at("/data/file").asText()).isEqualTo("/home/gem/workspace/notes/a.txt");

        JsonNode text = post(base, "/v1/file/write", "{\"file\":\"/home/gem/workspace/out.txt\",\"content\":"
                + "\"Hello, World!\",\"encoding\":\"utf-8\",\"append\":false,\"leading_newline\":false,"
                + "\"trailing_newline\":true,\"sudo\":false}");
        assertThat(text.get("success").asBoolean()).as(text.toString()).isTrue();
        assertThat(sandbox.get().files().readText("out.txt")).isEqualTo("Hello, World!\n");
        String png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
        assertThat(post(base, "/v1/file/write", "{\"file\":\"/tmp/../pixel.png\",\"content\":\"" + png
                + "\",\"encoding\":\"base64\"}").at("/data/error_type").asText()).isEqualTo("invalid_path");
        assertThat(post(base, "/v1/file/write", "{\"file\":\"pixel.png\",\"content\":\"" + png
                + "\",\"encoding\":\"base64\"}").get("success").asBoolean()).isTrue();
        assertThat(sandbox.get().files().readBytes("pixel.png")).isEqualTo(Base64.getDecoder().decode(png));
        assertThat(post(base, "/v1/file/write", "{\"file\":\"raw.bin\",\"content\":\"\\u00ff\\u0000A\","
                + "\"encoding\":\"raw\"}").get("success").asBoolean()).isTrue();
        assertThat(sandbox.get().files().readBytes("raw.bin")).containsExactly(0xff, 0, 'A');

        JsonNode replaced = post(base, "/v1/file/replace", "{\"file\":\"out.txt\",\"old_str\":\"World\","
                + "\"new_str\":\"Sandbox\",\"sudo\":false}");
        assertThat(replaced.get("success").asBoolean()).as(replaced.toString()).isTrue();
        assertThat(sandbox.get().files().readText("out.txt")).isEqualTo("Hello, Sandbox!\n");
        JsonNode search = post(base, "/v1/file/search", "{\"file\":\"out.txt\",\"regex\":\"Hello,\\\\s+\\\\w+\"}");
        assertThat(search.at("/data/line_numbers/0").asInt()).as(search.toString()).isEqualTo(1);
        JsonNode grep = post(base, "/v1/file/grep", "{\"path\":\"/home/gem/workspace\",\"pattern\":\"TODO\","
                + "\"include\":[\"*.py\"],\"exclude\":[\"node_modules\",\".git\"],\"case_insensitive\":true,"
                + "\"max_results\":100}");
        assertThat(grep.at("/data/matches/0/file").asText()).as(grep.toString())
                .isEqualTo("/home/gem/workspace/src/TODO.py");
        JsonNode glob = post(base, "/v1/file/glob", "{\"path\":\"/home/gem/workspace\",\"pattern\":\"**/*.txt\","
                + "\"include_hidden\":false,\"files_only\":true,\"include_metadata\":true,\"sort_by\":\"path\"}");
        assertThat(glob.at("/data/files/0/path").asText()).as(glob.toString())
                .isEqualTo("/home/gem/workspace/notes/a.txt");
        JsonNode list = post(base, "/v1/file/list", "{\"path\":\"/home/gem/workspace/notes\",\"recursive\":false,"
                + "\"show_hidden\":true,\"include_size\":true}");
        assertThat(list.at("/data/total_count").asInt()).as(list.toString()).isEqualTo(2);
    }

    @Test
    void failuresAndBadRequests_areTypedNeverAStackTrace() throws Exception {
        String base = start(memory(SandboxSpec.builder().file("d/f.txt", "x").build()), null);
        JsonNode missing = post(base, "/v1/file/read", "{\"file\":\"/home/gem/workspace/missing.txt\"}");
        assertThat(missing.get("_status").asInt()).isEqualTo(200);
        assertThat(missing.get("success").asBoolean()).isFalse();
        assertThat(missing.get("message").asText()).startsWith("Failed to read file: ");
        assertThat(missing.at("/data/error_type").asText()).isEqualTo("not_found");
        assertThat(missing.at("/data/errno").asInt()).isEqualTo(2);
        assertThat(missing.at("/data/errno_name").asText()).isEqualTo("ENOENT");
        assertThat(missing.at("/data/exception_type").asText()).isEqualTo("FileNotFoundError");
        assertThat(missing.at("/data/file").asText()).isEqualTo("/home/gem/workspace/missing.txt");
        assertThat(missing.at("/data/retryable").asBoolean()).isFalse();
        JsonNode dir = post(base, "/v1/file/read", "{\"file\":\"d\"}");
        assertThat(dir.at("/data/error_type").asText()).isEqualTo("invalid_target");
        assertThat(dir.at("/data/errno_name").asText()).isEqualTo("EISDIR");
        JsonNode sudo = post(base, "/v1/file/read", "{\"file\":\"/etc/nginx/nginx.conf\",\"sudo\":true}");
        assertThat(sudo.at("/data/error_type").asText()).isEqualTo("permission_denied");
        JsonNode escape = post(base, "/v1/file/write", "{\"file\":\"/etc/cron.d/example\",\"content\":\"x\"}");
        assertThat(escape.at("/data/error_type").asText()).as(escape.toString()).isEqualTo("invalid_path");
        JsonNode encoding = post(base, "/v1/file/write", "{\"file\":\"x\",\"content\":\"x\",\"encoding\":\"utf-16\"}");
        assertThat(encoding.at("/data/error_type").asText()).isEqualTo("invalid_argument");
        JsonNode notJson = post(base, "/v1/file/read", "{not json");
        assertThat(notJson.get("_status").asInt()).isEqualTo(400);
        assertThat(notJson.at("/data/error_type").asText()).isEqualTo("invalid_argument");
        assertThat(post(base, "/v1/file/read", "[1]").get("_status").asInt()).isEqualTo(400);
        assertThat(post(base, "/v1/file/nothing", "{}").get("_status").asInt()).isEqualTo(404);
        JsonNode unknownField = post(base, "/v1/file/read", "{\"file\":\"d/f.txt\",\"colour\":1}");
        assertThat(unknownField.at("/data/error_type").asText()).isEqualTo("invalid_argument");
        assertThat(sandbox.get().files().exists("x")).isFalse();
        String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base + "/v1/file/read"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"file\":" + "\"a\"".repeat(1) + ",\"start_line\":-1}"))
                .build(), HttpResponse.BodyHandlers.ofString()).body();
        assertThat(body).doesNotContain("Exception", "\tat ");
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"memory", "docker"})
    void curl_uploadDownloadAndTheToken(String backendName) throws Exception {
        Required.orSkip("curl", has("curl") ? Optional.empty() : Optional.of("no curl"));
        String base = start(backend(backendName, SandboxSpec.builder().build()), "secret-token-0123456789");
        byte[] report = new byte[3 * 1024 * 1024 + 7];
        new java.util.Random(7).nextBytes(report);
        Path local = tmp.resolve("report.pdf");
        Files.write(local, report);
        String auth = "Authorization: Bearer secret-token-0123456789";
        String refused = exec(tmp, 30, "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST",
                base + "/v1/file/upload", "-F", "file=@./report.pdf", "-F", "path=/home/gem/workspace/r.pdf");
        assertThat(refused).isEqualTo("401");
        String up = exec(tmp, 60, "curl", "-s", "-H", auth, "-X", "POST", base + "/v1/file/upload",
                "-F", "file=@./report.pdf", "-F", "path=/home/gem/workspace/in/report.pdf");
        assertThat(JSON.readTree(up).at("/data/size").asLong()).as(up).isEqualTo(report.length);
        assertThat(sandbox.get().files().readBytes("in/report.pdf")).isEqualTo(report);

        exec(tmp, 60, "curl", "-s", "-f", "-H", auth, "-o", "back.pdf",
                base + "/v1/file/download?path=/home/gem/workspace/in/report.pdf&change_policy=abort");
        assertThat(Files.readAllBytes(tmp.resolve("back.pdf"))).isEqualTo(report);
        String notFound = exec(tmp, 30, "curl", "-s", "-H", auth, "-w", "\n%{http_code}",
                base + "/v1/file/download?path=/home/gem/workspace/nothing");
        assertThat(notFound).endsWith("\n404").contains("\"error_type\":\"not_found\"");
        String traversal = exec(tmp, 30, "curl", "-s", "-H", auth, "-o", "/dev/null", "-w", "%{http_code}",
                base + "/v1/file/download?path=/home/gem/workspace/../../etc/passwd");
        assertThat(traversal).isEqualTo("400");

        byte[] tooBig = new byte[9 << 20];
        Files.write(tmp.resolve("big.bin"), tooBig);
        String big = exec(tmp, 60, "curl", "-s", "-H", auth, "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST",
                base + "/v1/file/upload", "-F", "file=@./big.bin", "-F", "path=big.bin");
        assertThat(big).isEqualTo("413");
        assertThat(sandbox.get().files().exists("big.bin")).isFalse();
    }

    @Test
    void downloadWithAbort_answers409WhileACommandRewritesTheFile() throws Exception {
        McpClientProcessTest.requireOrSkip("local");
        String base = start(() -> Sandboxes.open("local", SandboxSpec.builder().build()), null);
        post(base, "/v1/file/write", "{\"file\":\"warm\",\"content\":\"x\"}"); // opens the sandbox
        Sandbox s = sandbox.get();
        try (ExecHandle writer = s.shell().start(ExecRequest.shell("while true; do head -c 2000000 /dev/urandom"
                + " > big.tmp && mv big.tmp big.bin; done"))) {
            while (!s.files().exists("big.bin")) {
                Thread.sleep(20);
            }
            HttpClient http = HttpClient.newHttpClient();
            List<Integer> codes = new ArrayList<>();
            for (int i = 0; i < 40 && !codes.contains(409); i++) {
                codes.add(http.send(HttpRequest.newBuilder(URI.create(base
                        + "/v1/file/download?path=big.bin&change_policy=abort")).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode());
            }
            assertThat(codes).as("abort answers 409 once the file changes under the transfer").contains(409);
            HttpResponse<byte[]> ignore = http.send(HttpRequest.newBuilder(URI.create(base
                    + "/v1/file/download?path=big.bin&change_policy=ignore")).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(ignore.statusCode()).isEqualTo(200);
            assertThat(ignore.body()).hasSize(2_000_000);
            writer.kill();
        }
    }

    @Test
    void watch_pollWaitSseAndDelete() throws Exception {
        McpOfficialClientTest.requireNode();
        String base = start(memory(SandboxSpec.builder().file("ws/old.txt", "x").build()), null);
        JsonNode created = post(base, "/v1/file/watch", "{\"path\":\"/home/gem/workspace/ws\",\"recursive\":true,"
                + "\"debounce\":0,\"exclude\":[\".git\",\"node_modules\"],\"include_patterns\":[\"*.py\",\"*.json\"]}");
        String id = created.at("/data/watcher_id").asText();
        assertThat(id).as(created.toString()).isNotBlank();
        Sandbox s = sandbox.get();
        s.files().write("ws/a.py", "1");
        s.files().write("ws/skip.txt", "1");
        s.files().write("ws/node_modules/m.json", "1");
        JsonNode poll = post(base, "/v1/file/watch/" + id + "/poll", "{\"cursor\":0,\"limit\":100,\"timeout\":5}");
        assertThat(poll.get("events")).as(poll.toString()).isNotEmpty();
        assertThat(poll.at("/events/0/type").asText()).isEqualTo("create");
        assertThat(poll.at("/events/0/path").asText()).isEqualTo("/home/gem/workspace/ws/a.py");
        assertThat(poll.at("/events/0/relative_path").asText()).isEqualTo("a.py");
        assertThat(poll.toString()).doesNotContain("skip.txt", "node_modules");
        long cursor = poll.get("cursor").asLong();
        JsonNode empty = post(base, "/v1/file/watch/" + id + "/poll", "{\"cursor\":" + cursor + ",\"timeout\":0}");
        assertThat(empty.get("events")).isEmpty();
        assertThat(empty.get("cursor").asLong()).isEqualTo(cursor);

        JsonNode existing = post(base, "/v1/file/watch/wait", "{\"path\":\"/home/gem/workspace/ws/old.txt\","
                + "\"timeout\":5,\"event_types\":[\"create\",\"write\"]}");
        assertThat(existing.at("/event/type").asText()).as(existing.toString()).isEqualTo("create");
        Thread later = new Thread(() -> {
            sleep(500);
            s.files().write("ws/result.json", "{}");
        });
        later.start();
        JsonNode waited = post(base, "/v1/file/watch/wait", "{\"path\":\"/home/gem/workspace/ws/result.json\","
                + "\"timeout\":20,\"event_types\":[\"write\",\"create\"]}");
        later.join();
        assertThat(waited.at("/event/path").asText()).as(waited.toString())
                .isEqualTo("/home/gem/workspace/ws/result.json");
        JsonNode timedOut = post(base, "/v1/file/watch/wait", "{\"path\":\"ws/never\",\"timeout\":0.3,"
                + "\"event_types\":[\"write\"]}");
        assertThat(timedOut.get("event").isNull()).as(timedOut.toString()).isTrue();

        Path sseOut = tmp.resolve("sse.jsonl");
        Process sse = new ProcessBuilder("node", "sse.mjs", base + "/v1/file/watch/" + id + "/events", "4", "30")
                .directory(McpOfficialClientTest.JS.toFile()).redirectOutput(sseOut.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        Thread.sleep(1500);
        s.files().write("ws/b.py", "2");
        s.files().write("ws/c.json", "3");
        assertThat(sse.waitFor(40, TimeUnit.SECONDS)).isTrue();
        List<String> lines = Files.readAllLines(sseOut);
        assertThat(sse.exitValue()).as(lines.toString()).isZero();
        assertThat(lines.get(0)).contains("\"type\":\"watch_started\"");
        // the stream starts with the events still buffered (as a poll from cursor 0), then follows new ones
        assertThat(String.join("\n", lines)).contains("\"id\":\"" + id + ":1\"", "ws/a.py", "ws/result.json",
                "ws/b.py", "ws/c.json");

        HttpResponse<String> deleted = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base
                + "/v1/file/watch/" + id)).DELETE().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(deleted.statusCode()).isEqualTo(200);
        assertThat(post(base, "/v1/file/watch/" + id + "/poll", "{}").get("_status").asInt()).isEqualTo(404);
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
