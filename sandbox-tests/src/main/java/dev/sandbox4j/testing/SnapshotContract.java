package dev.sandbox4j.testing;

import static dev.sandbox4j.testing.Checks.expectError;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Feature;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Snapshot;
import dev.sandbox4j.SnapshotStore;
import dev.sandbox4j.WorkspaceSource;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Issue 31: {@link Sandbox#snapshot}, {@link Sandbox#fork} and {@link WorkspaceSource#snapshot}: a round trip keeps
 * contents, modes, links (as links, out-of-workspace targets included, never followed) and empty directories and
 * skips special files; a fork is independent of its parent; a missing, garbage, cut or altered snapshot, and one over
 * the workspace quota or the store's limit, is a typed error that opens no sandbox (the kit's leak check after each
 * test) and stores nothing. The twin pins {@link ErrorKind#UNSUPPORTED} without {@link Feature#SNAPSHOT}.
 */
public interface SnapshotContract extends ConformanceSupport {
    private static Path tempStoreDir() {
        try {
            return Files.createTempDirectory("sandbox4j-kit-snapshots-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Restores without a workspace quota: a backend that cannot put a copy source under its quota (a non-root local
     * jail mounts the quota's tmpfs over the workspace after the copy) refuses the pair typed, the same for a
     * snapshot as for {@code copyOf} (docs/snapshots.md, limits); these tests are about the snapshot, not the quota.
     */
    private static SandboxSpec from(SnapshotStore store, String id) {
        return SandboxSpec.builder().workspace(WorkspaceSource.snapshot(store, id)).limits(NO_QUOTA).build();
    }

    /** The default limits without a workspace quota (see {@link #from}). */
    ResourceLimits NO_QUOTA = ResourceLimits.DEFAULTS.withoutWorkspaceQuota();

    private static byte[] pattern(int size) {
        byte[] b = new byte[size];
        new Random(size).nextBytes(b);
        return b;
    }

    @Test
    @Requires({Feature.SNAPSHOT, Feature.SHELL, Feature.SYMLINKS, Feature.POSIX_PERMISSIONS})
    default void snapshot_roundTrip_keepsContentsModesLinksEmptyDirs_skipsFifos(Sandbox sandbox) throws IOException {
        FileSystem fs = sandbox.files();
        byte[] big = pattern(5 << 20); // over the capture's in-memory bound: streamed
        fs.write("data/big.bin", big);
        fs.write("run.sh", "#!/bin/sh\necho ran\n");
        fs.write("secret.txt", "only mine\n");
        assertThat(sandbox.shell().run("chmod 755 run.sh && chmod 600 secret.txt && mkdir -p empty/inner "
                + "&& chmod 700 empty && ln -s run.sh link && ln -s /etc/passwd out && ln -s ../../.. up "
                + "&& ln -s nowhere dangling && mkfifo pipe").exitCode()).isZero();
        Path dir = tempStoreDir();
        SnapshotStore store = SnapshotStore.directory(dir);
        Snapshot snap = sandbox.snapshot(store);
        assertThat(snap.skipped()).as("the FIFO is skipped and counted").isEqualTo(1);
        assertThat(snap.files()).as("data, empty, empty/inner, 3 files, 4 links").isEqualTo(10);
        assertThat(snap.size()).isEqualTo(store.stat(snap.id()).orElseThrow().size());
        try (Sandbox restored = fixture().open(from(store, snap.id()))) {
            FileSystem r = restored.files();
            assertThat(r.readBytes("data/big.bin")).isEqualTo(big);
            assertThat(r.stat("run.sh").mode()).isEqualTo(0755);
            assertThat(r.stat("secret.txt").mode()).isEqualTo(0600);
            assertThat(r.readText("secret.txt")).isEqualTo("only mine\n");
            assertThat(r.stat("empty").mode()).isEqualTo(0700);
            assertThat(r.stat("empty/inner").isDirectory()).isTrue();
            assertThat(r.list("empty/inner")).isEmpty();
            for (String[] l : List.of(new String[] {"link", "run.sh"}, new String[] {"out", "/etc/passwd"},
                    new String[] {"up", "../../.."}, new String[] {"dangling", "nowhere"})) {
                FileInfo i = r.stat(l[0]);
                assertThat(i.isSymlink()).as(l[0] + " stays a link").isTrue();
                assertThat(i.linkTarget()).isEqualTo(l[1]);
            }
            assertThat(r.exists("pipe")).isFalse();
            assertThat(restored.shell().run("./link").stdout()).isEqualTo("ran\n");
            assertThat(restored.shell().run("test -L out && test -L up && echo links").stdout()).isEqualTo("links\n");
        } finally {
            store.delete(snap.id());
        }
    }

    @Test
    @Requires(Feature.SNAPSHOT)
    default void fork_isIndependent_andStartsFromTheParentsFiles(Sandbox given) {
        try (Sandbox sandbox = fixture().open(SandboxSpec.builder().limits(NO_QUOTA).build())) {
            forkOf(sandbox);
        }
    }

    private void forkOf(Sandbox sandbox) {
        FileSystem fs = sandbox.files();
        fs.write("a/b/c.txt", "before\n");
        fs.write("bin.dat", new byte[] {0, 1, 2, (byte) 0xff});
        fs.mkdirs("empty");
        try (Sandbox child = sandbox.fork()) {
            assertThat(child.id()).isNotEqualTo(sandbox.id());
            assertThat(child.files().readText("a/b/c.txt")).isEqualTo("before\n");
            assertThat(child.files().readBytes("bin.dat")).containsExactly(0, 1, 2, (byte) 0xff);
            assertThat(child.files().stat("empty").isDirectory()).isTrue();
            child.files().write("a/b/c.txt", "child\n");
            child.files().write("only-child.txt", "x");
            fs.write("only-parent.txt", "y");
            assertThat(fs.readText("a/b/c.txt")).isEqualTo("before\n");
            assertThat(fs.exists("only-child.txt")).isFalse();
            assertThat(child.files().exists("only-parent.txt")).isFalse();
        }
        assertThat(sandbox.isOpen()).isTrue();
    }

    @Test
    @Requires(Feature.SNAPSHOT)
    default void restore_ofAMissingGarbageCutOrAlteredSnapshot_isTypedAndOpensNothing(Sandbox sandbox)
            throws IOException {
        sandbox.files().write("f.txt", "some content that is long enough to flip a byte in\n");
        Path dir = tempStoreDir();
        SnapshotStore store = SnapshotStore.directory(dir);
        Snapshot snap = sandbox.snapshot(store);
        byte[] good;
        try {
            good = Files.readAllBytes(dir.resolve(snap.id() + ".snap"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        expectError(ErrorKind.NOT_FOUND, () -> fixture().open(from(store, "no-such-snapshot")));
        byte[] altered = good.clone();
        int at = indexOf(good, "flip".getBytes());
        altered[at] ^= 1;
        for (byte[] bad : List.of(pattern(10_000), Arrays.copyOf(good, good.length / 2), altered, new byte[0],
                Arrays.copyOf(good, good.length - 1024))) {
            SnapshotStore answering = new FixedStore(bad);
            expectError(ErrorKind.INVALID_ARGUMENT, () -> fixture().open(from(answering, "x")));
        }
        store.delete(snap.id());
    }

    @Test
    @Requires({Feature.SNAPSHOT, Feature.WORKSPACE_QUOTA})
    default void snapshot_overTheStoreLimit_orTheWorkspaceQuota_isRefused(Sandbox sandbox) throws IOException {
        sandbox.files().write("big.bin", pattern(2 << 20));
        Path dir = tempStoreDir();
        SnapshotStore small = SnapshotStore.directory(dir, 256 << 10);
        expectError(ErrorKind.NO_SPACE_LEFT, () -> sandbox.snapshot(small));
        assertThat(small.list()).as("nothing is stored").isEmpty();
        assertThat(Files.list(dir).count()).as("no temporary left").isZero();
        SnapshotStore store = SnapshotStore.directory(dir);
        Snapshot snap = sandbox.snapshot(store);
        SandboxSpec tight = SandboxSpec.builder().workspace(WorkspaceSource.snapshot(store, snap.id()))
                .limits(ResourceLimits.DEFAULTS.withWorkspaceQuota(1 << 20, 1000)).build();
        expectError(ErrorKind.NO_SPACE_LEFT, () -> fixture().open(tight));
        store.delete(snap.id());
    }

    @Test
    @Requires(absent = Feature.SNAPSHOT)
    default void snapshot_withoutFeature_failsUnsupported(Sandbox sandbox) {
        SnapshotStore store = SnapshotStore.directory(tempStoreDir());
        expectError(ErrorKind.UNSUPPORTED, () -> sandbox.snapshot(store));
        expectError(ErrorKind.UNSUPPORTED, sandbox::fork);
        expectError(ErrorKind.UNSUPPORTED, () -> fixture().open(from(store, "any")));
        assertThat(sandbox.isOpen()).isTrue();
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not in the snapshot");
    }

    /** A store answering every get with the same bytes (garbage, a cut or altered stream). */
    final class FixedStore implements SnapshotStore {
        private final byte[] bytes;

        FixedStore(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public void put(String id, InputStream data) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Optional<InputStream> get(String id) {
            return Optional.of(new ByteArrayInputStream(bytes));
        }

        @Override
        public boolean delete(String id) {
            return false;
        }

        @Override
        public Optional<Stored> stat(String id) {
            return Optional.of(new Stored(id, bytes.length, java.time.Instant.EPOCH));
        }

        @Override
        public List<Stored> list() {
            return List.of();
        }
    }
}
