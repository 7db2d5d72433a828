package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.core.AgentEgress;
import dev.sandbox4j.docker.DockerOptions;
import dev.sandbox4j.docker.DockerSandboxProvider;
import dev.sandbox4j.testing.Required;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The browser in a real container of the browser image ({@code scripts/build-test-image.sh --browser}: the runtime
 * image plus Debian's chromium), through the same egress proxy and page server as {@link BrowserTest}: a form
 * submitted by refs, a PNG of the viewport's size, private and metadata URLs refused with no request made, no Chromium
 * process left once the sandbox closed. Skips without Docker or the image unless {@code SANDBOX4J_REQUIRE} names
 * {@code docker} or {@code browser-image}.
 */
class DockerBrowserTest {
    static final String IMAGE = "sandbox4j/runtime:bookworm-browser";
    static HttpServer server;
    static AutoCloseable egress;
    static DockerSandboxProvider provider;
    static Sandbox sandbox;
    static Browser browser;
    static String base;

    @BeforeAll
    static void start() throws Exception {
        provider = new DockerSandboxProvider(DockerOptions.defaults().withImage(IMAGE));
        Required.orSkip("docker", provider.unavailableReason());
        Process inspect = new ProcessBuilder("docker", "image", "inspect", IMAGE).redirectErrorStream(true).start();
        inspect.getInputStream().readAllBytes();
        Required.orSkip("browser-image", inspect.waitFor() == 0 ? Optional.empty()
                : Optional.of("no image " + IMAGE + " (scripts/build-test-image.sh --browser)"));
        server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        server.createContext("/", BrowserTest::serve);
        server.start();
        int port = server.getAddress().getPort();
        InetAddress trap = InetAddress.getByName("127.0.0.2");
        InetAddress ok = InetAddress.getByName("127.0.0.1");
        egress = AgentEgress.overrideForTests(name -> name.equals("pages.test") ? ok : trap, server.getAddress());
        base = "http://pages.test:" + port;
        sandbox = provider.open(BrowserTest.spec(port));
        browser = Browser.launch(sandbox);
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

    @Test
    void aFormSubmittedByRefs_andAScreenshotOfTheViewport() {
        assertThat(browser.navigate(base + "/form.html").title()).isEqualTo("Form");
        assertThat(browser.snapshot().elements()).extracting(Browser.Element::name)
                .containsExactly("Question", "Send", "Other page");
        browser.type("e0", "in a container");
        assertThat(browser.click("e1").title()).isEqualTo("Result");
        assertThat(browser.content().html()).contains("You said: in a container");
        Browser.Screenshot shot = browser.screenshot(false, null);
        assertThat(BrowserTest.pngSize(sandbox.files().readBytes(shot.path()))).containsExactly(1280, 720);
        assertThatThrownBy(() -> browser.evaluate("1")).isInstanceOf(SandboxException.class)
                .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.PERMISSION_DENIED);
    }

    @Test
    void privateAndMetadataUrls_areRefusedWithoutARequest() {
        int port = server.getAddress().getPort();
        for (String url : List.of("http://127.0.0.1:" + port + "/", "http://169.254.169.254/latest/",
                "http://elsewhere.test:" + port + "/", "http://rebind.test:" + port + "/")) {
            int before = BrowserTest.hits.get();
            assertThatThrownBy(() -> browser.navigate(url)).as(url).isInstanceOf(SandboxException.class)
                    .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.PERMISSION_DENIED);
            assertThat(BrowserTest.hits.get()).as(url).isEqualTo(before);
        }
    }

    @Test
    void theBrowserDiesWithItsContainer() throws Exception {
        Sandbox own = provider.open(BrowserTest.spec(server.getAddress().getPort()));
        try {
            Browser b = Browser.launch(own);
            b.navigate(base + "/other.html");
            String profile = b.profileDir();
            assertThat(BrowserTest.chromiumProcesses(profile)).as("chromium visible on the host").isNotEmpty();
            own.close();
            assertThat(BrowserTest.waitForNone(profile)).as("chromium processes after the sandbox closed").isEmpty();
            assertThat(b.isOpen()).isFalse();
        } finally {
            own.close();
        }
    }
}
