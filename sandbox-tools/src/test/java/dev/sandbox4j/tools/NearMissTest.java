package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.memory.MemorySandbox;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code no_match} names the nearest candidate and why it differs, and never applies a fuzzy edit (issue 20). */
class NearMissTest {
    static Supplier<Sandbox> opener(String backend) {
        return backend.equals("memory") ? MemorySandbox::open : () -> Backends.open(backend);
    }

    static void assertNearMiss(Sandbox sandbox, ToolResult r, String path, String before, int line, String difference,
                               String... says) {
        assertThat(r.errorType()).as(r.toJson()).isEqualTo("no_match");
        assertThat(r.get("nearest_line")).as(r.toJson()).isEqualTo(line);
        assertThat(r.get("difference")).as(r.toJson()).isEqualTo(difference);
        assertThat((String) r.get("message")).contains("line " + line).contains(says);
        assertThat(sandbox.files().readText(path)).as("nothing applied").isEqualTo(before);
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "local", "docker"})
    void nearMissesSayWhy(String backend) {
        try (Sandbox sandbox = opener(backend).get()) {
            SandboxTools tools = new SandboxTools(sandbox);
            String crlf = "first\r\ndef f():\r\n    return 1\r\nlast\r\n";
            sandbox.files().write("crlf.py", crlf);
            assertNearMiss(sandbox, tools.call("str_replace", Map.of("path", "crlf.py", "old_str",
                    "def f():\n    return 1", "new_str", "x")), "crlf.py", crlf, 2, "line_endings", "CRLF");

            String lf = "a\nb = 1\nc = 2\n";
            sandbox.files().write("lf.py", lf);
            assertNearMiss(sandbox, tools.call("str_replace", Map.of("path", "lf.py", "old_str", "b = 1\r\nc = 2",
                    "new_str", "x")), "lf.py", lf, 2, "line_endings", "LF (\\n) line endings");

            String trailing = "x = 1\ny = 2   \nz = 3\n";
            sandbox.files().write("t.py", trailing);
            assertNearMiss(sandbox, tools.call("str_replace", Map.of("path", "t.py", "old_str", "y = 2\nz = 3",
                    "new_str", "x")), "t.py", trailing, 2, "trailing_whitespace", "trailing", "\"y = 2\u00b7\u00b7\u00b7\"");

            String indented = "class A:\n\tdef g(self):\n\t\treturn 2\n";
            sandbox.files().write("i.py", indented);
            assertNearMiss(sandbox, tools.call("edit_file", Map.of("path", "i.py", "edits", List.of(
                    Map.of("oldText", "class A:", "newText", "class B:"),
                    Map.of("oldText", "    def g(self):\n        return 2", "newText", "x")))), "i.py", indented, 2,
                    "indentation", "indentation", "Edit 2 of 2", "\\tdef g(self)");

            String typo = "alpha()\nresult = compute_total(items)\nomega()\n";
            sandbox.files().write("p.py", typo);
            assertNearMiss(sandbox, tools.call("str_replace", Map.of("path", "p.py", "old_str",
                    "result = compute_totl(items)", "new_str", "x")), "p.py", typo, 2, "text", "character 21");

            ToolResult far = tools.call("str_replace", Map.of("path", "p.py", "old_str", "zzzzzzzzzzzz",
                    "new_str", "x"));
            assertThat(far.errorType()).isEqualTo("no_match");
            assertThat(far.get("nearest_line")).isNull();
        }
    }
}
