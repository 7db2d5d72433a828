package dev.sandbox4j.core;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.OutputListener;
import dev.sandbox4j.ProcessInfo;
import dev.sandbox4j.ProcessOutput;
import dev.sandbox4j.Processes;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.Shell;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@link Processes} over any shell's {@link Shell#start}: one table per sandbox, written once for every backend. A
 * command's output goes to a bounded window (the latest {@link Processes#OUTPUT_BYTES}) with absolute offsets, so
 * any caller reads again from its own cursor; finished commands are kept by count and age, then forgotten.
 */
public final class ProcessTable implements Processes {
    private final Shell shell;
    private final Clock clock;
    private final Map<String, Entry> entries = new LinkedHashMap<>();
    private int nextId = 1000;
    private boolean closed;

    public ProcessTable(Shell shell) {
        this(shell, Clock.systemUTC());
    }

    ProcessTable(Shell shell, Clock clock) {
        this.shell = shell;
        this.clock = clock;
    }

    private static final class Entry {
        final String id;
        final String command;
        final Instant started;
        final Window output = new Window(OUTPUT_BYTES);
        volatile ExecHandle handle;
        volatile Instant finished;

        Entry(String id, String command, Instant started) {
            this.id = id;
            this.command = command;
            this.started = started;
        }

        Optional<ExecResult> result() {
            Optional<ExecResult> r = handle.isAlive() ? Optional.empty() : handle.await(Duration.ZERO);
            return r;
        }
    }

    @Override
    public ProcessInfo start(ExecRequest request) {
        Entry e;
        synchronized (this) {
            if (closed) {
                throw new SandboxException(ErrorKind.CLOSED, "the sandbox is closed");
            }
            prune();
            long running = entries.values().stream().filter(x -> x.finished == null).count();
            if (running >= MAX_RUNNING) {
                throw new SandboxException(ErrorKind.TOO_LARGE, running + " background commands already run, the"
                        + " most a sandbox keeps; kill one first");
            }
            e = new Entry(String.valueOf(nextId++), request.displayCommand(), clock.instant());
            entries.put(e.id, e);
        }
        Window w = e.output;
        try {
            e.handle = shell.start(request, OutputListener.ofBytes(w::append, w::append));
        } catch (RuntimeException ex) {
            synchronized (this) {
                entries.remove(e.id);
            }
            throw ex;
        }
        return info(e);
    }

    @Override
    public synchronized List<ProcessInfo> list() {
        prune();
        List<ProcessInfo> out = new ArrayList<>();
        for (Entry e : entries.values()) {
            out.add(info(e));
        }
        return out;
    }

    @Override
    public ProcessInfo info(String id) {
        return info(entry(id));
    }

    @Override
    public ProcessOutput read(String id, long cursor, Duration wait) {
        if (cursor < 0 || wait.isNegative()) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "cursor and wait must not be negative");
        }
        Entry e = entry(id);
        if (!wait.isZero() && e.handle.isAlive()) {
            e.handle.await(wait);
        }
        Optional<ExecResult> r = e.result();
        Window.Slice s = e.output.from(cursor, r.isEmpty());
        ExecResult done = r.orElse(null);
        return new ProcessOutput(e.id, s.text(), cursor, s.next(), s.skipped(), done == null,
                done == null ? null : done.status(), done == null ? null : done.exitCode());
    }

    @Override
    public void writeStdin(String id, byte[] bytes) {
        entry(id).handle.writeStdin(bytes);
    }

    @Override
    public void closeStdin(String id) {
        entry(id).handle.closeStdin();
    }

    @Override
    public void resize(String id, int cols, int rows) {
        entry(id).handle.resize(cols, rows);
    }

    @Override
    public ProcessInfo kill(String id) {
        Entry e = entry(id);
        if (e.handle.isAlive()) {
            e.handle.kill();
        }
        return info(e);
    }

    /** Kills every command and refuses new ones: the sandbox is closing. */
    public void close() {
        List<Entry> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(entries.values());
            entries.clear();
        }
        for (Entry e : all) {
            ExecHandle h = e.handle;
            if (h != null) {
                try {
                    h.close();
                } catch (RuntimeException ignored) {
                    // the sandbox is going away; its commands end with it
                }
            }
        }
    }

    private Entry entry(String id) {
        synchronized (this) {
            prune();
            Entry e = id == null ? null : entries.get(id);
            if (e == null || e.handle == null) {
                throw new SandboxException(ErrorKind.NOT_FOUND, "no background command with id " + id
                        + (closed ? " (the sandbox is closed)" : "; it may have finished more than " + RETAINED
                        + " minutes or " + MAX_FINISHED + " commands ago"));
            }
            return e;
        }
    }

    private ProcessInfo info(Entry e) {
        Optional<ExecResult> r = e.result();
        if (r.isPresent() && e.finished == null) {
            e.finished = clock.instant();
        }
        return new ProcessInfo(e.id, e.command, e.started, r.isEmpty(), r.map(ExecResult::status).orElse(null),
                r.map(ExecResult::exitCode).orElse(null));
    }

    /** Marks ended commands finished, then forgets those past the age and count bounds. Holds the lock. */
    private void prune() {
        Instant now = clock.instant();
        List<Entry> done = new ArrayList<>();
        for (Entry e : entries.values()) {
            if (e.handle != null && e.finished == null && !e.handle.isAlive()) {
                e.finished = now;
            }
            if (e.finished != null) {
                done.add(e);
            }
        }
        int extra = done.size() - MAX_FINISHED;
        Duration keep = Duration.ofMinutes(RETAINED);
        for (Iterator<Entry> it = done.iterator(); it.hasNext(); ) {
            Entry e = it.next();
            if (extra > 0 || e.finished.plus(keep).isBefore(now)) {
                entries.remove(e.id);
                extra--;
            }
        }
    }

    /** The latest bytes of a stream, with absolute offsets. */
    static final class Window {
        private final int capacity;
        private byte[] buf;
        private int head;
        private int size;
        private long end;

        record Slice(String text, long next, long skipped) {
        }

        Window(int capacity) {
            this.capacity = capacity;
            this.buf = new byte[Math.min(4096, capacity)];
        }

        synchronized void append(byte[] chunk) {
            int from = Math.max(0, chunk.length - capacity);
            int len = chunk.length - from;
            int need = Math.min(capacity, size + len);
            if (buf.length < need) {
                byte[] grown = new byte[Math.min(capacity, Math.max(need, buf.length * 2))];
                copyOut(0, size, grown);
                buf = grown;
                head = 0;
            }
            int drop = Math.max(0, size + len - capacity);
            head = (head + drop) % buf.length;
            size -= drop;
            for (int i = 0; i < len; i++) {
                buf[(head + size + i) % buf.length] = chunk[from + i];
            }
            size += len;
            end += chunk.length;
        }

        private void copyOut(int offset, int count, byte[] into) {
            for (int i = 0; i < count; i++) {
                into[i] = buf[(head + offset + i) % buf.length];
            }
        }

        /** The bytes after {@code cursor}, decoded; {@code whole} false stops before a character still arriving. */
        synchronized Slice from(long cursor, boolean stillWriting) {
            if (cursor > end) {
                throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "cursor " + cursor + " is past the output's"
                        + " end, " + end);
            }
            long start = end - size;
            long at = Math.max(cursor, start);
            byte[] out = new byte[(int) (end - at)];
            copyOutFrom((int) (at - start), out);
            int keep = stillWriting ? wholeCharacters(out) : out.length;
            return new Slice(new String(out, 0, keep, StandardCharsets.UTF_8), at + keep, at - cursor);
        }

        private void copyOutFrom(int offset, byte[] into) {
            for (int i = 0; i < into.length; i++) {
                into[i] = buf[(head + offset + i) % buf.length];
            }
        }

        /** The length of {@code b} without a UTF-8 sequence cut off at its end. */
        static int wholeCharacters(byte[] b) {
            for (int back = 1; back <= Math.min(3, b.length); back++) {
                int c = b[b.length - back] & 0xff;
                if ((c & 0xC0) == 0x80) {
                    continue; // a continuation byte: look further back for its lead
                }
                int want = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
                return want > back ? b.length - back : b.length;
            }
            return b.length;
        }
    }
}
