package dev.sandbox4j.snapshot;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Snapshot;
import dev.sandbox4j.SnapshotStore;
import dev.sandbox4j.WorkspaceSource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/**
 * Snapshots, written once for every backend: {@link #capture} reads a workspace through the file API into a store,
 * {@link #open} starts a sandbox from one (the stream is extracted and verified into a private host directory, which
 * the backend then copies as a {@link WorkspaceSource#copyOf} source), {@link #fork} is both. The format is
 * docs/snapshots.md's ({@link TarOut}, {@link TarIn}).
 */
public final class Snapshots {
    /** The most entries (files, directories, links) a snapshot holds: twice the default inode quota. */
    public static final long MAX_ENTRIES = 2 * ResourceLimits.DEFAULT_WORKSPACE_INODES;
    /** Files up to this size are read whole before they are written, and read again if they change meanwhile. */
    static final int BUFFERED = 4 << 20;
    static final int RETRIES = 3;

    private Snapshots() {
    }

    /**
     * Captures {@code files}' workspace into {@code store} under a new id; see {@link Sandbox#snapshot(SnapshotStore)}.
     * The calling thread reads the workspace; the store reads the stream on a thread of its own, through a pipe.
     */
    public static Snapshot capture(FileSystem files, SnapshotStore store) {
        return capture(files, null, 0, store);
    }

    /**
     * {@link #capture(FileSystem, SnapshotStore)} through a host's bulk path when it has one ({@code bulkCopy}: see
     * {@code SandboxHost.copyWorkspaceTo}; -1 when it has none): the tree is copied to a private host directory and
     * captured from there, each regular file checked against the live listing (size and modification time) and read
     * again through {@code live} when it differs, so each file is still captured whole as it was at one moment.
     */
    public static Snapshot capture(FileSystem live, SnapshotStore store, java.util.function.ToLongFunction<Path> bulkCopy) {
        Path tmp;
        try {
            tmp = Files.createTempDirectory("sandbox4j-capture-");
        } catch (IOException e) {
            throw new SandboxException(ErrorKind.IO_ERROR, "snapshot: no temporary directory: " + e.getMessage(), e);
        }
        try {
            Path tree = Files.createDirectory(tmp.resolve("workspace"));
            long skipped = bulkCopy.applyAsLong(tree);
            if (skipped < 0) {
                return capture(live, null, 0, store);
            }
            FileSystem copy = new dev.sandbox4j.core.NioWorkspace(tree, Files.createDirectory(tmp.resolve("staging")),
                    dev.sandbox4j.core.NioWorkspace.Options.defaults());
            return capture(copy, live, skipped, store);
        } catch (IOException e) {
            throw new SandboxException(ErrorKind.IO_ERROR, "snapshot: " + e.getMessage(), e);
        } finally {
            deleteQuietly(tmp);
        }
    }

    private static Snapshot capture(FileSystem files, FileSystem live, long skippedBefore, SnapshotStore store) {
        String id = "snap-" + UUID.randomUUID().toString().replace("-", "");
        StorePipe pipe = StorePipe.start(store, id);
        TarOut tar = new TarOut(pipe.sink(), store.maxBytes());
        Capture c = new Capture(files, live, tar);
        c.skipped = skippedBefore;
        try {
            c.directory("", 0);
            tar.finish("format=" + TarOut.FORMAT + "\nentries=" + tar.entries() + "\nfiles=" + c.files
                    + "\nbytes=" + c.bytes + "\nskipped=" + c.skipped + "\ncreated=" + Instant.now() + "\n");
            tar.close(); // only now does the store see the stream's end
        } catch (TarOut.StoreFull e) {
            pipe.fail(e);
            throw new SandboxException(ErrorKind.NO_SPACE_LEFT, e.getMessage() + " (" + store + ")", e);
        } catch (IOException | RuntimeException | Error e) {
            pipe.fail(e);
            throw pipe.storeError().orElseGet(() -> e instanceof SandboxException se ? se
                    : new SandboxException(e instanceof TarOut.Changed ? ErrorKind.CONFLICT : ErrorKind.IO_ERROR,
                            "snapshot: " + e.getMessage(), e));
        }
        pipe.await();
        long size = pipe.written();
        return new Snapshot(id, size, c.files + c.dirs + c.links, c.skipped, Instant.now());
    }

    /**
     * Opens {@code spec} with {@code opener} (a provider's own open); a {@link WorkspaceSource.Kind#SNAPSHOT} source
     * is first extracted and verified into a private host directory (a bad snapshot fails here: no sandbox is made),
     * which {@code opener} gets as a copy source, then removed once {@code opener} returns (the copy is made by then).
     */
    public static <S extends Sandbox> S open(SandboxSpec spec, Function<SandboxSpec, S> opener) {
        return open(spec, opener, (s, remove) -> remove.run());
    }

    /**
     * As {@link #open(SandboxSpec, Function)}, but the restored directory's removal is handed to {@code keep} with the
     * opened sandbox: a sandbox whose change set compares against its copy source keeps it until it closes
     * ({@code AgentSandbox.openFromSnapshot}). Kept apart so that this package needs nothing of an agent's sandbox
     * (the in-memory backend carries this package without the agent's classes).
     */
    public static <S extends Sandbox> S open(SandboxSpec spec, Function<SandboxSpec, S> opener,
                                             java.util.function.BiConsumer<? super S, Runnable> keep) {
        WorkspaceSource src = spec.workspace();
        if (src.kind() != WorkspaceSource.Kind.SNAPSHOT) {
            return opener.apply(spec);
        }
        Path dir = restore(src.snapshotStore().orElseThrow(), src.snapshotId().orElseThrow(), spec.limits());
        Runnable remove = () -> deleteQuietly(dir);
        S s;
        try {
            s = opener.apply(spec.toBuilder().workspace(WorkspaceSource.copyOf(dir)).build());
        } catch (RuntimeException | Error e) {
            remove.run();
            throw e;
        }
        keep.accept(s, remove);
        return s;
    }

    /**
     * {@link Sandbox#fork()}: {@code sandbox}'s workspace captured into a private temporary store, a sandbox of
     * {@code spec} opened from it by {@code opener} (the provider's open, snapshot sources included), the store removed.
     */
    public static Sandbox fork(Function<SnapshotStore, Snapshot> snapshot, SandboxSpec spec,
                               Function<SandboxSpec, ? extends Sandbox> opener) {
        Path dir;
        try {
            dir = Files.createTempDirectory("sandbox4j-fork-");
        } catch (IOException e) {
            throw new SandboxException(ErrorKind.IO_ERROR, "fork: no temporary directory: " + e.getMessage(), e);
        }
        try {
            SnapshotStore store = SnapshotStore.directory(dir);
            Snapshot snap = snapshot.apply(store);
            return opener.apply(spec.toBuilder().clearFiles().workspace(WorkspaceSource.snapshot(store, snap.id()))
                    .build());
        } finally {
            deleteQuietly(dir);
        }
    }

    /** Extracts and verifies the snapshot into a new private directory (0700), bounded by {@code limits}' quota. */
    static Path restore(SnapshotStore store, String id, ResourceLimits limits) {
        Optional<InputStream> got;
        try {
            got = store.get(id);
        } catch (IOException | RuntimeException e) {
            throw new SandboxException(ErrorKind.IO_ERROR, "snapshot " + id + ": the store failed: " + e.getMessage(),
                    e);
        }
        if (got.isEmpty()) {
            throw new SandboxException(ErrorKind.NOT_FOUND, "no snapshot " + id + " in " + store);
        }
        Path dir = null;
        try (InputStream in = got.get()) {
            dir = Files.createTempDirectory("sandbox4j-snapshot-");
            TarIn.extract(new java.io.BufferedInputStream(in, 1 << 16), dir, new TarIn.Bounds(MAX_ENTRIES,
                    limits.workspaceInodes(), limits.workspaceBytes(), limits.maxFileBytes()));
            return dir;
        } catch (TarIn.Bad e) {
            deleteQuietly(dir);
            throw new SandboxException(e.kind, "snapshot " + id + ": " + e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            deleteQuietly(dir);
            throw new SandboxException(ErrorKind.IO_ERROR, "snapshot " + id + " could not be read: " + e, e);
        }
    }

    /**
     * Writes the host tree {@code root} (not itself) to {@code out} as a plain POSIX tar (ustar, PAX for long names;
     * no manifest), by the shared walk's rules ({@link dev.sandbox4j.core.TreeCopy#walk}: links as links, never
     * followed; special files skipped): what a host with no bulk path streams into the sandbox's {@code tar -x} to
     * seed a copied workspace. A name this JVM cannot decode is refused (INVALID_PATH) rather than renamed.
     */
    public static dev.sandbox4j.core.TreeCopy.Result writeTree(Path root, java.io.OutputStream out)
            throws IOException {
        TarOut tar = new TarOut(out, Long.MAX_VALUE);
        dev.sandbox4j.core.TreeCopy.Result r = dev.sandbox4j.core.TreeCopy.walk(root,
                new dev.sandbox4j.core.TreeCopy.Visitor() {
                    @Override
                    public void directory(Path dir, Path rel) throws IOException {
                        if (!dir.equals(root)) {
                            tar.directory(name(rel), dev.sandbox4j.core.TreeCopy.mode(dir), mtime(dir));
                        }
                    }

                    @Override
                    public void file(Path file, Path rel, long size) throws IOException {
                        tar.file(name(rel), dev.sandbox4j.core.TreeCopy.mode(file), size, mtime(file), sink -> {
                            try (InputStream in = Files.newInputStream(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                                in.transferTo(sink);
                            }
                        });
                    }

                    @Override
                    public void link(Path link, Path rel, Path target) throws IOException {
                        tar.symlink(name(rel), name(target), mtime(link));
                    }
                });
        tar.end();
        return r;
    }

    private static String name(Path rel) {
        String s = rel.toString();
        if (s.indexOf('\ufffd') >= 0) {
            throw new SandboxException(ErrorKind.INVALID_PATH, "a name in the tree is not in this JVM's charset "
                    + "(sun.jnu.encoding): the tree is refused rather than copied with it renamed");
        }
        return s;
    }

    private static long mtime(Path p) throws IOException {
        return Files.getLastModifiedTime(p, java.nio.file.LinkOption.NOFOLLOW_LINKS).toMillis() / 1000;
    }

    /**
     * Copies the workspace behind {@code files} into the empty host directory {@code into} through the file API:
     * captured as a snapshot into a private store, then extracted by the snapshot reader (whatever the sandbox named,
     * nothing lands outside {@code into}; links are made as links). What a host with no bulk download path gives a
     * change set; each file is whole as it was at one moment, as a snapshot's.
     */
    public static void download(FileSystem files, Path into) {
        Path dir = null;
        try {
            dir = Files.createTempDirectory("sandbox4j-download-");
            SnapshotStore store = SnapshotStore.directory(dir);
            Snapshot snap = capture(files, store);
            try (InputStream in = store.get(snap.id()).orElseThrow()) {
                TarIn.extract(new java.io.BufferedInputStream(in, 1 << 16), into,
                        new TarIn.Bounds(MAX_ENTRIES, 0, 0, 0));
            }
        } catch (TarIn.Bad e) {
            throw new SandboxException(e.kind, "reading the sandbox's workspace: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new SandboxException(ErrorKind.IO_ERROR, "reading the sandbox's workspace: " + e.getMessage(), e);
        } finally {
            deleteQuietly(dir);
        }
    }

    static void deleteQuietly(Path dir) {
        if (dir == null) {
            return;
        }
        try {
            dev.sandbox4j.core.NioWorkspace.deleteTree(dir);
        } catch (IOException e) {
            // a temporary directory left behind is logged by nobody: it is the JVM's tmpdir's
        }
    }

    /** One capture's walk over the file API: parents before children, names sorted, links never followed. */
    private static final class Capture {
        private final FileSystem fs;
        /** The live workspace, when {@link #fs} is a bulk copy of it: what each file is checked against. */
        private final FileSystem live;
        private final TarOut tar;
        private java.util.Map<String, FileInfo> liveKids = java.util.Map.of();
        long files;
        long dirs;
        long links;
        long bytes;
        long skipped;
        private int swaps;

        Capture(FileSystem fs, FileSystem live, TarOut tar) {
            this.fs = fs;
            this.live = live;
            this.tar = tar;
        }

        void directory(String dir, int depth) throws IOException {
            if (depth > TarIn.MAX_DEPTH) {
                throw new SandboxException(ErrorKind.TOO_LARGE, "the workspace is nested deeper than "
                        + TarIn.MAX_DEPTH + " levels at " + dir);
            }
            children(dir, fs.list(dir, 1), depth);
        }

        private void children(String dir, List<FileInfo> kids, int depth) throws IOException {
            if (live != null && kids.stream().anyMatch(FileInfo::isFile)) {
                java.util.Map<String, FileInfo> byPath = new java.util.HashMap<>();
                try {
                    live.list(dir, 1).forEach(i -> byPath.put(i.path(), i));
                } catch (SandboxException e) {
                    // the directory changed since the copy: every file in it is read again from the live workspace
                }
                liveKids = byPath;
            }
            java.util.Map<String, FileInfo> here = liveKids;
            for (FileInfo k : kids) {
                liveKids = here; // a subdirectory's walk set its own
                entry(k, depth);
            }
        }

        private void entry(FileInfo k, int depth) throws IOException {
            if (tar.entries() >= MAX_ENTRIES) {
                throw new SandboxException(ErrorKind.TOO_LARGE, "the workspace holds more than " + MAX_ENTRIES
                        + " files, directories and links, the most a snapshot holds");
            }
            if (k.isOther() || k.path().equals(TarOut.MANIFEST)) {
                skipped++;
            } else if (k.isSymlink()) {
                tar.symlink(k.path(), k.linkTarget(), k.modified().getEpochSecond());
                links++;
            } else if (k.isDirectory()) {
                dir(k, depth);
            } else if (live != null && !same(k, liveKids.get(k.path()))) {
                new Capture(live, null, tar).fileFrom(this, k); // changed since the bulk copy: read it live
            } else {
                file(k, 0);
            }
        }

        /** Whether the copy's file is the live one as listed (size, and time to the copy's precision). */
        private static boolean same(FileInfo copy, FileInfo now) {
            if (now == null || !now.isFile() || now.size() != copy.size()) {
                return false;
            }
            java.time.Instant a = copy.modified();
            java.time.Instant b = now.modified();
            return a.equals(b) || a.getNano() == 0 && a.getEpochSecond() == b.getEpochSecond();
        }

        /** Captures {@code k} through this capture's file system, counting into {@code counts}. */
        private void fileFrom(Capture counts, FileInfo k) throws IOException {
            FileInfo now;
            try {
                now = fs.stat(k.path());
            } catch (SandboxException e) {
                if (e.kind() != ErrorKind.NOT_FOUND) {
                    throw e;
                }
                counts.skipped++;
                return;
            }
            entry(now, 0);
            counts.files += files;
            counts.dirs += dirs;
            counts.links += links;
            counts.bytes += bytes;
            counts.skipped += skipped;
        }

        private void dir(FileInfo k, int depth) throws IOException {
            List<FileInfo> kids;
            try {
                kids = fs.list(k.path(), 1);
            } catch (SandboxException e) {
                restat(k, e, depth); // swapped for a link or a file, or gone, since it was listed
                return;
            }
            tar.directory(k.path(), mode(k, 0755), k.modified().getEpochSecond());
            dirs++;
            children(k.path(), kids, depth + 1);
        }

        private void file(FileInfo k, int attempt) throws IOException {
            if (k.size() > BUFFERED) {
                tar.file(k.path(), mode(k, 0644), k.size(), k.modified().getEpochSecond(), sink -> {
                    try {
                        fs.readToUnchanged(k.path(), sink);
                    } catch (SandboxException e) {
                        throw new TarOut.Changed(k.path() + " changed while it was captured (stop what writes it, "
                                + "or capture again): " + e.getMessage());
                    }
                });
                files++;
                bytes += k.size();
                return;
            }
            ByteArrayOutputStream buf = new ByteArrayOutputStream((int) Math.max(32, k.size()));
            FileInfo now;
            try {
                now = fs.readToUnchanged(k.path(), buf);
            } catch (SandboxException e) {
                if (e.kind() == ErrorKind.CONFLICT && attempt < RETRIES) {
                    file(k, attempt + 1);
                } else {
                    restat(k, e, 0);
                }
                return;
            }
            if (now.size() > BUFFERED) {
                file(now, attempt); // grew past the buffer meanwhile: streamed instead
                return;
            }
            tar.file(k.path(), mode(now, 0644), buf.size(), now.modified().getEpochSecond(), buf::writeTo);
            files++;
            bytes += buf.size();
        }

        /** What {@code k} is now, after reading it failed: captured as that, or skipped if gone. */
        private void restat(FileInfo k, SandboxException why, int depth) throws IOException {
            if (++swaps > 1000) {
                throw new SandboxException(ErrorKind.CONFLICT, "the workspace kept changing under the capture; stop "
                        + "what writes it and capture again", why);
            }
            FileInfo now;
            try {
                now = fs.stat(k.path());
            } catch (SandboxException e) {
                if (e.kind() == ErrorKind.NOT_FOUND) {
                    skipped++;
                    return;
                }
                throw why;
            }
            if (now.isSymlink() || now.isOther() || now.isDirectory() != k.isDirectory()) {
                entry(now, depth);
            } else if (now.isFile() && why.kind() == ErrorKind.CONFLICT) {
                throw new SandboxException(ErrorKind.CONFLICT, k.path() + " kept changing while it was captured; "
                        + "stop what writes it and capture again", why);
            } else {
                throw why;
            }
        }

        private static int mode(FileInfo k, int otherwise) {
            return k.mode() < 0 ? otherwise : k.mode() & 0777;
        }
    }
}
