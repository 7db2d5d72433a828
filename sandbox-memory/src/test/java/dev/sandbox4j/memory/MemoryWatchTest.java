package dev.sandbox4j.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Feature;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.FileWatch;
import dev.sandbox4j.FileWatch.Kind;
import dev.sandbox4j.SandboxException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Watches on the in-memory backend: the file API's own changes, each kind, filtering, long-poll, waitFor. */
class MemoryWatchTest {
    private final MemorySandbox sandbox = MemorySandbox.open();
    private final FileSystem fs = sandbox.files();

    @AfterEach
    void close() {
        sandbox.close();
    }

    private static FileWatch.Options noDebounce() {
        return FileWatch.Options.defaults().withDebounce(Duration.ZERO);
    }

    /** Kind and path of each event, such as {@code create a.txt} or {@code rename a -> b}. */
    private static List<String> described(FileWatch.Batch batch) {
        List<String> out = new ArrayList<>();
        for (FileWatch.Event e : batch.events()) {
            out.add(e.kind().code() + " " + (e.fromPath().isEmpty() ? "" : e.fromPath() + " -> ") + e.path());
        }
        return out;
    }

    private static List<String> drain(FileWatch w) {
        return described(w.poll(0, Duration.ZERO));
    }

    @Test
    void features_declareFileWatch() {
        assertThat(sandbox.info().supports(Feature.FILE_WATCH)).isTrue();
        assertThat(new MemorySandboxProvider().features()).contains(Feature.FILE_WATCH);
    }

    @Test
    void eachKind_reportedWithTypeSizeAndTime() {
        Instant before = Instant.now().minusSeconds(1);
        try (FileWatch w = fs.watch("", noDebounce())) {
            assertThat(w.id()).matches("w\\d+");
            assertThat(w.path()).isEmpty();
            fs.write("a.txt", "one");
            fs.append("a.txt", "two");
            fs.mkdirs("d/e");
            fs.replace("a.txt", "two", "three");
            fs.delete("a.txt");

            FileWatch.Batch b = w.poll(0, Duration.ZERO);
            // a replace writes a new file renamed over the old one: a create, as inotify reports it on local
            assertThat(described(b)).containsExactly("create a.txt", "write a.txt", "create d", "create d/e",
                    "create a.txt", "remove a.txt");
            assertThat(b.events()).extracting(FileWatch.Event::seq).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
            assertThat(b.cursor()).isEqualTo(6);
            assertThat(b.overflow()).isFalse();
            FileWatch.Event created = b.events().get(0);
            assertThat(created.dir()).isFalse();
            assertThat(created.size()).isEqualTo(3);
            assertThat(created.modified()).isAfter(before);
            assertThat(b.events().get(1).size()).isEqualTo(6);
            assertThat(b.events().get(2).dir()).isTrue();
            assertThat(b.events().get(4).size()).isEqualTo(8);
            FileWatch.Event removed = b.events().get(5);
            assertThat(removed.size()).isZero();
            assertThat(removed.modified()).isEqualTo(Instant.EPOCH);
            // the cursor moves on: nothing new
            assertThat(w.poll(b.cursor(), Duration.ZERO).events()).isEmpty();
        }
    }

    @Test
    void editsAndCopies_writeOrCreate_previewChangesNothing() {
        fs.write("src/a.txt", "alpha\n");
        fs.write("src/sub/b.txt", "beta\n");
        fs.write("old.txt", "old");
        try (FileWatch w = fs.watch("", noDebounce())) {
            fs.previewEdit("src/a.txt", List.of(new dev.sandbox4j.Edit("alpha", "ALPHA")));
            fs.edit("src/a.txt", List.of(new dev.sandbox4j.Edit("alpha", "ALPHA")));
            fs.copy("src", "dst");
            fs.copyReplacing("src/a.txt", "old.txt");
            assertThat(drain(w)).containsExactly("create src/a.txt", "create dst", "create dst/a.txt",
                    "create dst/sub", "create dst/sub/b.txt", "create old.txt");
        }
    }

    @Test
    void deleteRecursively_removesChildrenFirst() {
        fs.write("t/a.txt", "a");
        fs.write("t/s/b.txt", "b");
        try (FileWatch w = fs.watch("", noDebounce())) {
            fs.deleteRecursively("t");
            FileWatch.Batch b = w.poll(0, Duration.ZERO);
            assertThat(described(b)).containsExactly("remove t/s/b.txt", "remove t/s", "remove t/a.txt",
                    "remove t");
            assertThat(b.events()).extracting(FileWatch.Event::dir).containsExactly(false, true, false, true);
        }
    }

    @Test
    void rename_insideIsOneEvent_acrossTheEdgeIsCreateOrRemove() {
        fs.write("in/a.txt", "a");
        fs.write("out/b.txt", "b");
        fs.write("in/c.txt", "c");
        fs.write("in/d.txt", "d");
        try (FileWatch w = fs.watch("in", noDebounce())) {
            fs.move("in/a.txt", "in/a2.txt");
            fs.move("out/b.txt", "in/b.txt");
            fs.move("in/c.txt", "out/c.txt");
            fs.moveReplacing("in/d.txt", "in/a2.txt");
            FileWatch.Batch b = w.poll(0, Duration.ZERO);
            assertThat(described(b)).containsExactly("rename in/a.txt -> in/a2.txt", "create in/b.txt",
                    "remove in/c.txt", "rename in/d.txt -> in/a2.txt");
            assertThat(b.events().get(3).size()).isEqualTo(1);
        }
    }

    @Test
    void recursive_seesSubdirectories_nonRecursive_onlyDirectChildren() {
        fs.mkdirs("top/sub");
        try (FileWatch deep = fs.watch("top", noDebounce());
             FileWatch flat = fs.watch("top", noDebounce().withRecursive(false))) {
            fs.write("top/a.txt", "a");
            fs.write("top/sub/b.txt", "b");
            fs.write("elsewhere.txt", "x");
            assertThat(drain(deep)).containsExactly("create top/a.txt", "create top/sub/b.txt");
            assertThat(drain(flat)).containsExactly("create top/a.txt");
        }
    }

    @Test
    void watchOnAFile_getsThatFileOnly() {
        fs.write("log.txt", "");
        fs.write("log.txt.bak", "");
        try (FileWatch w = fs.watch("log.txt", noDebounce())) {
            assertThat(w.path()).isEqualTo("log.txt");
            fs.append("log.txt", "line\n");
            fs.append("log.txt.bak", "line\n");
            fs.write("other.txt", "x");
            assertThat(drain(w)).containsExactly("write log.txt");
        }
    }

    @Test
    void includeAndExclude_filterByGlob() {
        FileWatch.Options options = noDebounce().withIncludes(List.of("**/*.java"))
                .withExcludes(List.of("build"));
        try (FileWatch w = fs.watch("", options)) {
            fs.write("src/A.java", "class A {}");
            fs.write("src/notes.txt", "n");
            fs.write("build/B.java", "class B {}");
            assertThat(drain(w)).containsExactly("create src/A.java");
        }
    }

    @Test
    void poll_waitingForTheFirstEvent_isWokenByAWriteFromAnotherThread() throws Exception {
        try (FileWatch w = fs.watch("", noDebounce())) {
            CompletableFuture<FileWatch.Batch> polled = CompletableFuture.supplyAsync(
                    () -> w.poll(0, Duration.ofSeconds(20)));
            Thread.sleep(200);
            assertThat(polled).isNotDone();
            long start = System.nanoTime();
            fs.write("late.txt", "x");
            FileWatch.Batch b = polled.get(10, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
            assertThat(described(b)).containsExactly("create late.txt");
        }
    }

    @Test
    void poll_nothingComes_returnsEmptyAfterTheWait() {
        try (FileWatch w = fs.watch("")) {
            long start = System.nanoTime();
            FileWatch.Batch b = w.poll(0, Duration.ofMillis(300));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
            assertThat(b.events()).isEmpty();
            assertThat(b.cursor()).isZero();
            assertThat(b.overflow()).isFalse();
        }
    }

    @Test
    void waitFor_existingFile_answersAtOnceWithSeqZero() {
        fs.write("ready.txt", "ok");
        Optional<FileWatch.Event> e = fs.waitFor("ready.txt", Kind.CREATE, Duration.ofSeconds(10));
        assertThat(e).isPresent();
        assertThat(e.get().seq()).isZero();
        assertThat(e.get().path()).isEqualTo("ready.txt");
        assertThat(e.get().size()).isEqualTo(2);
    }

    @Test
    void waitFor_fileWrittenLaterByAnotherThread_isFound() throws Exception {
        CompletableFuture<Optional<FileWatch.Event>> waiting = CompletableFuture.supplyAsync(
                () -> fs.waitFor("out/result.json", Kind.CREATE, Duration.ofSeconds(20)));
        Thread.sleep(200);
        assertThat(waiting).isNotDone();
        fs.write("out/noise.txt", "n");
        fs.write("out/result.json", "{}");
        Optional<FileWatch.Event> e = waiting.get(10, TimeUnit.SECONDS);
        assertThat(e).isPresent();
        assertThat(e.get().kind()).isEqualTo(Kind.CREATE);
        assertThat(e.get().path()).isEqualTo("out/result.json");
        assertThat(e.get().seq()).isPositive();
    }

    @Test
    void waitFor_write_byAScriptedCommand() throws Exception {
        fs.write("status", "running");
        sandbox.onCommand("finish", r -> {
            fs.write("status", "done");
            return ExecResult.of(0, "", "");
        });
        CompletableFuture<Optional<FileWatch.Event>> waiting = CompletableFuture.supplyAsync(
                () -> fs.waitFor("status", Kind.WRITE, Duration.ofSeconds(20)));
        Thread.sleep(200);
        sandbox.shell().run("finish");
        Optional<FileWatch.Event> e = waiting.get(10, TimeUnit.SECONDS);
        assertThat(e).map(FileWatch.Event::size).contains(4L);
    }

    @Test
    void waitFor_timeout_givesEmpty() {
        long start = System.nanoTime();
        assertThat(fs.waitFor("never.txt", Kind.CREATE, Duration.ofMillis(300))).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
        assertThat(fs.exists("never.txt")).isFalse();
    }

    @Test
    void overflow_smallCapacity_keepsTheNewestAndSaysSo() {
        try (FileWatch w = fs.watch("", noDebounce().withCapacity(3))) {
            for (int i = 1; i <= 10; i++) {
                fs.write("f" + i, "x");
            }
            FileWatch.Batch b = w.poll(0, Duration.ZERO);
            assertThat(b.overflow()).isTrue();
            assertThat(described(b)).containsExactly("create f8", "create f9", "create f10");
            assertThat(b.cursor()).isEqualTo(10);
            FileWatch.Batch next = w.poll(b.cursor(), Duration.ZERO);
            assertThat(next.overflow()).isFalse();
            assertThat(next.events()).isEmpty();
        }
    }

    @Test
    void debounce_quickWritesToOneFile_fewerEvents_lastHasTheFinalSize() {
        fs.write("grow.txt", "");
        try (FileWatch w = fs.watch("", FileWatch.Options.defaults().withDebounce(Duration.ofMillis(200)))) {
            for (int i = 1; i <= 20; i++) {
                fs.append("grow.txt", "x");
            }
            FileWatch.Batch b = w.poll(0, Duration.ZERO);
            assertThat(b.events()).isNotEmpty().allMatch(e -> e.kind() == Kind.WRITE);
            assertThat(b.events().size()).isLessThan(20);
            assertThat(b.events().get(b.events().size() - 1).size()).isEqualTo(20);
        }
        try (FileWatch every = fs.watch("", noDebounce())) {
            for (int i = 1; i <= 20; i++) {
                fs.append("grow.txt", "x");
            }
            assertThat(every.poll(0, Duration.ZERO).events()).hasSize(20);
        }
    }

    @Test
    void close_endsTheWatch_laterPollsFailClosed() {
        FileWatch w = fs.watch("");
        assertThat(w.isOpen()).isTrue();
        w.close();
        w.close(); // idempotent
        assertThat(w.isOpen()).isFalse();
        assertThatThrownBy(() -> w.poll(0, Duration.ZERO)).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.kind()).isEqualTo(ErrorKind.CLOSED));
        fs.write("after.txt", "x"); // nothing to deliver to, nothing fails
    }

    @Test
    void closingTheSandbox_endsItsWatches_andAWaitingPoll() throws Exception {
        FileWatch w = fs.watch("");
        CompletableFuture<FileWatch.Batch> polled = CompletableFuture.supplyAsync(
                () -> w.poll(0, Duration.ofSeconds(20)));
        Thread.sleep(200);
        sandbox.close();
        assertThat(w.isOpen()).isFalse();
        assertThat(polled).failsWithin(Duration.ofSeconds(10)).withThrowableOfType(
                java.util.concurrent.ExecutionException.class).havingCause().isInstanceOfSatisfying(
                SandboxException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.CLOSED));
        assertThatThrownBy(() -> fs.watch("")).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.kind()).isEqualTo(ErrorKind.CLOSED));
    }

    @Test
    void badInput_typedErrors_andTheLimitOf64() {
        assertThatThrownBy(() -> fs.watch("missing")).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.kind()).isEqualTo(ErrorKind.NOT_FOUND));
        assertThatThrownBy(() -> fs.watch("../outside")).isInstanceOf(SandboxException.class);
        List<FileWatch> open = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            open.add(fs.watch(""));
        }
        assertThatThrownBy(() -> fs.watch("")).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.kind()).isEqualTo(ErrorKind.TOO_LARGE));
        open.get(0).close();
        fs.watch("").close(); // room again
        open.forEach(FileWatch::close);
    }
}
