package dev.sandbox4j.docker;

import dev.sandbox4j.Edit;
import dev.sandbox4j.EditResult;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.GrepOptions;
import dev.sandbox4j.GrepResult;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.core.AgentRunner;
import dev.sandbox4j.core.Globs;
import dev.sandbox4j.core.Arguments;
import dev.sandbox4j.core.GrepScan;
import dev.sandbox4j.core.TextEdits;
import dev.sandbox4j.core.WorkspaceBase;
import dev.sandbox4j.core.WorkspacePaths;
import java.util.function.Predicate;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;

/**
 * The workspace through the engine only: uploads through the archive API (to a temporary name, then renamed by an
 * exec), everything else through small scripts run as the sandbox user that refuse symbolic links on the way. Never
 * touches the host's view of the volume, so a remote engine works.
 */
final class DockerFiles extends WorkspaceBase {
    private static final String TEMP_PREFIX = ".sandbox4j-";
    private static final String TEMP_SUFFIX = ".tmp";

    /** A write's temporary file in the workspace root (hidden from watches: see {@link #put}). */
    static boolean isTempName(String path) {
        return path.startsWith(TEMP_PREFIX) && path.endsWith(TEMP_SUFFIX) && path.indexOf('/') < 0;
    }

    /** Content of unknown length up to this size is kept in memory instead of a host temp file. */
    static final int IN_MEMORY_WRITE = 4 << 20;
    private final ContainerHost sandbox;

    DockerFiles(ContainerHost sandbox) {
        this.sandbox = sandbox;
    }

    /** A path must be valid UTF-16 (no lone surrogate) to be passed to the engine; else INVALID_PATH. */
    static String encodable(String path) {
        if (path != null && !StandardCharsets.UTF_8.newEncoder().canEncode(path)) {
            throw DockerErrors.error(ErrorKind.INVALID_PATH, "the path is not valid Unicode (a lone surrogate): "
                    + path.replaceAll("[\\uD800-\\uDFFF]", "?"));
        }
        return path;
    }

    static String rel(String path) {
        return WorkspacePaths.normalize(encodable(path));
    }

    static String relNonRoot(String path) {
        return WorkspacePaths.requireNonRoot(encodable(path));
    }

    private AgentRunner.Ran script(String what, String body, OutputStream out, String... args) {
        return script(what, body, null, out, args);
    }

    private AgentRunner.Ran script(String what, String body, byte[] stdin, OutputStream out, String... args) {
        List<String> cmd = new ArrayList<>(List.of("/bin/sh", "-c", WorkspaceScripts.PRELUDE + body, "sandbox4j"));
        cmd.addAll(List.of(args));
        AgentRunner.Ran r;
        try {
            r = sandbox.internal(cmd, stdin, out);
        } catch (SandboxException e) {
            if (sandbox.closed()) {
                throw DockerErrors.closed(sandbox.id);
            }
            throw e;
        }
        if (r.exitCode() != 0) {
            throw DockerErrors.script(what, r.exitCode(), r.stderr());
        }
        return r;
    }

    // ------------------------------------------------------------------------------------------ reads

    @Override
    public String readText(String path) {
        return new String(readBytes(path), StandardCharsets.UTF_8);
    }

    @Override
    public String readText(String path, int fromLine, int toLine) {
        String rel = relNonRoot(path);
        Arguments.lineRange(fromLine, toLine);
        AgentRunner.Ran r = script("reading " + rel, WorkspaceScripts.READ, null, rel, "0", "lines",
                Integer.toString(fromLine), toLine == -1 ? "all" : Integer.toString(toLine));
        return new String(r.stdout(), StandardCharsets.UTF_8);
    }

    @Override
    public byte[] readBytes(String path) {
        String rel = relNonRoot(path);
        AgentRunner.Ran r = script("reading " + rel, WorkspaceScripts.READ, null, rel, Integer.toString(MAX_READ_BYTES),
                "all");
        return checkedSize(rel, r);
    }

    /**
     * The read script prints the size it read ({@code S:<n>} on stderr) before the content; a mismatch means output
     * was lost on the way, which must never pass as the file's content.
     */
    static byte[] checkedSize(String rel, AgentRunner.Ran r) {
        String err = new String(r.stderr(), StandardCharsets.UTF_8);
        long expected = -1;
        for (String line : err.split("\n")) {
            if (line.startsWith("S:")) {
                try {
                    expected = Long.parseLong(line.substring(2).strip());
                } catch (NumberFormatException ignored) {
                    // checked below
                }
            }
        }
        if (expected != r.stdout().length) {
            throw DockerErrors.error(ErrorKind.IO_ERROR, "reading " + rel + ": got " + r.stdout().length
                    + " bytes of " + (expected < 0 ? "an unknown size" : expected + "")
                    + " (output lost on the way from the engine); retry");
        }
        return r.stdout();
    }

    @Override
    public byte[] readBytes(String path, long offset, int length) {
        String rel = relNonRoot(path);
        Arguments.byteRange(offset, length);
        if (length > MAX_READ_BYTES) {
            throw DockerErrors.error(ErrorKind.TOO_LARGE, "cannot read " + length + " bytes at once; the limit is "
                    + MAX_READ_BYTES);
        }
        if (length == 0) {
            stat(rel);
            return new byte[0];
        }
        return script("reading " + rel, WorkspaceScripts.READ, null, rel, "0", "bytes", Long.toString(offset + 1),
                Integer.toString(length)).stdout();
    }

    @Override
    public void readTo(String path, OutputStream sink) {
        String rel = relNonRoot(path);
        script("reading " + rel, WorkspaceScripts.READ, sink, rel, "0", "stream");
    }

    // ------------------------------------------------------------------------------------------ writes

    @Override
    public void write(String path, String text) {
        write(path, text.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void write(String path, byte[] content) {
        byte[] data = content.clone();
        put(path, data.length, () -> ContainerHost.bytes(data), false);
    }

    @Override
    public void write(String path, InputStream content) {
        String rel = relNonRoot(path);
        sandbox.ensureOpen();
        if (content.getClass() == ByteArrayInputStream.class) {
            // Exactly a ByteArrayInputStream: available() is the exact number of bytes left, so the tar entry's size
            // is known and the stream goes straight into the upload (which fails if the count differs).
            long size = ((ByteArrayInputStream) content).available();
            boolean[] opened = new boolean[1];
            put(path, size, () -> {
                if (opened[0]) {
                    throw new IOException("the content stream can be read only once");
                }
                opened[0] = true;
                return new NonClosing(content);
            }, false);
            return;
        }
        // Small content of unknown length stays in memory; only what is longer goes through a host temp file.
        byte[] head;
        try {
            head = content.readNBytes(IN_MEMORY_WRITE + 1);
        } catch (IOException e) {
            throw DockerErrors.error(ErrorKind.IO_ERROR, "reading the content to write to " + rel + ": "
                    + e.getMessage(), e);
        }
        if (head.length <= IN_MEMORY_WRITE) {
            put(path, head.length, () -> ContainerHost.bytes(head), false);
            return;
        }
        streamed(rel, new java.io.SequenceInputStream(new ByteArrayInputStream(head), content));
    }

    /**
     * Content of unknown length over {@link #IN_MEMORY_WRITE}: streamed into a temp file in the workspace as the
     * stdin of one command, {@link AgentRunner#STDIN_CHUNK} bytes at a time, then committed. The host holds one chunk
     * (and the first {@link #IN_MEMORY_WRITE} bytes), never the content: a full workspace stops the command at the
     * quota with {@code no_space_left}, as it stops a command's write, and the file size limit is counted here.
     */
    private void streamed(String rel, InputStream content) {
        long limit = sandbox.spec.limits().maxFileBytes();
        Capped capped = new Capped(content, limit > 0 ? limit : Long.MAX_VALUE);
        String tmp = WorkspaceScripts.WORKSPACE + "/" + TEMP_PREFIX + UUID.randomUUID() + TEMP_SUFFIX;
        List<String> cmd = List.of("/bin/sh", "-c", WorkspaceScripts.PRELUDE + WorkspaceScripts.RECEIVE, "sandbox4j",
                tmp, rel);
        AgentRunner.Ran r;
        try {
            r = sandbox.internal(cmd, capped, null, STREAMED_WRITE_TIMEOUT);
        } catch (SandboxException e) {
            removeQuietly(tmp);
            if (sandbox.closed()) {
                throw DockerErrors.closed(sandbox.id);
            }
            throw e;
        }
        if (r.exitCode() != 0) {
            throw DockerErrors.script("writing " + rel, r.exitCode(), r.stderr());
        }
        String received = r.out().strip();
        if (capped.over) {
            removeQuietly(tmp);
            throw DockerErrors.error(ErrorKind.TOO_LARGE, rel + ": the content is over the file size limit of " + limit
                    + " bytes");
        }
        if (!received.equals(Long.toString(capped.count))) {
            removeQuietly(tmp);
            throw DockerErrors.error(ErrorKind.IO_ERROR, "received " + received + " bytes of " + capped.count + " for "
                    + rel + " (content lost on the way); retry");
        }
        script("writing " + rel, WorkspaceScripts.COMMIT_WRITE, null, tmp, rel, "0");
    }

    /** How long one streamed write may take (closing the sandbox ends it at once). */
    static final java.time.Duration STREAMED_WRITE_TIMEOUT = java.time.Duration.ofHours(1);

    private void removeQuietly(String abs) {
        try {
            if (!sandbox.closed()) {
                script("removing a failed write", "rm -f -- \"$1\"", null, abs);
            }
        } catch (SandboxException ignored) {
            // the original error is what the caller needs; the name is a temp name, hidden from listings
        }
    }

    /** Passes on at most {@code limit} bytes and counts them; {@code over} when the source had more. */
    private static final class Capped extends java.io.FilterInputStream {
        private final long limit;
        long count;
        boolean over;

        Capped(InputStream in, long limit) {
            super(in);
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (count >= limit) {
                over = over || in.read() >= 0;
                return -1;
            }
            int n = in.read(b, off, (int) Math.min(len, limit - count));
            if (n > 0) {
                count += n;
            }
            return n;
        }
    }

    @Override
    public void append(String path, String text) {
        append(path, text.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void append(String path, byte[] content) {
        byte[] data = content.clone();
        put(path, data.length, () -> ContainerHost.bytes(data), true);
    }

    private void put(String path, long size, Engine.InputStreamSupplier content, boolean append) {
        String rel = relNonRoot(path);
        sandbox.ensureOpen();
        long limit = sandbox.spec.limits().maxFileBytes();
        if (limit > 0 && size > limit) {
            throw DockerErrors.error(ErrorKind.TOO_LARGE, rel + ": " + size + " bytes is over the file size limit of "
                    + limit + " bytes");
        }
        // The temp file goes to the workspace root: a mount point, never a link, so the upload (which runs as the
        // engine) resolves no path the sandbox controls. The commit script, as the sandbox user, then checks the
        // target's parents for links, creates them, and renames the temp file into place.
        String tmpName = TEMP_PREFIX + UUID.randomUUID() + TEMP_SUFFIX;
        if (size <= THROUGH_AGENT) {
            byte[] data = contentOf(rel, size, content);
            script("writing " + rel, WorkspaceScripts.RECEIVE_WRITE, data, null,
                    WorkspaceScripts.WORKSPACE + "/" + tmpName, rel, append ? "1" : "0", Long.toString(size));
            return;
        }
        try {
            sandbox.engine.upload(sandbox.containerId, WorkspaceScripts.WORKSPACE,
                    List.of(new Engine.Entry(tmpName, 0644, size, content)), sandbox.uid, sandbox.gid);
        } catch (SandboxException e) {
            if (e.kind() == ErrorKind.BACKEND_UNAVAILABLE && e.retryable() && !sandbox.closed()) {
                // Podman answers a full workspace with a 500 and closes the connection while the tar is still
                // being sent: the client sees "connection reset", never the "no space left on device" (measured on
                // 4.3.1). Whether the workspace is full then decides: the part extracted, and what is free.
                SandboxException full = fullAfterReset(tmpName, size, e);
                if (full != null) {
                    throw full;
                }
            }
            if (e.kind() == ErrorKind.NO_SPACE_LEFT) {
                // the engine leaves what it extracted before the workspace filled up: give that space back
                try {
                    script("removing a failed upload", "rm -f -- \"$1\"", null,
                            WorkspaceScripts.WORKSPACE + "/" + tmpName);
                } catch (SandboxException ignored) {
                    // the original error is what the caller needs
                }
            }
            throw e;
        }
        script("writing " + rel, WorkspaceScripts.COMMIT_WRITE, null, WorkspaceScripts.WORKSPACE + "/" + tmpName, rel,
                append ? "1" : "0");
    }

    /**
     * Content up to this size goes to the sandbox as the stdin of the one command that also commits it (measured: a
     * 16-byte write 7.3 ms against 47 ms through the archive endpoint, whose extraction the engine runs in a process
     * of its own); larger content goes through the archive endpoint, which moves bytes faster (64 MiB: 190 ms against
     * 553 ms as STDIN frames).
     */
    static final int THROUGH_AGENT = 1 << 20;

    /** The content of a write, read whole (it is at most {@link #THROUGH_AGENT}); a count other than {@code size} fails. */
    private static byte[] contentOf(String rel, long size, Engine.InputStreamSupplier content) {
        try (InputStream in = content.open()) {
            byte[] data = in.readNBytes((int) size + 1);
            if (data.length != size) {
                throw new IOException("content changed size while writing " + rel);
            }
            return data;
        } catch (IOException e) {
            throw DockerErrors.error(ErrorKind.IO_ERROR, "reading the content to write to " + rel + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * After an upload that ended with a transport error: NO_SPACE_LEFT when the workspace cannot hold the rest of the
     * file (free bytes or inodes), with the part the engine extracted removed; else null (the original error stands).
     */
    private SandboxException fullAfterReset(String tmpName, long size, SandboxException cause) {
        try {
            String out = script("checking the workspace's free space", "p=\"$1\"; s=$(stat -c %s -- \"$p\" 2>/dev/null "
                    + "|| echo -1); rm -f -- \"$p\"; echo \"$s $(stat -f -c '%a %S %d' /workspace)\"", null,
                    WorkspaceScripts.WORKSPACE + "/" + tmpName).out().trim();
            String[] f = out.split("\\s+");
            if (f.length != 4) {
                return null;
            }
            long partial = Long.parseLong(f[0]);
            long freeBytes = Long.parseLong(f[1]) * Long.parseLong(f[2]);
            long freeInodes = Long.parseLong(f[3]);
            long needed = partial >= 0 ? size - partial : size;
            boolean noInode = partial < 0 && freeInodes == 0;
            if (noInode || (needed > 0 && freeBytes < needed) || (partial >= 0 && partial < size && freeBytes < 4096)) {
                return DockerErrors.error(ErrorKind.NO_SPACE_LEFT, "uploading to the sandbox: no space left in the "
                        + "workspace (its byte or file quota is used up; delete files to make room): the engine "
                        + "ended the upload (" + cause.getMessage() + ") with " + freeBytes + " bytes and "
                        + freeInodes + " inodes free", cause);
            }
            return null;
        } catch (RuntimeException ignored) {
            return null;
        }
    }

    // ------------------------------------------------------------------------------------------ metadata

    @Override
    public FileInfo stat(String path) {
        String rel = rel(path);
        byte[] out = script("stat " + (rel.isEmpty() ? "." : rel), WorkspaceScripts.STAT, null, rel).stdout();
        List<String> f = split(out);
        if (f.size() < 5) {
            throw DockerErrors.error(ErrorKind.INTERNAL, "unexpected stat output for " + rel);
        }
        return info(rel, f.get(0), f.get(1), f.get(2), f.get(3), f.get(4));
    }

    @Override
    public boolean exists(String path) {
        String rel = rel(path);
        try {
            return script("checking " + rel, WorkspaceScripts.EXISTS, null, rel).out().trim().equals("yes");
        } catch (SandboxException e) {
            if (e.kind() == ErrorKind.NOT_FOUND || e.kind() == ErrorKind.NOT_A_DIRECTORY) {
                return false;
            }
            throw e;
        }
    }

    /** Directory levels a walk goes down at most, as on the other backends (deeper: TOO_LARGE). */
    private static final int MAX_WALK_DEPTH = 256;

    @Override
    protected List<FileInfo> list(String path, int depth, boolean includeHidden) {
        Arguments.depth(depth);
        String rel = rel(path);
        byte[] out = script("listing " + (rel.isEmpty() ? "." : rel), WorkspaceScripts.LIST, null, rel,
                Integer.toString(Math.min(depth, MAX_WALK_DEPTH)), includeHidden ? "1" : "0",
                "%y\\0%s\\0%m\\0%T@\\0%l\\0%P\\0", depth > MAX_WALK_DEPTH ? "1" : "0").stdout();
        List<String> f = split(out);
        List<FileInfo> result = new ArrayList<>();
        for (int i = 0; i + 6 <= f.size(); i += 6) {
            String child = WorkspacePaths.child(rel, f.get(i + 5));
            result.add(info(child, f.get(i), f.get(i + 1), f.get(i + 2), f.get(i + 3), f.get(i + 4)));
        }
        result.sort(Comparator.comparing(FileInfo::path));
        return result;
    }

    private static FileInfo info(String rel, String y, String size, String mode, String mtime, String link) {
        BigDecimal t = new BigDecimal(mtime);
        long secs = t.longValue();
        long nanos = t.subtract(BigDecimal.valueOf(secs)).movePointRight(9).longValue();
        long bytes = Long.parseLong(size);
        int bits = Integer.parseInt(mode, 8);
        Instant modified = Instant.ofEpochSecond(secs, nanos);
        return switch (y) {
            case "f" -> FileInfo.file(rel, bytes, bits, modified);
            case "d" -> FileInfo.directory(rel, bytes, bits, modified);
            case "l" -> FileInfo.symlink(rel, link, bytes, bits, modified);
            default -> FileInfo.other(rel, bytes, bits, modified);
        };
    }

    private static List<String> split(byte[] out) {
        List<String> f = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < out.length; i++) {
            if (out[i] == 0) {
                f.add(new String(out, start, i - start, StandardCharsets.UTF_8));
                start = i + 1;
            }
        }
        return f;
    }

    @Override
    public List<String> find(String glob, String path, List<String> excludes) {
        String rel = rel(path);
        Predicate<String> p = Globs.compile(glob);
        Predicate<String> ex = Globs.any(excludes);
        byte[] out = script("finding in " + (rel.isEmpty() ? "." : rel), WorkspaceScripts.LIST, null, rel,
                Integer.toString(MAX_WALK_DEPTH), "1", "%P\\0", "1").stdout();
        List<String> entries = split(out);
        entries.sort(null);
        List<String> result = new ArrayList<>();
        String skipped = null;
        for (String e : entries) {
            if (skipped != null && e.startsWith(skipped + "/")) {
                continue;
            }
            if (ex.test(e)) {
                skipped = e;
                continue;
            }
            if (p.test(e)) {
                result.add(WorkspacePaths.child(rel, e));
            }
        }
        result.sort(null);
        return result;
    }

    /** Decided from one listing before anything is read, then read through the agent: see {@link ContainerGrep}. */
    @Override
    public GrepResult grep(String regex, String path, GrepOptions options) {
        String rel = rel(path);
        GrepScan scan = new GrepScan(regex, options); // a bad pattern fails before the sandbox is asked anything
        FileInfo root = stat(rel);
        if (root.isSymlink()) {
            throw DockerErrors.error(ErrorKind.PERMISSION_DENIED, "refusing to follow the symbolic link " + rel);
        }
        try {
            return new ContainerGrep(sandbox).grep(rel, root, scan, options);
        } catch (SandboxException e) {
            if (sandbox.closed()) {
                throw DockerErrors.closed(sandbox.id);
            }
            throw e;
        } catch (RuntimeException e) {
            throw DockerErrors.translate("grep in " + rel, e);
        }
    }

    // ------------------------------------------------------------------------------------------ tree changes

    @Override
    public void mkdirs(String path) {
        String rel = rel(path);
        script("creating " + rel, WorkspaceScripts.MKDIRS, null, rel);
    }

    @Override
    protected void move(String from, String to, boolean overwrite) {
        String a = relNonRoot(from);
        String b = relNonRoot(to);
        script("moving " + a + " to " + b, WorkspaceScripts.MOVE, null, a, b, overwrite ? "1" : "0", "0");
    }

    @Override
    protected void copy(String from, String to, boolean overwrite) {
        String a = relNonRoot(from);
        String b = relNonRoot(to);
        if (stat(a).isDirectory()) {
            // the other backends' copy stops at 256 levels: refuse a deeper tree before anything is copied
            script("checking the depth of " + a, WorkspaceScripts.LIST, null, a, "0", "1", "", "1");
        }
        script("copying " + a + " to " + b, WorkspaceScripts.MOVE, null, a, b, overwrite ? "1" : "0", "1");
    }

    @Override
    protected void delete(String path, boolean recursive) {
        String rel = relNonRoot(path);
        script("deleting " + rel, WorkspaceScripts.DELETE, null, rel, recursive ? "1" : "0");
    }

    @Override
    public EditResult replace(String path, String oldText, String newText) {
        return TextEdits.replace(this, relNonRoot(path), oldText, newText);
    }

    @Override
    protected EditResult edit(String path, List<Edit> edits, boolean dryRun) {
        return TextEdits.edit(this, relNonRoot(path), edits, dryRun);
    }

    /** The caller's stream, read by the upload without closing it (the caller owns it). */
    private static final class NonClosing extends java.io.FilterInputStream {
        NonClosing(InputStream in) {
            super(in);
        }

        @Override
        public long transferTo(OutputStream out) throws IOException {
            return in.transferTo(out);
        }

        @Override
        public void close() {
            // the caller closes its stream
        }
    }

    static byte[] drain(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        in.transferTo(b);
        return b.toByteArray();
    }
}
