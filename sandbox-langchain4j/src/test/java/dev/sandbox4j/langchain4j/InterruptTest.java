package dev.sandbox4j.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.Sandboxes;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** A LangChain4j tool call whose thread is interrupted kills the command's process tree and answers at once. */
class InterruptTest {
    @Test
    void interruptingTheCallingThreadKillsTheCommandTree() throws Exception {
        LocalAgentTest.requireOrSkip("local");
        try (Sandbox sandbox = Sandboxes.open("local")) {
            Map<ToolSpecification, ToolExecutor> tools = new SandboxToolProvider(sandbox).tools();
            ToolExecutor bash = tools.entrySet().stream().filter(e -> e.getKey().name().equals("bash")).findFirst()
                    .orElseThrow().getValue();
            CompletableFuture<String> answer = new CompletableFuture<>();
            AtomicReference<Long> answeredAt = new AtomicReference<>();
            Thread caller = new Thread(() -> {
                String r = bash.execute(ToolExecutionRequest.builder().id("1").name("bash").arguments(
                        "{\"command\":\"sleep 297 & echo $! > tree.pid; sh -c 'sleep 296' & echo $! >> tree.pid;"
                                + " echo $$ >> tree.pid; sleep 298\"}").build(), null);
                answeredAt.set(System.nanoTime());
                answer.complete(r);
            });
            caller.start();
            Thread.sleep(2_000);
            long interruptedAt = System.nanoTime();
            caller.interrupt();
            String r = answer.get(30, TimeUnit.SECONDS);
            JsonNode json = SandboxAgentToolsTest.JSON.readTree(r);
            assertThat(json.get("error_type").asText()).as(r).isEqualTo("interrupted");
            assertThat(TimeUnit.NANOSECONDS.toMillis(answeredAt.get() - interruptedAt)).isLessThan(5_000);
            String check = sandbox.shell().run("for p in $(cat tree.pid); do if kill -0 $p 2>/dev/null; then"
                    + " echo alive $p; else echo gone $p; fi; done").stdout();
            assertThat(check).doesNotContain("alive");
            assertThat(check.lines().filter(l -> l.startsWith("gone")).count()).isEqualTo(3);
        }
    }
}
