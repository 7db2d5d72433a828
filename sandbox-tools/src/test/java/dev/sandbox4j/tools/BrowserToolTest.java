package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.core.AgentEgress;
import dev.sandbox4j.memory.MemorySandbox;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Spacebot's {@code browser} tool through {@link SandboxTools} (profile spacebot) on a local jail, against
 * {@link BrowserTest}'s page server through the allow-list: the published result fields, entry fields as kept in
 * {@code profiles/spacebot.json}, a form filled and submitted by refs, evaluate off by default, errors in Spacebot's
 * shape.
 */
class BrowserToolTest {
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
        server.start();
        int port = server.getAddress().getPort();
        InetAddress trap = InetAddress.getByName("127.0.0.2");
        InetAddress ok = InetAddress.getByName("127.0.0.1");
        egress = AgentEgress.overrideForTests(name -> name.equals("pages.test") ? ok : trap, server.getAddress());
        base = "http://pages.test:" + port;
        sandbox = Sandboxes.open("local", BrowserTest.spec(port));
        tools = new SandboxTools(sandbox, ToolConfig.builder().profile("spacebot").build());
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

    static ToolResult call(Object... kv) {
        Map<String, Object> args = new java.util.LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            args.put((String) kv[i], kv[i + 1]);
        }
        return tools.call("browser", args);
    }

    static List<String> keys(Object entry) {
        return List.copyOf(((Map<?, ?>) entry).keySet().stream().map(Object::toString).toList());
    }

    @Test
    void theSpacebotFlow_launchNavigateSnapshotActScreenshotContentClose() throws Exception {
        JsonNode data = ProfileSchemaTest.published(ToolProfile.SPACEBOT).get("tools").get("browser");
        ToolResult before = call("action", "navigate", "url", base + "/form.html");
        assertThat(before.success()).isFalse();
        assertThat(before.get("error").toString()).contains("launch first");

        ToolResult launched = call("action", "launch");
        assertThat(launched.success()).as(launched.toJson()).isTrue();
        assertThat(launched.get("message").toString()).startsWith("browser launched");

        ToolResult nav = call("action", "navigate", "url", base + "/form.html");
        assertThat(nav.fields()).containsEntry("success", true).containsEntry("title", "Form")
                .containsEntry("url", base + "/form.html");

        ToolResult snap = call("action", "snapshot");
        List<?> elements = (List<?>) snap.get("snapshot");
        assertThat(elements).hasSize(3);
        assertThat(keys(elements.get(0))).containsExactlyElementsOf(ProfileSchemaTest.names(data.get("snapshot_entry")));
        @SuppressWarnings("unchecked")
        Map<String, Object> first = (Map<String, Object>) elements.get(0);
        assertThat(first).containsEntry("ref_id", "e0").containsEntry("role", "textbox").containsEntry("name", "Question");
        assertThat(snap.get("message")).isEqualTo("3 interactive element(s) found");

        assertThat(call("action", "act", "act_kind", "type", "element_ref", "e0", "text", "from the tool").success())
                .isTrue();
        ToolResult clicked = call("action", "act", "act_kind", "click", "element_ref", "e1");
        assertThat(clicked.get("title")).isEqualTo("Result");
        ToolResult content = call("action", "content");
        assertThat(content.get("content").toString()).contains("You said: from the tool");

        ToolResult opened = call("action", "open", "url", base + "/other.html");
        assertThat(opened.get("title")).isEqualTo("Other");
        List<?> tabs = (List<?>) call("action", "tabs").get("tabs");
        assertThat(tabs).hasSize(2);
        assertThat(keys(tabs.get(0))).containsExactlyElementsOf(ProfileSchemaTest.names(data.get("tab_entry")));
        assertThat(call("action", "close_tab").success()).isTrue();
        assertThat((List<?>) call("action", "tabs").get("tabs")).hasSize(1);

        ToolResult shot = call("action", "screenshot", "full_page", true);
        String path = shot.get("screenshot_path").toString();
        byte[] png = sandbox.files().readBytes(path);
        assertThat(BrowserTest.pngSize(png)[0]).isEqualTo(1280);
        assertThat(shot.images()).hasSize(1);
        assertThat(Base64.getDecoder().decode(shot.images().get(0).base64())).isEqualTo(png);

        ToolResult eval = call("action", "evaluate", "script", "1 + 1");
        assertThat(eval.fields()).containsEntry("success", false).containsEntry("error_type", "permission_denied");
        assertThat(eval.get("error").toString()).contains("evaluate is disabled");

        ToolResult refused = call("action", "navigate", "url", "http://169.254.169.254/latest/meta-data/");
        assertThat(refused.fields()).containsEntry("success", false).containsEntry("error_type", "permission_denied");
        ToolResult noRef = call("action", "act", "act_kind", "click");
        assertThat(noRef.fields()).containsEntry("error_type", "invalid_argument");

        assertThat(call("action", "close").get("message")).isEqualTo("browser closed");
        assertThat(call("action", "snapshot").get("error").toString()).contains("launch first");
    }

    @Test
    void evaluate_runsWhenTheConfigEnablesIt() {
        SandboxTools on = new SandboxTools(sandbox, ToolConfig.builder().profile("spacebot")
                .browser(Browser.Options.defaults().withEvaluateEnabled(true)).build());
        try (Sandbox other = Sandboxes.open("local", BrowserTest.spec(server.getAddress().getPort()))) {
            SandboxTools t = new SandboxTools(other, on.config());
            assertThat(t.call("browser", Map.of("action", "launch")).success()).isTrue();
            t.call("browser", Map.of("action", "navigate", "url", base + "/form.html"));
            ToolResult r = t.call("browser", Map.of("action", "evaluate", "script",
                    "({title: document.title, n: 6 * 7})"));
            assertThat(r.get("result")).isEqualTo(Map.of("title", "Form", "n", 42L));
        }
    }

    @Test
    void theMemoryBackendRefusesWithATypedError() {
        try (Sandbox memory = MemorySandbox.open()) {
            ToolResult r = new SandboxTools(memory, ToolConfig.builder().profile("spacebot").build())
                    .call("browser", Map.of("action", "launch"));
            assertThat(r.fields()).containsEntry("success", false).containsEntry("error_type", "unsupported");
        }
    }
}
