package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.core.AgentEgress;
import dev.sandbox4j.memory.MemorySandbox;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The {@code playwright} profile through {@link SandboxTools} on a local jail, against {@link BrowserTest}'s page
 * server reached as {@code pages.test} through the allow-list: Playwright MCP's text results (texts as
 * {@code @playwright/mcp} 0.0.68 answers, captured in {@code surfaces/playwright.results.md}), a form typed into and
 * submitted by refs, screenshots, tabs by index, close; evaluate only when enabled; memory refuses.
 */
class PlaywrightProfileTest {
    static HttpServer server;
    static AutoCloseable egress;
    static Sandbox sandbox;
    static SandboxTools tools;
    static String base;

    @BeforeAll
    static void start() throws Exception {
        BrowserTest.requireBrowser();
        server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        server.createContext("/", BrowserTest::serve);
        server.createContext("/late.html", ex -> { // "Ready" shows 300 ms after the load, "Loading" goes then
            byte[] page = ("<html><head><title>Late</title></head><body><p id=\"p\">Loading</p><script>setTimeout("
                    + "() => { document.getElementById('p').textContent = 'Ready'; }, 300);</script></body></html>")
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
            ex.sendResponseHeaders(200, page.length);
            ex.getResponseBody().write(page);
            ex.close();
        });
        server.start();
        InetAddress trap = InetAddress.getByName("127.0.0.2");
        InetAddress ok = InetAddress.getByName("127.0.0.1");
        egress = AgentEgress.overrideForTests(name -> name.equals("pages.test") ? ok : trap, server.getAddress());
        base = "http://pages.test:" + server.getAddress().getPort();
        sandbox = Sandboxes.open("local", BrowserTest.spec(server.getAddress().getPort()));
        tools = new SandboxTools(sandbox, ToolConfig.builder().profile("playwright").build());
    }

    @AfterAll
    static void stop() throws Exception {
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

    static ToolResult call(SandboxTools t, String tool, Object... kv) {
        Map<String, Object> args = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            args.put((String) kv[i], kv[i + 1]);
        }
        return t.call(tool, args);
    }

    static String text(ToolResult r) {
        assertThat(r.success()).as(r.toJson()).isTrue();
        return r.get("content").toString();
    }

    /** The ref the snapshot gives the line {@code - role "name" [ref=eN]}. */
    static String ref(String text, String role, String name) {
        Matcher m = Pattern.compile("- " + role + " \"" + Pattern.quote(name) + "\" \\[ref=(e\\d+)]").matcher(text);
        assertThat(m.find()).as(role + " " + name + " in\n" + text).isTrue();
        return m.group(1);
    }

    @Test
    void navigateSnapshotTypeClickScreenshotTabsClose() throws Exception {
        ToolResult early = call(tools, "browser_snapshot");
        assertThat(early.fields()).containsEntry("success", false).containsEntry("error_type", "closed");
        assertThat(early.get("message").toString()).isEqualTo("No open tabs. Navigate to a URL to create one.");

        String nav = text(call(tools, "browser_navigate", "url", base + "/form.html"));
        assertThat(nav).startsWith("### Page\n- Page URL: " + base + "/form.html\n- Page Title: Form\n### Snapshot\n"
                + "```yaml\n- document \"Form\":\n").endsWith("\n```");
        assertThat(nav).contains("\n  - heading \"Ask\"\n  - form:\n    - textbox \"Question\" [ref=e");
        String snap = text(call(tools, "browser_snapshot"));
        String box = ref(snap, "textbox", "Question");
        String send = ref(snap, "button", "Send");
        assertThat(snap).contains("- link \"Other page\" [ref=");

        String typed = text(call(tools, "browser_type", "element", "Question box", "ref", box, "text", "by ref"));
        assertThat(typed).contains("- Page Title: Form");
        String clicked = text(call(tools, "browser_click", "element", "Send button", "ref", ref(typed, "button",
                "Send")));
        assertThat(clicked).contains("- Page URL: " + base + "/result?q=by+ref\n- Page Title: Result\n")
                .contains("- text: \"You said: by ref\"");
        ToolResult stale = call(tools, "browser_click", "ref", send);
        assertThat(stale.fields()).containsEntry("error_type", "not_found");
        String back = text(call(tools, "browser_navigate_back"));
        assertThat(back).startsWith("### Page\n- Page URL: " + base + "/form.html\n- Page Title: Form\n");
        assertThat(ref(back, "button", "Send")).isNotNull();

        text(call(tools, "browser_navigate", "url", base + "/form.html"));
        String fresh = text(call(tools, "browser_snapshot"));
        String submitted = text(call(tools, "browser_type", "ref", ref(fresh, "textbox", "Question"), "text", "enter",
                "submit", true));
        assertThat(submitted).contains("- Page URL: " + base + "/result?q=enter\n");
        String hovered = text(call(tools, "browser_navigate", "url", base + "/form.html"));
        assertThat(text(call(tools, "browser_hover", "ref", ref(hovered, "link", "Other page"))))
                .contains("- Page Title: Form");
        assertThat(text(call(tools, "browser_press_key", "key", "Tab"))).contains("### Snapshot");

        text(call(tools, "browser_navigate", "url", base + "/late.html"));
        String gone = text(call(tools, "browser_wait_for", "textGone", "Loading"));
        assertThat(gone).startsWith("### Result\nWaited for Loading\n### Page\n").contains("- text: \"Ready\"");
        assertThat(text(call(tools, "browser_wait_for", "text", "Ready", "time", 0.1)))
                .startsWith("### Result\nWaited for Ready\n### Page\n- Page URL: " + base + "/late.html\n");
        assertThat(call(tools, "browser_wait_for").fields()).containsEntry("error_type", "invalid_argument");
        text(call(tools, "browser_navigate", "url", base + "/form.html"));

        ToolResult shot = call(tools, "browser_take_screenshot", "type", "png");
        Matcher path = Pattern.compile("^### Result\n- \\[Screenshot of viewport]\\((.+\\.png)\\)$")
                .matcher(text(shot));
        assertThat(path.find()).as(text(shot)).isTrue();
        byte[] png = sandbox.files().readBytes(path.group(1));
        assertThat(BrowserTest.pngSize(png)).containsExactly(1280, 720);
        assertThat(shot.images()).hasSize(1);
        assertThat(Base64.getDecoder().decode(shot.images().get(0).base64())).isEqualTo(png);
        assertThat(call(tools, "browser_take_screenshot", "type", "jpeg").fields())
                .containsEntry("error_type", "invalid_argument");

        assertThat(text(call(tools, "browser_tabs", "action", "list")))
                .isEqualTo("### Result\n- 0: (current) [Form](" + base + "/form.html)");
        assertThat(text(call(tools, "browser_tabs", "action", "new")))
                .isEqualTo("### Result\n- 0: [Form](" + base + "/form.html)\n- 1: (current) [](about:blank)");
        assertThat(text(call(tools, "browser_tabs", "action", "select", "index", 0)))
                .startsWith("### Result\n- 0: (current) [Form]");
        assertThat(call(tools, "browser_tabs", "action", "close", "index", 5).fields())
                .containsEntry("error_type", "not_found");
        assertThat(text(call(tools, "browser_tabs", "action", "close", "index", 1)))
                .isEqualTo("### Result\n- 0: (current) [Form](" + base + "/form.html)");

        ToolResult metadata = call(tools, "browser_navigate", "url", "http://169.254.169.254/latest/meta-data/");
        assertThat(metadata.fields()).containsEntry("error_type", "permission_denied");
        ToolResult evaluate = call(tools, "browser_evaluate", "function", "() => 1");
        assertThat(evaluate.fields()).containsEntry("error_type", "unsupported"); // evaluate is off: no such tool
        assertThat(evaluate.get("message").toString()).startsWith("unknown tool 'browser_evaluate'");

        assertThat(text(call(tools, "browser_close")))
                .isEqualTo("### Result\nNo open tabs. Navigate to a URL to create one.");
        assertThat(call(tools, "browser_click", "ref", "e0").fields()).containsEntry("error_type", "closed");
    }

    @Test
    void evaluate_isServedAndRunsWhenTheConfigEnablesIt() {
        ToolConfig on = ToolConfig.builder().profile("playwright")
                .browser(Browser.Options.defaults().withEvaluateEnabled(true)).build();
        try (Sandbox other = Sandboxes.open("local", BrowserTest.spec(server.getAddress().getPort()))) {
            SandboxTools t = new SandboxTools(other, on);
            text(call(t, "browser_navigate", "url", base + "/form.html"));
            assertThat(text(call(t, "browser_evaluate", "function", "() => ({title: document.title, n: 6 * 7})")))
                    .isEqualTo("### Result\n{\n  \"title\": \"Form\",\n  \"n\": 42\n}");
        }
    }

    @Test
    void theMemoryBackendRefusesWithATypedError() {
        try (Sandbox memory = MemorySandbox.open()) {
            ToolResult r = call(new SandboxTools(memory, ToolConfig.builder().profile("playwright").build()),
                    "browser_navigate", "url", "http://pages.test/");
            assertThat(r.fields()).containsEntry("success", false).containsEntry("error_type", "unsupported");
        }
    }
}
