package dev.sandbox4j.core.egress;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.NetworkPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The proxy alone, through its loopback test listener, with raw requests. */
class EgressProxyTest {
    private Fixtures fx;
    private EgressProxy.Listener proxy;
    private EgressProxy.Listener openProxy;

    @BeforeEach
    void setUp() throws IOException {
        fx = new Fixtures();
        InetSocketAddress any = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0);
        proxy = fx.proxy(fx.policy()).listen(any);
        openProxy = EgressProxy.builder(NetworkPolicy.ALLOW_ALL).resolver(fx.resolver()).denyList(fx.denyList())
                .dialer(fx.dialer()).headTimeout(Duration.ofSeconds(1)).build().listen(any);
    }

    @AfterEach
    void tearDown() throws IOException {
        proxy.close();
        openProxy.close();
        fx.assertOnlyFixturesDialed();
        fx.close();
    }

    private String send(String request) throws IOException {
        return Fixtures.exchange(proxy.port(), request);
    }

    @Test
    void plainHttp_allowedDomain_isForwardedInOriginFormWithItsOwnHost() throws IOException {
        String r = send("GET http://allowed.test:" + fx.httpPort() + "/a?b=1 HTTP/1.1\r\nHost: evil.test\r\n"
                + "Proxy-Connection: keep-alive\r\nProxy-Authorization: Basic eA==\r\nX-Keep: yes\r\n\r\n");
        assertThat(r).startsWith("HTTP/1.1 200").contains("hello from allowed.test /a?b=1");
        String head = fx.httpHeads.get(0);
        assertThat(head).startsWith("GET /a?b=1\n").contains("host: allowed.test:" + fx.httpPort())
                .contains("x-keep: yes").contains("connection: close")
                .doesNotContain("evil.test").doesNotContain("proxy-");
    }

    @Test
    void plainHttp_withBody_passesTheBody() throws IOException {
        String r = send("POST http://allowed.test:" + fx.httpPort() + "/p HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello");
        assertThat(r).startsWith("HTTP/1.1 200").contains("body=5");
    }

    @Test
    void originForm_usesTheHostHeader() throws IOException {
        String r = send("GET /o HTTP/1.1\r\nHost: allowed.test:" + fx.httpPort() + "\r\n\r\n");
        assertThat(r).startsWith("HTTP/1.1 200").contains("hello from allowed.test /o");
    }

    @Test
    void connect_allowedDomain_tunnelsBytesBothWays() throws IOException {
        try (Socket s = new Socket(InetAddress.getByName("127.0.0.1"), proxy.port())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            // the first tunnelled bytes ride along with the head, as TLS clients do
            out.write(("CONNECT allowed.test:" + fx.echoPort() + " HTTP/1.1\r\nHost: allowed.test\r\n\r\nping")
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            String established = readHead(in);
            assertThat(established).startsWith("HTTP/1.1 200");
            assertThat(new String(in.readNBytes(4), StandardCharsets.US_ASCII)).isEqualTo("ping");
            out.write("pong".getBytes(StandardCharsets.US_ASCII));
            assertThat(new String(in.readNBytes(4), StandardCharsets.US_ASCII)).isEqualTo("pong");
        }
    }

    @Test
    void otherDomain_isRefusedWith403AndNeverResolved() throws IOException {
        String r = send("GET http://evil.test:" + fx.httpPort() + "/ HTTP/1.1\r\n\r\n");
        assertThat(r).startsWith("HTTP/1.1 403").contains("X-Sandbox4j-Egress: domain-denied")
                .contains("domain not allowed: evil.test:" + fx.httpPort());
        String c = send("CONNECT evil.test:443 HTTP/1.1\r\n\r\n");
        assertThat(c).startsWith("HTTP/1.1 403").contains("domain not allowed");
        String sub = send("CONNECT sub.allowed.test:443 HTTP/1.1\r\n\r\n");
        assertThat(sub).startsWith("HTTP/1.1 403");
        assertThat(fx.resolved).as("names the policy refuses are never looked up").isEmpty();
    }

    @Test
    void connect_unlistedPort_isRefused() throws IOException {
        assertThat(send("CONNECT allowed.test:22 HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 403")
                .contains("allowed.test:22 is not in the policy");
    }

    @Test
    void ipLiterals_areRefusedByAnAllowList() throws IOException {
        for (String target : new String[] {"127.0.0.1:" + fx.echoPort(), "[::1]:" + fx.echoPort(),
                "169.254.169.254:80", "[::ffff:127.0.0.1]:" + fx.echoPort()}) {
            assertThat(send("CONNECT " + target + " HTTP/1.1\r\n\r\n")).as(target).startsWith("HTTP/1.1 403")
                    .contains("IP address");
        }
        assertThat(send("GET http://127.0.0.1:" + fx.httpPort() + "/ HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 403");
    }

    @Test
    void oddIpv4Spellings_areRefusedAsBadHosts() throws IOException {
        for (String host : new String[] {"2130706433", "0x7f000001", "127.1", "0177.0.0.1", "127.000.0.1"}) {
            assertThat(send("CONNECT " + host + ":80 HTTP/1.1\r\n\r\n")).as(host).startsWith("HTTP/1.1 400");
        }
    }

    @Test
    void rebindingAnswer_isRefusedWithoutDialing() throws IOException {
        String r = send("CONNECT rebind.test:" + fx.trapPort() + " HTTP/1.1\r\n\r\n");
        assertThat(r).startsWith("HTTP/1.1 403").contains("X-Sandbox4j-Egress: address-denied")
                .contains("address denied: rebind.test -> 127.0.0.2 (loopback)");
        assertThat(fx.resolved).containsExactly("rebind.test");
        assertThat(fx.dialed).isEmpty();
    }

    @Test
    void allowAll_stillDeniesMetadataLoopbackAndPrivateLiteralsWithoutDialing() throws IOException {
        for (String target : new String[] {"169.254.169.254:80", "127.0.0.1:" + fx.trapPort(),
                "[::1]:" + fx.trapPort(), "[::ffff:169.254.169.254]:80", "[fd00::1]:80", "10.0.0.1:80",
                "[fe80::1]:80", "0.0.0.0:" + fx.trapPort()}) {
            String r = Fixtures.exchange(openProxy.port(), "CONNECT " + target + " HTTP/1.1\r\n\r\n");
            assertThat(r).as(target).startsWith("HTTP/1.1 403").contains("address denied");
        }
        String meta = Fixtures.exchange(openProxy.port(),
                "GET http://169.254.169.254/latest/meta-data/ HTTP/1.1\r\nHost: 169.254.169.254\r\n\r\n");
        assertThat(meta).startsWith("HTTP/1.1 403").contains("cloud metadata");
        for (String odd : new String[] {"[127.0.0.1]:" + fx.trapPort(), "[.127.0.0.1]:" + fx.trapPort(),
                "[::1%25lo]:" + fx.trapPort(), "[0:0:0:0:0:ffff:7f00:1]:" + fx.trapPort()}) {
            String r = Fixtures.exchange(openProxy.port(), "CONNECT " + odd + " HTTP/1.1\r\n\r\n");
            assertThat(r).as(odd).matches("(?s)HTTP/1.1 40[03] .*");
        }
        String named = Fixtures.exchange(openProxy.port(), "CONNECT anything.test:" + fx.trapPort() + " HTTP/1.1\r\n\r\n");
        assertThat(named).startsWith("HTTP/1.1 403").contains("address denied: anything.test -> 127.0.0.2");
        assertThat(fx.dialed).isEmpty();
    }

    @Test
    void allowAll_reachesAnExemptedFixture() throws IOException {
        String r = Fixtures.exchange(openProxy.port(), "GET http://allowed.test:" + fx.httpPort() + "/x HTTP/1.1\r\n\r\n");
        assertThat(r).startsWith("HTTP/1.1 200");
    }

    @Test
    void nonePolicy_refusesEverything() throws IOException {
        try (EgressProxy.Listener none = fx.proxy(NetworkPolicy.NONE)
                .listen(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0))) {
            String r = Fixtures.exchange(none.port(), "CONNECT allowed.test:" + fx.echoPort() + " HTTP/1.1\r\n\r\n");
            assertThat(r).startsWith("HTTP/1.1 403").contains("policy is none");
        }
    }

    @Test
    void malformedRequests_get4xxNotAHang() throws IOException {
        assertThat(send("GARBAGE\r\n\r\n")).startsWith("HTTP/1.1 400");
        assertThat(send("GET https://allowed.test/ HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 400").contains("CONNECT");
        assertThat(send("GET http://user@allowed.test/ HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 400");
        assertThat(send("CONNECT allowed.test HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 400").contains("port");
        assertThat(send("CONNECT allowed.test:99999 HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 400");
        assertThat(send("GET / HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 400").contains("Host");
        assertThat(send("GET http://allowed.test/ HTTP/1.1\r\nBad Header\r\n\r\n")).startsWith("HTTP/1.1 400");
        assertThat(send("GET http://allowed.test/ HTTP/1.1\r\nA: b\0c\r\n\r\n")).startsWith("HTTP/1.1 400");
        assertThat(send("POST http://allowed.test:" + fx.httpPort() + "/ HTTP/1.1\r\nContent-Length: 1\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n")).startsWith("HTTP/1.1 400");
        assertThat(send("GET http://allowed.test/ HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")).startsWith("HTTP/1.1 400");
    }

    @Test
    void oversizedHeads_get431() throws IOException {
        assertThat(send("GET http://allowed.test/" + "a".repeat(EgressProxy.MAX_LINE) + " HTTP/1.1\r\n\r\n"))
                .startsWith("HTTP/1.1 431");
        StringBuilder many = new StringBuilder("GET http://allowed.test/ HTTP/1.1\r\n");
        for (int i = 0; i <= EgressProxy.MAX_HEADERS; i++) {
            many.append("X-").append(i).append(": 1\r\n");
        }
        assertThat(send(many + "\r\n")).startsWith("HTTP/1.1 431");
        StringBuilder big = new StringBuilder("GET http://allowed.test/ HTTP/1.1\r\n");
        for (int i = 0; i < 50; i++) {
            big.append("X-").append(i).append(": ").append("v".repeat(1000)).append("\r\n");
        }
        assertThat(send(big + "\r\n")).startsWith("HTTP/1.1 431");
    }

    @Test
    void aClientThatNeverFinishesItsHead_isClosedAtTheHeadTimeout() throws IOException {
        long start = System.nanoTime();
        String r = Fixtures.exchange(openProxy.port(), "GET http://allowed.test/ HTTP/1.1\r\nX-Slow: ");
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertThat(r).isEmpty();
        assertThat(ms).isBetween(500L, 8_000L);
    }

    @Test
    void everyDecision_isLoggedAtDebugWithHostAndVerdict() throws IOException {
        // System.Logger goes to java.util.logging here (no other LoggerFinder on the test class path)
        java.util.logging.Logger jul = java.util.logging.Logger.getLogger(EgressProxy.class.getName());
        java.util.List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler h = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                lines.add(r.getLevel() + " " + new java.util.logging.SimpleFormatter().formatMessage(r));
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        java.util.logging.Level old = jul.getLevel();
        jul.setLevel(java.util.logging.Level.FINE);
        jul.addHandler(h);
        try {
            send("CONNECT evil.test:443 HTTP/1.1\r\n\r\n");
            send("CONNECT rebind.test:" + fx.trapPort() + " HTTP/1.1\r\n\r\n");
            send("GET http://allowed.test:" + fx.httpPort() + "/log HTTP/1.1\r\n\r\n");
        } finally {
            jul.removeHandler(h);
            jul.setLevel(old);
        }
        assertThat(lines).anyMatch(l -> l.startsWith("FINE egress deny CONNECT evil.test:443: domain not allowed"));
        assertThat(lines).anyMatch(l -> l.startsWith("FINE egress deny CONNECT rebind.test:" + fx.trapPort()
                + ": address denied"));
        assertThat(lines).anyMatch(l -> l.equals("FINE egress allow GET allowed.test:" + fx.httpPort()
                + " -> 127.0.0.1"));
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
}
