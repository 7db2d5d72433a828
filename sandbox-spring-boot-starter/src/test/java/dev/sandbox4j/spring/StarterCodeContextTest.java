package dev.sandbox4j.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sandbox4j.CodeContext;
import dev.sandbox4j.CodeResult;
import dev.sandbox4j.Feature;
import dev.sandbox4j.Language;
import dev.sandbox4j.Sandbox;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Issue 26's regression: sandboxes of the starter's factory keep the backend's code contexts (its decorator used to
 * answer {@code unsupported} while {@code info()} advertised {@link Feature#CODE_CONTEXTS}), through the factory
 * and through the Spring AI tools. On in-memory sandboxes whose python contexts are scripted
 * ({@link ScriptedMemoryProvider}); {@code SpringAiLocalSandboxTest} does the same in real jails.
 */
class StarterCodeContextTest {
    final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SandboxAutoConfiguration.class))
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withPropertyValues("sandbox4j.backend=scripted-memory");

    @Test
    void factorySandbox_createContext_keepsStateAcrossRuns_andTimesTheRuns() {
        runner.run(ctx -> {
            SandboxFactory factory = ctx.getBean(SandboxFactory.class);
            try (Sandbox sandbox = factory.open()) {
                assertThat(sandbox.info().features()).contains(Feature.CODE_CONTEXTS);
                CodeContext py = sandbox.code().createContext(Language.PYTHON);
                assertThat(py.run("x = 42").isSuccess()).isTrue();
                CodeResult r = py.run("x");
                assertThat(r.status()).isEqualTo(CodeResult.Status.COMPLETED);
                assertThat(r.text()).isEqualTo("42");

                // the lookups the tools use see the same context, and runs through them keep its state
                assertThat(sandbox.code().contexts()).extracting(CodeContext::id).containsExactly(py.id());
                assertThat(sandbox.code().context(py.id()).orElseThrow().run("x").text()).isEqualTo("42");
                assertThat(sandbox.code().createContext("python").run("x").status())
                        .as("a second context has its own state").isEqualTo(CodeResult.Status.ERROR_RUNTIME);

                py.close();
                assertThat(sandbox.code().context(py.id())).isEmpty();
            }
            MeterRegistry registry = ctx.getBean(MeterRegistry.class);
            assertThat(registry.get("sandbox4j.commands").tags("backend", "memory", "kind", "code", "status",
                    "completed").timer().count()).isEqualTo(3);
            assertThat(registry.get("sandbox4j.commands").tags("kind", "code", "status", "error_runtime").timer()
                    .count()).isEqualTo(1);
        });
    }

    @Test
    void springAiTools_createCodeContext_thenRunCodeInIt() {
        runner.run(ctx -> {
            SandboxToolCallbacks tools = ctx.getBean(SandboxToolCallbacks.class);
            JsonNode created = SandboxAutoConfigurationTest.call(tools, "create_code_context",
                    "{\"language\":\"python\"}", "c1");
            assertThat(created.get("success").asBoolean()).as(created.toString()).isTrue();
            String id = created.get("context_id").asText();

            JsonNode set = SandboxAutoConfigurationTest.call(tools, "run_code",
                    "{\"context_id\":\"" + id + "\",\"code\":\"answer = 42\"}", "c1");
            assertThat(set.get("status").asText()).as(set.toString()).isEqualTo("completed");
            JsonNode get = SandboxAutoConfigurationTest.call(tools, "run_code",
                    "{\"context_id\":\"" + id + "\",\"code\":\"answer\"}", "c1");
            assertThat(get.get("text").asText()).as(get.toString()).isEqualTo("42");

            JsonNode elsewhere = SandboxAutoConfigurationTest.call(tools, "run_code",
                    "{\"context_id\":\"" + id + "\",\"code\":\"answer\"}", "c2");
            assertThat(elsewhere.get("error_type").asText()).as("another conversation's sandbox has no such context")
                    .isEqualTo("not_found");

            JsonNode destroyed = SandboxAutoConfigurationTest.call(tools, "destroy_code_context",
                    "{\"context_id\":\"" + id + "\"}", "c1");
            assertThat(destroyed.get("destroyed").asBoolean()).as(destroyed.toString()).isTrue();
        });
    }
}
