package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each profile's schemas against its published surface, kept as test data written from issue 13 and anchors.md
 * ({@code src/test/resources/profiles/NAME.json}): tool names, parameter names, JSON types, required fields, defaults,
 * enumerated values, bounds, result fields, error codes and error fields.
 */
class ProfileSchemaTest {
    static final ObjectMapper JSON = new ObjectMapper();

    static JsonNode published(ToolProfile profile) throws Exception {
        try (InputStream in = ProfileSchemaTest.class.getResourceAsStream("/profiles/" + profile.code() + ".json")) {
            assertThat(in).as("test data for " + profile.code()).isNotNull();
            return JSON.readTree(in);
        }
    }

    static List<String> names(JsonNode node) {
        List<String> out = new ArrayList<>();
        if (node == null) {
            return out;
        }
        if (node.isArray()) {
            node.forEach(n -> out.add(n.asText()));
        } else {
            node.fieldNames().forEachRemaining(out::add);
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(ToolProfile.class)
    @SuppressWarnings("unchecked")
    void schemas_matchThePublishedSurface(ToolProfile profile) throws Exception {
        JsonNode data = published(profile);
        assertThat(data.get("profile").asText()).isEqualTo(profile.code());
        ToolConfig config = ToolConfig.builder().profile(profile.code()).build();
        List<ToolSpec> specs = SandboxTools.specs(config);
        assertThat(specs).extracting(ToolSpec::name).as("tool names of " + profile.code())
                .containsExactlyElementsOf(names(data.get("tools")));

        for (ToolSpec spec : specs) {
            String where = profile.code() + "/" + spec.name();
            JsonNode tool = data.get("tools").get(spec.name());
            Map<String, Object> input = spec.inputSchema();
            Map<String, Object> props = (Map<String, Object>) input.get("properties");
            assertThat(props.keySet()).as(where + " parameters").containsExactlyElementsOf(names(tool.get("params")));
            assertThat(input.get("additionalProperties")).isEqualTo(false);
            List<String> required = new ArrayList<>();
            tool.get("params").fields().forEachRemaining(e -> {
                String p = where + "." + e.getKey();
                Map<String, Object> schema = (Map<String, Object>) props.get(e.getKey());
                JsonNode want = e.getValue();
                assertThat(schema.get("type")).as(p + " type").isEqualTo(want.get("type").asText());
                if (want.path("required").asBoolean(false)) {
                    required.add(e.getKey());
                }
                if (want.has("default")) {
                    try {
                        assertThat(JSON.readTree(Json.write(schema.get("default")))).as(p + " default")
                                .isEqualTo(want.get("default"));
                    } catch (java.io.IOException ex) {
                        throw new java.io.UncheckedIOException(ex);
                    }
                }
                if (want.has("enum")) {
                    assertThat((List<String>) schema.get("enum")).as(p + " values")
                            .containsExactlyElementsOf(names(want.get("enum")));
                }
                for (String bound : List.of("minimum", "maximum")) {
                    if (want.has(bound)) {
                        assertThat(((Number) schema.get(bound)).longValue()).as(p + " " + bound)
                                .isEqualTo(want.get(bound).asLong());
                    }
                }
                if (want.has("items")) {
                    Map<String, Object> items = (Map<String, Object>) schema.get("items");
                    assertThat(((Map<String, Object>) items.get("properties")).keySet()).as(p + " item fields")
                            .containsExactlyElementsOf(names(want.get("items")));
                }
            });
            assertThat((List<String>) input.get("required")).as(where + " required")
                    .containsExactlyInAnyOrderElementsOf(required);
            if (tool.has("result")) {
                assertThat(spec.output().keySet()).as(where + " result fields")
                        .containsExactlyElementsOf(names(tool.get("result")));
            }
            assertThat(spec.errorCodes()).as(where + " error codes")
                    .containsExactlyElementsOf(names(tool.get("errors")));
            if (spec.publishedOutputSchema() != null) {
                continue; // the document's own result schema (SurfaceSchemaTest); failures carry no structured body
            }
            Map<String, Object> out = (Map<String, Object>) spec.outputSchema().get("properties");
            List<String> errorFields = new ArrayList<>(List.of("error_type", "message", "retryable"));
            errorFields.addAll(names(tool.get("error_fields")));
            errorFields.addAll(names(data.get("error_fields")));
            assertThat(out).as(where + " error fields").containsKeys(errorFields.toArray(String[]::new));
        }
    }
}
