package dev.sandbox4j.opentelemetry;

import static dev.sandbox4j.opentelemetry.SandboxTelemetry.APPLIED;
import static dev.sandbox4j.opentelemetry.SandboxTelemetry.BYTES;
import static dev.sandbox4j.opentelemetry.SandboxTelemetry.DESTINATION;
import static dev.sandbox4j.opentelemetry.SandboxTelemetry.EDITS;
import static dev.sandbox4j.opentelemetry.SandboxTelemetry.ENTRIES;
import static dev.sandbox4j.opentelemetry.SandboxTelemetry.EXISTS;
import static dev.sandbox4j.opentelemetry.SandboxTelemetry.GREP_MATCHES;
import static dev.sandbox4j.opentelemetry.SandboxTelemetry.GREP_SKIPPED;
import static dev.sandbox4j.opentelemetry.SandboxTelemetry.GREP_TIMED_OUT;
import static dev.sandbox4j.opentelemetry.SandboxTelemetry.GREP_TRUNCATED;
import static dev.sandbox4j.opentelemetry.SandboxTelemetry.PATH;

import dev.sandbox4j.Edit;
import dev.sandbox4j.EditResult;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.FileWatch;
import dev.sandbox4j.ForwardingFileSystem;
import dev.sandbox4j.GrepOptions;
import dev.sandbox4j.GrepResult;
import dev.sandbox4j.opentelemetry.SandboxTelemetry.Target;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * File operations: one span {@code sandbox4j.file.<operation>} per call, with the path (and the destination of a
 * move or copy), never the content, the text replaced, the grep pattern or the glob. Watches are handed out as the
 * backend's: a poll is not traced.
 */
final class TracedFileSystem extends ForwardingFileSystem {
    private final SandboxTelemetry telemetry;
    private final Target target;
    private final FileSystem files;

    TracedFileSystem(SandboxTelemetry telemetry, Target target, FileSystem files) {
        this.telemetry = telemetry;
        this.target = target;
        this.files = files;
    }

    @Override
    protected FileSystem delegate() {
        return files;
    }

    private static Attributes at(String path) {
        return Attributes.of(PATH, SandboxTelemetry.path(path));
    }

    private static Attributes at(String from, String to) {
        return Attributes.of(PATH, SandboxTelemetry.path(from), DESTINATION, SandboxTelemetry.path(to));
    }

    private <T> T call(String operation, Attributes attributes, Supplier<T> body, BiConsumer<Span, T> onResult) {
        return telemetry.traced(target, "file." + operation, attributes, body, onResult);
    }

    private void run(String operation, Attributes attributes, Runnable body) {
        telemetry.tracedVoid(target, "file." + operation, attributes, body);
    }

    private static void bytes(Span span, byte[] b) {
        if (b != null) {
            span.setAttribute(BYTES, (long) b.length);
        }
    }

    private static void size(Span span, FileInfo info) {
        if (info != null) {
            span.setAttribute(BYTES, info.size());
        }
    }

    private static void entries(Span span, List<?> list) {
        if (list != null) {
            span.setAttribute(ENTRIES, (long) list.size());
        }
    }

    private static void edit(Span span, EditResult r) {
        if (r != null) {
            span.setAttribute(EDITS, (long) r.edits());
            span.setAttribute(APPLIED, r.applied());
        }
    }

    private static void grep(Span span, GrepResult r) {
        if (r != null) {
            span.setAttribute(GREP_MATCHES, (long) r.matches().size());
            span.setAttribute(GREP_SKIPPED, r.skippedCount());
            span.setAttribute(GREP_TRUNCATED, r.truncated());
            span.setAttribute(GREP_TIMED_OUT, r.timedOut());
        }
    }

    /** The UTF-8 length of a text, counted without encoding it. */
    static long utf8Length(String s) {
        if (s == null) {
            return 0;
        }
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n += 1;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }

    private static Attributes withBytes(String path, long bytes) {
        return Attributes.of(PATH, SandboxTelemetry.path(path), BYTES, bytes);
    }

    @Override
    public String readText(String path) {
        return call("read_text", at(path), () -> files.readText(path), null);
    }

    @Override
    public String readText(String path, int fromLine, int toLine) {
        return call("read_text", at(path), () -> files.readText(path, fromLine, toLine), null);
    }

    @Override
    public byte[] readBytes(String path) {
        return call("read_bytes", at(path), () -> files.readBytes(path), TracedFileSystem::bytes);
    }

    @Override
    public byte[] readBytes(String path, long offset, int length) {
        return call("read_bytes", at(path), () -> files.readBytes(path, offset, length), TracedFileSystem::bytes);
    }

    @Override
    public void readTo(String path, OutputStream sink) {
        run("read_to", at(path), () -> files.readTo(path, sink));
    }

    @Override
    public FileInfo readToUnchanged(String path, OutputStream sink) {
        return call("read_to_unchanged", at(path), () -> files.readToUnchanged(path, sink), TracedFileSystem::size);
    }

    @Override
    public void write(String path, String text) {
        run("write", withBytes(path, utf8Length(text)), () -> files.write(path, text));
    }

    @Override
    public void write(String path, byte[] content) {
        run("write", withBytes(path, content == null ? 0 : content.length), () -> files.write(path, content));
    }

    @Override
    public void write(String path, InputStream content) {
        run("write", at(path), () -> files.write(path, content));
    }

    @Override
    public void append(String path, String text) {
        run("append", withBytes(path, utf8Length(text)), () -> files.append(path, text));
    }

    @Override
    public void append(String path, byte[] content) {
        run("append", withBytes(path, content == null ? 0 : content.length), () -> files.append(path, content));
    }

    @Override
    public FileInfo stat(String path) {
        return call("stat", at(path), () -> files.stat(path), TracedFileSystem::size);
    }

    @Override
    public boolean exists(String path) {
        return call("exists", at(path), () -> files.exists(path), (span, e) -> span.setAttribute(EXISTS, e));
    }

    @Override
    public List<FileInfo> list(String path) {
        return call("list", at(path), () -> files.list(path), TracedFileSystem::entries);
    }

    @Override
    public List<FileInfo> list(String path, int depth) {
        return call("list", at(path), () -> files.list(path, depth), TracedFileSystem::entries);
    }

    @Override
    public List<FileInfo> listVisible(String path, int depth) {
        return call("list_visible", at(path), () -> files.listVisible(path, depth), TracedFileSystem::entries);
    }

    @Override
    public List<String> find(String glob, String path, List<String> excludes) {
        return call("find", at(path), () -> files.find(glob, path, excludes), TracedFileSystem::entries);
    }

    @Override
    public GrepResult grep(String regex, String path, GrepOptions options) {
        return call("grep", at(path), () -> files.grep(regex, path, options), TracedFileSystem::grep);
    }

    @Override
    public GrepResult grep(String regex, String path) {
        return call("grep", at(path), () -> files.grep(regex, path), TracedFileSystem::grep);
    }

    @Override
    public void mkdirs(String path) {
        run("mkdirs", at(path), () -> files.mkdirs(path));
    }

    @Override
    public void move(String from, String to) {
        run("move", at(from, to), () -> files.move(from, to));
    }

    @Override
    public void moveReplacing(String from, String to) {
        run("move_replacing", at(from, to), () -> files.moveReplacing(from, to));
    }

    @Override
    public void copy(String from, String to) {
        run("copy", at(from, to), () -> files.copy(from, to));
    }

    @Override
    public void copyReplacing(String from, String to) {
        run("copy_replacing", at(from, to), () -> files.copyReplacing(from, to));
    }

    @Override
    public void delete(String path) {
        run("delete", at(path), () -> files.delete(path));
    }

    @Override
    public void deleteRecursively(String path) {
        run("delete_recursively", at(path), () -> files.deleteRecursively(path));
    }

    @Override
    public EditResult replace(String path, String oldText, String newText) {
        return call("replace", at(path), () -> files.replace(path, oldText, newText), TracedFileSystem::edit);
    }

    @Override
    public EditResult edit(String path, List<Edit> edits) {
        return call("edit", at(path), () -> files.edit(path, edits), TracedFileSystem::edit);
    }

    @Override
    public EditResult previewEdit(String path, List<Edit> edits) {
        return call("preview_edit", at(path), () -> files.previewEdit(path, edits), TracedFileSystem::edit);
    }

    @Override
    public FileWatch watch(String path, FileWatch.Options options) {
        return call("watch", at(path), () -> files.watch(path, options), null);
    }

    @Override
    public FileWatch watch(String path) {
        return call("watch", at(path), () -> files.watch(path), null);
    }

    @Override
    public Optional<FileWatch.Event> waitFor(String path, FileWatch.Kind kind, Duration timeout) {
        return call("wait_for", at(path), () -> files.waitFor(path, kind, timeout), null);
    }
}
