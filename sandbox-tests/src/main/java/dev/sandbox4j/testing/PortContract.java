package dev.sandbox4j.testing;

import static dev.sandbox4j.testing.Checks.expectError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.Feature;
import dev.sandbox4j.PortForward;
import dev.sandbox4j.Ports;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@link Sandbox#ports()}: a server in the sandbox reached from the host through an opened port, refused after
 * close, each forward reaching only its own sandbox; a port nothing listens on, half-closes both ways, parallel
 * connections, a large transfer checked by hash; the readiness helpers; the refusal without the feature.
 */
public interface PortContract extends ConformanceSupport {
    Duration WAIT = Duration.ofSeconds(30);

    /**
     * A TCP server for the tests, on 127.0.0.1 in the sandbox: {@code echo} sends back what it reads and half-closes
     * at the client's EOF; {@code greet} sends a line, half-closes, reads to EOF and writes the count and SHA-256
     * of what it read to {@code greeted.txt}.
     */
    String SERVER = String.join("\n",
            "import hashlib, socket, sys, threading",
            "mode, port = sys.argv[1], int(sys.argv[2])",
            "s = socket.socket()",
            "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)",
            "s.bind(('127.0.0.1', port))",
            "s.listen(128)",
            "print('listening on', port, flush=True)",
            "def echo(c):",
            "    while True:",
            "        b = c.recv(65536)",
            "        if not b: break",
            "        c.sendall(b)",
            "    c.shutdown(socket.SHUT_WR)",
            "    c.close()",
            "def greet(c):",
            "    c.sendall(b'hello from the sandbox\\n')",
            "    c.shutdown(socket.SHUT_WR)",
            "    n, h = 0, hashlib.sha256()",
            "    while True:",
            "        b = c.recv(65536)",
            "        if not b: break",
            "        n += len(b); h.update(b)",
            "    open('greeted.tmp', 'w').write('%d %s\\n' % (n, h.hexdigest()))",
            "    import os; os.rename('greeted.tmp', 'greeted.txt')",
            "    c.close()",
            "while True:",
            "    c, _ = s.accept()",
            "    threading.Thread(target=echo if mode == 'echo' else greet, args=(c,), daemon=True).start()",
            "");

    /** Starts the test server (mode, port) and waits for it through both readiness helpers. */
    private static void serve(Sandbox sandbox, String mode, int port) {
        sandbox.files().write("server.py", SERVER);
        String id = sandbox.shell().processes().start(ExecRequest.shell("python3 -u server.py " + mode + " " + port))
                .id();
        Ports ports = sandbox.ports();
        assertThat(ports.waitForLog(id, Pattern.compile("listening on \\d+"), WAIT)).isEqualTo("listening on " + port);
        ports.waitForPort(port, WAIT);
    }

    private static byte[] readAll(InputStream in) throws IOException {
        return in.readAllBytes();
    }

    private static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /** Sends data to the echo server while reading its answer on another thread; returns the answer. */
    private static byte[] echo(InetSocketAddress at, byte[] data) throws Exception {
        try (Socket s = new Socket(at.getAddress(), at.getPort())) {
            s.setSoTimeout(60_000);
            CompletableFuture<byte[]> answer = CompletableFuture.supplyAsync(() -> {
                try {
                    return readAll(s.getInputStream());
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            OutputStream out = s.getOutputStream();
            for (int off = 0; off < data.length; off += 100_000) {
                out.write(data, off, Math.min(100_000, data.length - off));
            }
            s.shutdownOutput();
            return answer.get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    @Requires({Feature.PORTS, Feature.PROCESS_REGISTRY})
    default void open_servesAnHttpServer_toTheHost_andIsRefusedAfterClose(Sandbox sandbox) throws Exception {
        sandbox.files().write("site/hello.txt", "hello from the sandbox");
        String id = sandbox.shell().processes().start(ExecRequest.shell(
                "cd site && exec python3 -u -m http.server 8000 --bind 127.0.0.1")).id();
        Ports ports = sandbox.ports();
        ports.waitForLog(id, Pattern.compile("Serving HTTP"), WAIT);
        ports.waitForPort(8000, WAIT);
        PortForward forward = ports.open(8000);
        assertThat(forward.address().getAddress().getHostAddress()).isEqualTo("127.0.0.1");
        assertThat(forward.sandboxPort()).isEqualTo(8000);
        assertThat(ports.list()).containsExactly(forward);
        HttpClient http = HttpClient.newBuilder().connectTimeout(WAIT).build();
        URI uri = URI.create("http://127.0.0.1:" + forward.address().getPort() + "/hello.txt");
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(WAIT).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("hello from the sandbox");

        forward.close();
        forward.close();
        assertThat(forward.isOpen()).isFalse();
        assertThat(ports.list()).isEmpty();
        assertThat(catchThrowable(() -> new Socket("127.0.0.1", forward.address().getPort()).close()))
                .isInstanceOf(ConnectException.class);

        PortForward again = ports.open(8000);
        assertThat(echoLine(again.address(), "GET /hello.txt HTTP/1.0\r\n\r\n")).contains("hello from the sandbox");
        sandbox.close();
        assertThat(again.isOpen()).isFalse();
        assertThat(catchThrowable(() -> new Socket("127.0.0.1", again.address().getPort()).close()))
                .isInstanceOf(ConnectException.class);
        expectError(ErrorKind.CLOSED, () -> ports.open(8000));
    }

    /** Writes request, half-closes, and returns all the server answered. */
    private static String echoLine(InetSocketAddress at, String request) throws IOException {
        try (Socket s = new Socket(at.getAddress(), at.getPort())) {
            s.setSoTimeout(60_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
            s.shutdownOutput();
            return new String(readAll(s.getInputStream()), StandardCharsets.UTF_8);
        }
    }

    @Test
    @Requires({Feature.PORTS, Feature.PROCESS_REGISTRY})
    default void eachForward_reachesOnlyItsOwnSandbox(Sandbox sandbox) throws Exception {
        try (Sandbox other = fixture().open(SandboxSpec.defaults())) {
            serve(sandbox, "greet", 8100);
            serve(other, "echo", 8100);
            serve(other, "echo", 8101);
            PortForward mine = sandbox.ports().open(8100);
            PortForward theirs = other.ports().open(8100);
            assertThat(new String(echo(mine.address(), new byte[0]), StandardCharsets.UTF_8))
                    .isEqualTo("hello from the sandbox\n");
            assertThat(new String(echo(theirs.address(), "ping".getBytes(StandardCharsets.UTF_8)),
                    StandardCharsets.UTF_8)).isEqualTo("ping");
            // 8101 listens only in the other sandbox: this sandbox's forward of it reaches nothing
            PortForward none = sandbox.ports().open(8101);
            assertThat(echo(none.address(), "ping".getBytes(StandardCharsets.UTF_8))).isEmpty();
        }
    }

    @Test
    @Requires({Feature.PORTS, Feature.SHELL})
    default void aPortNothingListensOn_endsEachConnectionCleanly_andFreesItsSlot(Sandbox sandbox) throws Exception {
        PortForward forward = sandbox.ports().open(8200);
        // more connections, one after another, than the sandbox carries at once: each slot is freed again
        for (int i = 0; i < Ports.MAX_CONNECTIONS + 6; i++) {
            try (Socket s = new Socket(forward.address().getAddress(), forward.address().getPort())) {
                s.setSoTimeout(30_000);
                assertThat(s.getInputStream().read()).as("connection " + i).isEqualTo(-1);
            }
        }
        assertThat(sandbox.shell().run("echo still here").stdout()).isEqualTo("still here\n");
        expectError(ErrorKind.TIMEOUT, () -> sandbox.ports().waitForPort(8200, Duration.ofMillis(300)));
    }

    @Test
    @Requires({Feature.PORTS, Feature.PROCESS_REGISTRY})
    default void halfCloses_passBothWays(Sandbox sandbox) throws Exception {
        serve(sandbox, "greet", 8300);
        PortForward forward = sandbox.ports().open(8300);
        byte[] sent = "some bytes after the server's half-close".getBytes(StandardCharsets.UTF_8);
        try (Socket s = new Socket(forward.address().getAddress(), forward.address().getPort())) {
            s.setSoTimeout(30_000);
            // the server sent its line and half-closed: the client reads it to EOF and can still write
            assertThat(new String(readAll(s.getInputStream()), StandardCharsets.UTF_8))
                    .isEqualTo("hello from the sandbox\n");
            s.getOutputStream().write(sent);
            s.shutdownOutput();
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (!sandbox.files().exists("greeted.txt") && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        }
        assertThat(sandbox.files().readText("greeted.txt")).isEqualTo(sent.length + " " + sha256(sent) + "\n");
    }

    @Test
    @Requires({Feature.PORTS, Feature.PROCESS_REGISTRY})
    default void parallelConnections_andALargeTransfer_arriveWhole(Sandbox sandbox) throws Exception {
        serve(sandbox, "echo", 8400);
        PortForward forward = sandbox.ports().open(8400);
        List<CompletableFuture<Boolean>> all = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            byte[] data = new byte[50_000 + i * 1_000];
            new Random(i).nextBytes(data);
            all.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return java.util.Arrays.equals(echo(forward.address(), data), data);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        for (CompletableFuture<Boolean> f : all) {
            assertThat(f.get(60, TimeUnit.SECONDS)).isTrue();
        }
        byte[] big = new byte[24 << 20];
        new Random(7).nextBytes(big);
        assertThat(sha256(echo(forward.address(), big))).isEqualTo(sha256(big));
    }

    @Test
    @Requires({Feature.PORTS, Feature.PROCESS_REGISTRY})
    default void readinessHelpers_andBadArguments_areTyped(Sandbox sandbox) {
        Ports ports = sandbox.ports();
        expectError(ErrorKind.INVALID_ARGUMENT, () -> ports.open(0));
        expectError(ErrorKind.INVALID_ARGUMENT, () -> ports.open(65536));
        expectError(ErrorKind.INVALID_ARGUMENT, () -> ports.open(80, -1));
        expectError(ErrorKind.INVALID_ARGUMENT, () -> ports.waitForPort(70000, WAIT));
        assertThat(ports.list()).isEmpty();
        String id = sandbox.shell().processes().start(ExecRequest.shell("echo starting; echo ready now; sleep 60"))
                .id();
        assertThat(ports.waitForLog(id, Pattern.compile("ready \\w+"), WAIT)).isEqualTo("ready now");
        expectError(ErrorKind.TIMEOUT, () -> ports.waitForLog(id, Pattern.compile("never"), Duration.ofMillis(300)));
        String ended = sandbox.shell().processes().start(ExecRequest.shell("echo done")).id();
        expectError(ErrorKind.NO_MATCH, () -> ports.waitForLog(ended, Pattern.compile("never"), WAIT));
        expectError(ErrorKind.NOT_FOUND, () -> ports.waitForLog("999999", Pattern.compile("x"), WAIT));
        PortForward taken = ports.open(8500);
        expectError(ErrorKind.ALREADY_EXISTS, () -> ports.open(8500, taken.address().getPort()));
        List<PortForward> more = new ArrayList<>();
        for (int i = 1; i < Ports.MAX_OPEN; i++) {
            more.add(ports.open(8500 + i));
        }
        expectError(ErrorKind.TOO_LARGE, () -> ports.open(9000));
        more.forEach(PortForward::close);
        assertThat(ports.list()).containsExactly(taken);
    }

    @Test
    @Requires(absent = Feature.PORTS)
    default void ports_withoutFeature_failUnsupported(Sandbox sandbox) {
        expectError(ErrorKind.UNSUPPORTED, sandbox::ports);
    }
}
