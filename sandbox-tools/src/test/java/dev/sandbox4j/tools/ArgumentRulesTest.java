package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.memory.MemorySandbox;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The one strictness rule for arguments ({@link Args}), per declared type: no coercion between JSON types, integers
 * are numbers with no fractional part within range, null is absent. Each case goes through the JSON text entry
 * point ({@link SandboxTools#call(String, String)}) and through a map as Jackson parses the same text (what the
 * MCP server, LangChain4j and Spring AI adapters hand over), and both must answer alike.
 */
class ArgumentRulesTest {
    static final ObjectMapper JACKSON = new ObjectMapper();

    MemorySandbox sandbox;
    SandboxTools tools;
    final List<ExecRequest> commands = new CopyOnWriteArrayList<>();

    @BeforeEach
    void open() {
        sandbox = MemorySandbox.open();
        sandbox.onCommand(r -> true, r -> {
            commands.add(r);
            return ExecResult.of(0, "ran\n", "");
        });
        sandbox.files().write("a.txt", "0123456789\n");
        sandbox.files().write("b.txt", "b\n");
        tools = new SandboxTools(sandbox);
    }

    @AfterEach
    void close() {
        sandbox.close();
    }

    /** Calls through the JSON text and through Jackson's map of the same text; both must say the same. */
    private ToolResult both(SandboxTools t, String tool, String json) throws Exception {
        ToolResult fromText = t.call(tool, json);
        Map<String, Object> map = JACKSON.readValue(json, new TypeReference<Map<String, Object>>() { });
        ToolResult fromMap = t.call(tool, map);
        assertThat(fromText.success()).as(fromText + " / " + fromMap).isEqualTo(fromMap.success());
        assertThat(fromText.errorType()).as(fromText + " / " + fromMap).isEqualTo(fromMap.errorType());
        if (!fromText.success()) {
            assertThat(fromText.get("message")).isEqualTo(fromMap.get("message"));
        }
        return fromText;
    }

    private static void refused(ToolResult r, String... parts) {
        assertThat(r.success()).as(r.toJson()).isFalse();
        assertThat(r.errorType()).as(r.toJson()).isEqualTo("invalid_argument");
        assertThat(r.get("retryable")).isEqualTo(false);
        assertThat((String) r.get("message")).contains(parts);
    }

    private static void accepted(ToolResult r) {
        assertThat(r.success()).as(r.toJson()).isTrue();
    }

    // ------------------------------------------------------------------ integer

    @ParameterizedTest(name = "offset {0}")
    @CsvSource(delimiter = '|', value = {"5|56789", "5.0|56789", "5e0|56789", "0.5e1|56789", "5.000|56789",
            "0|0123456789", "-0.0|0123456789"})
    void integer_integralNumbers_accepted(String value, String content) throws Exception {
        ToolResult r = both(tools, "read_file", "{\"path\": \"a.txt\", \"offset\": " + value + "}");
        accepted(r);
        assertThat((String) r.get("content")).startsWith(content);
    }

    @ParameterizedTest(name = "offset {0}")
    @CsvSource(delimiter = '|', value = {
        "\"5\"|the string \"5\"",
        "1.5|the number 1.5",
        "5.000001|the number 5.000001",
        "true|the boolean true",
        "[5]|an array",
        "{\"n\": 5}|an object"})
    void integer_otherJsonTypesAndFractions_refused(String value, String got) throws Exception {
        refused(both(tools, "read_file", "{\"path\": \"a.txt\", \"offset\": " + value + "}"),
                "argument 'offset' of read_file must be an integer, got " + got);
    }

    @ParameterizedTest(name = "timeout {0}")
    @CsvSource({"9223372036854775808", "-9223372036854775809", "1e20", "-1.5e19"})
    void integer_outsideTheLongRange_refused(String value) throws Exception {
        refused(both(tools, "bash", "{\"command\": \"true\", \"timeout\": " + value + "}"),
                "argument 'timeout' of bash must be an integer between -9223372036854775808 and "
                        + "9223372036854775807, got the number");
        assertThat(commands).isEmpty();
    }

    @Test
    void integer_outsideDeclaredBounds_refused_atTheBoundsAccepted() throws Exception {
        refused(both(tools, "watch_files", "{\"path\": \".\", \"debounce_ms\": 60001}"),
                "argument 'debounce_ms' of watch_files must be between 0 and 60000, got 60001");
        refused(both(tools, "watch_files", "{\"path\": \".\", \"debounce_ms\": -1.0}"),
                "must be between 0 and 60000, got -1");
        accepted(both(tools, "watch_files", "{\"path\": \".\", \"debounce_ms\": 6e4}"));
    }

    @Test
    void integer_stringTimeout_refused_nothingRuns() throws Exception {
        refused(both(tools, "bash", "{\"command\": \"sleep 1\", \"timeout\": \"5\"}"),
                "argument 'timeout' of bash must be an integer, got the string \"5\"");
        assertThat(commands).isEmpty();
        accepted(both(tools, "bash", "{\"command\": \"sleep 1\", \"timeout\": 5.0}"));
        assertThat(commands).extracting(ExecRequest::timeout).containsOnly(java.time.Duration.ofSeconds(5));
    }

    @Test
    void integer_hugeExponent_refusedAsOutOfRange() {
        refused(tools.call("bash", "{\"command\": \"true\", \"timeout\": 1e400}"),
                "must be an integer between -9223372036854775808 and 9223372036854775807, got the number 1E+400");
        assertThat(commands).isEmpty();
    }

    @Test
    void integer_javaNonFiniteDoubles_refused() {
        refused(tools.call("read_file", Map.of("path", "a.txt", "offset", Double.NaN)),
                "argument 'offset' of read_file must be an integer");
        refused(tools.call("read_file", Map.of("path", "a.txt", "offset", Double.POSITIVE_INFINITY)),
                "must be an integer");
    }

    @Test
    void integerArray_itemsChecked() throws Exception {
        accepted(both(tools, "view", "{\"path\": \"a.txt\", \"view_range\": [1, -1.0]}"));
        refused(both(tools, "view", "{\"path\": \"a.txt\", \"view_range\": [1, \"2\"]}"),
                "argument 'view_range' of view must be an array of integers, got the string \"2\" as item 2");
        refused(both(tools, "view", "{\"path\": \"a.txt\", \"view_range\": [1.5, 2]}"),
                "got the number 1.5 as item 1");
        refused(both(tools, "view", "{\"path\": \"a.txt\", \"view_range\": \"1,2\"}"),
                "argument 'view_range' of view must be an array of integers, got the string \"1,2\"");
    }

    // ------------------------------------------------------------------ number

    /**
     * No tool declares a fractional {@code number} parameter: every numeric parameter is an {@code integer}, so a
     * JSON number reaches the integer rule above. This pins that, so a {@code number} parameter added later comes
     * with its own rule and test.
     */
    @Test
    void number_onlyWhereThePublishedSurfaceDeclaresIt() {
        java.util.Set<String> numbers = new java.util.TreeSet<>();
        for (ToolProfile profile : ToolProfile.values()) {
            for (ToolSpec spec : SandboxTools.allSpecs(profile)) {
                for (ToolParam p : spec.params()) {
                    if (p.type() == ToolParam.Type.NUMBER) {
                        numbers.add(profile.code() + "/" + spec.name() + "." + p.name());
                    }
                }
            }
        }
        // the coding document's table says number (bash.timeout, sub_agent.max_turns); the reference filesystem
        // server's zod schema says z.number(); Codex's local_tool.rs says JsonSchema::number (whole numbers used);
        // Playwright MCP's browser_tabs says "type": "number" for its index
        assertThat(numbers).containsExactly("codex/exec_command.max_output_tokens", "codex/exec_command.yield_time_ms",
                "codex/write_stdin.max_output_tokens", "codex/write_stdin.session_id",
                "codex/write_stdin.yield_time_ms", "coding/bash.timeout", "coding/sub_agent.max_turns",
                "filesystem/read_file.head", "filesystem/read_file.tail", "filesystem/read_text_file.head",
                "filesystem/read_text_file.tail", "playwright/browser_tabs.index", "playwright/browser_wait_for.time");
    }

    @Test
    void number_takesFractionsAndRefusesOtherTypes() {
        try (dev.sandbox4j.memory.MemorySandbox sandbox = dev.sandbox4j.memory.MemorySandbox.open()) {
            SandboxTools coding = new SandboxTools(sandbox, ToolConfig.builder().profile("coding").build());
            ToolResult fraction = coding.call("bash", Map.of("command", "echo hi", "description", "greet",
                    "timeout", 2.5));
            assertThat(fraction.errorType()).as(fraction.toJson()).isNotEqualTo("invalid_argument");
            ToolResult text = coding.call("bash", Map.of("command", "echo hi", "description", "greet",
                    "timeout", "2"));
            assertThat(text.errorType()).isEqualTo("invalid_argument");
            assertThat((String) text.get("message")).contains("must be a number");
            ToolResult noDescription = coding.call("bash", Map.of("command", "echo hi"));
            assertThat((String) noDescription.get("message")).contains("missing required argument 'description'");
        }
    }

    // ------------------------------------------------------------------ boolean

    @ParameterizedTest(name = "case_insensitive {0}")
    @CsvSource(delimiter = '|', value = {"\"true\"|the string \"true\"", "1|the number 1", "0|the number 0",
            "\"yes\"|the string \"yes\"", "[true]|an array"})
    void boolean_otherJsonTypes_refused(String value, String got) throws Exception {
        refused(both(tools, "grep", "{\"pattern\": \"b\", \"case_insensitive\": " + value + "}"),
                "argument 'case_insensitive' of grep must be a boolean (true or false), got " + got);
    }

    @Test
    void boolean_trueAndFalse_accepted() throws Exception {
        assertThat(((Number) both(tools, "grep", "{\"pattern\": \"B\", \"case_insensitive\": true}")
                .get("count")).intValue()).isEqualTo(1);
        assertThat(((Number) both(tools, "grep", "{\"pattern\": \"B\", \"case_insensitive\": false}")
                .get("count")).intValue()).isEqualTo(0);
    }

    // ------------------------------------------------------------------ string

    @ParameterizedTest(name = "path {0}")
    @CsvSource(delimiter = '|', value = {"5|the number 5", "true|the boolean true", "[\"a.txt\"]|an array",
            "{\"p\": \"a.txt\"}|an object"})
    void string_otherJsonTypes_refused(String value, String got) throws Exception {
        refused(both(tools, "read_file", "{\"path\": " + value + "}"),
                "argument 'path' of read_file must be a string, got " + got);
    }

    @Test
    void string_notReadByTheTool_stillChecked() throws Exception {
        SandboxTools coding = new SandboxTools(sandbox, ToolConfig.builder().profile("coding").build());
        refused(both(coding, "bash", "{\"command\": \"true\", \"description\": 5}"),
                "argument 'description' of bash must be a string, got the number 5");
        assertThat(commands).isEmpty();
    }

    @Test
    void enumeratedString_exactValuesOnly() throws Exception {
        refused(both(tools, "wait_for_file", "{\"path\": \"a.txt\", \"event\": \"CREATE\"}"),
                "argument 'event' of wait_for_file must be one of create, write, remove, rename, chmod, got the"
                        + " string \"CREATE\"");
        accepted(both(tools, "wait_for_file", "{\"path\": \"a.txt\", \"event\": \"create\", \"timeout_ms\": 100}"));
        refused(both(tools, "write_file", "{\"path\": \"a.txt\", \"content\": \"x\", \"mode\": \"APPEND\"}"),
                "argument 'mode' of write_file must be one of overwrite, append, got the string \"APPEND\"");
        assertThat(sandbox.files().readText("a.txt")).isEqualTo("0123456789\n");
    }

    // ------------------------------------------------------------------ array of strings

    @Test
    void stringArray_bareString_refused_withTheArrayToSend() throws Exception {
        refused(both(tools, "read_multiple_files", "{\"paths\": \"a.txt\"}"),
                "argument 'paths' of read_multiple_files must be an array of strings, got the string \"a.txt\"",
                "for one, pass [\"a.txt\"]");
    }

    @Test
    void stringArray_nonStringItem_refused() throws Exception {
        refused(both(tools, "read_multiple_files", "{\"paths\": [\"a.txt\", 7]}"),
                "must be an array of strings, got the number 7 as item 2");
        refused(both(tools, "search_files", "{\"path\": \".\", \"pattern\": \"*.txt\", \"excludePatterns\": "
                + "{\"a\": \"b\"}}"), "argument 'excludePatterns' of search_files must be an array of strings, got"
                + " an object");
    }

    @Test
    void stringArray_array_accepted() throws Exception {
        ToolResult r = both(tools, "read_multiple_files", "{\"paths\": [\"a.txt\", \"b.txt\"]}");
        accepted(r);
        assertThat(((Number) r.get("failed")).intValue()).isEqualTo(0);
    }

    // ------------------------------------------------------------------ object

    @Test
    void object_ofStrings_accepted_otherwiseRefused() throws Exception {
        accepted(both(tools, "exec", "{\"program\": \"env\", \"env\": {\"A\": \"1\"}}"));
        assertThat(commands.get(0).env()).containsEntry("A", "1");
        commands.clear();
        refused(both(tools, "exec", "{\"program\": \"env\", \"env\": \"A=1\"}"),
                "argument 'env' of exec must be an object of string values, got the string \"A=1\"");
        refused(both(tools, "exec", "{\"program\": \"env\", \"env\": {\"A\": 1}}"),
                "argument 'env' of exec: the value of A must be a string, got the number 1");
        refused(both(tools, "exec", "{\"program\": \"env\", \"env\": [{\"A\": \"1\"}]}"),
                "must be an object of string values, got an array");
        assertThat(commands).isEmpty();
    }

    @Test
    void arrayOfKeyValueObjects_exactlyKeyAndValueStrings() throws Exception {
        SandboxTools spacebot = new SandboxTools(sandbox, ToolConfig.builder().profile("spacebot").build());
        accepted(both(spacebot, "exec", "{\"program\": \"env\", \"env\": [{\"key\": \"A\", \"value\": \"1\"}]}"));
        assertThat(commands.get(0).env()).containsEntry("A", "1");
        commands.clear();
        refused(both(spacebot, "exec", "{\"program\": \"env\", \"env\": [{\"key\": \"A\", \"value\": 1}]}"),
                "entry 1 of argument 'env' of exec must be an object with string fields 'key' and 'value'");
        refused(both(spacebot, "exec", "{\"program\": \"env\", \"env\": [{\"key\": \"A\", \"value\": \"1\","
                + " \"secret\": true}]}"), "and no others, got an object");
        refused(both(spacebot, "exec", "{\"program\": \"env\", \"env\": {\"A\": \"1\"}}"),
                "argument 'env' of exec must be an array of {key, value} objects, got an object");
        assertThat(commands).isEmpty();
    }

    // ------------------------------------------------------------------ null and absence

    @Test
    void null_isAbsent() throws Exception {
        ToolResult r = both(tools, "read_file", "{\"path\": \"a.txt\", \"offset\": null, \"length\": null}");
        accepted(r);
        assertThat((String) r.get("content")).isEqualTo("0123456789\n");
        refused(both(tools, "read_file", "{\"path\": null}"), "missing required argument 'path' for read_file");
    }

    // ------------------------------------------------------------------ the JSON text itself

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "{\"command\": |not valid JSON: unexpected end of text, expected a value at character 12",
        "{command: \"ls\"}|not valid JSON: unexpected 'c', expected a field name in quotes at character 2",
        "{\"command\": \"ls\"} x|not valid JSON: unexpected 'x' after the value at character 19",
        "{\"command\": 'ls'}|not valid JSON",
        "{\"command\": \"ls\",}|not valid JSON",
        "{\"command\": \"a\", \"command\": \"b\"}|field \"command\" given twice",
        "[\"ls\"]|must be a JSON object, got an array",
        "\"ls\"|must be a JSON object, got the string \"ls\"",
        "42|must be a JSON object, got the number 42",
        "null|must be a JSON object, got null"})
    void jsonText_malformedOrNotAnObject_invalidArgument_nothingRuns(String json, String part) {
        ToolResult r = tools.call("bash", json);
        refused(r, "the arguments of bash", part);
        assertThat(commands).isEmpty();
    }

    @Test
    void jsonText_unknownField_refusedLikeAMap() throws Exception {
        refused(both(tools, "bash", "{\"command\": \"ls\", \"colour\": \"red\"}"),
                "unknown argument 'colour' for bash; it takes: command, cwd, timeout");
        assertThat(commands).isEmpty();
    }

    @Test
    void jsonText_blank_isNoArguments() {
        refused(tools.call("bash", "  "), "missing required argument 'command' for bash");
        refused(tools.call("bash", (String) null), "missing required argument 'command' for bash");
        assertThat(tools.call("list_directory", "").success()).isTrue();
    }

    @Test
    void jsonText_escapesAndUnicode_reachTheCommand() {
        accepted(tools.call("bash", "{\"command\": \"echo \\\"h\\u00e9\\\" \\ud83d\\ude00\\t\\\\n\"}"));
        assertThat(commands.get(0).displayCommand()).isEqualTo("echo \"hé\" \uD83D\uDE00\t\\n");
    }

    @Test
    void jsonText_deepNesting_refused() {
        String deep = "[".repeat(200) + "]".repeat(200);
        refused(tools.call("bash", "{\"command\": " + deep + "}"), "nesting deeper than 64 levels");
    }
}
