package dev.sandbox4j.core;

import dev.sandbox4j.Edit;
import dev.sandbox4j.EditResult;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.FileWatch;
import dev.sandbox4j.GrepOptions;
import dev.sandbox4j.GrepResult;
import dev.sandbox4j.SandboxException;
import java.io.ByteArrayOutputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The whole {@link FileSystem} contract over a directory of any NIO file system (the host's, or jimfs), walking it
 * the way a hostile workspace demands: every path is resolved segment by segment from an open directory with
 * {@link SecureDirectoryStream} and {@link LinkOption#NOFOLLOW_LINKS}, so a symbolic link planted by sandboxed code
 * is refused, never followed, and swapping a directory for a link mid-walk cannot lead outside.
 *
 * <p>New files and directories are made in a private staging directory (same file system, out of the sandbox's
 * reach) and renamed into place relative to the open parent directory. That makes every write atomic and keeps
 * creation fd-relative. Special files are never opened; reads are capped.
 *
 * <p>A FIFO swapped in between the type check and the open cannot block a call: files are opened so that the open
 * cannot block, and refused when the opened descriptor is not seekable (see {@link #openRegularFile}).
 *
 * <p>Why one file of over 500 lines: every operation runs from one open root directory handle under the same
 * invariants (no link followed, writes staged and renamed relative to an open parent); the descriptor walks are in
 * {@code DescriptorTree}, and the rest is split only where a piece does not need those handles.
 */
public final class NioWorkspace extends WorkspaceBase {
    private static final int MAX_LIST_ENTRIES = 100_000;
    /** Directory levels a list, find, grep or copy walks below its start; deeper fails with TOO_LARGE. */
    static final int MAX_WALK_DEPTH = 256;

    private final Path root;
    private final Path staging;
    private final Options options;
    /** With {@link Options#withMaxEntries}: at least the number of entries in the workspace; -1 until counted. */
    private final java.util.concurrent.atomic.AtomicLong entries = new java.util.concurrent.atomic.AtomicLong(-1);

    /** Settings of a {@link NioWorkspace}. Immutable. */
    public static final class Options {
        private final Integer uid;
        private final Integer gid;
        private final long maxFileBytes;
        private final Runnable guard;
        private final long maxEntries;
        private final Changes changes;
        private final boolean sizeFirst;

        private Options(Integer uid, Integer gid, long maxFileBytes, Runnable guard, long maxEntries,
                        Changes changes, boolean sizeFirst) {
            this.uid = uid;
            this.gid = gid;
            this.maxFileBytes = maxFileBytes;
            this.guard = guard;
            this.maxEntries = maxEntries;
            this.changes = changes;
            this.sizeFirst = sizeFirst;
        }

        public static Options defaults() {
            return new Options(null, null, 0, () -> { }, 0, null, false);
        }

        /**
         * A write whose size is known first sets the new file's size (sparse), then fills it: on a tmpfs mounted
         * {@code huge=within_size} a kernel before 6.14 puts a file in large pages only where they lie within its
         * size, so a file written from its start would never get them. Only for a staging directory on the default
         * file system.
         */
        public Options withSizeFirst(boolean sizeFirst) {
            return new Options(uid, gid, maxFileBytes, guard, maxEntries, changes, sizeFirst);
        }

        /** Files and directories created through the API get this owner (the sandbox's uid on the host). */
        public Options withOwner(int uid, int gid) {
            return new Options(uid, gid, maxFileBytes, guard, maxEntries, changes, sizeFirst);
        }

        /** Writes past this size fail with {@link ErrorKind#TOO_LARGE}; 0 for no limit. */
        public Options withMaxFileBytes(long maxFileBytes) {
            return new Options(uid, gid, maxFileBytes, guard, maxEntries, changes, sizeFirst);
        }

        /** Runs before every operation; throw from it to refuse (a closed sandbox throws {@link ErrorKind#CLOSED}). */
        public Options withGuard(Runnable guard) {
            return new Options(uid, gid, maxFileBytes, guard, maxEntries, changes, sizeFirst);
        }

        /**
         * Tells {@code changes} of every change this object makes, after it is made. Only where nothing else changes
         * the files (the in-memory backend) is that every change, so only there can it feed watches; unset, no
         * change is looked at twice.
         */
        public Options withChanges(Changes changes) {
            return new Options(uid, gid, maxFileBytes, guard, maxEntries, changes, sizeFirst);
        }

        /**
         * Creating a file, directory or link that would make the workspace hold more than {@code maxEntries} entries
         * fails with {@link ErrorKind#NO_SPACE_LEFT}; 0 for no limit. Counted by this object (an upper bound, made
         * exact by a walk before anything is refused), so it holds only where nothing but this API creates entries,
         * as in the in-memory backend; a real file system's own inode limit is what bounds commands.
         */
        public Options withMaxEntries(long maxEntries) {
            return new Options(uid, gid, maxFileBytes, guard, maxEntries, changes, sizeFirst);
        }
    }

    /**
     * Receives the changes the file API made (see {@link Options#withChanges}), on the calling thread, once each
     * succeeded: what {@link WatchHub.Sink#event} takes, with the entry's type, size and modification time after the
     * change (false, 0 and 0 for a removed one). A tree is reported entry by entry: a copied one parents first, a
     * deleted one children first.
     */
    @FunctionalInterface
    public interface Changes {
        void changed(FileWatch.Kind kind, String path, String fromPath, boolean dir, long size, long modifiedMillis);
    }

    /**
     * A workspace rooted at {@code root}, creating new files in {@code staging}, which must be on the same file
     * system, private to the host application, and not reachable from inside the sandbox.
     */
    public NioWorkspace(Path root, Path staging, Options options) {
        this.root = root.toAbsolutePath();
        this.staging = staging.toAbsolutePath();
        this.options = options;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(this.root)) {
            if (!(ds instanceof SecureDirectoryStream)) {
                throw new SandboxException(ErrorKind.BACKEND_UNAVAILABLE,
                        "the file system of the workspace has no SecureDirectoryStream; links could not be refused safely");
            }
        } catch (IOException e) {
            throw new SandboxException(ErrorKind.IO_ERROR, "cannot open the workspace", e);
        }
    }

    // ---------------------------------------------------------------- reading

    @Override
    public String readText(String path) {
        return new String(readBytes(path), StandardCharsets.UTF_8);
    }

    @Override
    public String readText(String path, int fromLine, int toLine) {
        Arguments.lineRange(fromLine, toLine);
        String text = readText(path);
        StringBuilder out = new StringBuilder();
        int line = 1;
        int start = 0;
        while (start < text.length() && (toLine == -1 || line <= toLine)) {
            int nl = text.indexOf('\n', start);
            int end = nl < 0 ? text.length() : nl + 1;
            if (line >= fromLine) {
                out.append(text, start, end);
            }
            start = end;
            line++;
        }
        return out.toString();
    }

    @Override
    public byte[] readBytes(String path) {
        return withRegularFile(path, (ch, display) -> {
            if (ch.size() > MAX_READ_BYTES) {
                throw tooLarge(display, ch.size());
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(ch.size(), MAX_READ_BYTES));
            copyBounded(Channels.newInputStream(ch), out, MAX_READ_BYTES, display);
            return out.toByteArray();
        });
    }

    @Override
    public byte[] readBytes(String path, long offset, int length) {
        Arguments.byteRange(offset, length);
        if (length > MAX_READ_BYTES) {
            throw new SandboxException(ErrorKind.TOO_LARGE, "length " + length + " is over the read cap of "
                    + MAX_READ_BYTES + " bytes");
        }
        return withRegularFile(path, (ch, display) -> {
            ch.position(offset);
            ByteBuffer buf = ByteBuffer.allocate((int) Math.max(0, Math.min(length, ch.size() - offset)));
            while (buf.hasRemaining() && ch.read(buf) > 0) {
                // keep reading
            }
            return buf.hasRemaining() ? java.util.Arrays.copyOf(buf.array(), buf.position()) : buf.array();
        });
    }

    @Override
    public void readTo(String path, OutputStream sink) {
        withRegularFile(path, (ch, display) -> {
            // 1 MiB reads (InputStream.transferTo reads 8 KiB at a time, three times slower for big files)
            ByteBuffer buf = ByteBuffer.allocate(1 << 20);
            while (ch.read(buf) >= 0) {
                if (buf.position() > 0) {
                    sink.write(buf.array(), 0, buf.position());
                    buf.clear();
                }
            }
            return null;
        });
    }

    // ---------------------------------------------------------------- writing

    @Override
    public void write(String path, String text) {
        write(path, text.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void write(String path, byte[] content) {
        checkSize(path, content.length);
        writeAtomically(path, content.length, out -> {
            // big chunks, never one huge write (see copyBounded)
            for (int off = 0; off < content.length; off += 1 << 20) {
                out.write(content, off, Math.min(1 << 20, content.length - off));
            }
        });
    }

    @Override
    public void write(String path, InputStream content) {
        // exactly a ByteArrayInputStream: available() is what is left, so the size is known before the content
        long size = content.getClass() == ByteArrayInputStream.class ? ((ByteArrayInputStream) content).available() : -1;
        writeAtomically(path, size, out -> copyBounded(content, out, options.maxFileBytes, path));
    }

    @Override
    public void append(String path, String text) {
        append(path, text.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void append(String path, byte[] content) {
        guard();
        String rel = WorkspacePaths.requireNonRoot(path);
        List<String> segments = WorkspacePaths.segments(rel);
        String name = segments.get(segments.size() - 1);
        try (SecureDirectoryStream<Path> dir = mkdirs(segments.subList(0, segments.size() - 1), rel)) {
            BasicFileAttributes attrs = attrs(dir, name);
            if (attrs == null) {
                writeInto(dir, name, rel, content.length, out -> out.write(content));
                return;
            }
            requireRegular(attrs, rel);
            if (options.maxFileBytes > 0 && attrs.size() + content.length > options.maxFileBytes) {
                throw tooLarge(rel, attrs.size() + content.length);
            }
            try (SeekableByteChannel ch = openRegularFile(dir, p(name, rel), rel)) {
                long before = ch.size();
                ch.position(before); // no O_APPEND: NIO refuses READ with APPEND, and read-write cannot block
                ByteBuffer buf = ByteBuffer.wrap(content);
                try {
                    while (buf.hasRemaining()) {
                        ch.write(buf);
                    }
                } catch (IOException partial) {
                    // a full workspace (or any failure) leaves the file as it was, not half appended
                    try {
                        ch.truncate(before);
                    } catch (IOException ignored) {
                        // the original error is what the caller needs
                    }
                    throw partial;
                }
            }
            changed(FileWatch.Kind.WRITE, rel, "", dir, name);
        } catch (IOException e) {
            throw translate(e, rel);
        }
    }

    @Override
    public void mkdirs(String path) {
        guard();
        String rel = WorkspacePaths.normalize(path);
        try (SecureDirectoryStream<Path> ignored = mkdirs(WorkspacePaths.segments(rel), rel)) {
            // created or already there
        } catch (IOException e) {
            throw translate(e, rel);
        }
    }

    private interface Writer {
        void write(OutputStream out) throws IOException;
    }

    private void writeAtomically(String path, long size, Writer writer) {
        guard();
        String rel = WorkspacePaths.requireNonRoot(path);
        List<String> segments = WorkspacePaths.segments(rel);
        try (SecureDirectoryStream<Path> dir = mkdirs(segments.subList(0, segments.size() - 1), rel)) {
            writeInto(dir, segments.get(segments.size() - 1), rel, size, writer);
        } catch (IOException e) {
            throw translate(e, rel);
        }
    }

    /** Files this big or more are sized first ({@link Options#withSizeFirst}): one large page. */
    private static final long SIZE_FIRST_MIN = 2 << 20;

    /**
     * Writes a new file in staging, then renames it over {@code name} in {@code dir}; {@code size} is what the
     * writer will write, or -1 when unknown.
     */
    private void writeInto(SecureDirectoryStream<Path> dir, String name, String rel, long size, Writer writer)
            throws IOException {
        BasicFileAttributes existing = attrs(dir, name);
        Set<PosixFilePermission> mode = null;
        if (existing != null) {
            if (existing.isDirectory()) {
                throw new SandboxException(ErrorKind.IS_A_DIRECTORY, rel + " is a directory");
            }
            requireRegular(existing, rel);
            if (existing instanceof PosixFileAttributes) {
                mode = ((PosixFileAttributes) existing).permissions();
            }
        } else {
            reserveEntry(rel);
        }
        Path temp = newStagingPath();
        try {
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                if (options.sizeFirst && size >= SIZE_FIRST_MIN) {
                    try (java.io.RandomAccessFile sized = new java.io.RandomAccessFile(temp.toFile(), "rw")) {
                        sized.setLength(size); // ftruncate: sparse, nothing allocated or charged yet
                    }
                }
                writer.write(Channels.newOutputStream(ch));
                if (ch.size() > ch.position()) {
                    ch.truncate(ch.position()); // fewer bytes came than announced: no zeros after them
                }
            }
            own(temp, mode == null ? "rw-r--r--" : null, mode);
            moveIn(temp, dir, name, rel);
            if (existing == null) {
                madeEntry();
            }
            // a new file renamed into place, as inotify sees it on the real backends: a create, new or not
            changed(FileWatch.Kind.CREATE, rel, "", dir, name);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    private SecureDirectoryStream<Path> stagingDir() throws IOException {
        return (SecureDirectoryStream<Path>) Files.newDirectoryStream(staging);
    }

    private void moveIn(Path temp, SecureDirectoryStream<Path> dir, String name, String rel) throws IOException {
        try (SecureDirectoryStream<Path> stage = stagingDir()) {
            stage.move(temp.getFileName(), dir, p(name, rel));
        }
    }

    /** Refuses (NO_SPACE_LEFT) to create an entry past {@link Options#withMaxEntries}; counts exactly first. */
    private void reserveEntry(String rel) {
        long max = options.maxEntries;
        if (max <= 0) {
            return;
        }
        long n = entries.get();
        if (n < 0 || n + 1 > max) {
            n = countEntries();
            entries.set(n);
        }
        if (n + 1 > max) {
            throw new SandboxException(ErrorKind.NO_SPACE_LEFT, rel + ": no space left in the workspace (its quota of "
                    + max + " files and directories is used up; delete files to make room)");
        }
    }

    private void madeEntry() {
        if (options.maxEntries > 0) {
            entries.getAndUpdate(n -> n < 0 ? n : n + 1);
        }
    }

    /** Entries under the workspace root, not following links; an entry removed while it is counted is not. */
    private long countEntries() {
        long[] n = {0};
        try {
            Files.walkFileTree(root, new java.nio.file.SimpleFileVisitor<>() {
                @Override
                public java.nio.file.FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    n[0]++;
                    return java.nio.file.FileVisitResult.CONTINUE;
                }

                @Override
                public java.nio.file.FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    n[0]++;
                    return java.nio.file.FileVisitResult.CONTINUE;
                }

                @Override
                public java.nio.file.FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    if (e instanceof java.nio.file.NoSuchFileException) {
                        return java.nio.file.FileVisitResult.CONTINUE; // deleted meanwhile: not an entry any more
                    }
                    throw e;
                }

                @Override
                public java.nio.file.FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                    if (e != null && !(e instanceof java.nio.file.NoSuchFileException)) {
                        throw e;
                    }
                    return java.nio.file.FileVisitResult.CONTINUE;
                }
            });
            return n[0] - 1;
        } catch (IOException | UncheckedIOException e) {
            throw new SandboxException(ErrorKind.IO_ERROR, "counting the workspace's entries: " + e.getMessage(), e);
        }
    }

    private Path newStagingPath() {
        return staging.resolve(".sbx-" + UUID.randomUUID());
    }

    private void own(Path staged, String defaultMode, Set<PosixFilePermission> mode) throws IOException {
        PosixFileAttributeView posix = Files.getFileAttributeView(staged, PosixFileAttributeView.class,
                LinkOption.NOFOLLOW_LINKS);
        if (posix != null && !Files.isSymbolicLink(staged)) {
            posix.setPermissions(mode != null ? mode
                    : java.nio.file.attribute.PosixFilePermissions.fromString(defaultMode));
        }
        if (options.uid != null) {
            Files.setAttribute(staged, "unix:uid", options.uid, LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(staged, "unix:gid", options.gid, LinkOption.NOFOLLOW_LINKS);
        }
    }

    /** Opens (creating as needed) the directory at {@code segments}; the caller closes it. */
    private SecureDirectoryStream<Path> mkdirs(List<String> segments, String rel) throws IOException {
        return walkDirs(segments, rel, true);
    }

    /**
     * Makes directory {@code segment} in {@code dir}: in staging, then renamed in, so creation stays fd-relative.
     * Returns false when another caller made it first.
     */
    private boolean createDirectory(SecureDirectoryStream<Path> dir, String segment, String rel) throws IOException {
        reserveEntry(rel);
        Path temp = newStagingPath();
        Files.createDirectory(temp);
        try {
            own(temp, "rwxr-xr-x", null);
            try (SecureDirectoryStream<Path> stage = stagingDir()) {
                stage.move(temp.getFileName(), dir, p(segment, rel));
                madeEntry();
                return true;
            } catch (FileAlreadyExistsException | DirectoryNotEmptyException raced) {
                return false; // another caller made it first: use theirs
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    // ---------------------------------------------------------------- metadata

    @Override
    public FileInfo stat(String path) {
        guard();
        String rel = WorkspacePaths.normalize(path);
        List<String> segments = WorkspacePaths.segments(rel);
        try {
            if (segments.isEmpty()) {
                try (SecureDirectoryStream<Path> dir = openRoot()) {
                    BasicFileAttributes a = dir.getFileAttributeView(BasicFileAttributeView.class).readAttributes();
                    PosixFileAttributeView pv = dir.getFileAttributeView(PosixFileAttributeView.class);
                    int mode = pv == null ? -1 : mode(pv.readAttributes().permissions());
                    return FileInfo.directory("", a.size(), mode, a.lastModifiedTime().toInstant());
                }
            }
            try (SecureDirectoryStream<Path> dir = openDirs(segments.subList(0, segments.size() - 1), rel)) {
                String name = segments.get(segments.size() - 1);
                BasicFileAttributes attrs = attrs(dir, name);
                if (attrs == null) {
                    throw notFound(rel);
                }
                return info(rel, attrs);
            }
        } catch (IOException e) {
            throw translate(e, rel);
        }
    }

    @Override
    public boolean exists(String path) {
        try {
            stat(path);
            return true;
        } catch (SandboxException e) {
            if (e.kind() == ErrorKind.NOT_FOUND || e.kind() == ErrorKind.NOT_A_DIRECTORY) {
                return false;
            }
            throw e;
        }
    }

    @Override
    protected List<FileInfo> list(String path, int depth, boolean includeHidden) {
        guard();
        Arguments.depth(depth);
        String rel = WorkspacePaths.normalize(path);
        List<FileInfo> out = new ArrayList<>();
        try (SecureDirectoryStream<Path> dir = openDirs(WorkspacePaths.segments(rel), rel)) {
            walk(dir, rel, depth, (info, attrs) -> {
                if (!includeHidden && info.name().startsWith(".")) {
                    return false;
                }
                if (out.size() >= MAX_LIST_ENTRIES) {
                    throw new SandboxException(ErrorKind.TOO_LARGE, rel + " holds more than " + MAX_LIST_ENTRIES
                            + " entries; list a smaller depth or a subdirectory");
                }
                out.add(info);
                return true;
            });
        } catch (IOException e) {
            throw translate(e, rel);
        }
        out.sort((a, b) -> a.path().compareTo(b.path()));
        return out;
    }

    @Override
    public List<String> find(String glob, String path, List<String> excludes) {
        guard();
        String rel = WorkspacePaths.normalize(path);
        Predicate<String> match = Globs.compile(glob);
        Predicate<String> excluded = Globs.any(excludes);
        String prefix = rel.isEmpty() ? "" : rel + "/";
        List<String> out = new ArrayList<>();
        try (SecureDirectoryStream<Path> dir = openDirs(WorkspacePaths.segments(rel), rel)) {
            walk(dir, rel, Integer.MAX_VALUE, (info, attrs) -> {
                String relative = info.path().substring(prefix.length());
                if (excluded.test(relative)) {
                    return false;
                }
                if (match.test(relative)) {
                    out.add(info.path());
                }
                return true;
            });
        } catch (IOException e) {
            throw translate(e, rel);
        }
        Collections.sort(out);
        return out;
    }

    @Override
    public GrepResult grep(String regex, String path, GrepOptions options) {
        guard();
        GrepScan scan = new GrepScan(regex, options);
        String rel = WorkspacePaths.normalize(path);
        FileInfo start = stat(rel);
        if (start.isDirectory()) {
            Predicate<String> excluded = Globs.any(options.excludes());
            Predicate<String> included = options.includes().isEmpty() ? p -> true : Globs.any(options.includes());
            String prefix = rel.isEmpty() ? "" : rel + "/";
            List<FileInfo> files = new ArrayList<>();
            try (SecureDirectoryStream<Path> dir = openDirs(WorkspacePaths.segments(rel), rel)) {
                walk(dir, rel, Integer.MAX_VALUE, (info, attrs) -> {
                    String relative = info.path().substring(prefix.length());
                    if (excluded.test(relative)) {
                        return false;
                    }
                    if (!info.isDirectory() && included.test(relative)) {
                        files.add(info);
                    }
                    return true;
                });
            } catch (IOException e) {
                throw translate(e, rel);
            }
            files.sort((x, y) -> WorkspacePaths.walkOrder(x.path(), y.path()));
            try (ParentDir parents = new ParentDir()) {
                for (FileInfo file : files) {
                    if (scan.truncated()) {
                        break; // the match cap was reached: the rest is neither searched nor reported
                    }
                    grepFile(scan, file, parents);
                }
            }
            return scan.result();
        }
        try (ParentDir parents = new ParentDir()) {
            grepFile(scan, start, parents);
        }
        return scan.result(rel);
    }

    /**
     * The open parent directory of the file grep reads now, kept for the next file when it has the same parent (files
     * come sorted, so a directory's files come together): one walk from the root per directory, not per file. Files
     * are still opened relative to it without following links.
     */
    private final class ParentDir implements AutoCloseable {
        private String rel;
        private SecureDirectoryStream<Path> dir;

        SecureDirectoryStream<Path> of(List<String> segments, String fileRel) throws IOException {
            String parent = String.join("/", segments.subList(0, segments.size() - 1));
            if (dir == null || !parent.equals(rel)) {
                close();
                dir = openDirs(segments.subList(0, segments.size() - 1), fileRel);
                rel = parent;
            }
            return dir;
        }

        @Override
        public void close() {
            if (dir != null) {
                DescriptorTree.closeQuietly(dir);
                dir = null;
            }
        }
    }

    /** Searches one file the walk (or stat) found, or reports why not; never follows or opens anything else. */
    private void grepFile(GrepScan scan, FileInfo file, ParentDir parents) {
        String rel = file.path();
        if (file.isSymlink()) {
            scan.skip(rel, GrepResult.Reason.LINK, "not followed");
            return;
        }
        if (!file.isFile()) {
            scan.skip(rel, GrepResult.Reason.SPECIAL_FILE, "a FIFO, socket or device: not opened");
            return;
        }
        if (!scan.admit(rel, file.size())) {
            return;
        }
        List<String> segments = WorkspacePaths.segments(rel);
        try {
            SecureDirectoryStream<Path> dir = parents.of(segments, rel);
            String name = segments.get(segments.size() - 1);
            BasicFileAttributes attrs = attrs(dir, name);
            GrepResult.Reason changed = attrs == null || attrs.isDirectory() ? GrepResult.Reason.VANISHED
                    : attrs.isSymbolicLink() ? GrepResult.Reason.LINK
                    : !attrs.isRegularFile() ? GrepResult.Reason.SPECIAL_FILE : null;
            if (changed != null) {
                scan.skip(rel, changed, "replaced while grep ran");
                return;
            }
            SeekableByteChannel ch;
            try {
                ch = openRegularFile(dir, p(name, rel), rel);
            } catch (SandboxException e) {
                if (e.kind() != ErrorKind.PERMISSION_DENIED) {
                    throw e;
                }
                scan.skip(rel, GrepResult.Reason.SPECIAL_FILE, "replaced by a special file while grep ran");
                return;
            }
            try (ch) {
                scan.search(rel, Channels.newInputStream(ch));
            }
        } catch (NoSuchFileException | NotDirectoryException e) {
            scan.skip(rel, GrepResult.Reason.VANISHED, "gone while grep ran");
        } catch (FileSystemLoopException e) {
            scan.skip(rel, GrepResult.Reason.LINK, "replaced by a link while grep ran");
        } catch (IOException e) {
            scan.skip(rel, GrepResult.Reason.UNREADABLE, translate(e, rel).getMessage());
        } catch (SandboxException e) {
            if (e.kind() == ErrorKind.NOT_FOUND || e.kind() == ErrorKind.NOT_A_DIRECTORY) {
                scan.skip(rel, GrepResult.Reason.VANISHED, "a parent directory changed while grep ran");
            } else if (e.kind() == ErrorKind.PERMISSION_DENIED && e.getMessage().contains("symbolic link")) {
                scan.skip(rel, GrepResult.Reason.LINK, "a parent directory was replaced by a link while grep ran");
            } else if (e.kind() == ErrorKind.INVALID_ARGUMENT || e.kind() == ErrorKind.CLOSED
                    || e.kind() == ErrorKind.INTERRUPTED) {
                throw e; // the pattern is too expensive, or the call itself must end
            } else {
                scan.skip(rel, GrepResult.Reason.UNREADABLE, e.getMessage());
            }
        }
    }

    private interface Visitor {
        /** Returns whether to descend (for directories) — false also skips the subtree. */
        boolean visit(FileInfo info, BasicFileAttributes attrs);
    }

    /** {@link DescriptorTree#walk} with each entry described as a {@link FileInfo}. */
    private void walk(SecureDirectoryStream<Path> top, String rel, int depth, Visitor visitor) throws IOException {
        DescriptorTree.walk(top, rel, depth, (childRel, attrs) -> visitor.visit(info(childRel, attrs), attrs));
    }

    // ---------------------------------------------------------------- changing the tree

    @Override
    protected void move(String from, String to, boolean overwrite) {
        guard();
        entries.set(-1); // an overwrite removes an entry (or a tree): recounted when a quota check needs it
        String src = WorkspacePaths.requireNonRoot(from);
        String dst = WorkspacePaths.requireNonRoot(to);
        if (dst.equals(src)) {
            return;
        }
        if (dst.startsWith(src + "/")) {
            throw new SandboxException(ErrorKind.INVALID_PATH, "cannot move " + src + " into itself (" + dst + ")");
        }
        transfer(src, dst, overwrite, (srcDir, srcName, srcAttrs, dstDir, dstName) -> {
            srcDir.move(p(srcName, src), dstDir, p(dstName, dst));
            changed(FileWatch.Kind.RENAME, dst, src, dstDir, dstName);
        });
    }

    @Override
    protected void copy(String from, String to, boolean overwrite) {
        guard();
        String src = WorkspacePaths.requireNonRoot(from);
        String dst = WorkspacePaths.requireNonRoot(to);
        if (dst.equals(src) || dst.startsWith(src + "/")) {
            throw new SandboxException(ErrorKind.INVALID_PATH, "cannot copy " + src + " onto or into itself");
        }
        transfer(src, dst, overwrite, (srcDir, srcName, srcAttrs, dstDir, dstName) -> {
            BasicFileAttributes existing = attrs(dstDir, dstName);
            if (existing != null && existing.isDirectory()) {
                deleteTree(dstDir, dstName, dst); // overwrite asked, and the target is an empty directory
                removed(List.of(new Removed(dst, true)));
            }
            // the entries made, reported once the whole copy is in place (a failed one is removed again)
            List<String> made = options.changes == null ? null : new ArrayList<>();
            try {
                copyEntry(srcDir, srcName, src, srcAttrs, dstDir, dstName, dst, 0, made);
            } catch (IOException | RuntimeException e) {
                if (srcAttrs.isDirectory()) {
                    removePartialCopy(dstDir, dstName); // the target was absent or an empty directory
                }
                throw e;
            }
            if (made != null) {
                for (String rel : made) {
                    changed(FileWatch.Kind.CREATE, rel, // renamed into place: a create, as on the real backends
                            "", statQuietly(rel));
                }
            }
        });
    }

    private interface Transfer {
        void apply(SecureDirectoryStream<Path> srcDir, String srcName, BasicFileAttributes srcAttrs,
                   SecureDirectoryStream<Path> dstDir, String dstName) throws IOException;
    }

    /** Opens the source's parent and the target's (created), checks both ends, then moves or copies. */
    private void transfer(String src, String dst, boolean overwrite, Transfer op) {
        List<String> s = WorkspacePaths.segments(src);
        List<String> d = WorkspacePaths.segments(dst);
        try (SecureDirectoryStream<Path> srcDir = openDirs(s.subList(0, s.size() - 1), src)) {
            String srcName = s.get(s.size() - 1);
            BasicFileAttributes srcAttrs = attrs(srcDir, srcName);
            if (srcAttrs == null) {
                throw notFound(src);
            }
            try (SecureDirectoryStream<Path> dstDir = mkdirs(d.subList(0, d.size() - 1), dst)) {
                String dstName = d.get(d.size() - 1);
                checkTarget(dstDir, dstName, dst, srcAttrs, overwrite);
                op.apply(srcDir, srcName, srcAttrs, dstDir, dstName);
            }
        } catch (IOException e) {
            throw translate(e, src);
        }
    }

    private void checkTarget(SecureDirectoryStream<Path> dir, String name, String rel, BasicFileAttributes src,
                             boolean overwrite) throws IOException {
        BasicFileAttributes target = attrs(dir, name);
        if (target == null) {
            return;
        }
        if (!overwrite) {
            throw new SandboxException(ErrorKind.ALREADY_EXISTS, rel + " already exists");
        }
        if (target.isDirectory()) {
            if (!src.isDirectory()) {
                throw new SandboxException(ErrorKind.IS_A_DIRECTORY, rel + " is a directory");
            }
            try (SecureDirectoryStream<Path> t = dir.newDirectoryStream(p(name, rel), LinkOption.NOFOLLOW_LINKS)) {
                if (t.iterator().hasNext()) {
                    throw new SandboxException(ErrorKind.DIRECTORY_NOT_EMPTY, rel + " is a non-empty directory");
                }
            }
        } else if (src.isDirectory()) {
            throw new SandboxException(ErrorKind.NOT_A_DIRECTORY, rel + " exists and is not a directory");
        }
    }

    /** A failed directory copy leaves nothing: what it made so far is deleted (best effort). */
    private void removePartialCopy(SecureDirectoryStream<Path> dstDir, String dstName) {
        try {
            BasicFileAttributes made = attrs(dstDir, dstName);
            if (made != null && made.isDirectory()) {
                DescriptorTree.delete(dstDir, p(dstName, dstName), null);
            }
        } catch (IOException | RuntimeException ignored) {
            // the original failure is what the caller needs to see
        }
    }

    /** Copies one entry; recursion is bounded by {@link #MAX_WALK_DEPTH} (TOO_LARGE deeper). */
    private void copyEntry(SecureDirectoryStream<Path> srcDir, String srcName, String src, BasicFileAttributes attrs,
                           SecureDirectoryStream<Path> dstDir, String dstName, String dst, int depth,
                           List<String> made) throws IOException {
        if (attrs.isDirectory() && depth >= MAX_WALK_DEPTH) {
            throw new SandboxException(ErrorKind.TOO_LARGE, src + " is nested deeper than " + MAX_WALK_DEPTH
                    + " directory levels below the copied directory; nothing was copied");
        }
        reserveEntry(dst);
        Path temp = newStagingPath();
        try {
            if (attrs.isSymbolicLink()) {
                Files.createSymbolicLink(temp, readLink(src));
                own(temp, null, null);
                moveIn(temp, dstDir, dstName, dst);
                madeEntry();
                noteMade(made, dst);
            } else if (attrs.isDirectory()) {
                Files.createDirectory(temp);
                own(temp, null, permissions(attrs));
                moveIn(temp, dstDir, dstName, dst);
                madeEntry();
                noteMade(made, dst);
                try (SecureDirectoryStream<Path> from = srcDir.newDirectoryStream(p(srcName, src),
                        LinkOption.NOFOLLOW_LINKS);
                     SecureDirectoryStream<Path> into = dstDir.newDirectoryStream(p(dstName, dst),
                             LinkOption.NOFOLLOW_LINKS)) {
                    for (Path entry : DescriptorTree.entries(from)) {
                        String name = entry.toString();
                        BasicFileAttributes childAttrs = attrs(from, name);
                        if (childAttrs != null) {
                            copyEntry(from, name, src + "/" + name, childAttrs, into, name, dst + "/" + name,
                                    depth + 1, made);
                        }
                    }
                }
            } else if (attrs.isRegularFile()) {
                try (SeekableByteChannel in = openRegularFile(srcDir, p(srcName, src), src);
                     OutputStream out = Files.newOutputStream(temp, StandardOpenOption.CREATE_NEW,
                             StandardOpenOption.WRITE)) {
                    copyBounded(Channels.newInputStream(in), out, options.maxFileBytes, dst);
                }
                own(temp, null, permissions(attrs));
                moveIn(temp, dstDir, dstName, dst);
                madeEntry();
                noteMade(made, dst);
            } else {
                throw specialRefused(src);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    private static Set<PosixFilePermission> permissions(BasicFileAttributes attrs) {
        return attrs instanceof PosixFileAttributes ? ((PosixFileAttributes) attrs).permissions()
                : java.nio.file.attribute.PosixFilePermissions.fromString(attrs.isDirectory() ? "rwxr-xr-x" : "rw-r--r--");
    }

    @Override
    protected void delete(String path, boolean recursive) {
        guard();
        entries.set(-1); // recounted when a quota check needs it
        String rel = WorkspacePaths.requireNonRoot(path);
        List<String> segments = WorkspacePaths.segments(rel);
        try (SecureDirectoryStream<Path> dir = openDirs(segments.subList(0, segments.size() - 1), rel)) {
            String name = segments.get(segments.size() - 1);
            BasicFileAttributes attrs = attrs(dir, name);
            if (attrs == null) {
                throw notFound(rel);
            }
            if (attrs.isDirectory()) {
                if (recursive) {
                    List<Removed> gone = options.changes == null ? null : treeChildrenFirst(dir, name, rel);
                    deleteTree(dir, name, rel);
                    removed(gone);
                } else {
                    dir.deleteDirectory(p(name, rel));
                    removed(List.of(new Removed(rel, true)));
                }
            } else {
                dir.deleteFile(p(name, rel));
                removed(List.of(new Removed(rel, false)));
            }
        } catch (IOException e) {
            throw translate(e, rel);
        }
    }

    // ---------------------------------------------------------------- reporting changes (Options.withChanges)

    /** An entry a delete removed. */
    private record Removed(String path, boolean dir) {
    }

    /**
     * Reports a change to {@code name} in {@code dir}, with its attributes now; the change is made, so a failure to
     * read them never fails the call.
     */
    private void changed(FileWatch.Kind kind, String rel, String from, SecureDirectoryStream<Path> dir, String name) {
        if (options.changes != null) {
            BasicFileAttributes now;
            try {
                now = attrs(dir, name);
            } catch (IOException | RuntimeException e) {
                now = null;
            }
            changed(kind, rel, from, now);
        }
    }

    private void changed(FileWatch.Kind kind, String rel, String from, BasicFileAttributes attrs) {
        Changes hook = options.changes;
        if (hook == null) {
            return;
        }
        if (attrs == null) { // changed again since, by another caller: report what this call did, as gone
            hook.changed(kind, rel, from, false, 0, 0);
        } else {
            hook.changed(kind, rel, from, attrs.isDirectory(), attrs.size(), attrs.lastModifiedTime().toMillis());
        }
    }

    private void removed(List<Removed> gone) {
        if (options.changes != null && gone != null) {
            for (Removed r : gone) {
                options.changes.changed(FileWatch.Kind.REMOVE, r.path(), "", r.dir(), 0, 0);
            }
        }
    }

    private static void noteMade(List<String> made, String rel) {
        if (made != null) {
            made.add(rel);
        }
    }

    /** The attributes of an entry by its workspace path, or null when it is gone (or cannot be read). */
    private BasicFileAttributes statQuietly(String rel) {
        List<String> segments = WorkspacePaths.segments(rel);
        try (SecureDirectoryStream<Path> dir = openDirs(segments.subList(0, segments.size() - 1), rel)) {
            return attrs(dir, segments.get(segments.size() - 1));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * The entries of the tree at {@code name}, itself last, each after everything under it (a pre-order walk
     * reversed). A tree deeper than a walk goes is reported by its top alone.
     */
    private List<Removed> treeChildrenFirst(SecureDirectoryStream<Path> dir, String name, String rel)
            throws IOException {
        List<Removed> out = new ArrayList<>();
        out.add(new Removed(rel, true));
        try (SecureDirectoryStream<Path> top = dir.newDirectoryStream(p(name, rel), LinkOption.NOFOLLOW_LINKS)) {
            walk(top, rel, Integer.MAX_VALUE, (info, attrs) -> out.add(new Removed(info.path(), attrs.isDirectory())));
        } catch (SandboxException e) {
            if (e.kind() != ErrorKind.TOO_LARGE) {
                throw e;
            }
            return List.of(new Removed(rel, true));
        }
        Collections.reverse(out);
        return out;
    }

    private void deleteTree(SecureDirectoryStream<Path> dir, String name, String rel) throws IOException {
        DescriptorTree.delete(dir, p(name, rel), null);
    }

    /**
     * Deletes directory {@code dir} and everything under it, of any depth, never following a link (links are removed,
     * never their targets), holding at most {@value DescriptorTree#DELETE_OPEN_DIRS} directory descriptors. For the
     * host-side cleanup of a closed sandbox's directories: sandboxed code may have left a tree thousands of levels
     * deep, longer than PATH_MAX, which a recursive, path-based delete can neither reach nor survive (stack
     * overflow). Directories are made writable by their owner first, so one the sandbox made read-only is deleted too.
     *
     * @throws IOException what stopped the deletion (the rest may be left; call again to retry)
     */
    public static void deleteTree(Path dir) throws IOException {
        DescriptorTree.deleteTree(dir);
    }

    // ---------------------------------------------------------------- editing

    @Override
    public EditResult replace(String path, String oldText, String newText) {
        return TextEdits.replace(this, WorkspacePaths.requireNonRoot(path), oldText, newText);
    }

    @Override
    protected EditResult edit(String path, List<Edit> edits, boolean dryRun) {
        return TextEdits.edit(this, WorkspacePaths.requireNonRoot(path), edits, dryRun);
    }

    // ---------------------------------------------------------------- walking

    private void guard() {
        options.guard.run();
    }

    private SecureDirectoryStream<Path> openRoot() throws IOException {
        return (SecureDirectoryStream<Path>) Files.newDirectoryStream(root);
    }

    /** Opens an existing directory without creating or following anything; the caller closes it. */
    private SecureDirectoryStream<Path> openDirs(List<String> segments, String rel) throws IOException {
        return walkDirs(segments, rel, false);
    }

    /**
     * Walks {@code segments} from the root, one open directory at a time, refusing links and non-directories, and
     * creating what is missing when asked; the caller closes the directory returned.
     */
    private SecureDirectoryStream<Path> walkDirs(List<String> segments, String rel, boolean create)
            throws IOException {
        SecureDirectoryStream<Path> dir = openRoot();
        try {
            StringBuilder walked = new StringBuilder();
            for (String segment : segments) {
                walked.append(walked.length() == 0 ? "" : "/").append(segment);
                BasicFileAttributes attrs = attrs(dir, segment);
                if (attrs == null && create) {
                    boolean made = createDirectory(dir, segment, rel);
                    attrs = attrs(dir, segment);
                    if (made && attrs != null) {
                        changed(FileWatch.Kind.CREATE, walked.toString(), "", attrs);
                    }
                }
                if (attrs == null) {
                    throw notFound(walked.toString());
                }
                if (attrs.isSymbolicLink()) {
                    throw linkRefused(walked.toString());
                }
                if (!attrs.isDirectory()) {
                    throw new SandboxException(ErrorKind.NOT_A_DIRECTORY, walked + " is not a directory");
                }
                SecureDirectoryStream<Path> next = dir.newDirectoryStream(p(segment, rel), LinkOption.NOFOLLOW_LINKS);
                dir.close();
                dir = next;
            }
            return dir;
        } catch (IOException | RuntimeException e) {
            dir.close();
            throw e;
        }
    }

    private interface ChannelWork<T> {
        T apply(SeekableByteChannel channel, String display) throws IOException;
    }

    private <T> T withRegularFile(String path, ChannelWork<T> work) {
        guard();
        String rel = WorkspacePaths.requireNonRoot(path);
        List<String> segments = WorkspacePaths.segments(rel);
        try (SecureDirectoryStream<Path> dir = openDirs(segments.subList(0, segments.size() - 1), rel)) {
            String name = segments.get(segments.size() - 1);
            BasicFileAttributes attrs = attrs(dir, name);
            if (attrs == null) {
                throw notFound(rel);
            }
            if (attrs.isDirectory()) {
                throw new SandboxException(ErrorKind.IS_A_DIRECTORY, rel + " is a directory");
            }
            requireRegular(attrs, rel);
            try (SeekableByteChannel ch = openRegularFile(dir, p(name, rel), rel)) {
                return work.apply(ch, rel);
            }
        } catch (IOException e) {
            throw translate(e, rel);
        } catch (UncheckedIOException e) {
            throw translate(e.getCause(), rel);
        }
    }

    // ---------------------------------------------------------------- opening a file that may be swapped

    private static final Set<OpenOption> READ_WRITE = Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS);
    private static final Set<OpenOption> READ_ONLY = Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
    /** How long the read-only fallback open may take before the file is refused. */
    static final long FALLBACK_OPEN_MILLIS = 2_000;
    /** Read-only opens left blocked (on a FIFO nobody can reach any more) after which the fallback refuses at once. */
    static final int MAX_STUCK_OPENS = 8;
    private static final java.util.concurrent.atomic.AtomicInteger STUCK_OPENS =
            new java.util.concurrent.atomic.AtomicInteger();

    /**
     * Opens {@code name} in {@code dir} (a regular file a moment ago) without following a link and without being able
     * to block, then proves through the opened descriptor that it is not a FIFO or socket. The type check on the
     * name is not enough: sandboxed code can swap a FIFO in between the check and the open, and opening a FIFO
     * read-only blocks until a writer comes, possibly forever (the FIFO may be unlinked meanwhile).
     *
     * <p>Java has no {@code O_NONBLOCK} open, so the file is opened read-write ({@code O_RDWR}): on Linux that never
     * blocks on a FIFO, and it neither truncates nor changes a regular file (a watcher may see an open-for-write
     * close event). Then {@code lseek} on the descriptor ({@link SeekableByteChannel#position()}) fails with ESPIPE
     * for a FIFO or socket, which refuses it with {@link ErrorKind#PERMISSION_DENIED}; devices cannot be made by
     * sandboxed code. Only when read-write is refused (a read-only file of another owner for a non-root host, a
     * running executable) is the file opened read-only, on a helper thread given {@value #FALLBACK_OPEN_MILLIS} ms:
     * past that the FIFO it found is opened read-write by name to release it, and the call is refused.
     */
    static SeekableByteChannel openRegularFile(SecureDirectoryStream<Path> dir, Path name, String rel)
            throws IOException {
        SeekableByteChannel ch;
        try {
            ch = dir.newByteChannel(name, READ_WRITE);
        } catch (FileSystemException e) {
            if (!writeRefused(e)) {
                throw e;
            }
            ch = openReadOnlyBounded(dir, name, rel, FALLBACK_OPEN_MILLIS);
        }
        try {
            ch.position(); // lseek: ESPIPE on a FIFO or socket
            return ch;
        } catch (IOException notSeekable) {
            ch.close();
            throw specialRefused(rel);
        }
    }

    private static boolean writeRefused(FileSystemException e) {
        String reason = e.getReason() == null ? "" : e.getReason();
        return e instanceof AccessDeniedException || reason.contains("Text file busy")
                || reason.contains("Read-only file system") || reason.contains("Operation not permitted");
    }

    /**
     * The read-only open of the fallback, bounded: on a helper thread with a directory descriptor of its own (a
     * blocked open holds its directory stream's lock, so the caller's must stay free to close).
     */
    static SeekableByteChannel openReadOnlyBounded(SecureDirectoryStream<Path> dir, Path name, String rel,
                                                   long millis) throws IOException {
        if (STUCK_OPENS.get() >= MAX_STUCK_OPENS) {
            throw new SandboxException(ErrorKind.PERMISSION_DENIED, rel + ": cannot be opened safely now ("
                    + MAX_STUCK_OPENS + " earlier opens are still blocked on FIFOs)");
        }
        SecureDirectoryStream<Path> own = dir.newDirectoryStream(name.getFileSystem().getPath("."),
                LinkOption.NOFOLLOW_LINKS);
        java.util.concurrent.CompletableFuture<SeekableByteChannel> opened = new java.util.concurrent.CompletableFuture<>();
        Thread opener = new Thread(() -> {
            try {
                opened.complete(own.newByteChannel(name, READ_ONLY));
            } catch (Throwable t) {
                opened.completeExceptionally(t);
            } finally {
                DescriptorTree.closeQuietly(own);
            }
        }, "sandbox4j-file-open");
        opener.setDaemon(true);
        opener.start();
        try {
            return opened.get(millis, java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException blocked) {
            STUCK_OPENS.incrementAndGet();
            opened.whenComplete((ch, e) -> {
                STUCK_OPENS.decrementAndGet();
                if (ch != null) {
                    try {
                        ch.close();
                    } catch (IOException ignored) {
                        // released late: nobody wants it any more
                    }
                }
            });
            release(dir, name);
            throw specialRefused(rel);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof IOException) {
                throw (IOException) e.getCause();
            }
            if (e.getCause() instanceof RuntimeException) {
                throw (RuntimeException) e.getCause();
            }
            throw new IOException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            release(dir, name);
            throw new SandboxException(ErrorKind.INTERRUPTED, "interrupted while opening " + rel, e);
        }
    }

    /** Opens {@code name} read-write and closes it if it is a FIFO now: a reader blocked on it sees a writer come. */
    private static void release(SecureDirectoryStream<Path> dir, Path name) {
        try {
            BasicFileAttributes a = attrs(dir, name);
            if (a != null && a.isOther()) {
                dir.newByteChannel(name, READ_WRITE).close();
            }
        } catch (IOException | RuntimeException ignored) {
            // gone or swapped again: the blocked thread stays counted until something releases it
        }
    }

    /** Read-only opens still blocked (for tests). */
    static int stuckOpens() {
        return STUCK_OPENS.get();
    }

    private void requireRegular(BasicFileAttributes attrs, String rel) {
        if (attrs.isSymbolicLink()) {
            throw linkRefused(rel);
        }
        if (attrs.isDirectory()) {
            throw new SandboxException(ErrorKind.IS_A_DIRECTORY, rel + " is a directory");
        }
        if (!attrs.isRegularFile()) {
            throw specialRefused(rel);
        }
    }

    /** Attributes of {@code name} in {@code dir} without following a link, or null when it does not exist. */
    private BasicFileAttributes attrs(SecureDirectoryStream<Path> dir, String name) throws IOException {
        return attrs(dir, p(name, name));
    }

    /** As above, for a name as listed (its bytes kept, even when they are not valid in this JVM's encoding). */
    static BasicFileAttributes attrs(SecureDirectoryStream<Path> dir, Path p) throws IOException {
        try {
            PosixFileAttributeView posix = dir.getFileAttributeView(p, PosixFileAttributeView.class,
                    LinkOption.NOFOLLOW_LINKS);
            if (posix != null) {
                return posix.readAttributes();
            }
            return dir.getFileAttributeView(p, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .readAttributes();
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    private FileInfo info(String rel, BasicFileAttributes attrs) {
        int mode = attrs instanceof PosixFileAttributes ? mode(((PosixFileAttributes) attrs).permissions()) : -1;
        Instant modified = attrs.lastModifiedTime().toInstant();
        if (attrs.isSymbolicLink()) {
            String target;
            try {
                target = readLink(rel).toString();
            } catch (IOException | RuntimeException e) {
                target = "";
            }
            return FileInfo.symlink(rel, target, attrs.size(), mode, modified);
        }
        return attrs.isDirectory() ? FileInfo.directory(rel, attrs.size(), mode, modified)
                : attrs.isRegularFile() ? FileInfo.file(rel, attrs.size(), mode, modified)
                : FileInfo.other(rel, attrs.size(), mode, modified);
    }

    /** The stored target of a link; reads only the link itself (SecureDirectoryStream has no readlinkat). */
    private Path readLink(String rel) throws IOException {
        return Files.readSymbolicLink(root.resolve(rel));
    }

    private Path p(String name, String rel) {
        try {
            return root.getFileSystem().getPath(name);
        } catch (InvalidPathException e) {
            throw new SandboxException(ErrorKind.INVALID_PATH, "invalid path '" + rel
                    + "': a name cannot be encoded on this file system (start the JVM with a UTF-8 locale)");
        }
    }

    private static int mode(Set<PosixFilePermission> perms) {
        int mode = 0;
        for (PosixFilePermission p : EnumSet.allOf(PosixFilePermission.class)) {
            mode <<= 1;
            if (perms.contains(p)) {
                mode |= 1;
            }
        }
        return mode;
    }

    private void checkSize(String path, long size) {
        if (options.maxFileBytes > 0 && size > options.maxFileBytes) {
            throw tooLarge(path, size);
        }
    }

    /**
     * Copies {@code in} to {@code out}, failing with {@link ErrorKind#TOO_LARGE} past {@code max} bytes (0: no limit).
     * Big chunks, not many small writes, but never one huge one: NIO copies a heap array through a temporary direct
     * buffer of the write's size, which for tens of MiB costs more than the write.
     */
    private static void copyBounded(InputStream in, OutputStream out, long max, String rel) throws IOException {
        OutputStream bounded = new OutputStream() {
            private long total;

            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                total += len;
                if (max > 0 && total > max) {
                    throw tooLarge(rel, total);
                }
                out.write(b, off, len);
            }
        };
        byte[] buf = new byte[1 << 20];
        for (int n; (n = in.readNBytes(buf, 0, buf.length)) > 0; ) {
            bounded.write(buf, 0, n);
        }
    }

    // ---------------------------------------------------------------- errors: the one translation point

    /** A walk asked to go deeper than {@link #MAX_WALK_DEPTH} levels under {@code rel}, at {@code at}. */
    static SandboxException tooDeep(String rel, String at) {
        return new SandboxException(ErrorKind.TOO_LARGE, (rel.isEmpty() ? "the workspace" : rel)
                + " is nested deeper than " + MAX_WALK_DEPTH + " directory levels (at " + at
                + "); list or search a subdirectory, or list a smaller depth");
    }

    private static SandboxException tooLarge(String rel, long size) {
        return new SandboxException(ErrorKind.TOO_LARGE, rel + " is too large (" + size + " bytes or more)");
    }

    /** The workspace's file system is full (its quota): ENOSPC or EDQUOT. */
    static SandboxException noSpace(String rel, IOException e) {
        return new SandboxException(ErrorKind.NO_SPACE_LEFT, rel + ": no space left in the workspace (its byte or "
                + "file quota is used up; delete files to make room)", e);
    }

    private static SandboxException notFound(String rel) {
        return new SandboxException(ErrorKind.NOT_FOUND, rel + ": no such file or directory");
    }

    private static SandboxException linkRefused(String rel) {
        return new SandboxException(ErrorKind.PERMISSION_DENIED, rel
                + " is a symbolic link; the file API does not follow links");
    }

    private static SandboxException specialRefused(String rel) {
        return new SandboxException(ErrorKind.PERMISSION_DENIED, rel
                + " is a special file (FIFO, socket or device); the file API does not open those");
    }

    /** Maps an NIO failure to an error kind; the message names the workspace path, never the host path. */
    static SandboxException translate(IOException e, String rel) {
        String reason = e instanceof FileSystemException && ((FileSystemException) e).getReason() != null
                ? ((FileSystemException) e).getReason() : "";
        // a write(2) that fails is a plain IOException whose message is strerror
        String message = reason.isEmpty() && e.getMessage() != null ? e.getMessage() : reason;
        if (message.contains("No space left on device") || message.contains("Disk quota exceeded")
                || message.equals("out of disk space")) { // the last: jimfs (the in-memory backend)
            return noSpace(rel, e);
        }
        if (e instanceof NoSuchFileException) {
            return new SandboxException(ErrorKind.NOT_FOUND, rel + ": no such file or directory", e);
        }
        if (e instanceof FileAlreadyExistsException) {
            return new SandboxException(ErrorKind.ALREADY_EXISTS, rel + " already exists", e);
        }
        if (e instanceof DirectoryNotEmptyException) {
            return new SandboxException(ErrorKind.DIRECTORY_NOT_EMPTY, rel + " is a non-empty directory", e);
        }
        if (e instanceof NotDirectoryException || reason.contains("Not a directory")) {
            return new SandboxException(ErrorKind.NOT_A_DIRECTORY, rel + ": a parent is not a directory", e);
        }
        if (e instanceof FileSystemLoopException || reason.contains("symbolic link")) {
            return linkRefused(rel);
        }
        if (e instanceof AccessDeniedException || reason.contains("Permission denied")
                || reason.contains("Operation not permitted")) {
            return new SandboxException(ErrorKind.PERMISSION_DENIED, rel + ": permission denied", e);
        }
        if (reason.contains("Is a directory")) {
            return new SandboxException(ErrorKind.IS_A_DIRECTORY, rel + " is a directory", e);
        }
        if (reason.contains("File name too long")) {
            return new SandboxException(ErrorKind.INVALID_PATH, "invalid path '" + rel + "': name too long", e);
        }
        if (reason.contains("File too large")) {
            return new SandboxException(ErrorKind.TOO_LARGE, rel + ": " + reason, e);
        }
        if (reason.contains("Invalid argument")) {
            return new SandboxException(ErrorKind.INVALID_PATH, "invalid path '" + rel + "': " + reason, e);
        }
        return new SandboxException(ErrorKind.IO_ERROR, rel + ": " + (reason.isEmpty()
                ? e.getClass().getSimpleName() : reason), e);
    }
}
