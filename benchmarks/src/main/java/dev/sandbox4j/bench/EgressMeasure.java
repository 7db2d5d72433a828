package dev.sandbox4j.bench;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.core.AgentEgress;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * HTTPS through the egress allow-list (issue 14), against the same client run on the host with no proxy: one
 * python3 urllib client (what {@code pip} uses) downloads 64 MiB, and makes 50 small requests (each one a new TLS
 * connection, so through the proxy each is a new CONNECT tunnel: relay, agent frames, host proxy, dial). The server
 * is an HTTPS server of this JVM on loopback; the proxy resolves {@code bench.test} to it (the tests' override, the
 * only way to reach loopback through the deny-list). Times are taken inside python, after its imports, on both sides.
 * A third client per sandbox reaches the same server with a brokered credential (issue 28): plain HTTP to the proxy,
 * which makes the TLS connection itself, puts the key on and scrubs the response.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar dev.sandbox4j.bench.EgressMeasure [local|docker ...] [rounds]</pre>
 */
public final class EgressMeasure {
    private static final int BULK_MIB = 64;
    private static final int SMALL_REQUESTS = 50;
    private static final String CLIENT = String.join("\n",
            "import ssl, sys, time, urllib.request",
            "ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE",
            "url, n = sys.argv[1], int(sys.argv[2])",
            "t = time.perf_counter(); total = 0",
            "for i in range(n):",
            "    with urllib.request.urlopen(url, context=ctx, timeout=60) as r:",
            "        while True:",
            "            b = r.read(1 << 20)",
            "            if not b: break",
            "            total += len(b)",
            "print(total, time.perf_counter() - t)");

    private EgressMeasure() {
    }

    public static void main(String[] args) throws Exception {
        List<String> backends = Host.backendsArg(args);
        int rounds = Host.roundsArg(args, 5);
        Path dir = Files.createTempDirectory("sandbox4j-egress-measure");
        HttpsServer server = server(dir);
        SSLContext trust = trust(dir.resolve("bench.p12"));
        int port = server.getAddress().getPort();
        List<Sandbox> boxes = new ArrayList<>();
        try (AutoCloseable override = AgentEgress.overrideForTests(name -> InetAddress.getLoopbackAddress(), trust,
                new InetSocketAddress(InetAddress.getLoopbackAddress(), port))) {
            NetworkPolicy.Credential key = NetworkPolicy.Credential.header("x-api-key", "bench-secret-0123456789")
                    .forHost("bench.test").onPort(port);
            for (String backend : backends) {
                boxes.add(Sandboxes.open(backend, SandboxSpec.builder()
                        .network(NetworkPolicy.allowDomains("bench.test:" + port).withCredential(key))
                        .commandTimeout(Duration.ofMinutes(5)).bestEffortLimits(true).build()));
            }
            // interleaved: each round runs the host, then every sandbox, so load drifts hit all alike
            List<Round> clients = new ArrayList<>();
            clients.add(() -> python("https://127.0.0.1:" + port + "/bulk", "https://127.0.0.1:" + port + "/small"));
            for (Sandbox s : boxes) {
                clients.add(() -> sandboxed(s, "https://bench.test:" + port + "/bulk",
                        "https://bench.test:" + port + "/small"));
            }
            for (Sandbox s : boxes) {
                clients.add(() -> sandboxed(s, "http://bench.test/bulk", "http://bench.test/small"));
            }
            double[][][] r = new double[clients.size()][2][rounds];
            for (Round c : clients) {
                c.run(); // warm-up
            }
            for (int i = 0; i < rounds; i++) {
                for (int c = 0; c < clients.size(); c++) {
                    double[] one = clients.get(c).run();
                    r[c][0][i] = one[0];
                    r[c][1][i] = one[1];
                }
            }
            report("host, no proxy", r[0]);
            int n = boxes.size();
            for (int b = 0; b < n; b++) {
                report(backends.get(b) + ", through the allow-list", r[b + 1]);
            }
            for (int b = 0; b < n; b++) {
                report(backends.get(b) + ", brokered credential", r[n + b + 1]);
            }
            for (int b = 0; b < n; b++) {
                System.out.printf("%s / host: bulk throughput %.2fx, small request time %.2fx; brokered / tunnel: "
                        + "bulk throughput %.2fx, small request time %.2fx%n", backends.get(b),
                        median(r[b + 1][0]) / median(r[0][0]), median(r[b + 1][1]) / median(r[0][1]),
                        median(r[n + b + 1][0]) / median(r[b + 1][0]), median(r[n + b + 1][1]) / median(r[b + 1][1]));
            }
        } finally {
            boxes.forEach(Sandbox::close);
            server.stop(0);
        }
        System.exit(0);
    }

    /** One client run: bulk MiB/s and ms per small request. */
    interface Round {
        double[] run() throws Exception;
    }

    private static double[] python(String bulk, String small) throws Exception {
        double[] b = parse(run(List.of("python3", "-c", CLIENT, bulk, "1")), (long) BULK_MIB << 20);
        double[] s = parse(run(List.of("python3", "-c", CLIENT, small, Integer.toString(SMALL_REQUESTS))),
                (long) SMALL_REQUESTS * 1024);
        return new double[] {BULK_MIB / b[1], s[1] * 1000 / SMALL_REQUESTS};
    }

    private static double[] sandboxed(Sandbox s, String bulk, String small) {
        double[] b = parse(ok(s.shell().run(ExecRequest.argv("python3", "-c", CLIENT, bulk, "1"))),
                (long) BULK_MIB << 20);
        double[] m = parse(ok(s.shell().run(ExecRequest.argv("python3", "-c", CLIENT, small,
                Integer.toString(SMALL_REQUESTS)))), (long) SMALL_REQUESTS * 1024);
        return new double[] {BULK_MIB / b[1], m[1] * 1000 / SMALL_REQUESTS};
    }

    private static String ok(ExecResult r) {
        if (r.exitCode() != 0) {
            throw new IllegalStateException("client failed: " + r);
        }
        return r.stdout();
    }

    private static String run(List<String> command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.toLowerCase().endsWith("_proxy"));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("client failed: " + out);
        }
        return out;
    }

    /** "bytes seconds" from the client; checks every byte arrived. */
    private static double[] parse(String out, long expectBytes) {
        String[] f = out.trim().split("\\s+");
        long bytes = Long.parseLong(f[0]);
        if (bytes != expectBytes) {
            throw new IllegalStateException("expected " + expectBytes + " bytes, got " + out);
        }
        return new double[] {bytes, Double.parseDouble(f[1])};
    }

    private static void report(String what, double[][] r) {
        System.out.printf("%-32s bulk %6.1f MiB/s (median of %d; min %.1f, max %.1f)   small request %6.2f ms"
                + " (median; min %.2f, max %.2f)%n", what, median(r[0]), r[0].length, min(r[0]), max(r[0]),
                median(r[1]), min(r[1]), max(r[1]));
    }

    private static double median(double[] v) {
        double[] c = v.clone();
        Arrays.sort(c);
        return c.length % 2 == 1 ? c[c.length / 2] : (c[c.length / 2 - 1] + c[c.length / 2]) / 2;
    }

    private static double min(double[] v) {
        return Arrays.stream(v).min().orElse(0);
    }

    private static double max(double[] v) {
        return Arrays.stream(v).max().orElse(0);
    }

    /** A client context trusting exactly the server's certificate (the brokered calls' upstream TLS). */
    private static SSLContext trust(Path keystore) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            store.load(in, "changeit".toCharArray());
        }
        KeyStore anchors = KeyStore.getInstance(KeyStore.getDefaultType());
        anchors.load(null, null);
        anchors.setCertificateEntry("bench", store.getCertificate("bench"));
        javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(
                javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(anchors);
        SSLContext c = SSLContext.getInstance("TLS");
        c.init(null, tmf.getTrustManagers(), null);
        return c;
    }

    /** An HTTPS server on loopback: /bulk is 64 MiB, /small 1 KiB; key and certificate made by keytool. */
    private static HttpsServer server(Path dir) throws Exception {
        Path ks = dir.resolve("bench.p12");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process kt = new ProcessBuilder(keytool, "-genkeypair", "-alias", "bench", "-keyalg", "EC", "-groupname",
                "secp256r1", "-dname", "CN=bench.test", "-ext", "SAN=dns:bench.test", "-validity", "2", "-keystore",
                ks.toString(), "-storetype", "PKCS12", "-storepass", "changeit", "-keypass", "changeit")
                .redirectErrorStream(true).start();
        String ktOut = new String(kt.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (kt.waitFor() != 0) {
            throw new IOException("keytool failed: " + ktOut);
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(ks)) {
            store.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(store, "changeit".toCharArray());
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(kmf.getKeyManagers(), null, null);
        HttpsServer https = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 100);
        https.setHttpsConfigurator(new HttpsConfigurator(tls));
        https.setExecutor(Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "egress-measure-https");
            t.setDaemon(true);
            return t;
        }));
        byte[] chunk = new byte[1 << 20];
        byte[] small = new byte[1024];
        https.createContext("/bulk", ex -> {
            ex.sendResponseHeaders(200, (long) BULK_MIB << 20);
            try (OutputStream o = ex.getResponseBody()) {
                for (int i = 0; i < BULK_MIB; i++) {
                    o.write(chunk);
                }
            }
        });
        https.createContext("/small", ex -> {
            ex.sendResponseHeaders(200, small.length);
            try (OutputStream o = ex.getResponseBody()) {
                o.write(small);
            }
        });
        https.start();
        return https;
    }
}
