package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.memory.MemorySandbox;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** One truth for {@code retryable} per error kind (issue 20): code, tool results and the README's table agree. */
class ErrorTableTest {
    /** The README's error table: code to retryable, parsed from its rows. */
    static Map<String, Boolean> readmeTable() throws IOException {
        Path readme = Path.of("..", "README.md");
        List<String> lines = Files.readAllLines(readme);
        int header = lines.indexOf("| code | retryable | when |");
        assertThat(header).as("the README's error table header").isGreaterThanOrEqualTo(0);
        Map<String, Boolean> table = new HashMap<>();
        Pattern code = Pattern.compile("`([a-z_]+)`");
        for (int i = header + 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
            String[] cells = lines.get(i).split("\\|");
            String retryable = cells[2].trim();
            assertThat(retryable).as(lines.get(i)).isIn("yes", "no");
            Matcher m = code.matcher(cells[1]);
            while (m.find()) {
                assertThat(table.put(m.group(1), retryable.equals("yes"))).as("listed twice: " + m.group(1))
                        .isNull();
            }
        }
        return table;
    }

    @Test
    void everyKindIsInTheReadmeWithItsRetryability() throws IOException {
        Map<String, Boolean> table = readmeTable();
        assertThat(table.keySet()).containsExactlyInAnyOrderElementsOf(Arrays.stream(ErrorKind.values())
                .map(ErrorKind::code).toList());
        for (ErrorKind kind : ErrorKind.values()) {
            assertThat(kind.retryable()).as(kind.code()).isEqualTo(table.get(kind.code()));
        }
    }

    /** A backend may throw with either flag; the tool result says what the table says for the kind. */
    @Test
    void toolResultsTakeRetryableFromTheKind() throws IOException {
        Map<String, Boolean> table = readmeTable();
        try (MemorySandbox sandbox = MemorySandbox.open()) {
            for (ErrorKind kind : ErrorKind.values()) {
                sandbox.onCommand("fail " + kind.code(), req -> {
                    throw kind.retryable() ? SandboxException.permanent(kind, "failed with " + kind.code(), null)
                            : SandboxException.temporary(kind, "failed with " + kind.code(), null);
                });
            }
            SandboxTools tools = new SandboxTools(sandbox);
            for (ErrorKind kind : ErrorKind.values()) {
                ToolResult r = tools.call("bash", Map.of("command", "fail " + kind.code()));
                assertThat(r.errorType()).isEqualTo(kind.code());
                assertThat(r.get("retryable")).as(kind.code()).isEqualTo(table.get(kind.code()));
            }
            // errors the tools layer makes itself
            assertThat(tools.call("bash", Map.of()).get("retryable")).isEqualTo(table.get("invalid_argument"));
            assertThat(tools.call("nope", Map.of()).get("retryable")).isEqualTo(table.get("unsupported"));
        }
    }
}
