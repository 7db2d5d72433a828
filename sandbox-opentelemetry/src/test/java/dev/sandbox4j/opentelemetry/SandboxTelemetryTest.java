package dev.sandbox4j.opentelemetry;

import static dev.sandbox4j.opentelemetry.TestTelemetry.attr;
import static dev.sandbox4j.opentelemetry.TestTelemetry.str;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.CodeContext;
import dev.sandbox4j.CodeRequest;
import dev.sandbox4j.CodeResult;
import dev.sandbox4j.Edit;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.FileWatch;
import dev.sandbox4j.ForwardingSandbox;
import dev.sandbox4j.ForwardingShell;
import dev.sandbox4j.Language;
import dev.sandbox4j.OutputListener;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.Shell;
import dev.sandbox4j.memory.MemorySandbox;
import dev.sandbox4j.memory.MemorySandboxProvider;
import dev.sandbox4j.spi.SandboxProvider;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Every span and metric of the decorator, over the in-memory backend and an SDK exporting to memory. */
class SandboxTelemetryTest {
    final TestTelemetry otel = new TestTelemetry();

    @AfterEach
    void closeSdk() {
        otel.close();
    }

    private Sandbox open(Sandbox memory) {
        return otel.telemetry.open("memory", () -> memory);
    }

    private static long sum(Collection<MetricData> all, String name, Attributes match) {
        return all.stream().filter(m -> m.getName().equals(name))
                .flatMap(m -> m.getLongSumData().getPoints().stream())
                .filter(p -> p.getAttributes().asMap().entrySet().containsAll(match.asMap().entrySet()))
                .mapToLong(LongPointData::getValue).sum();
    }

    private static List<HistogramPointData> histogram(Collection<MetricData> all, String name) {
        return all.stream().filter(m -> m.getName().equals(name))
                .flatMap(m -> m.getHistogramData().getPoints().stream()).toList();
    }

    @Test
    void open_throughAWrappedProvider_isASpanAndCountsUntilClose() {
        SandboxProvider provider = otel.telemetry.wrap(new MemorySandboxProvider());
        assertThat(provider.name()).isEqualTo("memory");
        Sandbox sandbox = provider.open(SandboxSpec.defaults());
        assertThat(sum(otel.collect(), "sandbox4j.sandbox.active", Attributes.empty())).isEqualTo(1);

        sandbox.close();
        sandbox.close();   // idempotent: counted down once

        SpanData open = otel.span("sandbox4j.open");
        assertThat(open.getKind()).isEqualTo(SpanKind.INTERNAL);
        assertThat(str(open, "sandbox4j.backend")).isEqualTo("memory");
        assertThat(str(open, "sandbox4j.sandbox.id")).isEqualTo(sandbox.id());
        assertThat(str(open, "sandbox4j.operation")).isEqualTo("open");
        assertThat(open.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
        List<SpanData> closes = otel.spans().stream().filter(s -> s.getName().equals("sandbox4j.close")).toList();
        assertThat(closes).hasSize(2);
        assertThat(closes).allSatisfy(c -> {
            assertThat(str(c, "sandbox4j.sandbox.id")).isEqualTo(sandbox.id());
            assertThat(c.getLinks()).extracting(LinkData::getSpanContext).containsExactly(open.getSpanContext());
        });
        assertThat(sum(otel.collect(), "sandbox4j.sandbox.active", Attributes.empty())).isZero();
    }

    @Test
    void open_thatFails_isAnErrorSpanWithTheKind() {
        assertThatThrownBy(() -> otel.telemetry.open("memory", () -> {
            throw new SandboxException(dev.sandbox4j.ErrorKind.BACKEND_UNAVAILABLE, "the secret daemon is down");
        })).isInstanceOf(SandboxException.class);
        SpanData open = otel.span("sandbox4j.open");
        assertThat(open.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(open.getStatus().getDescription()).isEqualTo("backend_unavailable");
        assertThat(str(open, "error.type")).isEqualTo("backend_unavailable");
        assertThat(open.getEvents()).as("no exception event: its message may quote content").isEmpty();
        assertThat(sum(otel.collect(), "sandbox4j.refusals",
                Attributes.of(AttributeKey.stringKey("error.type"), "backend_unavailable",
                        AttributeKey.stringKey("sandbox4j.operation"), "open"))).isEqualTo(1);
    }

    @Test
    void wrap_ofAnOpenSandbox_hasNoOpenSpanAndCountsUntilClose() {
        Sandbox sandbox = SandboxTelemetry.wrap(MemorySandbox.open(), otel.sdk);
        sandbox.files().write("a.txt", "x");
        assertThat(sum(otel.collect(), "sandbox4j.sandbox.active", Attributes.empty())).isEqualTo(1);
        sandbox.close();
        assertThat(otel.spanNames()).containsExactly("sandbox4j.file.write", "sandbox4j.close");
        assertThat(otel.span("sandbox4j.file.write").getLinks()).isEmpty();
        assertThat(sum(otel.collect(), "sandbox4j.sandbox.active", Attributes.empty())).isZero();
    }

    @Test
    void command_inACallersSpan_isItsChildLinkedToTheOpenSpan() {
        try (Sandbox sandbox = open(MemorySandbox.open())) {
            Span agent = otel.sdk.getTracer("test").spanBuilder("agent.step").startSpan();
            try (Scope ignored = agent.makeCurrent()) {
                assertThat(sandbox.shell().run("echo hello").stdout()).isEqualTo("hello\n");
            } finally {
                agent.end();
            }
        }
        SpanData command = otel.span("sandbox4j.command");
        SpanData agent = otel.span("agent.step");
        assertThat(command.getParentSpanContext()).isEqualTo(agent.getSpanContext());
        assertThat(command.getLinks()).extracting(LinkData::getSpanContext)
                .containsExactly(otel.span("sandbox4j.open").getSpanContext());
        assertThat(str(command, "sandbox4j.command.name")).isEqualTo("echo");
        assertThat(str(command, "sandbox4j.command.form")).isEqualTo("shell");
        assertThat(str(command, "sandbox4j.exec.status")).isEqualTo("completed");
        assertThat(attr(command, "sandbox4j.exec.exit_code", Long.class)).isZero();
        assertThat(attr(command, "sandbox4j.exec.stdout.bytes", Long.class)).isEqualTo(6);
        assertThat(attr(command, "sandbox4j.exec.stderr.bytes", Long.class)).isZero();
        assertThat(attr(command, "sandbox4j.exec.stdout.truncated", Boolean.class)).isFalse();
        assertThat(attr(command, "sandbox4j.exec.stderr.truncated", Boolean.class)).isFalse();
        assertThat(str(command, "sandbox4j.backend")).isEqualTo("memory");
        assertThat(command.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);

        List<HistogramPointData> durations = histogram(otel.collect(), "sandbox4j.command.duration");
        assertThat(durations).hasSize(1);
        assertThat(durations.get(0).getCount()).isEqualTo(1);
        assertThat(durations.get(0).getAttributes().get(AttributeKey.stringKey("sandbox4j.exec.status")))
                .isEqualTo("completed");
    }

    @Test
    void command_nonZeroExitAndArgv_areDataOnTheSpan() {
        try (Sandbox sandbox = open(MemorySandbox.open())) {
            sandbox.shell().run(ExecRequest.argv("false"));
            sandbox.shell().run("nosuchprogram --flag", Duration.ofSeconds(5));
        }
        List<SpanData> commands = otel.spans().stream().filter(s -> s.getName().equals("sandbox4j.command")).toList();
        assertThat(commands).hasSize(2);
        assertThat(str(commands.get(0), "sandbox4j.command.name")).isEqualTo("false");
        assertThat(str(commands.get(0), "sandbox4j.command.form")).isEqualTo("argv");
        assertThat(attr(commands.get(0), "sandbox4j.exec.exit_code", Long.class)).isEqualTo(1);
        assertThat(str(commands.get(1), "sandbox4j.command.name")).isEqualTo("nosuchprogram");
        assertThat(attr(commands.get(1), "sandbox4j.exec.exit_code", Long.class)).isEqualTo(127);
        assertThat(commands).allSatisfy(c -> assertThat(c.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET));
    }

    @Test
    void commandName_isThePlainProgramWordOnly() {
        assertThat(SandboxTelemetry.commandName("/usr/bin/pytest -q secret.txt")).isEqualTo("pytest");
        assertThat(SandboxTelemetry.commandName("  make\ttest")).isEqualTo("make");
        assertThat(SandboxTelemetry.commandName("TOKEN=abc make")).isNull();
        assertThat(SandboxTelemetry.commandName("$(cat key)")).isNull();
        assertThat(SandboxTelemetry.commandName("ls;cat secret")).isNull();
        assertThat(SandboxTelemetry.commandName("'quoted' x")).isNull();
        assertThat(SandboxTelemetry.commandName("")).isNull();
        assertThat(SandboxTelemetry.commandName("a".repeat(65))).isNull();
        assertThat(SandboxTelemetry.programName("python3.12")).isEqualTo("python3.12");
    }

    @Test
    void truncatedOutput_isFlaggedAndCounted() {
        try (Sandbox sandbox = open(MemorySandbox.open())) {
            sandbox.files().write("big.txt", "x".repeat(5000));
            ExecResult r = sandbox.shell().run(ExecRequest.shell("cat big.txt").withOutputLimit(100));
            assertThat(r.stdoutTruncation().truncated()).isTrue();
        }
        SpanData command = otel.span("sandbox4j.command");
        assertThat(attr(command, "sandbox4j.exec.stdout.truncated", Boolean.class)).isTrue();
        assertThat(attr(command, "sandbox4j.exec.stdout.bytes", Long.class)).isEqualTo(5000);
        assertThat(sum(otel.collect(), "sandbox4j.output.truncations",
                Attributes.of(AttributeKey.stringKey("sandbox4j.stream"), "stdout",
                        AttributeKey.stringKey("sandbox4j.operation"), "command"))).isEqualTo(1);
    }

    @Test
    void startedCommand_spansFromStartToItsResult() {
        ExecResult done = ExecResult.of(ExecStatus.COMPLETED, 3, "out", "");
        try (Sandbox sandbox = open(withBackgroundShell(MemorySandbox.open(), done))) {
            ExecHandle h = sandbox.shell().start(ExecRequest.shell("server --port 8000"));
            assertThat(otel.spanNames()).doesNotContain("sandbox4j.command");   // still running
            assertThat(h.await(Duration.ofSeconds(1))).contains(done);
            h.kill();   // a second result: still one span
            h.close();
            ExecHandle closedEarly = sandbox.shell().start(ExecRequest.argv("sleep", "100"), OutputListener.NONE);
            closedEarly.close();
        }
        List<SpanData> commands = otel.spans().stream().filter(s -> s.getName().equals("sandbox4j.command")).toList();
        assertThat(commands).hasSize(2);
        assertThat(str(commands.get(0), "sandbox4j.command.name")).isEqualTo("server");
        assertThat(attr(commands.get(0), "sandbox4j.exec.exit_code", Long.class)).isEqualTo(3);
        assertThat(str(commands.get(0), "sandbox4j.exec.status")).isEqualTo("completed");
        assertThat(str(commands.get(1), "sandbox4j.command.name")).isEqualTo("sleep");
        assertThat(str(commands.get(1), "sandbox4j.exec.status")).as("closed before a result").isNull();
        assertThat(histogram(otel.collect(), "sandbox4j.command.duration").get(0).getCount()).isEqualTo(1);
    }

    @Test
    void startOnABackendWithoutProcesses_isAnErrorSpan() {
        try (Sandbox sandbox = open(MemorySandbox.open())) {
            assertThatThrownBy(() -> sandbox.shell().start(ExecRequest.shell("sleep 1")))
                    .isInstanceOf(SandboxException.class);
        }
        SpanData command = otel.span("sandbox4j.command");
        assertThat(command.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(command.getStatus().getDescription()).isEqualTo("unsupported");
        assertThat(str(command, "error.type")).isEqualTo("unsupported");
        Collection<MetricData> all = otel.collect();
        assertThat(histogram(all, "sandbox4j.command.duration").get(0).getAttributes()
                .get(AttributeKey.stringKey("error.type"))).isEqualTo("unsupported");
        assertThat(sum(all, "sandbox4j.refusals", Attributes.of(AttributeKey.stringKey("error.type"), "unsupported",
                AttributeKey.stringKey("sandbox4j.operation"), "command"))).isEqualTo(1);
    }

    @Test
    void codeRunsAndContextRuns_areSpansWithLanguageStatusAndContextId() {
        MemorySandbox memory = MemorySandbox.open()
                .onCode(Language.PYTHON, request -> ExecResult.of(0, "42\n", ""))
                .onContextCode(Language.PYTHON, (state, request) ->
                        CodeResult.of(Language.PYTHON, ExecResult.of(1, "", "Traceback")));
        String contextId;
        try (Sandbox sandbox = open(memory)) {
            assertThat(sandbox.code().run(Language.PYTHON, "print(42)").stdout()).isEqualTo("42\n");
            sandbox.code().run("python", "print(42)", Duration.ofSeconds(5));
            try (CodeContext py = sandbox.code().createContext(Language.PYTHON)) {
                contextId = py.id();
                py.run("1/0");
                assertThat(sandbox.code().context(contextId)).get().isInstanceOf(TracedSandbox.TracedContext.class);
                sandbox.code().contexts().get(0).run(CodeRequest.of(Language.PYTHON, "x"));
            }
        }
        List<SpanData> runs = otel.spans().stream().filter(s -> s.getName().equals("sandbox4j.code.run")).toList();
        assertThat(runs).hasSize(2).allSatisfy(s -> {
            assertThat(str(s, "sandbox4j.code.language")).isEqualTo("python");
            assertThat(str(s, "sandbox4j.code.status")).isEqualTo("completed");
            assertThat(attr(s, "sandbox4j.exec.exit_code", Long.class)).isZero();
        });
        SpanData create = otel.span("sandbox4j.code_context.create");
        assertThat(str(create, "sandbox4j.code_context.id")).isEqualTo(contextId);
        assertThat(str(create, "sandbox4j.code.language")).isEqualTo("python");
        List<SpanData> contextRuns = otel.spans().stream()
                .filter(s -> s.getName().equals("sandbox4j.code_context.run")).toList();
        assertThat(contextRuns).hasSize(2).allSatisfy(s -> {
            assertThat(str(s, "sandbox4j.code_context.id")).isEqualTo(contextId);
            assertThat(str(s, "sandbox4j.code.status")).isEqualTo("error_runtime");
            assertThat(attr(s, "sandbox4j.exec.exit_code", Long.class)).isEqualTo(1);
        });
        List<HistogramPointData> code = histogram(otel.collect(), "sandbox4j.code.duration");
        assertThat(code.stream().mapToLong(HistogramPointData::getCount).sum()).isEqualTo(4);
        assertThat(code).extracting(p -> p.getAttributes().get(AttributeKey.stringKey("sandbox4j.operation")))
                .containsExactlyInAnyOrder("code.run", "code_context.run");
    }

    @Test
    void fileOperations_areOneSpanEachWithPathAndCounts() {
        try (Sandbox sandbox = open(MemorySandbox.open())) {
            var fs = sandbox.files();
            fs.mkdirs("src");
            fs.write("src/a.py", "print('hé')\n");
            fs.write("src/b.bin", new byte[] {1, 2, 3});
            fs.append("src/a.py", "x\n");
            fs.readText("src/a.py");
            fs.readText("src/a.py", 1, 1);
            fs.readBytes("src/b.bin");
            fs.readBytes("src/b.bin", 1, 1);
            fs.readTo("src/a.py", new java.io.ByteArrayOutputStream());
            fs.stat("src/b.bin");
            fs.exists("nope");
            fs.list("src");
            fs.list("src", 2);
            fs.listVisible("src", 1);
            fs.find("**/*.py", "", List.of());
            fs.grep("print", "src");
            fs.replace("src/a.py", "print", "show");
            fs.previewEdit("src/a.py", List.of(new Edit("show", "print")));
            fs.edit("src/a.py", List.of(new Edit("show", "print")));
            fs.copy("src/a.py", "src/c.py");
            fs.copyReplacing("src/a.py", "src/c.py");
            fs.move("src/c.py", "src/d.py");
            fs.moveReplacing("src/d.py", "src/a2.py");
            fs.delete("src/a2.py");
            fs.readToUnchanged("src/a.py", new java.io.ByteArrayOutputStream());
            fs.write("src/s.txt", new java.io.ByteArrayInputStream(new byte[] {'s'}));
            fs.watch("src").close();
            fs.watch("src", FileWatch.Options.defaults()).close();
            assertThat(fs.waitFor("src/s.txt", FileWatch.Kind.CREATE, Duration.ofSeconds(5))).isPresent();
            fs.deleteRecursively("src");
        }
        assertThat(otel.spanNames()).containsExactly("sandbox4j.open",
                "sandbox4j.file.mkdirs", "sandbox4j.file.write", "sandbox4j.file.write", "sandbox4j.file.append",
                "sandbox4j.file.read_text", "sandbox4j.file.read_text", "sandbox4j.file.read_bytes",
                "sandbox4j.file.read_bytes", "sandbox4j.file.read_to", "sandbox4j.file.stat",
                "sandbox4j.file.exists", "sandbox4j.file.list", "sandbox4j.file.list", "sandbox4j.file.list_visible",
                "sandbox4j.file.find", "sandbox4j.file.grep", "sandbox4j.file.replace",
                "sandbox4j.file.preview_edit", "sandbox4j.file.edit", "sandbox4j.file.copy",
                "sandbox4j.file.copy_replacing", "sandbox4j.file.move", "sandbox4j.file.move_replacing",
                "sandbox4j.file.delete", "sandbox4j.file.read_to_unchanged", "sandbox4j.file.write",
                "sandbox4j.file.watch", "sandbox4j.file.watch", "sandbox4j.file.wait_for",
                "sandbox4j.file.delete_recursively", "sandbox4j.close");
        List<SpanData> spans = otel.spans();
        assertThat(spans.subList(1, spans.size() - 1)).allSatisfy(s -> {
            assertThat(str(s, "sandbox4j.operation")).isEqualTo(s.getName().substring("sandbox4j.".length()));
            assertThat(str(s, "sandbox4j.file.path")).isNotNull();
            assertThat(s.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
        });
        assertThat(attr(spans.get(2), "sandbox4j.file.bytes", Long.class)).as("UTF-8 bytes of the text").isEqualTo(13);
        assertThat(attr(spans.get(3), "sandbox4j.file.bytes", Long.class)).isEqualTo(3);
        assertThat(attr(spans.get(7), "sandbox4j.file.bytes", Long.class)).isEqualTo(3);
        assertThat(attr(spans.get(8), "sandbox4j.file.bytes", Long.class)).isEqualTo(1);
        assertThat(attr(spans.get(10), "sandbox4j.file.bytes", Long.class)).as("stat: the size").isEqualTo(3);
        assertThat(attr(spans.get(11), "sandbox4j.file.exists", Boolean.class)).isFalse();
        assertThat(attr(spans.get(12), "sandbox4j.file.entries", Long.class)).isEqualTo(2);
        assertThat(attr(spans.get(15), "sandbox4j.file.entries", Long.class)).isEqualTo(1);
        assertThat(attr(spans.get(16), "sandbox4j.grep.matches", Long.class)).isEqualTo(1);
        assertThat(attr(spans.get(16), "sandbox4j.grep.truncated", Boolean.class)).isFalse();
        assertThat(attr(spans.get(16), "sandbox4j.grep.timed_out", Boolean.class)).isFalse();
        assertThat(attr(spans.get(16), "sandbox4j.grep.skipped", Long.class)).isZero();
        assertThat(attr(spans.get(17), "sandbox4j.edit.count", Long.class)).isEqualTo(1);
        assertThat(attr(spans.get(17), "sandbox4j.edit.applied", Boolean.class)).isTrue();
        assertThat(attr(spans.get(18), "sandbox4j.edit.applied", Boolean.class)).as("a preview").isFalse();
        assertThat(str(spans.get(20), "sandbox4j.file.path")).isEqualTo("src/a.py");
        assertThat(str(spans.get(20), "sandbox4j.file.destination")).isEqualTo("src/c.py");
        assertThat(attr(spans.get(25), "sandbox4j.file.bytes", Long.class)).as("the file's size").isPositive();
        assertThat(attr(spans.get(26), "sandbox4j.file.bytes", Long.class)).as("a stream: not counted").isNull();
        assertThat(str(spans.get(29), "sandbox4j.file.path")).isEqualTo("src/s.txt");
    }

    @Test
    void refusedPath_isAnErrorSpanWithTheKindAndARefusalCount() {
        try (Sandbox sandbox = open(MemorySandbox.open())) {
            assertThatThrownBy(() -> sandbox.files().readText("../../etc/passwd"))
                    .isInstanceOfSatisfying(SandboxException.class,
                            e -> assertThat(e.code()).isEqualTo("invalid_path"));
            assertThatThrownBy(() -> sandbox.files().readText("missing.txt"))
                    .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.code()).isEqualTo("not_found"));
            sandbox.files().write("a.txt", "one one");
            assertThatThrownBy(() -> sandbox.files().replace("a.txt", "one", "two"))
                    .isInstanceOfSatisfying(SandboxException.class,
                            e -> assertThat(e.code()).isEqualTo("ambiguous_match"));
        }
        List<SpanData> reads = otel.spans().stream().filter(s -> s.getName().equals("sandbox4j.file.read_text"))
                .toList();
        assertThat(reads).hasSize(2);
        assertThat(reads).extracting(s -> s.getStatus().getStatusCode()).containsOnly(StatusCode.ERROR);
        assertThat(reads).extracting(s -> s.getStatus().getDescription()).containsExactly("invalid_path", "not_found");
        assertThat(reads).extracting(s -> str(s, "error.type")).containsExactly("invalid_path", "not_found");
        assertThat(reads).allSatisfy(s -> assertThat(s.getEvents()).isEmpty());
        assertThat(str(reads.get(0), "sandbox4j.file.path")).isEqualTo("../../etc/passwd");
        SpanData replace = otel.span("sandbox4j.file.replace");
        assertThat(replace.getStatus().getDescription()).isEqualTo("ambiguous_match");

        Collection<MetricData> all = otel.collect();
        AttributeKey<String> type = AttributeKey.stringKey("error.type");
        AttributeKey<String> op = AttributeKey.stringKey("sandbox4j.operation");
        assertThat(sum(all, "sandbox4j.refusals", Attributes.of(type, "invalid_path", op, "file.read_text")))
                .isEqualTo(1);
        assertThat(sum(all, "sandbox4j.refusals", Attributes.of(type, "not_found"))).isEqualTo(1);
        assertThat(sum(all, "sandbox4j.refusals", Attributes.of(type, "ambiguous_match", op, "file.replace")))
                .isEqualTo(1);
    }

    @Test
    void misuse_isAnErrorSpanByClassName_notARefusal() {
        try (Sandbox sandbox = open(MemorySandbox.open())) {
            assertThatThrownBy(() -> sandbox.files().readBytes("a", -1, 1)).isInstanceOf(RuntimeException.class);
        }
        SpanData read = otel.span("sandbox4j.file.read_bytes");
        assertThat(read.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(str(read, "error.type")).isNotBlank();
    }

    @Test
    void noSpanOrMetricCarriesFileContentCodeStdinOrEnvironmentValues() {
        String content = "CONTENT-SENTINEL-7f3a";
        String env = "ENV-SENTINEL-91bc";
        String code = "CODE-SENTINEL-55d1";
        String stdin = "STDIN-SENTINEL-0c2e";
        MemorySandbox memory = MemorySandbox.open()
                .onCommand(r -> r.env().containsKey("TOKEN"), r -> ExecResult.of(1, r.env().get("TOKEN"),
                        "bad token " + r.env().get("TOKEN")))
                .onCode(Language.PYTHON, r -> ExecResult.of(0, r.code(), ""))
                .onContextCode(Language.PYTHON, (state, r) -> CodeResult.of(Language.PYTHON,
                        ExecResult.of(0, r.code(), "")));
        try (Sandbox sandbox = open(memory)) {
            var fs = sandbox.files();
            fs.write("notes.txt", "line\n" + content + "\n");
            fs.append("notes.txt", content);
            fs.readText("notes.txt");
            fs.readBytes("notes.txt");
            fs.grep(content, "");
            fs.find("**/" + content + "*", "", List.of());
            fs.previewEdit("notes.txt", List.of(new Edit("line", content)));
            fs.replace("notes.txt", "line", "other " + content);
            assertThatThrownBy(() -> fs.replace("notes.txt", content, "x")).isInstanceOf(SandboxException.class);
            assertThatThrownBy(() -> fs.replace("notes.txt", "absent " + content, "x"))
                    .isInstanceOf(SandboxException.class);
            sandbox.shell().run(ExecRequest.shell("deploy --token \"$TOKEN\"").withEnv("TOKEN", env)
                    .withStdin(stdin));
            sandbox.shell().run(ExecRequest.shell("TOKEN=" + env + " deploy"));
            sandbox.shell().run("cat notes.txt");
            sandbox.code().run(CodeRequest.of(Language.PYTHON, "print('" + code + "')").withStdin(stdin));
            try (CodeContext py = sandbox.code().createContext("python")) {
                py.run(code);
            }
        }
        assertThat(otel.spans()).hasSizeGreaterThan(15);
        List<String> values = new ArrayList<>();
        for (SpanData s : otel.spans()) {
            values.add(s.getName());
            values.add(String.valueOf(s.getStatus().getDescription()));
            s.getAttributes().forEach((k, v) -> values.add(k.getKey() + "=" + v));
            s.getEvents().forEach(e -> {
                values.add(e.getName());
                e.getAttributes().forEach((k, v) -> values.add(k.getKey() + "=" + v));
            });
            s.getLinks().forEach(l -> l.getAttributes().forEach((k, v) -> values.add(k.getKey() + "=" + v)));
        }
        Collection<MetricData> metrics = otel.collect();
        assertThat(metrics).isNotEmpty();
        for (Attributes a : TestTelemetry.pointAttributes(metrics)) {
            a.forEach((k, v) -> values.add(k.getKey() + "=" + v));
        }
        assertThat(values).isNotEmpty().allSatisfy(v -> assertThat(v)
                .doesNotContain(content).doesNotContain(env).doesNotContain(code).doesNotContain(stdin)
                .doesNotContain("CONTENT-SENTINEL").doesNotContain("ENV-SENTINEL"));
        List<SpanData> commands = otel.spans().stream().filter(s -> s.getName().equals("sandbox4j.command")).toList();
        assertThat(commands).extracting(s -> str(s, "sandbox4j.command.name")).containsExactly("deploy", null, "cat");
    }

    @Test
    void theOpenCountSeesASandboxThatClosedItself() {
        MemorySandbox memory = MemorySandbox.open();
        Sandbox sandbox = open(memory);
        assertThat(sum(otel.collect(), "sandbox4j.sandbox.active", Attributes.empty())).isEqualTo(1);
        memory.close();                      // as at the end of its lifetime, not through the wrapper
        assertThat(sandbox.isOpen()).isFalse();
        assertThat(sum(otel.collect(), "sandbox4j.sandbox.active", Attributes.empty())).isZero();
        sandbox.close();
        assertThat(sum(otel.collect(), "sandbox4j.sandbox.active", Attributes.empty())).isZero();
    }

    /** docs/observability.md's "Use" snippet, on the memory backend in place of local and auto. */
    @Test
    void theGuidesSnippet_runs() {
        SandboxSpec spec = SandboxSpec.defaults();
        SandboxTelemetry telemetry = SandboxTelemetry.create(otel.sdk);
        SandboxProvider provider = telemetry.wrap(Sandboxes.provider("memory"));
        try (Sandbox sandbox = provider.open(SandboxSpec.defaults())) {
            sandbox.shell().run("make test");
            sandbox.files().write("notes.txt", "...");
        }
        try (Sandbox alreadyOpen = MemorySandbox.open(); Sandbox traced = telemetry.wrap(alreadyOpen);
             Sandbox other = telemetry.open("auto", () -> Sandboxes.open("memory", spec))) {
            traced.files().exists("a");
            other.files().exists("a");
        }
        assertThat(otel.spanNames()).containsExactly("sandbox4j.open", "sandbox4j.command", "sandbox4j.file.write",
                "sandbox4j.close", "sandbox4j.open", "sandbox4j.file.exists", "sandbox4j.file.exists",
                "sandbox4j.close", "sandbox4j.close");
        assertThat(str(otel.spans().get(4), "sandbox4j.backend")).as("the opened sandbox's own backend")
                .isEqualTo("memory");
    }

    @Test
    void noopOpenTelemetry_changesNothing() {
        try (Sandbox sandbox = SandboxTelemetry.create(io.opentelemetry.api.OpenTelemetry.noop())
                .wrap(MemorySandbox.open())) {
            sandbox.files().write("a", "b");
            assertThat(sandbox.shell().run("cat a").stdout()).isEqualTo("b");
        }
        assertThat(otel.spans()).isEmpty();
    }

    /** A sandbox whose shell starts background commands that end with {@code result} (memory has no processes). */
    private static Sandbox withBackgroundShell(MemorySandbox memory, ExecResult result) {
        return new ForwardingSandbox() {
            @Override
            protected Sandbox delegate() {
                return memory;
            }

            @Override
            public Shell shell() {
                return new ForwardingShell() {
                    @Override
                    protected Shell delegate() {
                        return memory.shell();
                    }

                    @Override
                    public ExecHandle start(ExecRequest request, OutputListener listener) {
                        return new FakeHandle(request.displayCommand(), result);
                    }

                    @Override
                    public ExecHandle start(ExecRequest request) {
                        return start(request, OutputListener.NONE);
                    }
                };
            }
        };
    }

    private record FakeHandle(String command, ExecResult result, AtomicBoolean alive) implements ExecHandle {
        FakeHandle(String command, ExecResult result) {
            this(command, result, new AtomicBoolean(true));
        }

        @Override
        public void writeStdin(byte[] bytes) {
        }

        @Override
        public void closeStdin() {
        }

        @Override
        public Optional<ExecResult> await(Duration timeout) {
            alive.set(false);
            return Optional.of(result);
        }

        @Override
        public boolean isAlive() {
            return alive.get();
        }

        @Override
        public ExecResult kill() {
            alive.set(false);
            return result;
        }

        @Override
        public void close() {
            alive.set(false);
        }
    }
}
