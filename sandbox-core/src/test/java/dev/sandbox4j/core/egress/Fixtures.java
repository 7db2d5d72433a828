package dev.sandbox4j.core.egress;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.sandbox4j.NetworkPolicy;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Loopback fixtures: {@code allowed.test} resolves to 127.0.0.1, where an HTTP server ({@link #httpPort}) and a TCP
 * echo ({@link #echoPort}) listen; {@code rebind.test} (allowed by the policy) and every other name resolve to
 * 127.0.0.2, where a trap server counts connections that must never come. Only the two 127.0.0.1 endpoints are
 * exempted from the deny-list.
 */
final class Fixtures implements AutoCloseable {
    final InetAddress lo;
    final InetAddress lo2;
    final HttpServer http;
    final ServerSocket echo;
    final ServerSocket trap;
    final AtomicInteger trapHits = new AtomicInteger();
    final List<String> httpHeads = new CopyOnWriteArrayList<>();
    final List<String> resolved = new CopyOnWriteArrayList<>();
    final List<InetSocketAddress> dialed = new CopyOnWriteArrayList<>();
    /** An HTTPS server for allowed.test (certificate {@link #tlsCertificate}), only with {@link #Fixtures(Path)}. */
    HttpsServer https;
    Path tlsCertificate;

    /** The fixtures plus an HTTPS server whose key and certificate keytool makes in {@code tlsDir}. */
    Fixtures(Path tlsDir) throws Exception {
        this();
        Path ks = tlsDir.resolve("allowed-test.p12");
        tlsCertificate = tlsDir.resolve("allowed-test.pem");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        keytool(keytool, "-genkeypair", "-alias", "allowed", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=allowed.test", "-ext", "SAN=dns:allowed.test", "-validity", "2",
                "-keystore", ks.toString(), "-storetype", "PKCS12", "-storepass", "changeit", "-keypass", "changeit");
        keytool(keytool, "-exportcert", "-rfc", "-alias", "allowed", "-keystore", ks.toString(),
                "-storepass", "changeit", "-file", tlsCertificate.toString());
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(ks)) {
            store.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(store, "changeit".toCharArray());
        SSLContext server = SSLContext.getInstance("TLS");
        server.init(kmf.getKeyManagers(), null, null);
        https = HttpsServer.create(new InetSocketAddress(lo, 0), 50);
        https.setHttpsConfigurator(new HttpsConfigurator(server));
        https.createContext("/", ex -> {
            byte[] body = ("hello over tls " + ex.getRequestURI()).getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream o = ex.getResponseBody()) {
                o.write(body);
            }
        });
        https.start();
    }

    /** A client context that trusts exactly the fixture's certificate. */
    SSLContext clientTls() throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(tlsCertificate)) {
            trust.setCertificateEntry("allowed", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext c = SSLContext.getInstance("TLS");
        c.init(null, tmf.getTrustManagers(), null);
        return c;
    }

    int httpsPort() {
        return https == null ? -1 : https.getAddress().getPort();
    }

    private static void keytool(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("keytool failed: " + out);
        }
    }

    Fixtures() throws IOException {
        lo = InetAddress.getByName("127.0.0.1");
        lo2 = InetAddress.getByName("127.0.0.2");
        http = HttpServer.create(new InetSocketAddress(lo, 0), 50);
        http.createContext("/", ex -> {
            StringBuilder head = new StringBuilder(ex.getRequestMethod() + " " + ex.getRequestURI() + "\n");
            ex.getRequestHeaders().forEach((k, v) -> head.append(k.toLowerCase()).append(": ")
                    .append(String.join(",", v)).append('\n'));
            byte[] reqBody = ex.getRequestBody().readAllBytes();
            httpHeads.add(head.toString());
            byte[] body = ("hello from allowed.test " + ex.getRequestURI() + " body=" + reqBody.length)
                    .getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream o = ex.getResponseBody()) {
                o.write(body);
            }
        });
        http.start();
        echo = new ServerSocket(0, 50, lo);
        daemon(() -> {
            while (!echo.isClosed()) {
                try {
                    Socket s = echo.accept();
                    daemon(() -> {
                        try (Socket c = s) {
                            InputStream in = c.getInputStream();
                            OutputStream out = c.getOutputStream();
                            byte[] buf = new byte[8192];
                            int n;
                            while ((n = in.read(buf)) > 0) {
                                out.write(buf, 0, n);
                            }
                        } catch (IOException e) {
                            // client went away
                        }
                    });
                } catch (IOException e) {
                    return;
                }
            }
        });
        trap = new ServerSocket(0, 50, lo2);
        daemon(() -> {
            while (!trap.isClosed()) {
                try (Socket s = trap.accept()) {
                    trapHits.incrementAndGet();
                } catch (IOException e) {
                    return;
                }
            }
        });
    }

    int httpPort() {
        return http.getAddress().getPort();
    }

    int echoPort() {
        return echo.getLocalPort();
    }

    int trapPort() {
        return trap.getLocalPort();
    }

    Resolver resolver() {
        return host -> {
            resolved.add(host);
            return List.of(host.equals("allowed.test") ? lo : lo2);
        };
    }

    EgressProxy.Dialer dialer() {
        return (target, timeout) -> {
            dialed.add(target);
            if (!target.getAddress().isLoopbackAddress()) {
                // a safety net: a broken deny-list must fail this test, not send packets off this machine
                throw new java.net.ConnectException("the test dialer only dials loopback, not " + target);
            }
            return EgressProxy.Dialer.PLAIN.dial(target, timeout);
        };
    }

    AddressDenyList denyList() {
        AddressDenyList list = AddressDenyList.standard().exemptingForTests(new InetSocketAddress(lo, httpPort()),
                new InetSocketAddress(lo, echoPort()));
        return https == null ? list : list.exemptingForTests(new InetSocketAddress(lo, httpsPort()));
    }

    /** allowed.test on the two fixture ports (and 80/443), rebind.test on any port. */
    NetworkPolicy policy() {
        List<String> entries = new java.util.ArrayList<>(List.of("allowed.test", "allowed.test:" + httpPort(),
                "allowed.test:" + echoPort(), "rebind.test:*"));
        if (https != null) {
            entries.add("allowed.test:" + httpsPort());
        }
        return NetworkPolicy.allowDomains(entries);
    }

    EgressProxy proxy(NetworkPolicy policy) {
        return EgressProxy.builder(policy).resolver(resolver()).denyList(denyList()).dialer(dialer()).build();
    }

    /** Every dial went to a fixture endpoint that was meant to be reached. */
    void assertOnlyFixturesDialed() {
        for (InetSocketAddress d : dialed) {
            if (!(d.getAddress().equals(lo)
                    && (d.getPort() == httpPort() || d.getPort() == echoPort() || d.getPort() == httpsPort()))) {
                throw new AssertionError("the proxy dialed " + d);
            }
        }
        if (trapHits.get() != 0) {
            throw new AssertionError("the trap server was reached " + trapHits.get() + " times");
        }
    }

    /** One raw exchange: sends {@code request}, reads until the proxy closes (or 10 s), returns what came back. */
    static String exchange(int port, String request) throws IOException {
        try (Socket s = new Socket(InetAddress.getByName("127.0.0.1"), port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            s.getInputStream().transferTo(got);
            return got.toString(StandardCharsets.ISO_8859_1);
        }
    }

    static void daemon(Runnable r) {
        Thread t = new Thread(r, "egress-fixture");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() throws IOException {
        http.stop(0);
        if (https != null) {
            https.stop(0);
        }
        echo.close();
        trap.close();
    }
}
