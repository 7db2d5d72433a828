package dev.sandbox4j.snapshot;

import dev.sandbox4j.SnapshotStore;
import java.io.IOException;
import java.io.InputStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * A {@link SnapshotStore} in a SQL database, through {@code java.sql} only: a snapshot is a row of
 * {@code sandbox4j_snapshot} (id, size, created) and its bytes are rows of {@code sandbox4j_snapshot_chunk} (id, seq,
 * data) of at most {@link #CHUNK} bytes, so a put or a get holds one chunk in memory whatever the snapshot's size. A
 * put is one transaction: a failed one leaves nothing. {@link #createTables()} makes the tables with standard types
 * ({@code BLOB}); on a database that names them otherwise (PostgreSQL's {@code bytea}) make them yourself.
 * Tested on H2 (embedded).
 */
public final class JdbcSnapshotStore implements SnapshotStore {
    /** The largest chunk row: 1 MiB. */
    public static final int CHUNK = 1 << 20;

    private final DataSource db;
    private final long maxBytes;

    /** A store in {@code db}'s two tables, refusing snapshots over {@code maxBytes}. */
    public JdbcSnapshotStore(DataSource db, long maxBytes) {
        this.db = Objects.requireNonNull(db, "db");
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("maxBytes must be positive");
        }
        this.maxBytes = maxBytes;
    }

    public JdbcSnapshotStore(DataSource db) {
        this(db, Long.MAX_VALUE);
    }

    /** Creates the two tables when they are missing. */
    public JdbcSnapshotStore createTables() throws IOException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            if (!exists(c, "SANDBOX4J_SNAPSHOT")) {
                s.executeUpdate("CREATE TABLE sandbox4j_snapshot (id VARCHAR(128) NOT NULL PRIMARY KEY, "
                        + "size BIGINT NOT NULL, created TIMESTAMP NOT NULL)");
            }
            if (!exists(c, "SANDBOX4J_SNAPSHOT_CHUNK")) {
                s.executeUpdate("CREATE TABLE sandbox4j_snapshot_chunk (id VARCHAR(128) NOT NULL, seq INTEGER NOT "
                        + "NULL, data BLOB NOT NULL, PRIMARY KEY (id, seq))");
            }
            return this;
        } catch (SQLException e) {
            throw new IOException("creating the snapshot tables: " + e.getMessage(), e);
        }
    }

    private static boolean exists(Connection c, String table) throws SQLException {
        for (String name : new String[] {table, table.toLowerCase(java.util.Locale.ROOT)}) {
            try (ResultSet r = c.getMetaData().getTables(null, null, name, null)) {
                if (r.next()) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public void put(String id, InputStream data) throws IOException {
        SnapshotStore.checkId(id);
        try (Connection c = db.getConnection()) {
            boolean auto = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                delete(c, id);
                long size = 0;
                int seq = 0;
                try (PreparedStatement ins = c.prepareStatement(
                        "INSERT INTO sandbox4j_snapshot_chunk (id, seq, data) VALUES (?, ?, ?)")) {
                    byte[] chunk;
                    while ((chunk = data.readNBytes(CHUNK)).length > 0) {
                        size += chunk.length;
                        if (size > maxBytes) {
                            throw new IOException("the snapshot exceeds the store's limit of " + maxBytes + " bytes");
                        }
                        ins.setString(1, id);
                        ins.setInt(2, seq++);
                        ins.setBytes(3, chunk);
                        ins.executeUpdate();
                    }
                }
                try (PreparedStatement row = c.prepareStatement(
                        "INSERT INTO sandbox4j_snapshot (id, size, created) VALUES (?, ?, ?)")) {
                    row.setString(1, id);
                    row.setLong(2, size);
                    row.setTimestamp(3, Timestamp.from(Instant.now()));
                    row.executeUpdate();
                }
                c.commit();
            } catch (IOException | SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(auto);
            }
        } catch (SQLException e) {
            throw new IOException("storing snapshot " + id + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<InputStream> get(String id) throws IOException {
        if (stat(id).isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new InputStream() {
            private byte[] chunk = new byte[0];
            private int at;
            private int seq;
            private boolean done;

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                while (at == chunk.length) {
                    if (done || !next()) {
                        done = true;
                        return -1;
                    }
                }
                int n = Math.min(len, chunk.length - at);
                System.arraycopy(chunk, at, b, off, n);
                at += n;
                return n;
            }

            private boolean next() throws IOException {
                try (Connection c = db.getConnection(); PreparedStatement q = c.prepareStatement(
                        "SELECT data FROM sandbox4j_snapshot_chunk WHERE id = ? AND seq = ?")) {
                    q.setString(1, id);
                    q.setInt(2, seq);
                    try (ResultSet r = q.executeQuery()) {
                        if (!r.next()) {
                            return false;
                        }
                        chunk = r.getBytes(1);
                        at = 0;
                        seq++;
                        return true;
                    }
                } catch (SQLException e) {
                    throw new IOException("reading snapshot " + id + ": " + e.getMessage(), e);
                }
            }
        });
    }

    @Override
    public boolean delete(String id) throws IOException {
        SnapshotStore.checkId(id);
        try (Connection c = db.getConnection()) {
            return delete(c, id);
        } catch (SQLException e) {
            throw new IOException("deleting snapshot " + id + ": " + e.getMessage(), e);
        }
    }

    private static boolean delete(Connection c, String id) throws SQLException {
        try (PreparedStatement a = c.prepareStatement("DELETE FROM sandbox4j_snapshot_chunk WHERE id = ?");
             PreparedStatement b = c.prepareStatement("DELETE FROM sandbox4j_snapshot WHERE id = ?")) {
            a.setString(1, id);
            a.executeUpdate();
            b.setString(1, id);
            return b.executeUpdate() > 0;
        }
    }

    @Override
    public Optional<Stored> stat(String id) throws IOException {
        SnapshotStore.checkId(id);
        List<Stored> found = query("SELECT id, size, created FROM sandbox4j_snapshot WHERE id = ?", id);
        return found.stream().findFirst();
    }

    @Override
    public List<Stored> list() throws IOException {
        return query("SELECT id, size, created FROM sandbox4j_snapshot", null);
    }

    private List<Stored> query(String sql, String id) throws IOException {
        try (Connection c = db.getConnection(); PreparedStatement q = c.prepareStatement(sql)) {
            if (id != null) {
                q.setString(1, id);
            }
            List<Stored> out = new ArrayList<>();
            try (ResultSet r = q.executeQuery()) {
                while (r.next()) {
                    out.add(new Stored(r.getString(1), r.getLong(2), r.getTimestamp(3).toInstant()));
                }
            }
            return out;
        } catch (SQLException e) {
            throw new IOException("listing snapshots: " + e.getMessage(), e);
        }
    }

    @Override
    public long maxBytes() {
        return maxBytes;
    }

    @Override
    public String toString() {
        return "JDBC store";
    }
}
