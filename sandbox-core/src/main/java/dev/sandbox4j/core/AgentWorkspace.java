package dev.sandbox4j.core;

import dev.sandbox4j.Edit;
import dev.sandbox4j.EditResult;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.GrepOptions;
import dev.sandbox4j.GrepResult;
import dev.sandbox4j.SandboxException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * The whole file API through the sandbox's agent, for any host whose workspace the JVM cannot reach as a path (a
 * container, a pod): every call is one FILE operation that the agent runs itself, in a child that never execs
 * ({@code src/main/c/sbx-fs.c}; PROTOCOL.md, "File operations"), so the sandbox's image needs nothing but the agent: no
 * shell, no coreutils. Paths are resolved in the sandbox one component at a time without following a link; writes go
 * to a temporary beside the target ({@code .sandbox4j-*.tmp}, see {@link #isTemporary}) and are renamed over it only
 * once the whole content, with its end mark, has arrived.
 *
 * <p>Use: {@code new AgentWorkspace(runner, "/workspace", context, this::error)} from a host's
 * {@link SandboxHost#workspace}; a host whose sandboxes have a file size limit passes it too, so that a write over it
 * fails before its content is sent. Operations need the agent's protocol version 4 (FILE frames).
 */
public final class AgentWorkspace extends WorkspaceBase {
    /** The most entries a list returns (as {@link NioWorkspace}); more is TOO_LARGE. */
    static final int MAX_LIST_ENTRIES = 100_000;
    /** Directory levels a walk goes down (as the other backends); deeper is TOO_LARGE. */
    static final int MAX_WALK_DEPTH = 256;
    /** An operation's deadline; streams and trees get {@link #LONG_TIMEOUT}. */
    static final Duration TIMEOUT = Duration.ofSeconds(60);
    static final Duration LONG_TIMEOUT = Duration.ofHours(1);
    /** The output kept of one operation (a listing's records); more is TOO_LARGE. */
    static final int KEPT = 64 << 20;
    /** A write's content goes as chunks of at most this many bytes, then an empty one: the end mark. */
    static final int CHUNK = (256 << 10) - 4;

    private final AgentRunner runner;
    private final String root;
    private final SandboxHost.Context context;
    private final Errors errors;
    private final long maxFileBytes;
    private final Upload upload;
    private final long uploadOver;

    /**
     * A faster way into the sandbox than STDIN frames for large content, where the host has one (a container engine's
     * archive upload: 64 MiB in about a quarter of the time, measured in docs/benchmarks.md): puts {@code content} as a
     * new file {@code name} directly in the workspace root, owned by the sandbox's user. The agent's {@code commit}
     * then checks the target's path and renames it into place, so the upload itself never resolves a path the sandbox
     * controls.
     */
    @FunctionalInterface
    public interface Upload {
        void put(String name, byte[] content);
    }

    /** The backend's error translation point: {@link SandboxHost#error} fits it. */
    @FunctionalInterface
    public interface Errors {
        SandboxException error(ErrorKind kind, String message, Throwable cause);
    }

    /**
     * The file API of the workspace at {@code root} (absolute, in the sandbox) through {@code runner}; {@code context}
     * says whether the sandbox is open (its closed error is thrown as it is), {@code errors} makes every other error.
     */
    public AgentWorkspace(AgentRunner runner, String root, SandboxHost.Context context, Errors errors) {
        this(runner, root, context, errors, 0);
    }

    /** As the other constructor; a write over {@code maxFileBytes} (0: none) fails TOO_LARGE before it is sent. */
    public AgentWorkspace(AgentRunner runner, String root, SandboxHost.Context context, Errors errors,
                          long maxFileBytes) {
        this(runner, root, context, errors, maxFileBytes, null, 0);
    }

    private AgentWorkspace(AgentRunner runner, String root, SandboxHost.Context context, Errors errors,
                           long maxFileBytes, Upload upload, long uploadOver) {
        this.runner = runner;
        this.root = root;
        this.context = context;
        this.errors = errors;
        this.maxFileBytes = maxFileBytes;
        this.upload = upload;
        this.uploadOver = uploadOver;
    }

    /** This workspace, with content over {@code overBytes} (known in memory, not edits) written through {@code upload}. */
    public AgentWorkspace withUpload(Upload upload, long overBytes) {
        return new AgentWorkspace(runner, root, context, errors, maxFileBytes, upload, overBytes);
    }

    /** Whether {@code path} (of the workspace, as watches report it) is a write's or a copy's temporary. */
    public static boolean isTemporary(String path) {
        String name = path.substring(path.lastIndexOf('/') + 1);
        return name.startsWith(".sandbox4j-") && name.endsWith(".tmp");
    }

    // ---------------------------------------------------------------------------------------------- running

    SandboxException error(ErrorKind kind, String message, Throwable cause) {
        return errors.error(kind, message, cause);
    }

    /** Runs one operation; its stdout is kept (up to {@code cap}) or goes to {@code out}. Fails with its E: line. */
    AgentRunner.Ran op(String what, InputStream stdin, OutputStream out, int cap, Duration timeout, String... argv) {
        context.checkOpen();
        AgentRunner.Ran r;
        try {
            r = runner.file(List.of(argv), root, stdin, out == null ? null : new FileStreams.Guarded(out), cap, timeout);
        } catch (AgentRunner.StdinFailed e) {
            context.checkOpen();
            if (e.getCause() instanceof FileStreams.OverLimit) {
                throw error(ErrorKind.TOO_LARGE, what + ": the content is over the file size limit of " + maxFileBytes
                        + " bytes", e);
            }
            throw error(ErrorKind.IO_ERROR, what + ": reading the content to write: " + e.getMessage(), e);
        } catch (FileStreams.Refused e) {
            context.checkOpen();
            throw e.error;
        } catch (TimeoutException e) {
            context.checkOpen();
            throw error(ErrorKind.TIMEOUT, what + " did not finish: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw error(ErrorKind.INTERRUPTED, what + " was interrupted; the operation has been stopped", e);
        } catch (IOException e) {
            context.checkOpen();
            if (out == null && e.getMessage() != null && e.getMessage().startsWith("output over")) {
                throw error(ErrorKind.TOO_LARGE, what + ": the answer is over " + cap + " bytes; ask for less (a "
                        + "subdirectory, a smaller depth)", e);
            }
            throw error(ErrorKind.IO_ERROR, what + ": the sandbox's agent: " + e.getMessage(), e);
        }
        if (r.exitCode() != 0) {
            context.checkOpen();
            throw failure(what, r);
        }
        return r;
    }

    AgentRunner.Ran op(String what, String... argv) {
        return op(what, null, null, KEPT, TIMEOUT, argv);
    }

    /** The operation's {@code E:KIND:message} line as that error; anything else as IO_ERROR with what it said. */
    private SandboxException failure(String what, AgentRunner.Ran r) {
        String err = r.err().strip();
        if (r.exitCode() == 3 && err.startsWith("E:")) {
            int colon = err.indexOf(':', 2);
            int end = err.indexOf('\n');
            String line = end < 0 ? err : err.substring(0, end);
            if (colon > 2 && colon < line.length()) {
                try {
                    ErrorKind kind = ErrorKind.valueOf(line.substring(2, colon));
                    return error(kind, line.substring(colon + 1).replace("\\n", "\n"), null);
                } catch (IllegalArgumentException ignored) {
                    // not a kind of this version: reported as it is below
                }
            }
        }
        String shown = err.length() > 300 ? err.substring(0, 300) + "…" : err;
        return error(ErrorKind.IO_ERROR, what + " failed (exit " + r.exitCode() + "): " + shown, null);
    }

    String rel(String path) {
        return WorkspacePaths.normalize(encodable(path));
    }

    String relNonRoot(String path) {
        return WorkspacePaths.requireNonRoot(encodable(path));
    }

    /** A path must be valid UTF-16 (no lone surrogate) to reach the agent as UTF-8; else INVALID_PATH. */
    private String encodable(String path) {
        if (path != null && !StandardCharsets.UTF_8.newEncoder().canEncode(path)) {
            throw error(ErrorKind.INVALID_PATH, "the path is not valid Unicode (a lone surrogate): "
                    + path.replaceAll("[\\uD800-\\uDFFF]", "?"), null);
        }
        return path;
    }

    private static String shown(String rel) {
        return rel.isEmpty() ? "." : rel;
    }

    // ------------------------------------------------------------------------------------------------ reads

    @Override
    public String readText(String path) {
        return new String(readBytes(path), StandardCharsets.UTF_8);
    }

    @Override
    public String readText(String path, int fromLine, int toLine) {
        String rel = relNonRoot(path);
        Arguments.lineRange(fromLine, toLine);
        byte[] out = op("reading " + rel, null, null, MAX_READ_BYTES + (1 << 20), TIMEOUT, "read", rel, "lines",
                Integer.toString(fromLine), Integer.toString(toLine), Integer.toString(MAX_READ_BYTES)).stdout();
        return new String(out, StandardCharsets.UTF_8);
    }

    @Override
    public byte[] readBytes(String path) {
        String rel = relNonRoot(path);
        byte[] out = op("reading " + rel, null, null, MAX_READ_BYTES + 8, TIMEOUT, "read", rel, "all",
                Integer.toString(MAX_READ_BYTES)).stdout();
        long size = out.length >= 8 ? AgentProtocol.readLong(out, 0) : -1;
        if (size != out.length - 8) {
            throw error(ErrorKind.IO_ERROR, "reading " + rel + ": got " + Math.max(0, out.length - 8) + " bytes of "
                    + size + " (output lost on the way); retry", null);
        }
        return java.util.Arrays.copyOfRange(out, 8, out.length);
    }

    @Override
    public byte[] readBytes(String path, long offset, int length) {
        String rel = relNonRoot(path);
        Arguments.byteRange(offset, length);
        if (length > MAX_READ_BYTES) {
            throw error(ErrorKind.TOO_LARGE, "cannot read " + length + " bytes at once; the limit is "
                    + MAX_READ_BYTES, null);
        }
        return op("reading " + rel, null, null, length, TIMEOUT, "read", rel, "range", Long.toString(offset),
                Integer.toString(length)).stdout();
    }

    @Override
    public void readTo(String path, OutputStream sink) {
        String rel = relNonRoot(path);
        op("reading " + rel, null, sink, 0, LONG_TIMEOUT, "read", rel, "stream");
    }

    // ----------------------------------------------------------------------------------------------- writes

    @Override
    public void write(String path, String text) {
        write(path, text.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void write(String path, byte[] content) {
        put(relNonRoot(path), content.clone(), "replace", null);
    }

    @Override
    public void write(String path, InputStream content) {
        String rel = relNonRoot(path);
        if (upload != null && content.getClass() == ByteArrayInputStream.class
                && ((ByteArrayInputStream) content).available() <= MAX_UPLOAD_IN_MEMORY) {
            // exactly a ByteArrayInputStream: available() is what is left, already in memory
            put(rel, ((ByteArrayInputStream) content).readAllBytes(), "replace", null);
            return;
        }
        long limit = maxFileBytes > 0 ? maxFileBytes : Long.MAX_VALUE;
        byte[] out = op("writing " + rel, new FileStreams.Chunked(content, limit), null, 64, LONG_TIMEOUT, "write", rel,
                "replace", "-1").stdout();
        if (out.length != 8) {
            throw error(ErrorKind.IO_ERROR, "writing " + rel + ": no count from the agent; retry", null);
        }
    }

    @Override
    public void append(String path, String text) {
        append(path, text.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void append(String path, byte[] content) {
        put(relNonRoot(path), content.clone(), "append", null);
    }

    /** Content of a stream kept in memory to go through {@link Upload} at most. */
    static final int MAX_UPLOAD_IN_MEMORY = 256 << 20;

    /** Writes {@code data}; {@code unchanged} (size, mtime in ns) makes it fail CONFLICT if the file changed since. */
    private void put(String rel, byte[] data, String mode, long[] unchanged) {
        if (maxFileBytes > 0 && data.length > maxFileBytes) {
            throw error(ErrorKind.TOO_LARGE, rel + ": " + data.length + " bytes is over the file size limit of "
                    + maxFileBytes + " bytes", null);
        }
        if (upload != null && unchanged == null && data.length > uploadOver) {
            uploaded(rel, data, mode);
            return;
        }
        putThroughAgent(rel, data, mode, unchanged);
    }

    /** {@link #put} as the agent's write: the content as STDIN frames, committed by the agent. */
    private void putThroughAgent(String rel, byte[] data, String mode, long[] unchanged) {
        List<String> argv = new ArrayList<>(List.of("write", rel, mode, Integer.toString(data.length)));
        if (unchanged != null) {
            argv.add(Long.toString(unchanged[0]));
            argv.add(Long.toString(unchanged[1]));
        }
        byte[] out = op("writing " + rel, new FileStreams.Chunked(new ByteArrayInputStream(data), Long.MAX_VALUE), null, 64,
                data.length > (8 << 20) ? LONG_TIMEOUT : TIMEOUT, argv.toArray(new String[0])).stdout();
        if (out.length != 8 || AgentProtocol.readLong(out, 0) != data.length) {
            throw error(ErrorKind.IO_ERROR, "writing " + rel + ": the agent did not confirm " + data.length
                    + " bytes; retry", null);
        }
    }

    /**
     * {@link Upload}, then the agent's commit; a failed upload's leftover (a full workspace) is removed. An engine
     * that ends the upload with a reset (rootless Podman does when the workspace fills) tells nothing typed, so the
     * write is made once more through the agent, whose error says what happened (a full workspace:
     * {@code NO_SPACE_LEFT}); the old content stays either way.
     */
    private void uploaded(String rel, byte[] data, String mode) {
        context.checkOpen();
        String name = ".sandbox4j-" + java.util.HexFormat.of().formatHex(randomBytes()) + ".tmp";
        try {
            upload.put(name, data);
        } catch (SandboxException e) {
            if (!context.isClosed()) {
                try {
                    op("removing a failed upload", "delete", name, "0");
                } catch (SandboxException ignored) {
                    // the upload's error is what the caller needs; the name is a temporary's
                }
            }
            context.checkOpen();
            if (e.kind() == ErrorKind.BACKEND_UNAVAILABLE || e.kind() == ErrorKind.IO_ERROR) {
                putThroughAgent(rel, data, mode, null);
                return;
            }
            throw e;
        }
        byte[] out = op("writing " + rel, null, null, 64, TIMEOUT, "commit", name, rel, mode).stdout();
        if (out.length != 8 || AgentProtocol.readLong(out, 0) != data.length) {
            throw error(ErrorKind.IO_ERROR, "writing " + rel + ": the upload held " + (out.length == 8
                    ? AgentProtocol.readLong(out, 0) : -1) + " bytes of " + data.length + "; retry", null);
        }
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[8];
        java.util.concurrent.ThreadLocalRandom.current().nextBytes(b);
        return b;
    }

    // ---------------------------------------------------------------------------------------------- metadata

    @Override
    public FileInfo stat(String path) {
        String rel = rel(path);
        List<AgentEntries.Entry> e = AgentEntries.parse(this, op("stat " + shown(rel), "stat", rel).stdout());
        if (e.size() != 1) {
            throw error(ErrorKind.IO_ERROR, "stat " + shown(rel) + ": a malformed answer from the agent", null);
        }
        return e.get(0).info(rel);
    }

    @Override
    public boolean exists(String path) {
        String rel = rel(path);
        try {
            stat(rel);
            return true;
        } catch (SandboxException e) {
            if (e.kind() == ErrorKind.NOT_FOUND || e.kind() == ErrorKind.NOT_A_DIRECTORY) {
                return false;
            }
            throw e;
        }
    }

    /** Every entry under {@code rel} down to {@code depth} levels, as the agent lists them (unsorted). */
    List<AgentEntries.Entry> walk(String rel, int depth, boolean hidden, boolean grep) {
        boolean deep = depth > MAX_WALK_DEPTH;
        byte[] out = op("listing " + shown(rel), null, null, KEPT, LONG_TIMEOUT, "list", rel,
                Integer.toString(Math.min(depth, MAX_WALK_DEPTH)), hidden ? "1" : "0", deep ? "1" : "0",
                grep ? "1" : "0").stdout();
        return AgentEntries.parse(this, out);
    }

    @Override
    protected List<FileInfo> list(String path, int depth, boolean includeHidden) {
        Arguments.depth(depth);
        String rel = rel(path);
        List<AgentEntries.Entry> entries = walk(rel, depth, includeHidden, false);
        if (entries.size() > MAX_LIST_ENTRIES) {
            throw error(ErrorKind.TOO_LARGE, shown(rel) + " holds more than " + MAX_LIST_ENTRIES
                    + " entries; list a smaller depth or a subdirectory", null);
        }
        List<FileInfo> result = new ArrayList<>(entries.size());
        for (AgentEntries.Entry e : entries) {
            result.add(e.info(WorkspacePaths.child(rel, e.path())));
        }
        result.sort(Comparator.comparing(FileInfo::path));
        return result;
    }

    @Override
    public List<String> find(String glob, String path, List<String> excludes) {
        String rel = rel(path);
        Predicate<String> p = Globs.compile(glob);
        Predicate<String> ex = Globs.any(excludes);
        List<String> entries = new ArrayList<>();
        for (AgentEntries.Entry e : walk(rel, MAX_WALK_DEPTH + 1, true, false)) {
            entries.add(e.path());
        }
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

    @Override
    public GrepResult grep(String regex, String path, GrepOptions options) {
        String rel = rel(path);
        GrepScan scan = new GrepScan(regex, options); // a bad pattern fails before the sandbox is asked anything
        return new AgentGrep(this).grep(rel, scan, options);
    }

    // -------------------------------------------------------------------------------------------- tree changes

    @Override
    public void mkdirs(String path) {
        String rel = rel(path);
        op("creating " + shown(rel), "mkdirs", rel);
    }

    @Override
    protected void move(String from, String to, boolean overwrite) {
        String a = relNonRoot(from);
        String b = relNonRoot(to);
        op("moving " + a + " to " + b, "move", a, b, overwrite ? "1" : "0");
    }

    @Override
    protected void copy(String from, String to, boolean overwrite) {
        String a = relNonRoot(from);
        String b = relNonRoot(to);
        op("copying " + a + " to " + b, null, null, KEPT, LONG_TIMEOUT, "copy", a, b, overwrite ? "1" : "0");
    }

    @Override
    protected void delete(String path, boolean recursive) {
        String rel = relNonRoot(path);
        op("deleting " + rel, null, null, KEPT, LONG_TIMEOUT, "delete", rel, recursive ? "1" : "0");
    }

    @Override
    public EditResult replace(String path, String oldText, String newText) {
        String rel = relNonRoot(path);
        Arguments.textToReplace(oldText, rel);
        return edited(rel, text -> TextEdits.replaceUnique(rel, text, oldText, newText), 1, false);
    }

    @Override
    protected EditResult edit(String path, List<Edit> edits, boolean dryRun) {
        String rel = relNonRoot(path);
        Arguments.edits(edits, rel);
        return edited(rel, text -> TextEdits.applyAll(rel, text, edits), edits.size(), dryRun);
    }

    /**
     * Reads, applies and writes back, the write refused (CONFLICT) when the file's size or modification time is no
     * longer what they were before the read: a change made meanwhile (by a command) is never overwritten unseen.
     */
    private EditResult edited(String rel, java.util.function.UnaryOperator<String> change, int count, boolean dryRun) {
        FileInfo before = stat(rel);
        String text = TextEdits.decodeUtf8(rel, readBytes(rel));
        String after = change.apply(text);
        String diff = TextEdits.unifiedDiff(rel, text, after);
        if (dryRun) {
            return EditResult.preview(rel, diff, count);
        }
        java.time.Instant m = before.modified();
        put(rel, after.getBytes(StandardCharsets.UTF_8), "replace",
                new long[] {before.size(), m.getEpochSecond() * 1_000_000_000L + m.getNano()});
        return EditResult.written(rel, diff, count);
    }
}
