package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.Sandbox;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * bash and exec on a backend with background processes go through a started command with a listener: the result is
 * still the one {@code run} gives (timeout status, empty stdin, exit codes, cwd), and progress carries new output.
 */
class StreamedCommandTest {
    @ParameterizedTest
    @ValueSource(strings = {"local", "docker"})
    void startedCommandsBehaveLikeRun(String backend) {
        try (Sandbox sandbox = Backends.open(backend)) {
            SandboxTools tools = new SandboxTools(sandbox, ToolConfig.builder()
                    .heartbeatInterval(Duration.ofMillis(300)).build());
            long t0 = System.nanoTime();
            ToolResult slow = tools.call("bash", Map.of("command", "echo before; sleep 30", "timeout", 1));
            assertThat(slow.get("status")).as(slow.toJson()).isEqualTo("timeout");
            assertThat(slow.get("stdout")).isEqualTo("before\n");
            assertThat((String) slow.get("summary")).contains("timed out");
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));

            ToolResult cat = tools.call("bash", Map.of("command", "cat; echo done", "timeout", 10));
            assertThat(cat.get("stdout")).as("stdin is empty, cat does not wait").isEqualTo("done\n");

            sandbox.files().mkdirs("sub");
            ToolResult failing = tools.call("exec", Map.of("program", "sh", "args", List.of("-c",
                    "pwd; echo oops >&2; exit 3"), "cwd", "sub"));
            assertThat(failing.get("exit_code")).isEqualTo(3);
            assertThat((String) failing.get("stdout")).endsWith("/sub\n");
            assertThat(failing.get("stderr")).isEqualTo("oops\n");

            List<String> beats = new CopyOnWriteArrayList<>();
            ToolResult ticking = tools.call("bash", Map.of("command", "for i in 1 2 3; do echo tick$i; sleep 0.5;"
                    + " done; echo err >&2"), (ms, message) -> beats.add(message));
            assertThat(ticking.get("stdout")).isEqualTo("tick1\ntick2\ntick3\n");
            assertThat(String.join("\n", beats)).contains("still running", "new stdout:\ntick1");
        }
    }
}
