package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The served schemas against the published documents' own JSON, kept verbatim as test data
 * ({@code src/test/resources/surfaces/NAME.json}). Descriptions and titles are prose and not compared; every other
 * difference (a parameter the document lacks, sandbox4j's refusal of unknown arguments, a tool left out) is listed
 * with its reason in {@code NAME.differences.json} and applied to the document's schema before the comparison, so a
 * difference not listed there fails the test.
 */
class SurfaceSchemaTest {
    static final ObjectMapper JSON = new ObjectMapper();

    static JsonNode resource(String name) throws Exception {
        try (InputStream in = SurfaceSchemaTest.class.getResourceAsStream("/surfaces/" + name)) {
            assertThat(in).as(name).isNotNull();
            return JSON.readTree(in);
        }
    }

    /** A schema without prose ({@code description}, {@code title}, {@code $schema}), {@code required} sorted. */
    static JsonNode plain(JsonNode node) {
        if (node.isObject()) {
            ObjectNode out = JSON.createObjectNode();
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String k = e.getKey();
                if (k.equals("description") || k.equals("title") || k.equals("$schema")) {
                    continue;
                }
                if (k.equals("required") && e.getValue().isArray()) {
                    List<String> names = new ArrayList<>();
                    e.getValue().forEach(n -> names.add(n.asText()));
                    names.sort(String::compareTo);
                    ArrayNode sorted = JSON.createArrayNode();
                    names.forEach(sorted::add);
                    out.set(k, sorted);
                    continue;
                }
                out.set(k, plain(e.getValue()));
            }
            return out;
        }
        if (node.isArray()) {
            ArrayNode out = JSON.createArrayNode();
            node.forEach(n -> out.add(plain(n)));
            return out;
        }
        return node;
    }

    /** Sets (or, for JSON null, removes) the value at each JSON pointer. */
    static JsonNode patched(JsonNode schema, JsonNode patch) {
        ObjectNode copy = (ObjectNode) schema.deepCopy();
        if (patch == null) {
            return copy;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = patch.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String[] parts = e.getKey().substring(1).split("/");
            ObjectNode at = copy;
            for (int i = 0; i < parts.length - 1; i++) {
                at = at.has(parts[i]) ? (ObjectNode) at.get(parts[i]) : at.putObject(parts[i]);
            }
            String last = parts[parts.length - 1];
            if (e.getValue().isNull()) {
                at.remove(last);
            } else {
                at.set(last, e.getValue());
            }
        }
        return copy;
    }

    static Map<String, ToolSpec> served(ToolConfig config) {
        Map<String, ToolSpec> out = new LinkedHashMap<>();
        SandboxTools.specs(config).forEach(s -> out.put(s.name(), s));
        return out;
    }

    /** Each document tool's input schema, with the listed differences applied, equals the served one. */
    static void assertInputs(Map<String, JsonNode> document, Map<String, ToolSpec> served, JsonNode differences)
            throws Exception {
        List<String> expectedNames = new ArrayList<>(document.keySet());
        differences.path("omitted").fieldNames().forEachRemaining(expectedNames::remove);
        assertThat(served.keySet()).containsExactlyElementsOf(expectedNames);
        for (ToolSpec spec : served.values()) {
            JsonNode want = patched(document.get(spec.name()), differences.path("all"));
            want = patched(want, differences.path("tools").path(spec.name()).get("patch"));
            assertThat(plain(JSON.readTree(spec.inputSchemaJson()))).as(spec.name() + " input schema")
                    .isEqualTo(plain(want));
        }
    }

    @Test
    void agentbay_servesTheDocumentsMcpToolList() throws Exception {
        JsonNode doc = resource("agentbay.json").get("document");
        Map<String, JsonNode> document = new LinkedHashMap<>();
        for (String group : List.of("codespace", "shell", "filesystem", "oss")) {
            doc.get(group).get("tools").forEach(t -> document.put(t.get("name").asText(), t.get("inputSchema")));
        }
        Map<String, ToolSpec> served = served(ToolConfig.builder().profile("agentbay").build());
        assertInputs(document, served, resource("agentbay.differences.json"));
        // run_code: "Maximum 3600 seconds"
        assertThat(ToolConfig.builder().profile("agentbay").build().maxTimeout().toSeconds()).isEqualTo(3600);
    }

    @Test
    void executeCode_servesItsInvocationNameAndBothSchemas() throws Exception {
        JsonNode doc = resource("execute-code.json");
        String name = doc.get("invocation_name").asText();
        Map<String, ToolSpec> served = served(ToolConfig.builder().profile("execute-code").build());
        assertInputs(Map.of(name, doc.get("inputSchema")), served, resource("execute-code.differences.json"));
        ToolSpec spec = served.get(name);
        assertThat(JSON.readTree(spec.outputSchemaJson())).isEqualTo(doc.get("outputSchema"));
        List<String> errors = new ArrayList<>();
        doc.get("errors").forEach(e -> errors.add(e.asText()));
        assertThat(spec.errorCodes()).containsExactlyElementsOf(errors);

        Map<String, ToolSpec> dotless = served(ToolConfig.builder().profile("execute-code").dotlessNames(true)
                .build());
        assertThat(dotless.keySet()).containsExactly("execute_code");
        assertThat(dotless.get("execute_code").inputSchema()).isEqualTo(spec.inputSchema());
    }

    @Test
    void filesystem_servesTheReferenceServersToolList() throws Exception {
        Map<String, JsonNode> document = new LinkedHashMap<>();
        Map<String, JsonNode> outputs = new LinkedHashMap<>();
        Map<String, JsonNode> annotations = new LinkedHashMap<>();
        for (JsonNode t : resource("filesystem.json").get("tools")) {
            document.put(t.get("name").asText(), t.get("inputSchema"));
            outputs.put(t.get("name").asText(), t.get("outputSchema"));
            annotations.put(t.get("name").asText(), t.get("annotations"));
        }
        Map<String, ToolSpec> served = served(ToolConfig.builder().profile("filesystem").build());
        assertInputs(document, served, resource("filesystem.differences.json"));
        for (ToolSpec spec : served.values()) {
            assertThat(plain(JSON.readTree(spec.outputSchemaJson()))).as(spec.name() + " output schema")
                    .isEqualTo(plain(outputs.get(spec.name())));
            JsonNode a = annotations.get(spec.name());
            assertThat(spec.readOnly()).as(spec.name() + " readOnlyHint").isEqualTo(a.get("readOnlyHint").asBoolean());
            assertThat(spec.hints().openWorld()).isEqualTo(a.get("openWorldHint").asBoolean());
            if (!spec.readOnly()) {
                assertThat(spec.hints().destructive()).as(spec.name() + " destructiveHint")
                        .isEqualTo(a.get("destructiveHint").asBoolean());
                assertThat(spec.hints().idempotent()).as(spec.name() + " idempotentHint")
                        .isEqualTo(a.get("idempotentHint").asBoolean());
            }
        }
    }

    @Test
    void playwright_servesPlaywrightMcpsToolsTheEngineCarries() throws Exception {
        Map<String, JsonNode> document = new LinkedHashMap<>();
        Map<String, JsonNode> annotations = new LinkedHashMap<>();
        for (JsonNode t : resource("playwright.json").get("tools")) {
            document.put(t.get("name").asText(), t.get("inputSchema"));
            annotations.put(t.get("name").asText(), t.get("annotations"));
        }
        JsonNode differences = resource("playwright.differences.json");
        Map<String, ToolSpec> served = served(ToolConfig.builder().profile("playwright").build());
        assertInputs(document, served, differences);
        ObjectNode withEvaluate = (ObjectNode) differences.deepCopy();
        ((ObjectNode) withEvaluate.get("omitted")).remove("browser_evaluate");
        Map<String, ToolSpec> all = served(ToolConfig.builder().profile("playwright")
                .browser(Browser.Options.defaults().withEvaluateEnabled(true)).build());
        assertInputs(document, all, withEvaluate);
        for (ToolSpec spec : all.values()) {
            JsonNode a = annotations.get(spec.name());
            assertThat(spec.readOnly()).as(spec.name() + " readOnlyHint").isEqualTo(a.get("readOnlyHint").asBoolean());
            assertThat(spec.hints().openWorld()).isEqualTo(a.get("openWorldHint").asBoolean());
            assertThat(!spec.readOnly() && spec.hints().destructive()).as(spec.name() + " destructiveHint")
                    .isEqualTo(a.get("destructiveHint").asBoolean());
            assertThat(spec.title()).isEqualTo(a.get("title").asText());
            assertThat(spec.description()).isEqualTo(document.containsKey(spec.name())
                    ? descriptionOf(spec.name()) : null);
        }
    }

    private static String descriptionOf(String tool) throws Exception {
        for (JsonNode t : resource("playwright.json").get("tools")) {
            if (t.get("name").asText().equals(tool)) {
                return t.get("description").asText();
            }
        }
        return null;
    }
}
