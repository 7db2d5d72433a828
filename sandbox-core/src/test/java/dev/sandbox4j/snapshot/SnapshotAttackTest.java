package dev.sandbox4j.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.ForwardingFileSystem;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.Snapshot;
import dev.sandbox4j.SnapshotStore;
import dev.sandbox4j.core.NioWorkspace;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The format's reader on hostile streams and the capture on a workspace that changes under it, on the host (no
 * backend): what {@link Snapshots#restore} refuses, typed, and that nothing lands outside its directory.
 */
class SnapshotAttackTest {
    @TempDir
    Path tmp;
    Path ws;
    FileSystem fs;
    SnapshotStore store;

    @BeforeEach
    void setUp() throws IOException {
        ws = Files.createDirectories(tmp.resolve("ws"));
        fs = new NioWorkspace(ws, Files.createDirectories(tmp.resolve("staging")), NioWorkspace.Options.defaults());
        store = SnapshotStore.directory(tmp.resolve("store"));
    }

    /** Restores a stream, with the default limits; the directory it made, which the test deletes. */
    private Path restore(byte[] stream) {
        return Snapshots.restore(new BytesStore(stream), "x", ResourceLimits.DEFAULTS.withoutWorkspaceQuota());
    }

    private static SandboxException refused(ErrorKind kind, Runnable r) {
        SandboxException e = (SandboxException) org.assertj.core.api.Assertions.catchThrowable(r::run);
        assertThat(e).isNotNull();
        assertThat(e.kind()).as(e.getMessage()).isEqualTo(kind);
        return e;
    }

    /** No restore directory is left behind by a refused stream. */
    private static long restoreDirs() throws IOException {
        try (var s = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return s.filter(p -> p.getFileName().toString().startsWith("sandbox4j-snapshot-")).count();
        }
    }

    @Test
    void roundTrip_onTheHost_keepsModesLinksEmptyDirs_andDropsSetuid() throws IOException {
        Files.writeString(ws.resolve("x.sh"), "echo\n");
        Files.setAttribute(ws.resolve("x.sh"), "unix:mode", 04750);
        Files.createDirectories(ws.resolve("a/empty"));
        Files.createSymbolicLink(ws.resolve("a/up"), Path.of("../../../etc"));
        Files.write(ws.resolve("a/big"), new byte[(4 << 20) + 1]);
        Files.writeString(ws.resolve("n".repeat(150)), "long name");
        Files.writeString(ws.resolve(TarOut.MANIFEST), "a file named like the manifest");
        Snapshot s = Snapshots.capture(fs, store);
        assertThat(s.skipped()).isEqualTo(1);
        Path out = Snapshots.restore(store, s.id(), ResourceLimits.DEFAULTS.withoutWorkspaceQuota());
        try {
            assertThat(Files.getPosixFilePermissions(out.resolve("x.sh")))
                    .isEqualTo(PosixFilePermissions.fromString("rwxr-x---")); // set-uid dropped
            assertThat(Files.isDirectory(out.resolve("a/empty"), LinkOption.NOFOLLOW_LINKS)).isTrue();
            assertThat(Files.readSymbolicLink(out.resolve("a/up"))).isEqualTo(Path.of("../../../etc"));
            assertThat(Files.size(out.resolve("a/big"))).isEqualTo((4 << 20) + 1);
            assertThat(Files.readString(out.resolve("n".repeat(150)))).isEqualTo("long name");
            assertThat(Files.exists(out.resolve(TarOut.MANIFEST))).isFalse();
        } finally {
            Snapshots.deleteQuietly(out);
        }
    }

    @Test
    void entryUnderALink_outsideTheRoot_orAbsolute_isRefused_andNothingIsWrittenOutside() throws IOException {
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        long before = restoreDirs();
        byte[] underLink = tar(t -> {
            t.symlink("escape", outside.toString(), 0);
            t.file("escape/planted", 0644, 1, 0, o -> o.write('x'));
        });
        assertThat(refused(ErrorKind.INVALID_ARGUMENT, () -> restore(underLink)).getMessage())
                .contains("symbolic link");
        for (String name : List.of("../planted", "/tmp/planted", "a/../../planted", "./x", "a//b")) {
            byte[] bad = tar(t -> t.file(name, 0644, 1, 0, o -> o.write('x')));
            refused(ErrorKind.INVALID_ARGUMENT, () -> restore(bad));
        }
        assertThat(Files.list(outside).count()).isZero();
        assertThat(Files.exists(tmp.resolve("planted"))).isFalse();
        assertThat(restoreDirs()).as("every refused restore removed its directory").isEqualTo(before);
    }

    @Test
    void devicesFifosAndHardLinks_areRefused() {
        for (char type : new char[] {'3', '4', '6', '1', 'L', 'g'}) {
            byte[] bad = tar(t -> { }, raw(type == '1' ? "hard" : "dev", type, 0, "/etc/shadow"));
            refused(ErrorKind.INVALID_ARGUMENT, () -> restore(bad));
        }
    }

    @Test
    void aMillionEntryStream_isRefusedByTheBound_withoutAMillionFiles() {
        // crafted as it is read: 10^6 headers of the same directory, never held in memory nor written out
        InputStream million = new InputStream() {
            final byte[] header = raw("d", '5', 0, "");
            long at;

            static final long LIMIT = 1_000_000L * 512;

            @Override
            public int read() {
                return at < LIMIT ? header[(int) (at++ % 512)] & 0xff : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (at >= LIMIT) {
                    return -1;
                }
                int n = (int) Math.min(len, 512 - at % 512);
                System.arraycopy(header, (int) (at % 512), b, off, n);
                at += n;
                return n;
            }
        };
        SandboxException e = refused(ErrorKind.TOO_LARGE, () -> Snapshots.restore(new StreamStore(million), "x",
                ResourceLimits.DEFAULTS.withoutWorkspaceQuota()));
        assertThat(e.getMessage()).contains(String.valueOf(Snapshots.MAX_ENTRIES));
        refused(ErrorKind.NO_SPACE_LEFT, () -> Snapshots.restore(new BytesStore(tar(t -> {
            for (int i = 0; i < 20; i++) {
                t.directory("d" + i, 0755, 0);
            }
        })), "x", ResourceLimits.DEFAULTS.withWorkspaceQuota(1 << 20, 10)));
    }

    @Test
    void garbage_cut_wrongChecksum_andTrailingBytes_areRefused() throws IOException {
        Files.writeString(ws.resolve("f"), "content to alter");
        Snapshot s = Snapshots.capture(fs, store);
        byte[] good = store.get(s.id()).orElseThrow().readAllBytes();
        Snapshots.deleteQuietly(restore(good));
        byte[] altered = good.clone();
        altered[512] ^= 1; // the first content byte
        byte[] trailing = java.util.Arrays.copyOf(good, good.length + 512);
        trailing[good.length] = 'x';
        for (byte[] bad : List.of(new byte[1000], "not a tar at all".getBytes(StandardCharsets.UTF_8),
                java.util.Arrays.copyOf(good, good.length - 600), altered, trailing)) {
            assertThat(refused(ErrorKind.INVALID_ARGUMENT, () -> restore(bad)).getMessage()).contains("corrupt");
        }
        refused(ErrorKind.NOT_FOUND, () -> Snapshots.restore(store, "absent", ResourceLimits.DEFAULTS));
    }

    @Test
    void aFileSwappedForALinkDuringCapture_isCapturedAsTheLink_neverFollowed() throws IOException {
        Path secret = Files.writeString(tmp.resolve("host-secret"), "HOST SECRET");
        Files.writeString(ws.resolve("f"), "innocent");
        AtomicBoolean swapped = new AtomicBoolean();
        FileSystem swapping = new ForwardingFileSystem() {
            @Override
            protected FileSystem delegate() {
                return fs;
            }

            @Override
            public FileInfo readToUnchanged(String path, OutputStream sink) {
                if (path.equals("f") && swapped.compareAndSet(false, true)) {
                    try {
                        Files.delete(ws.resolve("f"));
                        Files.createSymbolicLink(ws.resolve("f"), secret);
                    } catch (IOException e) {
                        throw new AssertionError(e);
                    }
                }
                return fs.readToUnchanged(path, sink);
            }
        };
        Snapshot s = Snapshots.capture(swapping, store);
        assertThat(swapped).isTrue();
        byte[] bytes = store.get(s.id()).orElseThrow().readAllBytes();
        assertThat(new String(bytes, StandardCharsets.ISO_8859_1)).doesNotContain("HOST SECRET");
        Path out = Snapshots.restore(store, s.id(), ResourceLimits.DEFAULTS);
        try {
            assertThat(Files.readSymbolicLink(out.resolve("f"))).isEqualTo(secret);
        } finally {
            Snapshots.deleteQuietly(out);
        }
    }

    @Test
    void bulkCopy_aFileChangedAfterTheCopy_isReadAgainLive_andTheHostsSkipsAreCounted() throws IOException {
        Files.writeString(ws.resolve("same.txt"), "unchanged");
        Files.createDirectories(ws.resolve("d"));
        Files.writeString(ws.resolve("d/changes.txt"), "old");
        Snapshot s = Snapshots.capture(fs, store, into -> {
            try {
                Files.writeString(into.resolve("same.txt"), "unchanged");
                Files.setLastModifiedTime(into.resolve("same.txt"), Files.getLastModifiedTime(ws.resolve("same.txt")));
                Files.createDirectories(into.resolve("d"));
                Files.writeString(into.resolve("d/changes.txt"), "old");
                Files.writeString(ws.resolve("d/changes.txt"), "new and longer"); // written after the bulk copy
            } catch (IOException e) {
                throw new AssertionError(e);
            }
            return 2; // the host left two special files out
        });
        assertThat(s.skipped()).isEqualTo(2);
        Path out = Snapshots.restore(store, s.id(), ResourceLimits.DEFAULTS);
        try {
            assertThat(Files.readString(out.resolve("d/changes.txt"))).isEqualTo("new and longer");
            assertThat(Files.readString(out.resolve("same.txt"))).isEqualTo("unchanged");
        } finally {
            Snapshots.deleteQuietly(out);
        }
    }

    @Test
    void storeLimit_isRefusedTyped_andNothingIsKept() throws IOException {
        Files.write(ws.resolve("big"), new byte[1 << 20]);
        SnapshotStore small = SnapshotStore.directory(tmp.resolve("small"), 100_000);
        refused(ErrorKind.NO_SPACE_LEFT, () -> Snapshots.capture(fs, small));
        assertThat(small.list()).isEmpty();
        assertThat(Files.list(tmp.resolve("small")).count()).isZero();
    }

    // ---------------------------------------------------------------- crafting

    interface Body {
        void write(TarOut t) throws IOException;
    }

    /** A stream by our writer (valid checksums and manifest), with {@code extra} raw blocks first. */
    static byte[] tar(Body body, byte[]... extra) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (TarOut t = new TarOut(b, Long.MAX_VALUE)) {
            for (byte[] e : extra) {
                b.write(e);
            }
            body.write(t);
            t.finish("format=" + TarOut.FORMAT + "\nentries=" + t.entries() + "\n");
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return b.toByteArray();
    }

    /** One ustar header block of any type, with a right header checksum. */
    static byte[] raw(String name, char type, long size, String link) {
        byte[] h = new byte[512];
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(n, 0, h, 0, n.length);
        TarOut.octal(h, 100, 8, 0644);
        TarOut.octal(h, 108, 8, 0);
        TarOut.octal(h, 116, 8, 0);
        TarOut.octal(h, 124, 12, size);
        TarOut.octal(h, 136, 12, 0);
        h[156] = (byte) type;
        byte[] l = link.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(l, 0, h, 157, l.length);
        System.arraycopy("ustar\0".getBytes(StandardCharsets.US_ASCII), 0, h, 257, 6);
        h[263] = '0';
        h[264] = '0';
        java.util.Arrays.fill(h, 148, 156, (byte) ' ');
        long sum = 0;
        for (byte x : h) {
            sum += x & 0xff;
        }
        TarOut.octal(h, 148, 7, sum);
        return h;
    }

    /** A store answering every get with the same bytes. */
    static final class BytesStore extends StreamStore {
        BytesStore(byte[] bytes) {
            super(new ByteArrayInputStream(bytes));
        }
    }

    /** A store answering a get with one stream. */
    static class StreamStore implements SnapshotStore {
        private final InputStream in;

        StreamStore(InputStream in) {
            this.in = in;
        }

        @Override
        public void put(String id, InputStream data) {
            throw new UnsupportedOperationException();
        }

        @Override
        public java.util.Optional<InputStream> get(String id) {
            return java.util.Optional.of(in);
        }

        @Override
        public boolean delete(String id) {
            return false;
        }

        @Override
        public java.util.Optional<Stored> stat(String id) {
            return java.util.Optional.empty();
        }

        @Override
        public List<Stored> list() {
            return List.of();
        }
    }

}
