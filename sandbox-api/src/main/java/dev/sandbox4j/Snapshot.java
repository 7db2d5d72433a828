package dev.sandbox4j;

import java.time.Instant;
import java.util.Objects;

/**
 * A workspace captured by {@link Sandbox#snapshot()}: its file system only (contents, modes, symbolic links as links,
 * empty directories; no processes, no memory), kept in a {@link SnapshotStore} under {@code id}. A new sandbox starts
 * from it with {@link WorkspaceSource#snapshot(SnapshotStore, String)}. The format is docs/snapshots.md's: a tar
 * stream with a manifest and its SHA-256, checked when it is read back.
 *
 * @param id      the store's key: 1-128 of {@code [A-Za-z0-9_.-]}, not starting with a dot
 * @param size    bytes of the stored stream
 * @param files   regular files, directories and links captured
 * @param skipped special files (FIFOs, sockets, devices) left out, and files that vanished during the capture
 * @param created when the capture ended
 */
public record Snapshot(String id, long size, long files, long skipped, Instant created) {
    public Snapshot {
        SnapshotStore.checkId(id);
        Objects.requireNonNull(created, "created");
        if (size < 0 || files < 0 || skipped < 0) {
            throw new IllegalArgumentException("negative size or count");
        }
    }
}
