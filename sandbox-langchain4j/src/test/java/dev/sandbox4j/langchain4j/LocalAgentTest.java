package dev.sandbox4j.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.spi.SandboxProvider;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The scripted agent against the real local (bubblewrap) backend; skipped where it cannot run unless required. */
class LocalAgentTest {
    static void requireOrSkip(String backend) {
        Optional<String> why = Sandboxes.providers().stream().filter(p -> p.name().equals(backend)).findFirst()
                .map(SandboxProvider::unavailableReason).orElse(Optional.of("not on the class path"));
        dev.sandbox4j.testing.Required.orSkip(backend, why);
    }

    @Test
    void agentRunsRealCommandsInTheLocalJail() throws Exception {
        requireOrSkip("local");
        try (Sandbox sandbox = Sandboxes.open("local")) {
            JsonNode last = SandboxAgentToolsTest.JSON.readTree(SandboxAgentToolsTest.agentRun(sandbox, true));
            assertThat(last.get("exit_code").asInt()).isZero();
            assertThat(last.get("stdout").asText()).isEqualTo("hello there\n");
        }
    }
}
