package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.memory.MemorySandbox;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Cap once, mark once (issue 20): the marker the model reads states exactly the characters (and lines) cut, the same
 * numbers as {@code stdout_omitted_chars}/{@code stdout_omitted_lines}, and the cut falls on line boundaries.
 * Every expectation is recomputed here from the command's known output (the numbers 1..N, one per line).
 */
class TruncationMarkerTest {
    static final int N = 300_000;
    static final Pattern MARKER = Pattern.compile("\\[\\.\\.\\. (\\d+) characters(?: \\((\\d+) lines\\))? truncated"
            + " \\.\\.\\.\\]");

    /** Checks a shaped {@code 1..N} listing; returns whether the marker counted lines. */
    static boolean checkSeqOutput(ToolResult r, String stream) {
        assertThat(r.success()).as(r.toJson()).isTrue();
        String out = (String) r.get(stream);
        Matcher m = MARKER.matcher(out);
        assertThat(m.find()).as("a marker in " + out.substring(0, 200)).isTrue();
        int markerStart = m.start();
        int markerEnd = m.end();
        long chars = Long.parseLong(m.group(1));
        assertThat(m.find()).as("exactly one marker").isFalse();
        String head = out.substring(0, markerStart);
        String tail = out.substring(markerEnd + 1); // the marker line ends with one line break
        assertThat(head).as("head cut at a line boundary").endsWith("\n");
        List<String> headLines = List.of(head.split("\n"));
        List<String> tailLines = List.of(tail.split("\n"));
        for (int i = 0; i < headLines.size(); i++) {
            assertThat(headLines.get(i)).isEqualTo(String.valueOf(i + 1));
        }
        int firstTail = Integer.parseInt(tailLines.get(0));
        for (int i = 0; i < tailLines.size(); i++) {
            assertThat(tailLines.get(i)).isEqualTo(String.valueOf(firstTail + i));
        }
        assertThat(firstTail + tailLines.size() - 1).isEqualTo(N);
        long expectedChars = 0;
        for (int i = headLines.size() + 1; i < firstTail; i++) {
            expectedChars += String.valueOf(i).length() + 1;
        }
        long expectedLines = firstTail - headLines.size() - 1;
        assertThat(chars).isEqualTo(expectedChars);
        assertThat(r.get(stream + "_omitted_chars")).isEqualTo(expectedChars);
        if (m.reset().find() && m.group(2) != null) {
            assertThat(Long.parseLong(m.group(2))).isEqualTo(expectedLines);
            assertThat(r.get(stream + "_omitted_lines")).isEqualTo(expectedLines);
            return true;
        }
        assertThat(r.get(stream + "_omitted_lines")).isNull();
        return false;
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "docker"})
    void bashExecAndCodeMarkTheExactCut(String backend) {
        try (Sandbox sandbox = Backends.open(backend)) {
            SandboxTools tools = new SandboxTools(sandbox);
            assertThat(checkSeqOutput(tools.call("bash", Map.of("command", "seq 1 " + N)), "stdout")).isTrue();
            assertThat(checkSeqOutput(tools.call("bash", Map.of("command", "seq 1 " + N + " >&2")), "stderr"))
                    .isTrue();
            assertThat(checkSeqOutput(tools.call("exec", Map.of("program", "seq", "args", List.of("1",
                    String.valueOf(N)))), "stdout")).isTrue();
            // the code runner has no streaming hook: characters are exact, lines are not claimed
            ToolResult code = tools.call("execute_code", Map.of("language", "python", "code",
                    "print('\\n'.join(str(i) for i in range(1, " + (N + 1) + ")))", "timeout_ms", 60_000));
            checkSeqOutput(code, "stdout");
        }
    }

    @Test
    void memoryBackendsCutIsKeptAndMarkedOnce() {
        StringBuilder seq = new StringBuilder();
        for (int i = 1; i <= N; i++) {
            seq.append(i).append('\n');
        }
        try (MemorySandbox sandbox = MemorySandbox.open()) {
            sandbox.onCommand("listing", req -> ExecResult.of(0, seq.toString(), ""));
            ToolResult r = new SandboxTools(sandbox).call("bash", Map.of("command", "listing"));
            checkSeqOutput(r, "stdout");
            assertThat(((String) r.get("stdout")).length()).isLessThanOrEqualTo(30_000 + 100);
        }
    }

    /** The backend's cut already falls on lines (issue 34): the tool keeps its head and tail as they are. */
    @Test
    void backendsLineCut_isNotMovedAgain() {
        StringBuilder seq = new StringBuilder();
        for (int i = 1; i <= N; i++) {
            seq.append(i).append('\n');
        }
        try (MemorySandbox sandbox = MemorySandbox.open()) {
            sandbox.onCommand("listing", req -> ExecResult.of(0, seq.toString(), ""));
            ExecResult backend = sandbox.shell().run("listing");
            String marker = backend.stdoutTruncation().marker();
            String text = backend.stdout();
            String head = text.substring(0, text.indexOf(marker));
            String tail = text.substring(text.indexOf(marker) + marker.length());
            assertThat(head).endsWith("\n");

            ToolResult r = new SandboxTools(sandbox).call("bash", Map.of("command", "listing"));

            String out = (String) r.get("stdout");
            assertThat(out).startsWith(head).endsWith(" truncated ...]\n" + tail);
            assertThat(r.get("stdout_omitted_chars")).isEqualTo(backend.stdoutTruncation().omittedChars());
        }
    }

    @Test
    void aWholeTextIsCutOnceWithLinesCounted() {
        String text = "x".repeat(50) + "\n" + "y\n".repeat(40_000) + "z".repeat(50);
        Shaping.Capped c = Shaping.shape(text, dev.sandbox4j.Truncation.none(text.length()), 15_000, null);
        String kept = c.text().replaceFirst("\\[\\.\\.\\. .*? truncated \\.\\.\\.\\]\n", "");
        assertThat(text.length() - kept.length()).isEqualTo(c.omittedChars());
        assertThat(text.chars().filter(ch -> ch == '\n').count() - kept.chars().filter(ch -> ch == '\n').count())
                .isEqualTo(c.omittedLines());
        assertThat(c.text()).contains("[... " + c.omittedChars() + " characters (" + c.omittedLines()
                + " lines) truncated ...]");
    }
}
