package dev.sandbox4j;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where snapshots are kept: a key-value store of byte streams, small enough to write over S3, a database or Redis. A
 * store keeps what it is given; it needs to know nothing of the format (sandbox4j checks the stream's SHA-256 on
 * read, so a store answering garbage or a cut stream is caught and opens no sandbox). Methods may be called from
 * several threads. {@link #directory(Path)} is the default store; sandbox-core has a JDBC store.
 */
public interface SnapshotStore {
    /** What a store holds under an id. */
    record Stored(String id, long size, Instant created) {
        public Stored {
            checkId(id);
            Objects.requireNonNull(created, "created");
        }
    }

    /**
     * Stores {@code data} (read to its end, not closed) under {@code id}, all or nothing: a failure, including one the
     * stream throws, leaves nothing under {@code id}.
     *
     * @throws IOException for the store's own failures and the stream's
     */
    void put(String id, InputStream data) throws IOException;

    /** The bytes under {@code id}; the caller closes the stream. Empty when there is none. */
    Optional<InputStream> get(String id) throws IOException;

    /** Removes {@code id}; whether it was there. */
    boolean delete(String id) throws IOException;

    /** What is under {@code id}, if anything. */
    Optional<Stored> stat(String id) throws IOException;

    /** Everything the store holds, in no particular order. */
    List<Stored> list() throws IOException;

    /** The most bytes one snapshot may take here; a capture going past it is refused with no_space_left. */
    default long maxBytes() {
        return Long.MAX_VALUE;
    }

    /** A store in {@code dir} (made if missing, {@code 0700}): one file per snapshot, written then renamed in. */
    static SnapshotStore directory(Path dir) {
        return new DirectorySnapshotStore(dir, Long.MAX_VALUE);
    }

    /** {@link #directory(Path)} refusing snapshots over {@code maxBytes}. */
    static SnapshotStore directory(Path dir, long maxBytes) {
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("maxBytes must be positive");
        }
        return new DirectorySnapshotStore(dir, maxBytes);
    }

    /**
     * The store {@link Sandbox#snapshot()} uses: a directory store in {@code $SANDBOX4J_SNAPSHOTS}, else
     * {@code $XDG_DATA_HOME/sandbox4j/snapshots}, else {@code ~/.local/share/sandbox4j/snapshots}.
     */
    static SnapshotStore defaultStore() {
        return DirectorySnapshotStore.defaultStore();
    }

    /**
     * Checks a snapshot id: 1-128 of {@code [A-Za-z0-9_.-]}, not starting with a dot (safe as a file name and a key).
     *
     * @throws IllegalArgumentException otherwise
     */
    static String checkId(String id) {
        Objects.requireNonNull(id, "id");
        if (!DirectorySnapshotStore.ID.matcher(id).matches()) {
            throw new IllegalArgumentException("a snapshot id is 1-128 of [A-Za-z0-9_.-], not starting with a dot: '"
                    + (id.length() > 64 ? id.substring(0, 64) + "..." : id).replaceAll("\\p{Cntrl}", "?") + "'");
        }
        return id;
    }
}
