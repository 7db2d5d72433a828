package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.memory.MemorySandbox;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** watch_files, poll_watch, wait_for_file and stop_watch end to end on the in-memory backend. */
class WatchToolsTest {
    private final MemorySandbox sandbox = MemorySandbox.open();
    private final SandboxTools tools = new SandboxTools(sandbox);

    @AfterEach
    void close() {
        sandbox.close();
    }

    private static Map<String, Object> args(Object... kv) {
        Map<String, Object> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    private ToolResult call(String tool, Object... kv) {
        return tools.call(tool, args(kv));
    }

    private static ToolResult ok(ToolResult r) {
        assertThat(r.success()).as(r.toJson()).isTrue();
        return r;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> events(ToolResult r) {
        return (List<Map<String, Object>>) r.get("events");
    }

    private static List<String> described(ToolResult r) {
        List<String> out = new ArrayList<>();
        for (Map<String, Object> e : events(r)) {
            out.add(e.get("kind") + " " + (e.containsKey("from_path") ? e.get("from_path") + " -> " : "")
                    + e.get("path"));
        }
        return out;
    }

    private String watch(Object... kv) {
        ToolResult r = ok(call("watch_files", kv));
        return (String) r.get("watch_id");
    }

    @Test
    void watchThenPoll_reportsTheFileToolsChanges_withCursor() {
        String id = watch("path", ".", "debounce_ms", 0);
        ok(call("write_file", "path", "src/app.py", "content", "print(1)\n"));
        ok(call("str_replace", "path", "src/app.py", "old_str", "1", "new_str", "2"));
        ok(call("move_file", "source", "src/app.py", "destination", "src/main.py"));

        ToolResult r = ok(call("poll_watch", "watch_id", id));
        // str_replace writes a new file over the old one: a create, as on every backend
        assertThat(described(r)).containsExactly("create src", "create src/app.py", "create src/app.py",
                "rename src/app.py -> src/main.py");
        assertThat(r.get("overflow")).isEqualTo(false);
        assertThat(r.get("cursor")).isEqualTo(4L);
        Map<String, Object> created = events(r).get(1);
        assertThat(created).containsEntry("seq", 2L).containsEntry("is_dir", false).containsEntry("size", 9L)
                .doesNotContainKey("from_path");
        assertThat((String) created.get("mtime")).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
        assertThat(events(r).get(0)).containsEntry("is_dir", true);
        assertThat(r.toJson()).contains("\"from_path\":\"src/app.py\"");

        ToolResult none = ok(call("poll_watch", "watch_id", id, "cursor", 4));
        assertThat(events(none)).isEmpty();
        assertThat(none.get("cursor")).isEqualTo(4L);
        ToolResult again = ok(call("poll_watch", "watch_id", id, "cursor", 2));
        assertThat(described(again)).containsExactly("create src/app.py", "rename src/app.py -> src/main.py");
    }

    @Test
    void watchOptions_recursiveIncludeExclude() {
        ok(call("create_directory", "path", "lib/deep"));
        String flat = watch("path", "lib", "recursive", false, "debounce_ms", 0);
        String java = watch("path", ".", "include", List.of("**/*.java"), "exclude", List.of("build"),
                "debounce_ms", 0);
        ToolResult w = ok(call("watch_files", "path", "lib"));
        assertThat(w.get("path")).isEqualTo("lib");
        ok(call("write_file", "path", "lib/A.java", "content", "a"));
        ok(call("write_file", "path", "lib/deep/B.java", "content", "b"));
        ok(call("write_file", "path", "build/C.java", "content", "c"));
        ok(call("write_file", "path", "lib/notes.txt", "content", "n"));
        assertThat(described(ok(call("poll_watch", "watch_id", flat)))).containsExactly("create lib/A.java",
                "create lib/notes.txt");
        assertThat(described(ok(call("poll_watch", "watch_id", java)))).containsExactly("create lib/A.java",
                "create lib/deep/B.java");
    }

    @Test
    void poll_pagesOfAtMost1000Events_theCursorReadsOn() {
        String id = watch("path", ".", "debounce_ms", 0);
        for (int i = 1; i <= 1100; i++) {
            sandbox.files().write("f" + i, "x");
        }
        ToolResult first = ok(call("poll_watch", "watch_id", id));
        assertThat(events(first)).hasSize(WatchTools.MAX_EVENTS);
        assertThat(first.get("cursor")).isEqualTo(1000L);
        assertThat(first.get("truncated")).isEqualTo(true);
        assertThat((String) first.get("note")).contains("cursor 1000");
        ToolResult rest = ok(call("poll_watch", "watch_id", id, "cursor", first.get("cursor")));
        assertThat(events(rest)).hasSize(100);
        assertThat(events(rest).get(0)).containsEntry("seq", 1001L).containsEntry("path", "f1001");
        assertThat(rest.get("cursor")).isEqualTo(1100L);
        assertThat(rest.fields()).doesNotContainKey("truncated");
    }

    @Test
    void pollWithWait_isWokenByAWriteFromAnotherThread() throws Exception {
        String id = watch("path", ".");
        CompletableFuture<ToolResult> polled = CompletableFuture.supplyAsync(
                () -> tools.call("poll_watch", args("watch_id", id, "wait_ms", 30_000)));
        Thread.sleep(200);
        assertThat(polled).isNotDone();
        long start = System.nanoTime();
        sandbox.files().write("done.txt", "ok");
        ToolResult r = ok(polled.get(10, TimeUnit.SECONDS));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(described(r)).containsExactly("create done.txt");
    }

    @Test
    void pollWithWait_nothingComes_heartbeatsThenAnswersEmpty() {
        SandboxTools beating = new SandboxTools(sandbox, ToolConfig.builder()
                .heartbeatInterval(Duration.ofMillis(100)).build());
        String id = (String) ok(beating.call("watch_files", args("path", "."))).get("watch_id");
        List<String> beats = new CopyOnWriteArrayList<>();
        long start = System.nanoTime();
        ToolResult r = ok(beating.call("poll_watch", args("watch_id", id, "wait_ms", 600),
                (elapsed, message) -> beats.add(message)));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(550));
        assertThat(events(r)).isEmpty();
        assertThat(r.get("cursor")).isEqualTo(0L);
        assertThat(beats).hasSizeGreaterThanOrEqualTo(3).allMatch(m -> m.startsWith("no change yet"));
    }

    @Test
    void waitForFile_existing_later_timeout() throws Exception {
        ok(call("write_file", "path", "ready.txt", "content", "yes"));
        ToolResult now = ok(call("wait_for_file", "path", "ready.txt"));
        assertThat(now.get("found")).isEqualTo(true);
        assertThat(now.get("event")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                .containsEntry("seq", 0L).containsEntry("kind", "create").containsEntry("size", 3L);

        List<String> beats = new CopyOnWriteArrayList<>();
        SandboxTools beating = new SandboxTools(sandbox, ToolConfig.builder()
                .heartbeatInterval(Duration.ofMillis(100)).build());
        CompletableFuture<ToolResult> waiting = CompletableFuture.supplyAsync(() -> beating.call("wait_for_file",
                args("path", "out/report.json", "timeout_ms", 30_000), (elapsed, message) -> beats.add(message)));
        Thread.sleep(400);
        assertThat(waiting).isNotDone();
        ok(call("write_file", "path", "out/report.json", "content", "{}"));
        ToolResult later = ok(waiting.get(10, TimeUnit.SECONDS));
        assertThat(later.get("found")).isEqualTo(true);
        assertThat(later.get("event")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                .containsEntry("kind", "create").containsEntry("path", "out/report.json");
        assertThat(beats).isNotEmpty();

        ok(call("write_file", "path", "log.txt", "content", "a"));
        CompletableFuture<ToolResult> write = CompletableFuture.supplyAsync(() -> tools.call("wait_for_file",
                args("path", "log.txt", "event", "write", "timeout_ms", 30_000)));
        Thread.sleep(200);
        ok(call("write_file", "path", "log.txt", "content", "ab", "mode", "append"));
        assertThat(write.get(10, TimeUnit.SECONDS).get("event"))
                .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP).containsEntry("kind", "write")
                .containsEntry("size", 3L);

        long start = System.nanoTime();
        ToolResult none = ok(call("wait_for_file", "path", "never.txt", "timeout_ms", 300));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
        assertThat(none.get("found")).isEqualTo(false);
        assertThat(none.fields()).doesNotContainKey("event");
        assertThat((String) none.get("note")).contains("never.txt");
    }

    @Test
    void stopWatch_thenTheIdIsUnknown() {
        String id = watch("path", ".");
        ToolResult stopped = ok(call("stop_watch", "watch_id", id));
        assertThat(stopped.get("watch_id")).isEqualTo(id);
        assertThat(stopped.get("stopped")).isEqualTo(true);
        ToolResult poll = call("poll_watch", "watch_id", id);
        assertThat(poll.errorType()).as(poll.toJson()).isEqualTo("not_found");
        assertThat((String) poll.get("message")).contains(id, "watch_files");
        assertThat(call("stop_watch", "watch_id", id).errorType()).isEqualTo("not_found");
        assertThat(call("poll_watch", "watch_id", "w999").errorType()).isEqualTo("not_found");
    }

    @Test
    void watchIds_belongToTheirSandbox_andOutliveTheToolsObject() {
        String id = watch("path", ".", "debounce_ms", 0);
        sandbox.files().write("x.txt", "x");
        // the MCP server makes a tools object per call: a new one over the same sandbox finds the watch
        assertThat(described(ok(new SandboxTools(sandbox).call("poll_watch", args("watch_id", id)))))
                .containsExactly("create x.txt");
        try (MemorySandbox other = MemorySandbox.open()) {
            ToolResult r = new SandboxTools(other).call("poll_watch", args("watch_id", id));
            assertThat(r.errorType()).as(r.toJson()).isEqualTo("not_found");
            assertThat(new SandboxTools(other).call("stop_watch", args("watch_id", id)).errorType())
                    .isEqualTo("not_found");
        }
        assertThat(ok(call("poll_watch", "watch_id", id)).get("cursor")).isEqualTo(1L); // still there
    }

    @Test
    void closedSandbox_pollIsClosed() {
        String id = watch("path", ".");
        sandbox.close();
        ToolResult r = call("poll_watch", "watch_id", id);
        assertThat(r.errorType()).as(r.toJson()).isEqualTo("closed");
    }

    @Test
    void theLimitOfWatches_isATypedErrorNamingStopWatch() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            ids.add(watch("path", "."));
        }
        ToolResult refused = call("watch_files", "path", ".");
        assertThat(refused.errorType()).as(refused.toJson()).isEqualTo("too_large");
        assertThat((String) refused.get("message")).contains("64", "stop_watch", ids.get(0));
        ok(call("stop_watch", "watch_id", ids.get(5)));
        ok(call("watch_files", "path", "."));
    }

    @Test
    void badInput_invalidArgument_andNoWatchMade() {
        String before = watch("path", ".");
        assertThat(call("watch_files", "path", "missing").errorType()).isEqualTo("not_found");
        assertThat(call("watch_files", "path", ".", "debounce_ms", -1).errorType()).isEqualTo("invalid_argument");
        assertThat(call("watch_files", "path", ".", "debounce_ms", 60_001).errorType())
                .isEqualTo("invalid_argument");
        assertThat(call("watch_files", "path", ".", "include", 3).errorType()).isEqualTo("invalid_argument");
        assertThat(call("watch_files", "path", ".", "recursive", "maybe").errorType()).isEqualTo("invalid_argument");
        assertThat(call("watch_files", "path", ".", "interval", 5).errorType()).isEqualTo("invalid_argument");
        assertThat(call("watch_files").errorType()).isEqualTo("invalid_argument");
        assertThat(call("poll_watch", "watch_id", before, "cursor", -1).errorType()).isEqualTo("invalid_argument");
        assertThat(call("poll_watch", "watch_id", before, "wait_ms", 60_001).errorType())
                .isEqualTo("invalid_argument");
        assertThat(call("poll_watch", "watch_id", "").errorType()).isEqualTo("invalid_argument");
        assertThat(call("wait_for_file", "path", "a", "event", "modify").errorType()).isEqualTo("invalid_argument");
        assertThat(call("wait_for_file", "path", "a", "timeout_ms", 300_001).errorType())
                .isEqualTo("invalid_argument");
        assertThat(call("wait_for_file", "path", "a", "timeout_ms", 0).errorType()).isEqualTo("invalid_argument");
        assertThat(call("wait_for_file", "path", "../etc/passwd", "timeout_ms", 10).success()).isFalse();
        // none of the refused calls made a watch: the next id follows the first
        String after = watch("path", ".");
        assertThat(Integer.parseInt(after.substring(1))).isEqualTo(Integer.parseInt(before.substring(1)) + 1);
    }

    @Test
    void specs_readOnlyWithSchemas() {
        ToolSpec poll = SandboxTools.allSpecs().stream().filter(s -> s.name().equals("poll_watch")).findFirst()
                .orElseThrow();
        assertThat(poll.readOnly()).isTrue();
        assertThat(poll.capability()).isEqualTo(Capability.READ_FILES);
        assertThat(poll.inputSchema()).containsEntry("additionalProperties", false)
                .containsEntry("required", List.of("watch_id"));
        assertThat(poll.outputSchema().get("properties").toString()).contains("events", "cursor", "overflow");
        ToolSpec watch = SandboxTools.allSpecs().stream().filter(s -> s.name().equals("watch_files")).findFirst()
                .orElseThrow();
        assertThat(watch.hints().idempotent()).isFalse();
        assertThat(SandboxTools.specs(ToolConfig.builder().readOnly(true).build())).extracting(ToolSpec::name)
                .contains("watch_files", "poll_watch", "wait_for_file", "stop_watch");
        assertThat(SandboxTools.specs(ToolConfig.builder().disable(Capability.READ_FILES).build())).isEmpty();
    }

    /** On a backend that runs commands, what a command does reaches the tools (skips where local cannot run). */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"local", "docker"})
    void commandsChanges_reachTheTools(String backend) {
        try (Sandbox real = Backends.open(backend)) {
            SandboxTools t = new SandboxTools(real);
            String id = (String) ok(t.call("watch_files", args("path", ".", "debounce_ms", 0))).get("watch_id");
            assertThat(ok(t.call("bash", args("command", "mkdir -p out && printf abc > out/r.txt")))
                    .get("exit_code")).isEqualTo(0);
            List<String> seen = new ArrayList<>();
            long cursor = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!seen.contains("create out/r.txt") && System.nanoTime() < deadline) {
                ToolResult r = ok(t.call("poll_watch", args("watch_id", id, "cursor", cursor, "wait_ms", 1000)));
                seen.addAll(described(r));
                cursor = (Long) r.get("cursor");
            }
            assertThat(seen).contains("create out", "create out/r.txt");

            CompletableFuture<ToolResult> later = CompletableFuture.supplyAsync(() -> {
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return t.call("bash", args("command", "echo x > out/late.txt"));
            });
            ToolResult late = ok(t.call("wait_for_file", args("path", "out/late.txt", "timeout_ms", 20_000)));
            assertThat(late.get("found")).as(late.toJson()).isEqualTo(true);
            assertThat(ok(later.join()).get("exit_code")).isEqualTo(0);
            assertThat(ok(t.call("stop_watch", args("watch_id", id))).get("stopped")).isEqualTo(true);
        }
    }

    /** A backend without watches answers every watch tool with a typed {@code unsupported}. */
    @Test
    void backendWithoutWatches_unsupported() {
        FileSystem real = sandbox.files();
        FileSystem noWatch = (FileSystem) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {FileSystem.class}, (proxy, method, a) -> {
                    if (method.getName().equals("watch") || method.getName().equals("waitFor")) {
                        throw new SandboxException(ErrorKind.UNSUPPORTED, "this backend cannot watch files");
                    }
                    try {
                        return method.invoke(real, a);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        Sandbox plain = (Sandbox) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Sandbox.class},
                (proxy, method, a) -> {
                    if (method.getName().equals("files")) {
                        return noWatch;
                    }
                    try {
                        return method.invoke(sandbox, a);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        SandboxTools t = new SandboxTools(plain);
        assertThat(t.call("watch_files", args("path", ".")).errorType()).isEqualTo("unsupported");
        assertThat(t.call("wait_for_file", args("path", "x")).errorType()).isEqualTo("unsupported");
        assertThat(t.call("poll_watch", args("watch_id", "w1")).errorType()).isEqualTo("not_found");
    }
}
