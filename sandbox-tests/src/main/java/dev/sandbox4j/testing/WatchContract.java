package dev.sandbox4j.testing;

import static dev.sandbox4j.testing.Checks.expectError;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.Feature;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.FileWatch;
import dev.sandbox4j.FileWatch.Event;
import dev.sandbox4j.FileWatch.Kind;
import dev.sandbox4j.Sandbox;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The conformance contract for {@link FileSystem#watch} and {@link FileSystem#waitFor}: what an agent waiting for a
 * file, or following a tree, may rely on. Changes made by commands count on every backend that runs commands.
 */
public interface WatchContract extends ConformanceSupport {

    /** Polls from the newest cursor seen until {@code done} holds for the events so far, or 10 s pass. */
    private static List<Event> collect(FileWatch w, Predicate<List<Event>> done) {
        List<Event> all = new ArrayList<>();
        long cursor = WatchCursors.get(w);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!done.test(all) && System.nanoTime() < deadline) {
            FileWatch.Batch b = w.poll(cursor, Duration.ofMillis(200));
            all.addAll(b.events());
            cursor = b.cursor();
        }
        WatchCursors.put(w, cursor);
        return all;
    }

    private static boolean has(List<Event> events, Kind kind, String path) {
        return events.stream().anyMatch(e -> e.kind() == kind && e.path().equals(path));
    }

    private static String show(List<Event> events) {
        return events.stream().map(e -> e.seq() + ":" + e.kind().code() + " " + e.path()
                + (e.fromPath().isEmpty() ? "" : " <- " + e.fromPath())).collect(Collectors.joining(", "));
    }

    @Test
    @Requires(Feature.FILE_WATCH)
    default void watch_fileApiChanges_areReportedInOrderWithSizes(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.mkdirs("src");
        try (FileWatch w = fs.watch("src")) {
            assertThat(w.path()).isEqualTo("src");
            assertThat(w.id()).isNotBlank();
            fs.write("src/a.txt", "hello");
            fs.append("src/a.txt", " world");
            fs.move("src/a.txt", "src/b.txt");
            fs.delete("src/b.txt");
            List<Event> events = collect(w, e -> has(e, Kind.REMOVE, "src/b.txt"));
            assertThat(has(events, Kind.CREATE, "src/a.txt")).as(show(events)).isTrue();
            assertThat(events).as(show(events)).anyMatch(e -> e.kind() == Kind.RENAME && e.path().equals("src/b.txt")
                    && e.fromPath().equals("src/a.txt"));
            assertThat(has(events, Kind.REMOVE, "src/b.txt")).as(show(events)).isTrue();
            assertThat(events).as("only paths under the watch").allMatch(e -> e.path().startsWith("src/"));
            for (int i = 1; i < events.size(); i++) {
                assertThat(events.get(i).seq()).as(show(events)).isGreaterThan(events.get(i - 1).seq());
            }
            Event created = events.stream().filter(e -> e.path().equals("src/a.txt")).findFirst().orElseThrow();
            assertThat(created.dir()).isFalse();
        }
    }

    @Test
    @Requires({Feature.FILE_WATCH, Feature.SHELL})
    default void watch_commandsChanges_count(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        try (FileWatch w = fs.watch("", FileWatch.Options.defaults().withDebounce(Duration.ZERO))) {
            // a file made in a directory made just before: the new directory is watched at once, and what it
            // holds by then is reported as created
            assertThat(sandbox.shell().run("mkdir -p out/deep && printf 12345 > out/deep/r.txt").exitCode()).isZero();
            List<Event> made = collect(w, e -> has(e, Kind.CREATE, "out/deep/r.txt"));
            assertThat(has(made, Kind.CREATE, "out")).as(show(made)).isTrue();
            assertThat(has(made, Kind.CREATE, "out/deep/r.txt")).as(show(made)).isTrue();
            assertThat(sandbox.shell().run("chmod 600 out/deep/r.txt && mv out/deep/r.txt out/r2.txt && rm out/r2.txt")
                    .exitCode()).isZero();
            List<Event> events = collect(w, e -> has(e, Kind.REMOVE, "out/r2.txt"));
            assertThat(events).as(show(events)).anyMatch(e -> e.kind() == Kind.RENAME && e.path().equals("out/r2.txt")
                    && e.fromPath().equals("out/deep/r.txt"));
            assertThat(has(events, Kind.REMOVE, "out/r2.txt")).as(show(events)).isTrue();
        }
        try (FileWatch w = fs.watch("out", FileWatch.Options.defaults().withDebounce(Duration.ZERO))) {
            sandbox.shell().run("printf abc > out/w.txt; printf def >> out/w.txt; chmod 640 out/w.txt");
            List<Event> events = collect(w, e -> has(e, Kind.CHMOD, "out/w.txt"));
            assertThat(has(events, Kind.WRITE, "out/w.txt")).as(show(events)).isTrue();
            assertThat(events).as(show(events)).anyMatch(e -> e.kind() == Kind.CHMOD && e.path().equals("out/w.txt")
                    && e.size() == 6 && e.modified().toEpochMilli() > 0);
        }
    }

    @Test
    @Requires(Feature.FILE_WATCH)
    default void watch_notRecursive_andGlobs_filter(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.mkdirs("t/sub");
        try (FileWatch flat = fs.watch("t", FileWatch.Options.defaults().withRecursive(false));
             FileWatch globs = fs.watch("t", FileWatch.Options.defaults().withIncludes(List.of("**/*.py"))
                     .withExcludes(List.of("t/sub/skip/**")))) {
            fs.write("t/sub/deep.py", "x");
            fs.mkdirs("t/sub/skip");
            fs.write("t/sub/skip/no.py", "x");
            fs.write("t/top.txt", "x");
            fs.write("t/last.py", "x");
            List<Event> top = collect(flat, e -> e.stream().anyMatch(x -> x.path().equals("t/last.py")));
            assertThat(top).as(show(top)).anyMatch(e -> e.path().equals("t/top.txt"))
                    .noneMatch(e -> e.path().startsWith("t/sub/"));
            List<Event> py = collect(globs, e -> e.stream().anyMatch(x -> x.path().equals("t/last.py")));
            assertThat(py).as(show(py)).anyMatch(e -> e.path().equals("t/sub/deep.py"))
                    .allMatch(e -> e.path().endsWith(".py")).noneMatch(e -> e.path().startsWith("t/sub/skip"));
        }
    }

    @Test
    @Requires(Feature.FILE_WATCH)
    default void poll_longPoll_wakesOnAChange_andCursorSkipsWhatWasRead(Sandbox sandbox) throws Exception {
        FileSystem fs = sandbox.files();
        try (FileWatch w = fs.watch("")) {
            FileWatch.Batch none = w.poll(0, Duration.ofMillis(300));
            assertThat(none.events()).isEmpty();
            assertThat(none.cursor()).isZero();
            assertThat(none.overflow()).isFalse();
            CompletableFuture<FileWatch.Batch> waiting = CompletableFuture.supplyAsync(
                    () -> w.poll(0, Duration.ofSeconds(20)));
            Thread.sleep(300);
            fs.write("woke.txt", "x");
            FileWatch.Batch b = waiting.get(20, TimeUnit.SECONDS);
            assertThat(b.events()).as("woken by the write, long before the 20 s wait").isNotEmpty();
            assertThat(b.cursor()).isGreaterThanOrEqualTo(b.events().get(b.events().size() - 1).seq());
            fs.write("next.txt", "y");
            List<Event> later = new ArrayList<>();
            long cursor = b.cursor();
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (later.stream().noneMatch(e -> e.path().equals("next.txt")) && System.nanoTime() < deadline) {
                FileWatch.Batch n = w.poll(cursor, Duration.ofMillis(500));
                later.addAll(n.events());
                cursor = n.cursor();
            }
            assertThat(later).as(show(later)).anyMatch(e -> e.path().equals("next.txt"))
                    .allMatch(e -> e.seq() > b.cursor());
        }
    }

    @Test
    @Requires(Feature.FILE_WATCH)
    default void poll_readerFallsBehind_getsOverflowThenTheNewest(Sandbox sandbox) throws InterruptedException {
        FileSystem fs = sandbox.files();
        try (FileWatch w = fs.watch("", FileWatch.Options.defaults().withCapacity(5));
             FileWatch probe = fs.watch("")) {
            for (int i = 0; i < 20; i++) {
                fs.write("f" + i + ".txt", "x");
            }
            // falling behind means the events are there before the first read: a second watch on the same directory
            // sees the last one first (the backend reads them together), then the first watch's debounce passes
            long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            for (long c = 0; System.nanoTime() < until; ) {
                FileWatch.Batch b = probe.poll(c, Duration.ofMillis(300));
                c = b.cursor();
                if (b.events().stream().anyMatch(e -> e.path().equals("f19.txt"))) {
                    break;
                }
            }
            Thread.sleep(FileWatch.Options.defaults().debounce().plusMillis(400).toMillis());
            List<Event> seen = new ArrayList<>();
            boolean overflow = false;
            long cursor = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (seen.stream().noneMatch(e -> e.path().equals("f19.txt")) && System.nanoTime() < deadline) {
                FileWatch.Batch b = w.poll(cursor, Duration.ofMillis(300));
                overflow |= b.overflow();
                // The bound is per batch: how many batches it takes depends on how fast events arrive.
                assertThat(b.events()).as("one batch never holds more than the capacity").hasSizeLessThanOrEqualTo(5);
                seen.addAll(b.events());
                cursor = b.cursor();
            }
            assertThat(overflow).as("20 files into a buffer of 5: " + show(seen)).isTrue();
            assertThat(seen).as(show(seen)).anyMatch(e -> e.path().equals("f19.txt"));
            assertThat(seen).as("in order, none twice: " + show(seen))
                    .isSortedAccordingTo(Comparator.comparingLong(Event::seq))
                    .doesNotHaveDuplicates();
        }
    }

    @Test
    @Requires(Feature.FILE_WATCH)
    default void waitFor_existingFile_answersAtOnce_missingOneTimesOut(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("here.txt", "12345");
        Optional<Event> now = fs.waitFor("here.txt", Kind.CREATE, Duration.ofSeconds(30));
        assertThat(now).isPresent();
        assertThat(now.get().seq()).isZero();
        assertThat(now.get().size()).isEqualTo(5);
        assertThat(fs.waitFor("never.txt", Kind.CREATE, Duration.ofMillis(300))).isEmpty();
        assertThat(fs.waitFor("never.txt", Kind.REMOVE, Duration.ofSeconds(30))).as("already absent").isPresent();
        expectError(ErrorKind.INVALID_PATH, () -> fs.waitFor("../x", Kind.CREATE, Duration.ofMillis(10)));
    }

    @Test
    @Requires(Feature.FILE_WATCH)
    default void waitFor_fileWrittenLater_inADirectoryMadeLater(Sandbox sandbox) throws Exception {
        FileSystem fs = sandbox.files();
        CompletableFuture<Optional<Event>> waiting = CompletableFuture.supplyAsync(
                () -> fs.waitFor("jobs/out/result.json", Kind.CREATE, Duration.ofSeconds(20)));
        Thread.sleep(500);
        fs.mkdirs("jobs/out");
        fs.write("jobs/out/result.json", "{}");
        Optional<Event> got = waiting.get(25, TimeUnit.SECONDS);
        assertThat(got).as("the file a job wrote, in a directory that did not exist when the wait began").isPresent();
        assertThat(got.get().path()).isEqualTo("jobs/out/result.json");
    }

    @Test
    @Requires(Feature.FILE_WATCH)
    default void waitFor_write_answersAnOverwrite_thatTheApiMakesAtomically(Sandbox sandbox) throws Exception {
        FileSystem fs = sandbox.files();
        fs.write("status", "running");
        CompletableFuture<Optional<Event>> waiting = CompletableFuture.supplyAsync(
                () -> fs.waitFor("status", Kind.WRITE, Duration.ofSeconds(20)));
        Thread.sleep(500);
        fs.write("status", "done");
        Optional<Event> got = waiting.get(25, TimeUnit.SECONDS);
        assertThat(got).as("new content, whatever kind the replacement is reported as").isPresent();
        assertThat(got.get().path()).isEqualTo("status");
        assertThat(got.get().size()).isEqualTo(4);
    }

    @Test
    @Requires({Feature.FILE_WATCH, Feature.SHELL, Feature.BACKGROUND_PROCESSES})
    default void waitFor_aBackgroundCommandsOutput(Sandbox sandbox) {
        try (ExecHandle h = sandbox.shell().start(ExecRequest.shell("sleep 1; echo done > done.txt; sleep 30"))) {
            Optional<Event> got = sandbox.files().waitFor("done.txt", Kind.CREATE, Duration.ofSeconds(20));
            assertThat(got).isPresent();
            assertThat(h.isAlive()).as("the wait did not depend on the command ending").isTrue();
        }
    }

    @Test
    @Requires({Feature.FILE_WATCH, Feature.SHELL, Feature.BYTE_FILE_NAMES})
    default void watch_nonUtf8Name_isReportedWithoutBreakingTheWatch(Sandbox sandbox) {
        try (FileWatch w = sandbox.files().watch("")) {
            sandbox.shell().run("printf x > \"$(printf 'bad\\377name')\" && printf y > good.txt");
            List<Event> events = collect(w, e -> has(e, Kind.CREATE, "good.txt"));
            assertThat(has(events, Kind.CREATE, "good.txt")).as(show(events)).isTrue();
            assertThat(events).as("the byte that is not UTF-8 reads as U+FFFD: " + show(events))
                    .anyMatch(e -> e.path().equals("bad\uFFFDname"));
        }
    }

    @Test
    @Requires(Feature.FILE_WATCH)
    default void watch_badInput_isRefusedTyped(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        expectError(ErrorKind.NOT_FOUND, () -> fs.watch("missing"));
        expectError(ErrorKind.INVALID_PATH, () -> fs.watch("../.."));
        fs.mkdirs("d");
        expectError(ErrorKind.INVALID_ARGUMENT, () -> fs.watch("d", FileWatch.Options.defaults()
                .withIncludes(List.of("a[z-a].txt"))));
        FileWatch w = fs.watch("d");
        expectError(ErrorKind.INVALID_ARGUMENT, () -> w.poll(-1, Duration.ZERO));
        w.close();
        w.close();
        assertThat(w.isOpen()).isFalse();
        expectError(ErrorKind.CLOSED, () -> w.poll(0, Duration.ZERO));
    }

    @Test
    @Requires(Feature.FILE_WATCH)
    default void watch_tooMany_isRefused_andClosingOneMakesRoom(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        List<FileWatch> open = new ArrayList<>();
        try {
            SandboxExceptionHolder refused = new SandboxExceptionHolder();
            for (int i = 0; i < 200 && refused.error == null; i++) {
                try {
                    open.add(fs.watch(""));
                } catch (dev.sandbox4j.SandboxException e) {
                    refused.error = e;
                }
            }
            assertThat(refused.error).as("a bound on watches per sandbox").isNotNull();
            assertThat(refused.error.kind()).isEqualTo(ErrorKind.TOO_LARGE);
            open.remove(0).close();
            open.add(fs.watch(""));
        } finally {
            open.forEach(FileWatch::close);
        }
    }

    /** Holds the refusal met in a loop. */
    final class SandboxExceptionHolder {
        dev.sandbox4j.SandboxException error;
    }

    @Test
    @Requires(Feature.FILE_WATCH)
    default void closingTheSandbox_endsItsWatches() throws Exception {
        Sandbox sandbox = fixture().open(dev.sandbox4j.SandboxSpec.defaults());
        FileWatch w;
        CompletableFuture<Object> waiting;
        try {
            w = sandbox.files().watch("");
            waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return w.poll(0, Duration.ofSeconds(30));
                } catch (dev.sandbox4j.SandboxException e) {
                    return e.kind();
                }
            });
            Thread.sleep(300);
        } finally {
            sandbox.close();
        }
        assertThat(waiting.get(10, TimeUnit.SECONDS)).as("a waiting poll returns when the sandbox closes")
                .isEqualTo(ErrorKind.CLOSED);
        assertThat(w.isOpen()).isFalse();
        expectError(ErrorKind.CLOSED, () -> w.poll(0, Duration.ZERO));
    }
}
