package dev.sandbox4j.testing;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Snapshot;
import dev.sandbox4j.SnapshotStore;
import dev.sandbox4j.WorkspaceSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;

/**
 * The kit on sandboxes restored from a snapshot ({@link WorkspaceSource#snapshot}): a spec with an empty workspace
 * opens from a snapshot another sandbox of the backend took of its empty workspace (a workspace holding anything would
 * change what the contracts expect), through the whole restore path (the stream read and checked, extracted, copied
 * in); other sources open as they are. The snapshot is taken once, by the first open.
 */
public final class SnapshotRestoredFixture extends ForwardingFixture {
    private SnapshotStore store;
    private String id;

    public SnapshotRestoredFixture(SandboxFixture plain) {
        super(plain);
    }

    private synchronized SandboxSpec restored(SandboxSpec spec) {
        if (spec.workspace().kind() != WorkspaceSource.Kind.EMPTY) {
            return spec;
        }
        if (id == null) {
            try {
                store = SnapshotStore.directory(Files.createTempDirectory("sandbox4j-kit-restored-"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            try (Sandbox seed = delegate().open(SandboxSpec.defaults())) {
                Snapshot s = seed.snapshot(store);
                id = s.id();
            }
        }
        return spec.toBuilder().workspace(WorkspaceSource.snapshot(store, id)).build();
    }

    @Override
    public Sandbox open(SandboxSpec spec) {
        return delegate().open(restored(spec));
    }

    @Override
    public Sandbox openWithContexts(SandboxSpec spec) {
        return delegate().openWithContexts(restored(spec));
    }
}
