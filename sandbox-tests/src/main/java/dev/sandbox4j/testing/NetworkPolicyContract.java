package dev.sandbox4j.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Feature;
import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A network policy, enforced outside the sandbox, tested by effect with loopback fixtures only: {@code allowed.test}
 * resolves to an HTTP server on 127.0.0.1, {@code rebind.test} (allowed by name) to a private address that must be
 * refused, and every other name to a trap on 127.0.0.2 that must never be reached. The only address outside
 * loopback a test names is 192.0.2.1 (TEST-NET-1).
 */
public interface NetworkPolicyContract extends ConformanceSupport {
    /** Runs Python in the sandbox (its urllib honours the proxy variables, as pip does). */
    private static ExecResult py(Sandbox s, String program) {
        return s.shell().run(ExecRequest.argv("python3", "-c", program).withTimeout(Duration.ofSeconds(60)));
    }

    private static String get(String url) {
        return "import urllib.request, urllib.error\n"
                + "try:\n"
                + "    r = urllib.request.urlopen('" + url + "', timeout=20)\n"
                + "    print('status', r.status, r.read().decode())\n"
                + "except urllib.error.HTTPError as e:\n"
                + "    print('status', e.code, e.read().decode()[:300])\n"
                + "except Exception as e:\n"
                + "    print('error', type(e).__name__, e)\n";
    }

    @Test
    @Requires({Feature.SHELL, Feature.CODE_EXECUTION})
    default void allowList_letsTheNamedDomainThrough_andRefusesEverythingElseAtOnce(Sandbox ignored)
            throws Exception {
        AtomicInteger trapHits = new AtomicInteger();
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        http.createContext("/", ex -> {
            byte[] body = ("hello from allowed.test " + ex.getRequestURI()).getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        http.start();
        InetAddress trapAddress = InetAddress.getByName("127.0.0.2");
        try (ServerSocket trap = new ServerSocket(0, 50, trapAddress)) {
            Thread trapThread = new Thread(() -> {
                while (!trap.isClosed()) {
                    try (Socket s = trap.accept()) {
                        trapHits.incrementAndGet();
                    } catch (Exception e) {
                        return;
                    }
                }
            }, "kit-egress-trap");
            trapThread.setDaemon(true);
            trapThread.start();
            int port = http.getAddress().getPort();
            InetSocketAddress allowed = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port);
            try (AutoCloseable egress = fixture().egressForTests(name -> switch (name) {
                case "allowed.test" -> allowed.getAddress();
                case "rebind.test" -> address("10.20.30.40");
                default -> trapAddress;
            }, allowed)) {
                NetworkPolicy policy = NetworkPolicy.allowDomains("allowed.test:" + port, "rebind.test:*");
                try (Sandbox s = fixture().open(SandboxSpec.builder().network(policy).build())) {
                    assertThat(s.shell().run("printf %s \"$HTTPS_PROXY\"").stdout())
                            .as("programs find the proxy").startsWith("http://127.0.0.1:");
                    // plain HTTP through the proxy
                    assertThat(py(s, get("http://allowed.test:" + port + "/hello")).stdout())
                            .isEqualTo("status 200 hello from allowed.test /hello\n");
                    // CONNECT, as pip and npm do for https: a tunnel to the allowed name
                    String connect = "import os, socket\n"
                            + "p = os.environ['HTTPS_PROXY'].rsplit(':', 1)\n"
                            + "c = socket.create_connection(('127.0.0.1', int(p[1])), timeout=20)\n"
                            + "c.sendall(b'CONNECT allowed.test:" + port + " HTTP/1.1\\r\\nHost: allowed.test:" + port
                            + "\\r\\n\\r\\n')\n"
                            + "head = b''\n"
                            + "while b'\\r\\n\\r\\n' not in head:\n"
                            + "    head += c.recv(1)\n"
                            + "print(head.split(b'\\r\\n')[0].decode())\n"
                            + "c.sendall(b'GET /tunnel HTTP/1.0\\r\\nHost: allowed.test\\r\\n\\r\\n')\n"
                            + "data = b''\n"
                            + "while True:\n"
                            + "    b = c.recv(65536)\n"
                            + "    if not b: break\n"
                            + "    data += b\n"
                            + "print(data.split(b'\\r\\n\\r\\n', 1)[1].decode())\n";
                    ExecResult tunnel = py(s, connect);
                    assertThat(tunnel.stdout()).as(tunnel.stderr()).contains(" 200 ")
                            .endsWith("hello from allowed.test /tunnel\n");
                    // everything else: an immediate 403 saying why, never a hang
                    for (String url : new String[] {"http://other.test/", "http://allowed.test:" + (port + 1) + "/",
                        "http://192.0.2.1/", "http://169.254.169.254/latest/", "http://[2001:db8::1]/",
                        "http://rebind.test/"}) {
                        long t0 = System.nanoTime();
                        String out = py(s, get(url)).stdout();
                        assertThat(out).as(url).startsWith("status 403");
                        assertThat(Duration.ofNanos(System.nanoTime() - t0)).as(url).isLessThan(Duration.ofSeconds(15));
                    }
                    // the host's loopback, asked of the proxy directly (clients skip the proxy for it: NO_PROXY)
                    for (String target : new String[] {"127.0.0.1:" + port, "[::1]:" + port, "localhost:" + port}) {
                        String raw = "import os, socket\n"
                                + "p = os.environ['HTTP_PROXY'].rsplit(':', 1)\n"
                                + "c = socket.create_connection(('127.0.0.1', int(p[1])), timeout=20)\n"
                                + "c.sendall(b'GET http://" + target + "/ HTTP/1.1\\r\\nHost: " + target
                                + "\\r\\nConnection: close\\r\\n\\r\\n')\n"
                                + "print(c.recv(200).split(b'\\r\\n')[0].decode())\n";
                        assertThat(py(s, raw).stdout()).as(target).contains(" 403 ");
                    }
                    // no resolver inside, and no route but the proxy
                    assertThat(py(s, "import socket\ntry:\n    socket.getaddrinfo('allowed.test', 80)\n    print('resolved')\n"
                            + "except Exception as e:\n    print('no dns')\n").stdout()).isEqualTo("no dns\n");
                    assertThat(py(s, "import socket\ntry:\n    socket.create_connection(('192.0.2.1', 80), timeout=5)\n"
                            + "    print('connected')\nexcept Exception as e:\n    print('no route')\n").stdout())
                            .isEqualTo("no route\n");
                    assertThat(s.info().details().toString()).contains("allowed.test");
                }
            }
            assertThat(trapHits.get()).as("connections that reached the trap").isZero();
        } finally {
            http.stop(0);
        }
    }

    @Test
    @Requires(Feature.SHELL)
    default void noPolicy_noProxyAndNoNetwork(Sandbox sandbox) {
        assertThat(sandbox.shell().run("printf '[%s]' \"$HTTP_PROXY\"").stdout()).isEqualTo("[]");
    }

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
