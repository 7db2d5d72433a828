package dev.sandbox4j.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.tools.SandboxTools;
import dev.sandbox4j.tools.ToolConfig;
import dev.sandbox4j.tools.ToolSpec;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.context.request.AbstractRequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;

/** The auto-configuration on the in-memory backend: properties, tool sets, scopes, idle close, caps, health. */
class SandboxAutoConfigurationTest {
    static final ObjectMapper JSON = new ObjectMapper();

    final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SandboxAutoConfiguration.class))
            .withPropertyValues("sandbox4j.backend=memory");

    @AfterEach
    void clearRequest() {
        RequestContextHolder.resetRequestAttributes();
    }

    static ToolCallback tool(SandboxToolCallbacks tools, String name) {
        return Arrays.stream(tools.getToolCallbacks()).filter(t -> t.getToolDefinition().name().equals(name))
                .findFirst().orElseThrow(() -> new AssertionError("no tool " + name));
    }

    static List<String> names(SandboxToolCallbacks tools) {
        return Arrays.stream(tools.getToolCallbacks()).map(t -> t.getToolDefinition().name()).toList();
    }

    static JsonNode call(SandboxToolCallbacks tools, String name, String args, String conversation) throws Exception {
        ToolContext context = new ToolContext(conversation == null ? Map.of()
                : Map.of(ChatMemory.CONVERSATION_ID, conversation));
        return JSON.readTree(tool(tools, name).call(args, context));
    }

    @Test
    void propertiesMakeTheSpecAndTheToolSet() {
        runner.withPropertyValues("sandbox4j.command-timeout=7s", "sandbox4j.lifetime=5m",
                        "sandbox4j.output-limit=2000", "sandbox4j.network=allow-all", "sandbox4j.env.CI=1",
                        "sandbox4j.limits.memory=256MB", "sandbox4j.limits.max-processes=32", "sandbox4j.limits.cpus=0.5",
                        "sandbox4j.limits.best-effort=true", "sandbox4j.tools.read-only=true")
                .run(ctx -> {
                    SandboxSpec spec = ctx.getBean(SandboxFactory.class).spec();
                    assertThat(spec.commandTimeout()).isEqualTo(Duration.ofSeconds(7));
                    assertThat(spec.lifetime()).isEqualTo(Duration.ofMinutes(5));
                    assertThat(spec.outputLimit()).isEqualTo(2000);
                    assertThat(spec.network()).isEqualTo(NetworkPolicy.ALLOW_ALL);
                    assertThat(ctx.getBean(SandboxProperties.class).networkPolicy()).isEqualTo(NetworkPolicy.allowAll());
                    assertThat(spec.env()).containsEntry("CI", "1");
                    assertThat(spec.limits().memoryBytes()).isEqualTo(256 * ResourceLimits.MIB);
                    assertThat(spec.limits().maxProcesses()).isEqualTo(32);
                    assertThat(spec.limits().cpus()).isEqualTo(0.5);
                    assertThat(spec.bestEffortLimits()).isTrue();

                    SandboxToolCallbacks tools = ctx.getBean(SandboxToolCallbacks.class);
                    assertThat(tools.config().outputLimit()).isEqualTo(2000);
                    assertThat(names(tools)).isEqualTo(SandboxTools.specs(ToolConfig.builder().readOnly(true).build())
                            .stream().map(ToolSpec::name).toList());
                    assertThat(names(tools)).contains("view", "grep").doesNotContain("bash", "write_file");
                });
    }

    @Test
    void allowedDomainsMakeAnAllowList() {
        runner.withPropertyValues("sandbox4j.allowed-domains=pypi.org,*.pythonhosted.org").run(ctx ->
                assertThat(ctx.getBean(SandboxFactory.class).spec().network())
                        .isEqualTo(NetworkPolicy.allowDomains("pypi.org", "*.pythonhosted.org")));
        runner.withPropertyValues("sandbox4j.network=everything").run(ctx ->
                assertThat(ctx).hasFailed());
    }

    @Test
    void defaultsAreTheLibrarysDefaults() {
        runner.run(ctx -> {
            assertThat(ctx.getBean(SandboxFactory.class).spec().limits()).isEqualTo(ResourceLimits.DEFAULTS);
            assertThat(ctx.getBean(SandboxFactory.class).spec().network()).isEqualTo(NetworkPolicy.NONE);
            assertThat(names(ctx.getBean(SandboxToolCallbacks.class))).isEqualTo(SandboxTools.specs(
                    ToolConfig.defaults()).stream().map(ToolSpec::name).toList());
        });
    }

    @Test
    void disablingACapabilityRemovesEveryToolThatHasIt() {
        runner.withPropertyValues("sandbox4j.tools.disabled=run_commands").run(ctx ->
                assertThat(names(ctx.getBean(SandboxToolCallbacks.class)))
                        .doesNotContain("bash", "exec", "execute_code").contains("view", "write_file"));
    }

    @Test
    void toolsCanBeLeftOut() {
        runner.withPropertyValues("sandbox4j.tools.enabled=false").run(ctx -> {
            assertThat(ctx).doesNotHaveBean(SandboxToolCallbacks.class);
            assertThat(ctx).hasSingleBean(SandboxFactory.class);
        });
    }

    @Test
    void aBackendNotOnTheClassPathFailsTheStart() {
        runner.withPropertyValues("sandbox4j.backend=nope").run(ctx -> {
            assertThat(ctx).hasFailed();
            assertThat(ctx.getStartupFailure()).rootCause().hasMessageContaining("no sandbox backend named 'nope'");
        });
    }

    @Test
    void oneSandboxPerConversation() throws Exception {
        runner.run(ctx -> {
            SandboxToolCallbacks tools = ctx.getBean(SandboxToolCallbacks.class);
            assertThat(call(tools, "write_file", "{\"path\":\"a.txt\",\"content\":\"one\"}", "c1")
                    .get("success").asBoolean()).isTrue();
            assertThat(call(tools, "view", "{\"path\":\"a.txt\"}", "c1").get("content").asText()).contains("one");
            assertThat(call(tools, "view", "{\"path\":\"a.txt\"}", "c2").get("error_type").asText())
                    .isEqualTo("not_found");
            SandboxSessions sessions = ctx.getBean(SandboxSessions.class);
            assertThat(sessions.keys()).containsExactly("conversation:c1", "conversation:c2");
            assertThat(sessions.close("conversation:c1")).isTrue();
            // a closed conversation's next call gets a fresh sandbox
            assertThat(call(tools, "view", "{\"path\":\"a.txt\"}", "c1").get("error_type").asText())
                    .isEqualTo("not_found");
        });
    }

    @Test
    void badArgumentsAreResultsNotExceptions() {
        runner.run(ctx -> {
            SandboxToolCallbacks tools = ctx.getBean(SandboxToolCallbacks.class);
            JsonNode notJson = call(tools, "view", "not json", "c1");
            assertThat(notJson.get("error_type").asText()).isEqualTo("invalid_argument");
            JsonNode unknown = call(tools, "view", "{\"path\":\"a\",\"colour\":\"red\"}", "c1");
            assertThat(unknown.get("error_type").asText()).isEqualTo("invalid_argument");
            assertThat(unknown.get("message").asText()).contains("'colour'");
        });
    }

    @Test
    void aCallWithoutConversationOrRequestIsRefusedByDefault() {
        runner.run(ctx -> {
            SandboxToolCallbacks tools = ctx.getBean(SandboxToolCallbacks.class);
            JsonNode r = call(tools, "list_directory", "{}", null);
            assertThat(r.get("success").asBoolean()).isFalse();
            assertThat(r.get("error_type").asText()).isEqualTo("unsupported");
            assertThat(r.get("message").asText()).contains(ChatMemory.CONVERSATION_ID);
            assertThat(JSON.readTree(tool(tools, "list_directory").call("{}")).get("error_type").asText())
                    .isEqualTo("unsupported");
            assertThat(ctx.getBean(SandboxSessions.class).openCount()).isZero();
        });
    }

    @Test
    void theSharedFallbackGivesSuchCallsOneSandbox() {
        runner.withPropertyValues("sandbox4j.session.fallback=shared").run(ctx -> {
            SandboxToolCallbacks tools = ctx.getBean(SandboxToolCallbacks.class);
            assertThat(call(tools, "write_file", "{\"path\":\"s.txt\",\"content\":\"shared\"}", null)
                    .get("success").asBoolean()).isTrue();
            assertThat(JSON.readTree(tool(tools, "view").call("{\"path\":\"s.txt\"}")).get("content").asText())
                    .contains("shared");
            assertThat(ctx.getBean(SandboxSessions.class).keys()).containsExactly(SandboxToolCallbacks.SHARED_KEY);
        });
    }

    @Test
    void aWebRequestGetsASandboxClosedWhenTheRequestCompletes() {
        runner.run(ctx -> {
            SandboxToolCallbacks tools = ctx.getBean(SandboxToolCallbacks.class);
            SandboxSessions sessions = ctx.getBean(SandboxSessions.class);
            SandboxFactory factory = ctx.getBean(SandboxFactory.class);
            TestRequest request = new TestRequest();
            RequestContextHolder.setRequestAttributes(request);
            assertThat(call(tools, "write_file", "{\"path\":\"r.txt\",\"content\":\"req\"}", null)
                    .get("success").asBoolean()).isTrue();
            assertThat(call(tools, "view", "{\"path\":\"r.txt\"}", null).get("content").asText()).contains("req");
            assertThat(sessions.keys()).singleElement().asString().startsWith("request:");
            assertThat(factory.openSandboxes()).isEqualTo(1);

            request.requestCompleted();
            RequestContextHolder.resetRequestAttributes();
            assertThat(sessions.keys()).isEmpty();
            assertThat(factory.openSandboxes()).isZero();
        });
    }

    @Test
    void idleSandboxesAreClosed() {
        runner.withPropertyValues("sandbox4j.session.idle-timeout=300ms").run(ctx -> {
            SandboxToolCallbacks tools = ctx.getBean(SandboxToolCallbacks.class);
            SandboxSessions sessions = ctx.getBean(SandboxSessions.class);
            call(tools, "write_file", "{\"path\":\"i.txt\",\"content\":\"x\"}", "idle");
            assertThat(sessions.isOpen("conversation:idle")).isTrue();
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (sessions.isOpen("conversation:idle") && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(sessions.isOpen("conversation:idle")).isFalse();
            assertThat(ctx.getBean(SandboxFactory.class).openSandboxes()).isZero();
            assertThat(call(tools, "view", "{\"path\":\"i.txt\"}", "idle").get("error_type").asText())
                    .isEqualTo("not_found");
        });
    }

    @Test
    void atMostMaxSandboxesAreOpen() {
        runner.withPropertyValues("sandbox4j.session.max-sandboxes=1").run(ctx -> {
            SandboxToolCallbacks tools = ctx.getBean(SandboxToolCallbacks.class);
            assertThat(call(tools, "list_directory", "{}", "a").get("success").asBoolean()).isTrue();
            JsonNode refused = call(tools, "list_directory", "{}", "b");
            assertThat(refused.get("error_type").asText()).isEqualTo("backend_unavailable");
            assertThat(refused.get("retryable").asBoolean()).isTrue();
            ctx.getBean(SandboxSessions.class).close("conversation:a");
            assertThat(call(tools, "list_directory", "{}", "b").get("success").asBoolean()).isTrue();
        });
    }

    @Test
    void healthIsUpWithOpenSandboxCounts() {
        runner.run(ctx -> {
            call(ctx.getBean(SandboxToolCallbacks.class), "list_directory", "{}", "h");
            Health health = ctx.getBean("sandbox4jHealthIndicator", HealthIndicator.class).health(true);
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("backend", "memory").containsEntry("openSandboxes", 1)
                    .containsEntry("sessionSandboxes", 1).containsEntry("maxSessionSandboxes", 16);
        });
    }

    @Test
    void setStatusOfTheSpacebotProfile_showsInHealthAndMetrics() {
        runner.withPropertyValues("sandbox4j.tools.profile=spacebot")
                .withBean(io.micrometer.core.instrument.MeterRegistry.class,
                        io.micrometer.core.instrument.simple.SimpleMeterRegistry::new)
                .run(ctx -> {
                    SandboxToolCallbacks tools = ctx.getBean(SandboxToolCallbacks.class);
                    assertThat(names(tools)).contains("shell", "file", "exec", "set_status", "read_skill");
                    JsonNode set = call(tools, "set_status", "{\"status\":\"indexing\\nthe repo\"}", "w1");
                    assertThat(set.get("status").asText()).isEqualTo("indexing the repo");
                    String worker = set.get("worker_id").asText();
                    assertThat(call(tools, "file", "{\"operation\":\"write\",\"path\":\"SOUL.md\","
                            + "\"content\":\"x\"}", "w1").get("error_type").asText()).isEqualTo("permission_denied");
                    Health health = ctx.getBean("sandbox4jHealthIndicator", HealthIndicator.class).health(true);
                    assertThat(health.getDetails().get("workerStatuses")).isEqualTo(List.of(Map.of("worker", worker,
                            "status", "indexing the repo", "at", ctx.getBean(dev.sandbox4j.tools.StatusBoard.class)
                                    .get(worker).orElseThrow().at().toString())));
                    io.micrometer.core.instrument.MeterRegistry registry = ctx.getBean(
                            io.micrometer.core.instrument.MeterRegistry.class);
                    assertThat(registry.get("sandbox4j.status.updates").counter().count()).isEqualTo(1.0);
                    assertThat(registry.get("sandbox4j.status.workers").gauge().value()).isEqualTo(1.0);
                });
    }

    @Test
    void healthIsDownWithTheReasonWhenTheBackendCannotRun() {
        runner.withPropertyValues("sandbox4j.backend=unavailable").run(ctx -> {
            Health health = ctx.getBean("sandbox4jHealthIndicator", HealthIndicator.class).health(true);
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.getDetails()).containsEntry("backend", "unavailable")
                    .containsEntry("reason", UnavailableProvider.REASON);
            JsonNode r = call(ctx.getBean(SandboxToolCallbacks.class), "list_directory", "{}", "d");
            assertThat(r.get("error_type").asText()).isEqualTo("backend_unavailable");
            assertThat(r.get("message").asText()).contains(UnavailableProvider.REASON);
        });
    }

    @Test
    void closingTheContextClosesEverySandbox() {
        SandboxFactory[] factory = new SandboxFactory[1];
        runner.run(ctx -> {
            factory[0] = ctx.getBean(SandboxFactory.class);
            SandboxToolCallbacks tools = ctx.getBean(SandboxToolCallbacks.class);
            call(tools, "list_directory", "{}", "x");
            call(tools, "list_directory", "{}", "y");
            assertThat(factory[0].openSandboxes()).isEqualTo(2);
        });
        assertThat(factory[0].openSandboxes()).isZero();
    }

    /** A request outside any servlet container: what Spring MVC binds to the thread serving a request. */
    static final class TestRequest extends AbstractRequestAttributes {
        private final Map<String, Object> attributes = new ConcurrentHashMap<>();

        @Override
        public Object getAttribute(String name, int scope) {
            return attributes.get(name);
        }

        @Override
        public void setAttribute(String name, Object value, int scope) {
            attributes.put(name, value);
        }

        @Override
        public void removeAttribute(String name, int scope) {
            attributes.remove(name);
        }

        @Override
        public String[] getAttributeNames(int scope) {
            return attributes.keySet().toArray(String[]::new);
        }

        @Override
        public void registerDestructionCallback(String name, Runnable callback, int scope) {
            registerRequestDestructionCallback(name, callback);
        }

        @Override
        public Object resolveReference(String key) {
            return null;
        }

        @Override
        public String getSessionId() {
            return "test";
        }

        @Override
        public Object getSessionMutex() {
            return this;
        }

        @Override
        protected void updateAccessedSessionAttributes() {
        }
    }
}
