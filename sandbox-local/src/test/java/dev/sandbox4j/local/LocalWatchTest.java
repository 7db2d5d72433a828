package dev.sandbox4j.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.FileWatch;
import dev.sandbox4j.Sandbox;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The agent's watch bounds, under what sandboxed code can do to a watch (the kit covers the semantics). */
class LocalWatchTest {

    @Test
    void aTreeOverTheDirectoryBound_isWatchedUpToIt_andSaysSo() {
        try (Sandbox s = Jail.open()) {
            ExecResult made = s.shell().run(ExecRequest.shell("mkdir -p t && cd t && seq 1 9000 | xargs mkdir")
                    .withTimeout(Duration.ofSeconds(60)));
            assertThat(made.exitCode()).as(made.toString()).isZero();
            try (FileWatch w = s.files().watch("t")) {
                FileWatch.Batch first = w.poll(0, Duration.ofSeconds(5));
                assertThat(first.overflow()).as("9,000 directories, 8,192 watched: the reader must know").isTrue();
                // the watch still works for what it covers
                s.files().write("t/new.txt", "x");
                assertThat(drain(w, first.cursor(), "t/new.txt")).isTrue();
            }
        }
    }

    @Test
    void aFloodOfChanges_endsInEventsOrAnOverflow_neverAStuckSandbox() {
        try (Sandbox s = Jail.open()) {
            try (FileWatch w = s.files().watch("", FileWatch.Options.defaults().withDebounce(Duration.ZERO))) {
                ExecResult flood = s.shell().run(ExecRequest.shell(
                        "mkdir f && cd f && seq 1 30000 | xargs touch && touch ../last.txt")
                        .withTimeout(Duration.ofSeconds(120)));
                assertThat(flood.exitCode()).as(flood.toString()).isZero();
                long cursor = 0;
                boolean overflow = false;
                boolean last = false;
                int events = 0;
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (!last && System.nanoTime() < deadline) {
                    FileWatch.Batch b = w.poll(cursor, Duration.ofSeconds(1));
                    overflow |= b.overflow();
                    events += b.events().size();
                    last = b.events().stream().anyMatch(e -> e.path().equals("last.txt"));
                    cursor = b.cursor();
                }
                assertThat(last).as("the change after the flood arrives (" + events + " events, overflow "
                        + overflow + ")").isTrue();
                assertThat(overflow).as("30,000 files into a 10,000-event buffer read only at the end").isTrue();
            }
            assertThat(s.shell().run("echo ok").stdout()).isEqualTo("ok\n");
        }
    }

    @Test
    void aRenamedDirectory_isFollowed_andOneMovedOut_isNoLongerReported() {
        try (Sandbox s = Jail.open()) {
            s.files().mkdirs("w/a");
            s.files().mkdirs("outside");
            try (FileWatch w = s.files().watch("w", FileWatch.Options.defaults().withDebounce(Duration.ZERO))) {
                s.shell().run("mv w/a w/b && echo 1 > w/b/in-b.txt && mv w/b outside/b && echo 2 > outside/b/gone.txt"
                        + " && echo 3 > w/end.txt");
                Set<String> seen = new HashSet<>();
                long cursor = 0;
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (!seen.contains("create w/end.txt") && System.nanoTime() < deadline) {
                    FileWatch.Batch b = w.poll(cursor, Duration.ofMillis(500));
                    b.events().forEach(e -> seen.add(e.kind().code() + " " + e.path()));
                    cursor = b.cursor();
                }
                assertThat(seen).contains("rename w/b", "create w/b/in-b.txt", "remove w/b", "create w/end.txt");
                assertThat(seen).noneMatch(e -> e.contains("gone.txt"));
            }
        }
    }

    private static boolean drain(FileWatch w, long cursor, String path) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            FileWatch.Batch b = w.poll(cursor, Duration.ofMillis(500));
            if (b.events().stream().anyMatch(e -> e.path().equals(path))) {
                return true;
            }
            cursor = b.cursor();
        }
        return false;
    }
}
