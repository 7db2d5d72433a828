package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The package's own JSON reader and writer, checked against Jackson (a test dependency only). */
class JsonTest {
    static final ObjectMapper JACKSON = new ObjectMapper();

    @ParameterizedTest
    @ValueSource(strings = {
        "{}", "[]", "{\"a\": [1, -2, 3.5, 1e3, -0.25E-2, true, false, null, \"x\"]}",
        " { \"nested\" : { \"deeper\" : [ [ ], { } ] } } ",
        "{\"s\": \"quote \\\" backslash \\\\ slash \\/ \\b\\f\\n\\r\\t \\u00e9 \\ud83d\\ude00 \\u2028\"}",
        "{\"big\": 123456789012345678901234567890, \"neg\": -9223372036854775808}",
        "\"just a string\"", "42", "null"})
    void parse_sameTreeAsJackson_andWriteRoundTrips(String text) throws Exception {
        Object parsed = Json.parse(text);
        JsonNode ours = JACKSON.readTree(Json.write(parsed));
        JsonNode theirs = JACKSON.readTree(text);
        assertThat(ours.toString()).isEqualTo(theirs.toString());
    }

    @Test
    void parse_numberTypes() {
        Map<?, ?> m = (Map<?, ?>) Json.parse("{\"i\": 5, \"d\": 5.0, \"e\": 5e0, \"b\": 9223372036854775808}");
        assertThat(m.get("i")).isEqualTo(5L);
        assertThat(m.get("d")).isEqualTo(new BigDecimal("5.0"));
        assertThat(m.get("e")).isEqualTo(new BigDecimal("5e0"));
        assertThat(m.get("b")).isEqualTo(new BigInteger("9223372036854775808"));
        assertThat(new java.util.ArrayList<Object>(m.keySet())).containsExactly("i", "d", "e", "b");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "{", "{\"a\" 1}", "{\"a\": 1,}", "[1,]", "[1 2]", "01", "1.", ".5", "-", "1e",
        "tru", "nul", "'a'", "\"a", "\"\\x\"", "\"\\u12\"", "\"tab\there\"", "{\"a\": 1} {}", "{a: 1}", "NaN",
        "{\"a\": 1, \"a\": 2}"})
    void parse_invalid_refused(String text) {
        assertThatThrownBy(() -> Json.parse(text)).isInstanceOf(Json.ParseException.class)
                .hasMessageContaining("at character");
    }

    @Test
    void schemasAsJson_areTheMapsAsJacksonWritesThem() throws Exception {
        for (ToolProfile profile : ToolProfile.values()) {
            for (ToolSpec spec : SandboxTools.allSpecs(profile)) {
                assertThat(JACKSON.readTree(spec.inputSchemaJson()))
                        .as(profile + " " + spec.name()).isEqualTo(JACKSON.readTree(JACKSON.writeValueAsString(spec.inputSchema())));
                assertThat(JACKSON.readTree(spec.outputSchemaJson()))
                        .as(profile + " " + spec.name()).isEqualTo(JACKSON.readTree(JACKSON.writeValueAsString(spec.outputSchema())));
            }
        }
        assertThat(SandboxTools.allSpecs().get(0).inputSchemaJson()).startsWith(
                "{\"type\":\"object\",\"properties\":{\"command\":{\"type\":\"string\"");
    }

    @Test
    void write_listsAndNumbers() {
        assertThat(Json.write(List.of(1, 2L, new BigDecimal("1.50"), new BigInteger("12345678901234567890"))))
                .isEqualTo("[1,2,1.50,12345678901234567890]");
    }
}
