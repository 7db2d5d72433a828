package dev.sandbox4j.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.Snapshot;
import dev.sandbox4j.SnapshotStore;
import dev.sandbox4j.core.NioWorkspace;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link JdbcSnapshotStore} on an embedded H2 database: chunks, all-or-nothing puts, and a capture and restore. */
class JdbcSnapshotStoreTest {
    static JdbcSnapshotStore store;
    static JdbcDataSource ds;

    @BeforeAll
    static void database() throws IOException {
        ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:snapshots-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        store = new JdbcSnapshotStore(ds).createTables().createTables(); // twice: the second finds them
    }

    @Test
    void put_get_stat_list_delete_acrossChunks() throws IOException {
        byte[] data = new byte[JdbcSnapshotStore.CHUNK * 2 + 123];
        new Random(7).nextBytes(data);
        store.put("a1", new ByteArrayInputStream(data));
        assertThat(store.stat("a1").orElseThrow().size()).isEqualTo(data.length);
        assertThat(store.list()).extracting(SnapshotStore.Stored::id).contains("a1");
        try (InputStream in = store.get("a1").orElseThrow()) {
            assertThat(in.readAllBytes()).isEqualTo(data);
        }
        store.put("a1", new ByteArrayInputStream(new byte[] {1, 2, 3})); // replaced
        try (InputStream in = store.get("a1").orElseThrow()) {
            assertThat(in.readAllBytes()).containsExactly(1, 2, 3);
        }
        assertThat(store.delete("a1")).isTrue();
        assertThat(store.delete("a1")).isFalse();
        assertThat(store.get("a1")).isEmpty();
        assertThat(store.stat("a1")).isEmpty();
    }

    @Test
    void aStreamFailingHalfway_leavesNothing() throws IOException {
        InputStream failing = new SequenceInputStream(new ByteArrayInputStream(new byte[JdbcSnapshotStore.CHUNK + 5]),
                new InputStream() {
                    @Override
                    public int read() throws IOException {
                        throw new IOException("the capture failed");
                    }
                });
        assertThatThrownBy(() -> store.put("half", failing)).isInstanceOf(IOException.class);
        assertThat(store.list()).extracting(SnapshotStore.Stored::id).doesNotContain("half");
    }

    @Test
    void captureAndRestore_throughTheDatabase(@TempDir Path tmp) throws IOException {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        Files.writeString(ws.resolve("hello.txt"), "hello\n");
        Files.createDirectories(ws.resolve("empty"));
        Files.write(ws.resolve("big.bin"), new byte[3 << 20]);
        NioWorkspace fs = new NioWorkspace(ws, Files.createDirectories(tmp.resolve("st")),
                NioWorkspace.Options.defaults());
        Snapshot s = Snapshots.capture(fs, store);
        assertThat(store.stat(s.id()).orElseThrow().size()).isEqualTo(s.size());
        Path out = Snapshots.restore(store, s.id(), ResourceLimits.DEFAULTS);
        try {
            assertThat(Files.readString(out.resolve("hello.txt"))).isEqualTo("hello\n");
            assertThat(Files.isDirectory(out.resolve("empty"))).isTrue();
            assertThat(Files.size(out.resolve("big.bin"))).isEqualTo(3 << 20);
        } finally {
            Snapshots.deleteQuietly(out);
        }
        JdbcSnapshotStore small = new JdbcSnapshotStore(ds, 100_000);
        SandboxException e = (SandboxException) org.assertj.core.api.Assertions.catchThrowable(
                () -> Snapshots.capture(fs, small));
        assertThat(e.kind()).isEqualTo(ErrorKind.NO_SPACE_LEFT);
    }
}
