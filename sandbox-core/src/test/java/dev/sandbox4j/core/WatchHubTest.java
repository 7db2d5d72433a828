package dev.sandbox4j.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileWatch;
import dev.sandbox4j.FileWatch.Event;
import dev.sandbox4j.FileWatch.Kind;
import dev.sandbox4j.SandboxException;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * WatchHub's own logic (filtering, debounce, numbering, overflow marks, capacity), driven by raw changes pushed by
 * hand; the backends' kit runs it over real inotify. And the agent's record decoder under hostile bytes.
 */
class WatchHubTest {
    @TempDir
    Path dir;
    private NioWorkspace files;
    private final Map<Integer, WatchHub.Sink> sinks = new ConcurrentHashMap<>();
    private WatchHub hub;

    @BeforeEach
    void setUp() throws IOException {
        Path root = Files.createDirectories(dir.resolve("ws"));
        Path staging = Files.createDirectories(dir.resolve("staging"));
        files = new NioWorkspace(root, staging, NioWorkspace.Options.defaults());
        files.mkdirs("d/sub");
        hub = files.enableWatches(new WatchHub.Source() {
            @Override
            public void start(int id, String path, boolean recursive, WatchHub.Sink sink) {
                sinks.put(id, sink);
            }

            @Override
            public void stop(int id) {
                sinks.remove(id);
            }
        });
    }

    private WatchHub.Sink sink() {
        assertThat(sinks).hasSize(1);
        return sinks.values().iterator().next();
    }

    private static void write(WatchHub.Sink s, String path, long size) {
        s.event(Kind.WRITE, path, "", false, size, 1000);
    }

    @Test
    void writesWithinTheDebounceAreOneEvent_withTheLastSize_unlessAlreadyRead() {
        FileWatch w = files.watch("d", FileWatch.Options.defaults().withDebounce(Duration.ofSeconds(30)));
        WatchHub.Sink s = sink();
        for (int i = 1; i <= 20; i++) {
            write(s, "d/a.txt", i);
        }
        FileWatch.Batch b = w.poll(0, Duration.ZERO);
        assertThat(b.events()).hasSize(1);
        assertThat(b.events().get(0).size()).isEqualTo(20);
        write(s, "d/a.txt", 21); // the reader has seen the first: a new event, never a silent change of a read one
        FileWatch.Batch next = w.poll(b.cursor(), Duration.ZERO);
        assertThat(next.events()).extracting(Event::size).containsExactly(21L);
        assertThat(next.events().get(0).seq()).isEqualTo(2);
    }

    @Test
    void zeroDebounceKeepsEveryWrite_andOtherKindsBreakARun() {
        FileWatch w = files.watch("d", FileWatch.Options.defaults().withDebounce(Duration.ZERO));
        WatchHub.Sink s = sink();
        write(s, "d/a.txt", 1);
        write(s, "d/a.txt", 2);
        assertThat(w.poll(0, Duration.ZERO).events()).hasSize(2);
        FileWatch w2 = files.watch("d", FileWatch.Options.defaults().withDebounce(Duration.ofSeconds(30)));
        WatchHub.Sink s2 = sinks.entrySet().stream().filter(e -> e.getValue() != s).findFirst().orElseThrow()
                .getValue();
        write(s2, "d/a.txt", 1);
        s2.event(Kind.CHMOD, "d/a.txt", "", false, 1, 1000);
        write(s2, "d/a.txt", 2);
        assertThat(w2.poll(0, Duration.ZERO).events()).extracting(Event::kind)
                .containsExactly(Kind.WRITE, Kind.CHMOD, Kind.WRITE);
    }

    @Test
    void aFullBufferDropsTheOldest_andTheReaderIsToldOnce() {
        FileWatch w = files.watch("d", FileWatch.Options.defaults().withCapacity(3).withDebounce(Duration.ZERO));
        WatchHub.Sink s = sink();
        for (int i = 0; i < 10; i++) {
            s.event(Kind.CREATE, "d/f" + i, "", false, 0, 0);
        }
        FileWatch.Batch b = w.poll(0, Duration.ZERO);
        assertThat(b.overflow()).isTrue();
        assertThat(b.events()).extracting(Event::path).containsExactly("d/f7", "d/f8", "d/f9");
        assertThat(b.cursor()).isEqualTo(10);
        FileWatch.Batch again = w.poll(b.cursor(), Duration.ZERO);
        assertThat(again.overflow()).isFalse();
        assertThat(again.events()).isEmpty();
    }

    @Test
    void aKernelOverflowTakesANumber_soEachReaderSeesItOnce() {
        FileWatch w = files.watch("d");
        WatchHub.Sink s = sink();
        s.event(Kind.CREATE, "d/a", "", false, 0, 0);
        s.overflow();
        s.event(Kind.CREATE, "d/b", "", false, 0, 0);
        FileWatch.Batch first = w.poll(1, Duration.ZERO);
        assertThat(first.overflow()).isTrue();
        assertThat(first.events()).extracting(Event::seq).containsExactly(3L);
        assertThat(w.poll(first.cursor(), Duration.ZERO).overflow()).isFalse();
        assertThat(w.poll(0, Duration.ZERO).events()).extracting(Event::path).containsExactly("d/a", "d/b");
    }

    @Test
    void pathsOutsideTheWatch_orDeeperThanANonRecursiveOne_areDropped() {
        FileWatch w = files.watch("d", FileWatch.Options.defaults().withRecursive(false));
        WatchHub.Sink s = sink();
        s.event(Kind.CREATE, "other/x", "", false, 0, 0);
        s.event(Kind.CREATE, "dd/x", "", false, 0, 0);
        s.event(Kind.CREATE, "d/sub/x", "", false, 0, 0);
        s.event(Kind.CREATE, "d/x", "", false, 0, 0);
        assertThat(w.poll(0, Duration.ZERO).events()).extracting(Event::path).containsExactly("d/x");
    }

    @Test
    void anExcludedDirectoryHidesEverythingBelowIt() {
        FileWatch w = files.watch("d", FileWatch.Options.defaults().withExcludes(List.of("node_modules")));
        WatchHub.Sink s = sink();
        s.event(Kind.CREATE, "d/node_modules/a/b.js", "", false, 0, 0);
        s.event(Kind.CREATE, "d/src/b.js", "", false, 0, 0);
        assertThat(w.poll(0, Duration.ZERO).events()).extracting(Event::path).containsExactly("d/src/b.js");
    }

    @Test
    void theSourceEndingAWatch_endsItsPolls() {
        FileWatch w = files.watch("d");
        sink().ended("the agent went away");
        assertThat(w.isOpen()).isFalse();
        assertThatThrownBy(() -> w.poll(0, Duration.ZERO)).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.getMessage()).contains("the agent went away"));
        assertThat(hub.size()).isZero();
    }

    @Test
    void aSourceThatRefuses_isTypedAndLeavesNoWatch() {
        WatchHub refusing = new WatchHub(new WatchHub.Source() {
            @Override
            public void start(int id, String path, boolean recursive, WatchHub.Sink sink) throws IOException {
                throw new IOException("cannot watch: No such file or directory");
            }

            @Override
            public void stop(int id) {
            }
        }, files);
        assertThatThrownBy(() -> refusing.watch("d", FileWatch.Options.defaults()))
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind()).isEqualTo(
                        ErrorKind.NOT_FOUND));
        assertThat(refusing.size()).isZero();
    }

    @Test
    void waitForKinds_meanWhatAWaitingAgentMeans() {
        Event created = new Event(1, Kind.CREATE, "s", "", false, 4, java.time.Instant.EPOCH);
        Event renamedOnto = new Event(2, Kind.RENAME, "s", ".tmp", false, 4, java.time.Instant.EPOCH);
        Event renamedAway = new Event(3, Kind.RENAME, "t", "s", false, 4, java.time.Instant.EPOCH);
        Event written = new Event(4, Kind.WRITE, "s", "", false, 4, java.time.Instant.EPOCH);
        Event removed = new Event(5, Kind.REMOVE, "s", "", false, 0, java.time.Instant.EPOCH);
        Event other = new Event(6, Kind.WRITE, "s2", "", false, 4, java.time.Instant.EPOCH);
        Event openedEmpty = new Event(7, Kind.CREATE, "s", "", false, 0, java.time.Instant.EPOCH);
        assertThat(List.of(created, renamedOnto, written)).allMatch(e -> WatchHub.answers(Kind.WRITE, "s", e));
        assertThat(List.of(renamedAway, removed, other, openedEmpty))
                .noneMatch(e -> WatchHub.answers(Kind.WRITE, "s", e));
        assertThat(List.of(created, renamedOnto)).allMatch(e -> WatchHub.answers(Kind.CREATE, "s", e));
        assertThat(List.of(written, removed, renamedAway)).noneMatch(e -> WatchHub.answers(Kind.CREATE, "s", e));
        assertThat(List.of(removed, renamedAway)).allMatch(e -> WatchHub.answers(Kind.REMOVE, "s", e));
        assertThat(List.of(created, written, renamedOnto)).noneMatch(e -> WatchHub.answers(Kind.REMOVE, "s", e));
    }

    // ---------------------------------------------------------------- the agent's records

    private static byte[] record(int kind, String path, String from) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream d = new DataOutputStream(b);
        d.writeByte(kind);
        d.writeByte(0);
        d.writeLong(5);
        d.writeLong(1_700_000_000_000L);
        byte[] p = path.getBytes(StandardCharsets.UTF_8);
        d.writeInt(p.length);
        d.write(p);
        byte[] f = from.getBytes(StandardCharsets.UTF_8);
        d.writeInt(f.length);
        d.write(f);
        return b.toByteArray();
    }

    /** Records what a sink gets. */
    private static final class Recorder implements WatchHub.Sink {
        final List<String> got = new ArrayList<>();
        int overflows;

        @Override
        public void event(Kind kind, String path, String from, boolean dir, long size, long mtime) {
            got.add(kind.code() + " " + path + (from.isEmpty() ? "" : " <- " + from));
            assertThat(size).isNotNegative();
            assertThat(mtime).isNotNegative();
        }

        @Override
        public void overflow() {
            overflows++;
        }

        @Override
        public void ended(String why) {
        }
    }

    @Test
    void decode_wellFormedRecords() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(record(0, "d/a.txt", ""));
        b.writeBytes(record(3, "d/b.txt", "d/a.txt"));
        Recorder r = new Recorder();
        AgentWatches.decode(b.toByteArray(), r);
        assertThat(r.got).containsExactly("create d/a.txt", "rename d/b.txt <- d/a.txt");
        assertThat(r.overflows).isZero();
    }

    @Test
    void decode_unsafePathsAndBadKinds_areDroppedAsOverflow() throws IOException {
        for (byte[] bad : List.of(record(0, "../etc/passwd", ""), record(0, "d/../../x", ""), record(0, "/abs", ""),
                record(0, "", ""), record(0, "d//x", ""), record(9, "d/x", ""), record(-1, "d/x", ""),
                record(3, "d/x", ""), record(0, "d/x", "d/y"), record(0, "d/\0x", ""))) {
            Recorder r = new Recorder();
            AgentWatches.decode(bad, r);
            assertThat(r.got).isEmpty();
            assertThat(r.overflows).isEqualTo(1);
        }
    }

    @Test
    void decode_randomAndTruncatedBytes_neverThrow() throws IOException {
        Random random = new Random(Long.getLong("sandbox4j.fuzz.seed", 20261123L));
        byte[] good = record(0, "d/a.txt", "");
        for (int round = 0; round < 20_000; round++) {
            byte[] p;
            if (round % 2 == 0) {
                p = new byte[random.nextInt(80)];
                random.nextBytes(p);
            } else {
                p = good.clone();
                p[random.nextInt(p.length)] = (byte) random.nextInt(256); // one corrupted byte: lengths too
                if (random.nextBoolean()) {
                    p = java.util.Arrays.copyOf(p, random.nextInt(p.length + 1));
                }
            }
            AgentWatches.decode(p, new Recorder());
        }
    }
}
