package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.NetworkPolicy.Credential;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.core.AgentEgress;
import dev.sandbox4j.docker.DockerOptions;
import dev.sandbox4j.docker.DockerSandboxProvider;
import dev.sandbox4j.testing.Required;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * The real Claude Code CLI in a real jail and a real container, talking through the real egress proxy to a scripted
 * Anthropic API on the host ({@link FakeAnthropic}), with the key brokered: the fake gets the key, the sandbox only
 * its placeholder. Needs the CLI ({@code scripts/install-claude-code.sh --host --image}); skips without it unless
 * {@code SANDBOX4J_REQUIRE} names {@code claude}.
 */
class SubAgentTest {
    private static final String KEY = "sk-ant-test-" + Long.toHexString(System.nanoTime()) + "-brokered";
    private static FakeAnthropic api;
    private static AutoCloseable egress;

    @BeforeAll
    static void start() throws Exception {
        api = new FakeAnthropic();
        egress = AgentEgress.overrideForTests(FakeAnthropic.resolver(), api.clientTls, api.address());
    }

    @AfterAll
    static void stop() throws Exception {
        egress.close();
        api.close();
    }

    private static SandboxSpec spec(boolean withKey) {
        Credential key = Credential.header("x-api-key", KEY).forHost(FakeAnthropic.HOST).onPort(api.port())
                .exposedAs("ANTHROPIC_API_KEY");
        NetworkPolicy policy = NetworkPolicy.allowDomains(FakeAnthropic.HOST + ":" + api.port());
        return SandboxSpec.builder().network(withKey ? policy.withCredential(key) : policy)
                .env("ANTHROPIC_BASE_URL", "http://" + FakeAnthropic.HOST)
                .limits(ResourceLimits.DEFAULTS.withMemoryBytes(2048L << 20))
                .commandTimeout(Duration.ofMinutes(3)).build();
    }

    /** A sandbox of {@code backend} whose CLI is there, or a skip (a failure when claude is required). */
    private static Sandbox open(String backend, boolean withKey) {
        Sandbox s = switch (backend) {
            case "local" -> {
                Required.orSkip("local", Sandboxes.providers().stream().filter(p -> p.name().equals("local"))
                        .findFirst().flatMap(p -> p.unavailableReason()));
                yield Sandboxes.open("local", spec(withKey));
            }
            case "docker" -> {
                DockerSandboxProvider p = new DockerSandboxProvider(DockerOptions.defaults()
                        .withImage("sandbox4j/runtime:bookworm-claude"));
                Required.orSkip("docker", p.unavailableReason());
                yield p.open(spec(withKey));
            }
            default -> throw new IllegalArgumentException(backend);
        };
        if (s.shell().run("command -v claude").exitCode() != 0) {
            s.close();
            Required.orSkip("claude", Optional.of("no Claude Code CLI in the " + backend + " sandbox (run "
                    + "scripts/install-claude-code.sh --host --image)"));
        }
        return s;
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "docker"})
    void theCliEditsTheWorkspace_andOnlyThePlaceholderIsInside(String backend) {
        try (Sandbox s = open(backend, true)) {
            api.script(FakeAnthropic.Turn.tool("Bash", Map.of("command", "echo made-by-cli > cli.txt",
                    "description", "write a file")), FakeAnthropic.Turn.text("all done"));
            int before = api.requests.size();
            List<SubAgent.Event> events = new CopyOnWriteArrayList<>();
            SubAgent.Result r = SubAgent.claudeCode().run(s, SubAgent.Request.of("make a file")
                    .withModel(SubAgent.Model.HAIKU), events::add);
            assertThat(r.error()).as(r.toString()).isFalse();
            assertThat(r.answer()).isEqualTo("all done");
            assertThat(r.sessionId()).isNotBlank();
            assertThat(s.files().readText("cli.txt")).isEqualTo("made-by-cli\n");
            assertThat(events).extracting(SubAgent.Event::type).contains("system", "assistant", "user", "result");
            List<FakeAnthropic.Received> mine = api.requests.subList(before, api.requests.size());
            assertThat(mine).isNotEmpty().allSatisfy(q -> assertThat(q.header("x-api-key")).isEqualTo(KEY));
            assertThat(mine.get(0).body().path("model").asText()).contains("haiku");
            String inside = s.shell().run("env; cat /proc/self/environ; cat ~/.claude.json ~/.claude/*.json 2>/dev/null")
                    .stdout();
            assertThat(inside).doesNotContain(KEY);
            assertThat(events.toString()).doesNotContain(KEY);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "docker"})
    void resumeContinuesTheSession_andMaxTurnsStopsIt(String backend) {
        try (Sandbox s = open(backend, true)) {
            api.script(FakeAnthropic.Turn.text("first answer"));
            SubAgent.Result first = SubAgent.claudeCode().run(s, SubAgent.Request.of("remember 42"), null);
            int before = api.requests.size();
            api.script(FakeAnthropic.Turn.text("second answer"));
            SubAgent.Result second = SubAgent.claudeCode().run(s, SubAgent.Request.of("what was it?")
                    .resuming(first.sessionId()), null);
            assertThat(second.answer()).isEqualTo("second answer");
            // the resumed request carries the first exchange
            assertThat(FakeAnthropic.messageCount(api.requests.get(before))).isGreaterThanOrEqualTo(3);

            api.script(FakeAnthropic.Turn.tool("Bash", Map.of("command", "true", "description", "loop")));
            SubAgent.Result capped = SubAgent.claudeCode().run(s, SubAgent.Request.of("loop forever")
                    .withMaxTurns(2), null);
            assertThat(capped.error()).as(capped.toString()).isTrue();
            assertThat(capped.subtype()).contains("max_turns");
        }
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "the {0} profile")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"coding", "default"})
    void theSubAgentTool_reportsProgressAndReturnsTheAnswer(String profile) {
        try (Sandbox s = open("local", true)) {
            api.script(FakeAnthropic.Turn.tool("Bash", Map.of("command", "echo via-tool > tool.txt",
                    "description", "write")), FakeAnthropic.Turn.text("tool done"));
            SandboxTools tools = new SandboxTools(s, ToolConfig.builder().profile(profile).build());
            List<String> beats = new CopyOnWriteArrayList<>();
            ToolResult r = tools.call("sub_agent", Map.of("prompt", "write it", "model", "sonnet", "max_turns", 5),
                    (ms, message) -> beats.add(message));
            assertThat(r.success()).as(r.toString()).isTrue();
            assertThat(r.get("result")).isEqualTo("tool done");
            assertThat(r.get("is_error")).isEqualTo(false);
            assertThat((String) r.get("session_id")).isNotBlank();
            assertThat(beats).anySatisfy(b -> assertThat(b).contains("sub-agent event").contains("result"));
            assertThat(s.files().readText("tool.txt")).isEqualTo("via-tool\n");
            ToolResult bad = tools.call("sub_agent", Map.of("prompt", "x", "model", "gpt"));
            assertThat(bad.errorType()).isEqualTo("invalid_argument");
        }
    }

    @Test
    void cancelKillsTheWholeTree() throws Exception {
        try (Sandbox s = open("local", true)) {
            api.script(FakeAnthropic.Turn.hang(120_000));
            int before = api.requests.size();
            SubAgent.Running running = SubAgent.claudeCode().start(s, SubAgent.Request.of("take your time"), null);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (api.requests.size() == before && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(api.requests.size()).as("the CLI called the model").isGreaterThan(before);
            assertThat(s.shell().run("pgrep -x claude || true").stdout()).as("the CLI runs").isNotEmpty();
            running.cancel();
            assertThatThrownBy(running::await).isInstanceOf(SandboxException.class)
                    .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.INTERRUPTED);
            assertThat(s.shell().run("pgrep -x claude || true").stdout()).isEmpty();
        }
    }

    @Test
    void aMissingCliOrKeyIsATypedErrorSayingWhatToDo() {
        try (Sandbox s = open("local", false)) {
            assertThatThrownBy(() -> SubAgent.claudeCode().run(s, SubAgent.Request.of("x"), null))
                    .isInstanceOf(SandboxException.class).hasMessageContaining("ANTHROPIC_API_KEY")
                    .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT);
            assertThatThrownBy(() -> SubAgent.claudeCode("/nowhere/claude").run(s, SubAgent.Request.of("x"), null))
                    .isInstanceOf(SandboxException.class).hasMessageContaining("install-claude-code.sh")
                    .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.UNSUPPORTED);
        }
    }
}
