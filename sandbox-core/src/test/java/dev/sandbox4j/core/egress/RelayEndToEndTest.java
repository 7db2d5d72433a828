package dev.sandbox4j.core.egress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sandbox4j.core.AgentBinary;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The whole path on loopback: the real {@code sbx-relay} runs as a plain host process (as it would inside a sandbox,
 * minus the sandbox), its stdin/stdout connected to {@link RelayMux} + {@link EgressProxy} in this JVM, and real
 * clients (java.net.http, curl, python3 urllib) use 127.0.0.1:(relay port) through the usual proxy variables.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RelayEndToEndTest {
    private Path tmp;
    private Fixtures fx;
    private Process relay;
    private RelayMux mux;
    private int port;
    private Path relayStderr;

    /** How the relay is run: this machine's build, as is (see {@link Aarch64RelayEndToEndTest}). */
    List<String> relayCommand(Path dir) throws Exception {
        // -Dsandbox4j.test.relay=/path/to/sbx-relay runs another build (e.g. with -fsanitize=address,undefined)
        String override = System.getProperty("sandbox4j.test.relay");
        if (override != null && !override.isBlank()) {
            return List.of(override, "0");
        }
        return List.of(write(dir, AgentBinary.bytes(AgentBinary.RELAY)).toString(), "0");
    }

    static Path write(Path dir, byte[] binary) throws IOException {
        Path bin = dir.resolve(AgentBinary.RELAY);
        Files.write(bin, binary);
        Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwx------"));
        return bin;
    }

    @BeforeAll
    void startRelay() throws Exception {
        tmp = Files.createTempDirectory("sandbox4j-relay-test");
        fx = new Fixtures(tmp);
        relayStderr = tmp.resolve("relay.stderr");
        relay = new ProcessBuilder(relayCommand(tmp)).redirectError(relayStderr.toFile()).start();
        EgressProxy proxy = fx.proxy(fx.policy());
        mux = new RelayMux(relay.getInputStream(), relay.getOutputStream(), proxy::serve).start();
        port = mux.awaitReady(Duration.ofSeconds(10));
    }

    @AfterAll
    void stopRelay() throws Exception {
        try {
            assertThat(mux.failure()).as("the mux saw no protocol error").isNull();
            mux.close();
            assertThat(relay.waitFor(10, TimeUnit.SECONDS)).as("sbx-relay exits when its stdin ends").isTrue();
            assertThat(relay.exitValue()).as("sbx-relay's exit (stderr: %s)", Files.readString(relayStderr))
                    .isZero();
            fx.assertOnlyFixturesDialed();
            assertThat(fx.resolved).as("only names the policy allows are ever resolved")
                    .allMatch(n -> n.equals("allowed.test") || n.equals("rebind.test"));
        } finally {
            relay.destroyForcibly();
            fx.close();
            try (var walk = Files.walk(tmp)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private HttpClient client() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", port)))
                .connectTimeout(Duration.ofSeconds(10)).build();
    }

    @Test
    void javaHttpClient_allowedDomain_plainHttp() throws Exception {
        HttpResponse<String> r = client().send(HttpRequest.newBuilder(
                URI.create("http://allowed.test:" + fx.httpPort() + "/java")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("hello from allowed.test /java body=0");
    }

    @Test
    void javaHttpClient_otherDomain_gets403WithTheReason() throws Exception {
        HttpResponse<String> r = client().send(HttpRequest.newBuilder(
                URI.create("http://evil.test:" + fx.httpPort() + "/")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(r.body()).contains("domain not allowed: evil.test");
        assertThat(r.headers().firstValue("X-Sandbox4j-Egress")).contains("domain-denied");
    }

    @Test
    void javaHttpClient_manyConcurrentRequests() throws Exception {
        HttpClient c = client();
        List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            all.add(c.sendAsync(HttpRequest.newBuilder(URI.create("http://allowed.test:" + fx.httpPort() + "/c" + i))
                    .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString()));
        }
        for (int i = 0; i < all.size(); i++) {
            HttpResponse<String> r = all.get(i).get(30, TimeUnit.SECONDS);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("hello from allowed.test /c" + i + " body=0");
        }
    }

    @Test
    void javaHttpClient_https_tunnelsThroughConnect() throws Exception {
        HttpClient c = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(fx.clientTls())
                .proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", port)))
                .connectTimeout(Duration.ofSeconds(10)).build();
        HttpResponse<String> r = c.send(HttpRequest.newBuilder(
                URI.create("https://allowed.test:" + fx.httpsPort() + "/tls")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("hello over tls /tls");
    }

    @Test
    void connect_tunnelsFourMegabytesBothWaysIntact() throws Exception {
        byte[] payload = new byte[4 << 20];
        new Random(42).nextBytes(payload);
        try (Socket s = new Socket(InetAddress.getByName("127.0.0.1"), port)) {
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            out.write(("CONNECT allowed.test:" + fx.echoPort() + " HTTP/1.1\r\nHost: allowed.test:" + fx.echoPort()
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            assertThat(readHead(in)).startsWith("HTTP/1.1 200");
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try {
                    for (int off = 0; off < payload.length; off += 100_000) {
                        out.write(payload, off, Math.min(100_000, payload.length - off));
                    }
                    out.flush();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            byte[] back = in.readNBytes(payload.length);
            writer.get(30, TimeUnit.SECONDS);
            assertThat(back.length).isEqualTo(payload.length);
            assertThat(Arrays.equals(back, payload)).as("the echoed bytes are the bytes sent").isTrue();
        }
    }

    @Test
    void refusals_throughTheRelay_areImmediate403s() throws Exception {
        Map<String, String> cases = Map.of(
                "CONNECT evil.test:443", "domain not allowed",
                "CONNECT 127.0.0.1:" + fx.echoPort(), "IP address",
                "CONNECT [::1]:" + fx.echoPort(), "IP address",
                "CONNECT 169.254.169.254:80", "IP address",
                "CONNECT rebind.test:" + fx.trapPort(), "address denied: rebind.test -> 127.0.0.2",
                "CONNECT allowed.test:22", "allowed.test:22 is not in the policy",
                "GET http://169.254.169.254/latest/meta-data/", "IP address");
        for (Map.Entry<String, String> e : cases.entrySet()) {
            long start = System.nanoTime();
            String r = Fixtures.exchange(port, e.getKey() + " HTTP/1.1\r\n\r\n");
            assertThat(r).as(e.getKey()).startsWith("HTTP/1.1 403").contains(e.getValue());
            assertThat(System.nanoTime() - start).as(e.getKey()).isLessThan(TimeUnit.SECONDS.toNanos(5));
        }
    }

    @Test
    void aClientThatVanishesMidTunnel_freesItsConnection() throws Exception {
        // java.net.http keeps its HTTPS tunnels pooled: count relative to what is open before
        int before = mux.openConnections();
        try (Socket s = new Socket(InetAddress.getByName("127.0.0.1"), port)) {
            s.getOutputStream().write(("CONNECT allowed.test:" + fx.echoPort() + " HTTP/1.1\r\n\r\nabc")
                    .getBytes(StandardCharsets.US_ASCII));
            assertThat(readHead(s.getInputStream())).startsWith("HTTP/1.1 200");
            assertThat(mux.openConnections()).isEqualTo(before + 1);
            s.setSoLinger(true, 0); // reset, not a clean close
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (mux.openConnections() > before && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(mux.openConnections()).isEqualTo(before);
    }

    @Test
    void curl_throughTheProxyVariables() throws Exception {
        assumeTrue(onPath("curl"), "curl is not installed");
        String base = "http://allowed.test:" + fx.httpPort();
        Result ok = run(List.of("curl", "-sS", base + "/curl"));
        assertThat(ok.out).as(ok.toString()).isEqualTo("hello from allowed.test /curl body=0");
        Result tunnel = run(List.of("curl", "-sS", "--proxytunnel", base + "/tunnel"));
        assertThat(tunnel.out).as(tunnel.toString()).isEqualTo("hello from allowed.test /tunnel body=0");
        Result denied = run(List.of("curl", "-sS", "-w", "\n%{http_code}", "http://evil.test:" + fx.httpPort() + "/"));
        assertThat(denied.out).as(denied.toString()).contains("domain not allowed").endsWith("403");
        Result deniedTunnel = run(List.of("curl", "-sS", "--proxytunnel", "http://evil.test:" + fx.httpPort() + "/"));
        assertThat(deniedTunnel.exit).as(deniedTunnel.toString()).isNotZero();
        assertThat(deniedTunnel.err).contains("403");
        Result tls = run(List.of("curl", "-sS", "--cacert", fx.tlsCertificate.toString(),
                "https://allowed.test:" + fx.httpsPort() + "/curl-tls"));
        assertThat(tls.out).as(tls.toString()).isEqualTo("hello over tls /curl-tls");
        Path body = tmp.resolve("body.bin");
        Files.write(body, new byte[1 << 20]);
        Result deniedPost = run(List.of("curl", "-sS", "-w", "\n%{http_code}", "--data-binary", "@" + body,
                "http://evil.test:" + fx.httpPort() + "/upload"));
        assertThat(deniedPost.out).as("a refused upload still gets its 403: " + deniedPost)
                .contains("domain not allowed").endsWith("403");
        Result literal = run(List.of("curl", "-sS", "-w", "\n%{http_code}", "http://127.0.0.1:" + fx.httpPort() + "/"));
        assertThat(literal.out).as(literal.toString()).contains("IP address").endsWith("403");
    }

    @Test
    void python3Urllib_throughTheProxyVariables() throws Exception {
        assumeTrue(onPath("python3"), "python3 is not installed");
        String script = "import sys, urllib.request, urllib.error\n"
                + "for url in sys.argv[1:]:\n"
                + "    data = None\n"
                + "    if url.startswith('POST:'):\n"
                + "        url, data = url[5:], bytes(1 << 20)\n"
                + "    try:\n"
                + "        print(urllib.request.urlopen(url, data=data, timeout=10).read().decode())\n"
                + "    except urllib.error.HTTPError as e:\n"
                + "        print(e.code, e.read().decode().strip())\n";
        Result r = run(List.of("python3", "-c", script, "http://allowed.test:" + fx.httpPort() + "/py",
                "http://evil.test:" + fx.httpPort() + "/py", "http://[::1]:" + fx.httpPort() + "/py",
                "POST:http://evil.test:" + fx.httpPort() + "/upload"));
        assertThat(r.exit).as(r.toString()).isZero();
        assertThat(r.out.split("\n")).containsExactly("hello from allowed.test /py body=0",
                "403 sandbox4j egress: domain not allowed: evil.test:" + fx.httpPort() + " is not in the policy ("
                        + fx.policy() + ")",
                "403 sandbox4j egress: domain not allowed: IP address 0:0:0:0:0:0:0:1 (the policy lists domain names)",
                "403 sandbox4j egress: domain not allowed: evil.test:" + fx.httpPort() + " is not in the policy ("
                        + fx.policy() + ")");
    }

    private static final class Result {
        final int exit;
        final String out;
        final String err;

        Result(int exit, String out, String err) {
            this.exit = exit;
            this.out = out;
            this.err = err;
        }

        @Override
        public String toString() {
            return "exit " + exit + ", stdout '" + out + "', stderr '" + err + "'";
        }
    }

    /** Runs a client with only the proxy variables (as the sandbox will set them) and PATH/HOME. */
    private Result run(List<String> command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command);
        Map<String, String> env = pb.environment();
        String path = env.get("PATH");
        String home = env.get("HOME");
        env.clear();
        env.put("PATH", path);
        env.put("HOME", home != null ? home : tmp.toString());
        String proxy = "http://127.0.0.1:" + port;
        for (String name : List.of("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")) {
            env.put(name, proxy);
        }
        env.put("NO_PROXY", "");
        env.put("no_proxy", "");
        File errFile = tmp.resolve("client-" + System.nanoTime() + ".err").toFile();
        pb.redirectError(errFile);
        Process p = pb.start();
        p.getOutputStream().close();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CompletableFuture<Void> drain = CompletableFuture.runAsync(() -> {
            try {
                p.getInputStream().transferTo(out);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(command + " did not finish in 30 s");
        }
        drain.get(10, TimeUnit.SECONDS);
        return new Result(p.exitValue(), out.toString(StandardCharsets.UTF_8).strip(),
                Files.readString(errFile.toPath()).strip());
    }

    private static boolean onPath(String program) {
        return Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .anyMatch(d -> Files.isExecutable(Path.of(d, program)));
    }

    private static String readHead(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        while (!sb.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                break;
            }
            sb.append((char) c);
        }
        return sb.toString();
    }

    static String joined(List<String> l) {
        return l.stream().collect(Collectors.joining(","));
    }
}
