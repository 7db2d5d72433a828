package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.core.AgentEgress;
import dev.sandbox4j.memory.MemorySandbox;
import dev.sandbox4j.testing.Required;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Real Chromium in a real local jail, reaching a page server on the host through the sandbox's allow-list (the test
 * resolver maps {@code pages.test} to the server, every other name to 127.0.0.2, where nothing may arrive). One
 * sandbox and one browser for the class; the lifecycle test opens its own. Skips without bubblewrap or Chromium
 * unless {@code SANDBOX4J_REQUIRE} names them.
 */
class BrowserTest {
    static final String CHROMIUM = Browser.DEFAULT_EXECUTABLE;
    static HttpServer server;
    static final AtomicInteger hits = new AtomicInteger();
    static AutoCloseable egress;
    static Sandbox sandbox;
    static Browser browser;
    static String base;

    static void requireBrowser() {
        Required.orSkip("local", Sandboxes.providers().stream().filter(p -> p.name().equals("local")).findFirst()
                .flatMap(p -> p.unavailableReason()));
        Required.orSkip("chromium", Files.isExecutable(Path.of(CHROMIUM)) ? Optional.empty()
                : Optional.of(CHROMIUM + " is not installed (apt-get install chromium)"));
    }

    @BeforeAll
    static void start() throws Exception {
        requireBrowser();
        server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        server.createContext("/", BrowserTest::serve);
        server.start();
        int port = server.getAddress().getPort();
        InetAddress trap = InetAddress.getByName("127.0.0.2");
        InetAddress ok = InetAddress.getByName("127.0.0.1");
        egress = AgentEgress.overrideForTests(name -> name.equals("pages.test") ? ok : trap, server.getAddress());
        base = "http://pages.test:" + port;
        sandbox = Sandboxes.open("local", spec(port));
        browser = Browser.launch(sandbox);
    }

    static SandboxSpec spec(int port) {
        return SandboxSpec.builder().network(NetworkPolicy.allowDomains("pages.test:" + port, "rebind.test:" + port))
                .build();
    }

    @AfterAll
    static void stop() throws Exception {
        if (browser != null) {
            browser.close();
        }
        if (sandbox != null) {
            sandbox.close();
        }
        if (egress != null) {
            egress.close();
        }
        if (server != null) {
            server.stop(0);
        }
    }

    static void serve(HttpExchange ex) throws IOException {
        hits.incrementAndGet();
        String path = ex.getRequestURI().getPath();
        String query = ex.getRequestURI().getRawQuery();
        String body = switch (path) {
            case "/form.html" -> "<html><head><title>Form</title></head><body><h1>Ask</h1><form action=\"/result\">"
                    + "<input name=\"q\" aria-label=\"Question\"><button type=\"submit\">Send</button></form>"
                    + "<a href=\"/other.html\">Other page</a></body></html>";
            case "/result" -> "<html><head><title>Result</title></head><body><p id=\"out\">You said: "
                    + URLDecoder.decode(query == null ? "" : query.replaceFirst("^q=", ""), StandardCharsets.UTF_8)
                    .replace("<", "&lt;") + "</p></body></html>";
            case "/other.html" -> "<html><head><title>Other</title></head><body><p>other</p></body></html>";
            case "/tall.html" -> "<html><head><title>Tall</title><style>body{margin:0}</style></head><body>"
                    + "<div style=\"width:600px;height:3000px;background:#0a0\"><button id=\"b\" style=\"width:200px;"
                    + "height:50px\">Box</button></div></body></html>";
            case "/big.html" -> "<html><head><title>Big</title></head><body><pre>" + "x".repeat(300_000)
                    + "</pre></body></html>";
            case "/hog.html" -> "<html><head><title>Hog</title></head><body><script>const keep = [];"
                    + "setTimeout(function grow() { for (let i = 0; i < 20; i++) keep.push(new Array(1 << 20).fill(i));"
                    + " setTimeout(grow, 0); }, 100);</script></body></html>";
            case "/many.html" -> "<html><head><title>Many</title></head><body>" + buttons(1000) + "</body></html>";
            default -> null;
        };
        byte[] bytes = (body == null ? "not found" : body).getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
        ex.sendResponseHeaders(body == null ? 404 : 200, bytes.length);
        ex.getResponseBody().write(bytes);
        ex.close();
    }

    static String buttons(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append("<button>b").append(i).append("</button>");
        }
        return sb.toString();
    }

    /** The width and height in a PNG's IHDR, after checking the signature. */
    static int[] pngSize(byte[] png) {
        assertThat(png).hasSizeGreaterThan(24);
        assertThat(java.util.Arrays.copyOf(png, 8)).containsExactly(0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a);
        ByteBuffer b = ByteBuffer.wrap(png);
        return new int[] {b.getInt(16), b.getInt(20)};
    }

    @Test
    void navigateSnapshotTypeAndSubmit_readsTheResult() {
        Browser.Page p = browser.navigate(base + "/form.html");
        assertThat(p.title()).isEqualTo("Form");
        assertThat(p.status()).isEqualTo(200);
        Browser.Snapshot s = browser.snapshot();
        assertThat(s.elements()).extracting(Browser.Element::ref, Browser.Element::role, Browser.Element::name)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("e0", "textbox", "Question"),
                        org.assertj.core.groups.Tuple.tuple("e1", "button", "Send"),
                        org.assertj.core.groups.Tuple.tuple("e2", "link", "Other page"));
        assertThat(s.tree()).contains("heading \"Ask\"", "textbox \"Question\" [ref=e0]");
        browser.type("e0", "hello <world>");
        assertThat(browser.snapshot().elements().get(0).value()).isEqualTo("hello <world>");
        Browser.Page after = browser.click("e1");
        assertThat(after.title()).isEqualTo("Result");
        assertThat(after.url()).isEqualTo(base + "/result?q=hello+%3Cworld%3E");
        assertThat(browser.content().html()).contains("You said: hello &lt;world&gt;");
        // the click navigated: the old refs name nothing now
        assertThatThrownBy(() -> browser.click("e1")).isInstanceOf(SandboxException.class)
                .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.NOT_FOUND);
        // press_key Enter submits too
        browser.navigate(base + "/form.html");
        browser.snapshot();
        browser.type("e0", "by key");
        assertThat(browser.pressKey("e0", "Enter").url()).endsWith("/result?q=by+key");
    }

    @Test
    void tabs_openFocusClose() {
        browser.navigate(base + "/form.html");
        Browser.Page opened = browser.open(base + "/other.html");
        assertThat(opened.title()).isEqualTo("Other");
        List<Browser.Tab> tabs = browser.tabs();
        assertThat(tabs).hasSize(2);
        Browser.Tab first = tabs.stream().filter(t -> !t.active()).findFirst().orElseThrow();
        assertThat(first.title()).isEqualTo("Form");
        assertThat(browser.focus(first.targetId()).title()).isEqualTo("Form");
        assertThat(browser.tabs()).filteredOn(Browser.Tab::active).extracting(Browser.Tab::targetId)
                .containsExactly(first.targetId());
        String other = browser.tabs().stream().filter(t -> !t.active()).findFirst().orElseThrow().targetId();
        browser.closeTab(other);
        assertThat(browser.tabs()).extracting(Browser.Tab::targetId).containsExactly(first.targetId());
        assertThatThrownBy(() -> browser.focus("no-such-tab")).isInstanceOf(SandboxException.class)
                .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.NOT_FOUND);
    }

    @Test
    void screenshots_areRealPngsOfThePageSize() {
        browser.navigate(base + "/tall.html");
        Browser.Screenshot view = browser.screenshot(false, null);
        assertThat(view.path()).startsWith("screenshots/screenshot-").endsWith(".png");
        byte[] png = sandbox.files().readBytes(view.path());
        assertThat(png).hasSize((int) view.bytes());
        assertThat(pngSize(png)).containsExactly(1280, 720);
        Browser.Screenshot full = browser.screenshot(true, null);
        assertThat(pngSize(sandbox.files().readBytes(full.path()))).containsExactly(1280, 3000);
        browser.snapshot();
        Browser.Screenshot element = browser.screenshot(false, "e0");
        assertThat(pngSize(sandbox.files().readBytes(element.path()))).containsExactly(200, 50);
    }

    @Test
    void content_isTruncatedPast100KB() {
        browser.navigate(base + "/big.html");
        Browser.Content c = browser.content();
        assertThat(c.truncated()).isTrue();
        assertThat(c.totalBytes()).isGreaterThan(300_000);
        assertThat(c.html().getBytes(StandardCharsets.UTF_8)).hasSize(Browser.MAX_CONTENT_BYTES);
        browser.navigate(base + "/other.html");
        assertThat(browser.content().truncated()).isFalse();
    }

    @Test
    void snapshot_givesAtMost200Refs() {
        browser.navigate(base + "/many.html");
        Browser.Snapshot s = browser.snapshot();
        assertThat(s.elements()).hasSize(Browser.MAX_REFS);
        assertThat(s.elements().get(199).ref()).isEqualTo("e199");
        assertThat(s.elements().get(199).name()).isEqualTo("b199");
        assertThat(s.tree()).contains("button \"b999\"");
    }

    @Test
    void evaluate_isRefusedUnlessEnabled() {
        assertThatThrownBy(() -> browser.evaluate("1 + 1")).isInstanceOf(SandboxException.class)
                .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.PERMISSION_DENIED);
        try (Browser b = Browser.launch(sandbox, Browser.Options.defaults().withEvaluateEnabled(true))) {
            b.navigate(base + "/form.html");
            assertThat(b.evaluate("document.title + ' ' + (6 * 7)")).isEqualTo("\"Form 42\"");
        }
    }

    @Test
    void privateLoopbackAndMetadataUrls_areRefusedWithoutARequest() {
        int before = hits.get();
        int port = server.getAddress().getPort();
        for (String url : List.of("http://127.0.0.1:" + port + "/form.html", "http://localhost:" + port + "/",
                "http://[::1]:" + port + "/", "http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/",
                "http://192.168.1.1/", "http://metadata.google.internal/", "http://2130706433:" + port + "/",
                "http://0x7f.1:" + port + "/", "http://[::ffff:127.0.0.1]:" + port + "/", "http://100.64.0.1/")) {
            assertThatThrownBy(() -> browser.navigate(url)).as(url).isInstanceOf(SandboxException.class)
                    .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.PERMISSION_DENIED);
        }
        for (String url : List.of("file:///etc/passwd", "javascript:alert(1)", "chrome://settings",
                "ftp://pages.test/")) {
            assertThatThrownBy(() -> browser.navigate(url)).as(url).isInstanceOf(SandboxException.class)
                    .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT);
        }
        // a name off the allow-list, and an allowed name that resolves to loopback: the egress proxy refuses both
        for (String url : List.of("http://elsewhere.test:" + port + "/", "http://rebind.test:" + port + "/")) {
            assertThatThrownBy(() -> browser.navigate(url)).as(url).isInstanceOf(SandboxException.class)
                    .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.PERMISSION_DENIED);
        }
        // https off the allow-list: Chromium asks the proxy for a tunnel, which it refuses
        assertThatThrownBy(() -> browser.navigate("https://elsewhere.test:" + port + "/"))
                .isInstanceOf(SandboxException.class).hasMessageContaining("refused or could not open the tunnel");
        assertThat(hits.get()).as("requests that reached the page server").isEqualTo(before);
    }

    @Test
    void theBrowserDiesWithItsSandbox_andOnClose() throws Exception {
        try (Sandbox own = Sandboxes.open("local", spec(server.getAddress().getPort()))) {
            Browser closed = Browser.launch(own);
            String profile = closed.profileDir();
            assertThat(chromiumProcesses(profile)).isNotEmpty();
            closed.close();
            assertThat(waitForNone(profile)).as("chromium processes after Browser.close()").isEmpty();
            assertThat(closed.isOpen()).isFalse();
            assertThatThrownBy(() -> closed.navigate(base + "/form.html")).isInstanceOf(SandboxException.class)
                    .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.CLOSED);
            Browser b = Browser.launch(own);
            b.navigate(base + "/other.html");
            profile = b.profileDir();
            assertThat(chromiumProcesses(profile)).isNotEmpty();
            own.close();
            assertThat(waitForNone(profile)).as("chromium processes after the sandbox closed").isEmpty();
            assertThat(b.isOpen()).isFalse();
        }
    }

    @Test
    void aPageThatAllocatesWithoutEnd_isStoppedByTheSandboxsMemoryLimit() throws Exception {
        SandboxSpec small = SandboxSpec.builder().network(NetworkPolicy.allowDomains("pages.test:"
                + server.getAddress().getPort())).limits(ResourceLimits.DEFAULTS.withMemoryBytes(768L << 20)).build();
        try (Sandbox own = Sandboxes.open("local", small);
             Browser b = Browser.launch(own, Browser.Options.defaults().withTimeout(Duration.ofSeconds(10)))) {
            b.navigate(base + "/hog.html");
            SandboxException stopped = null;
            for (int i = 0; i < 120 && stopped == null; i++) { // each call fails fast once the renderer is gone
                try {
                    b.page();
                    b.snapshot();
                    Thread.sleep(250);
                } catch (SandboxException e) {
                    stopped = e;
                }
            }
            assertThat(stopped).as("the page was stopped").isNotNull();
            System.out.println("[browser] the allocating page was stopped: " + stopped.getMessage());
            assertThat(stopped.kind()).isEqualTo(ErrorKind.BACKEND_UNAVAILABLE);
            assertThat(stopped.getMessage()).as("the renderer was SIGKILLed (the cgroup OOM kill)").containsAnyOf(
                    "killed", "oom");
            assertThat(own.shell().run("echo alive").stdout()).isEqualTo("alive\n");
            if (b.isOpen()) { // the renderer died, the browser lives: another tab works
                b.open(base + "/other.html");
                assertThat(b.page().title()).isEqualTo("Other");
            }
        }
    }

    @Test
    void theMemoryBackendRefuses() {
        try (Sandbox memory = MemorySandbox.open()) {
            assertThatThrownBy(() -> Browser.launch(memory)).isInstanceOf(SandboxException.class)
                    .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.UNSUPPORTED);
        }
    }

    /** Host pids of the processes whose command line names this profile directory. */
    static List<Long> chromiumProcesses(String profile) {
        return ProcessHandle.allProcesses().filter(p -> p.info().commandLine().map(c -> c.contains(profile))
                .orElse(false) || cmdline(p.pid()).contains(profile)).map(ProcessHandle::pid).toList();
    }

    static String cmdline(long pid) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc/" + pid + "/cmdline")), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** Waits (at most 20 s: a kill, not a speed) until no process names the profile; returns those left. */
    static List<Long> waitForNone(String profile) throws InterruptedException {
        List<Long> left = chromiumProcesses(profile);
        for (int i = 0; i < 200 && !left.isEmpty(); i++) {
            Thread.sleep(100);
            left = chromiumProcesses(profile);
        }
        return left;
    }
}
