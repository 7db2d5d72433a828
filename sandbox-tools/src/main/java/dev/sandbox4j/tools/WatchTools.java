package dev.sandbox4j.tools;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileWatch;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The file-watch tools: {@code watch_files}, {@code poll_watch}, {@code wait_for_file} and {@code stop_watch}.
 *
 * <p>A watch outlives the call that made it, and adapters make a tools object per call (the MCP server does), so the
 * watches the tools started are kept per sandbox here, by identity: an id from one sandbox is unknown in another.
 * The sandbox itself holds its open watches and ends them when it closes; this table only refers to them weakly and
 * lets a forgotten sandbox go.
 */
final class WatchTools {
    /** Events one poll returns at most; the cursor then points after the last one returned. */
    static final int MAX_EVENTS = 1000;

    /** The watches started through the tools, per sandbox, by id; guarded by itself. */
    private static final Map<Sandbox, Map<String, WeakReference<FileWatch>>> WATCHES = new WeakHashMap<>();

    private final SandboxTools tools;

    WatchTools(SandboxTools tools) {
        this.tools = tools;
    }

    private Sandbox sandbox() {
        return tools.sandbox();
    }

    ToolResult watch(Args a) {
        String path = a.string("path");
        long debounce = a.optLong("debounce_ms", 100);
        FileWatch.Options options = FileWatch.Options.defaults().withRecursive(a.optBool("recursive", true))
                .withIncludes(a.strings("include", false)).withExcludes(a.strings("exclude", false))
                .withDebounce(Duration.ofMillis(debounce));
        FileWatch w;
        try {
            w = tools.fs().watch(path, options);
        } catch (SandboxException e) {
            if (e.kind() != ErrorKind.TOO_LARGE) {
                throw e;
            }
            throw new SandboxException(ErrorKind.TOO_LARGE, e.getMessage() + " (watches started here: " + open()
                    + "; end one with stop_watch)", e);
        }
        synchronized (WATCHES) {
            WATCHES.computeIfAbsent(sandbox(), s -> new LinkedHashMap<>()).put(w.id(), new WeakReference<>(w));
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("watch_id", w.id());
        f.put("path", w.path());
        return ToolResult.ok(f);
    }

    ToolResult poll(Args a, ToolProgress progress) {
        FileWatch w = find(a.text("watch_id"));
        long cursor = a.optLong("cursor", 0);
        if (cursor < 0) {
            throw new Args.ArgException("argument 'cursor' of poll_watch must be >= 0, got " + cursor);
        }
        Duration wait = Duration.ofMillis(a.optLong("wait_ms", 0));
        FileWatch.Batch b;
        if (progress == null || wait.compareTo(tools.config().heartbeatInterval()) <= 0) {
            b = w.poll(cursor, wait);
        } else {
            // the same wait in slices, a heartbeat between them: the cursor loses nothing in between
            long start = System.nanoTime();
            long deadline = start + wait.toNanos();
            while (true) {
                long left = deadline - System.nanoTime();
                Duration slice = Duration.ofNanos(Math.max(0, Math.min(left,
                        tools.config().heartbeatInterval().toNanos())));
                b = w.poll(cursor, slice);
                if (!b.events().isEmpty() || b.overflow() || left <= slice.toNanos()) {
                    break;
                }
                long elapsed = (System.nanoTime() - start) / 1_000_000;
                SandboxTools.heartbeat(progress, elapsed, "no change yet after " + (elapsed / 1000) + " s");
            }
        }
        List<FileWatch.Event> events = b.events();
        long next = b.cursor();
        boolean truncated = events.size() > MAX_EVENTS;
        if (truncated) {
            events = events.subList(0, MAX_EVENTS);
            next = events.get(MAX_EVENTS - 1).seq();
        }
        List<Object> out = new ArrayList<>();
        for (FileWatch.Event e : events) {
            out.add(event(e));
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("events", out);
        f.put("cursor", next);
        f.put("overflow", b.overflow());
        if (truncated) {
            f.put("truncated", true);
            f.put("note", "more events are buffered: poll again with cursor " + next);
        }
        if (b.overflow()) {
            f.put("note", (truncated ? f.get("note") + "; " : "") + "events were lost (too many changes between"
                    + " polls): look at the files that matter (list_directory, search_files) rather than rely on"
                    + " the events alone");
        }
        return ToolResult.ok(f);
    }

    ToolResult waitFor(Args a, ToolProgress progress) {
        String path = a.string("path");
        String kindName = a.optString("event", "create").toLowerCase(Locale.ROOT);
        FileWatch.Kind kind = FileWatch.Kind.valueOf(kindName.toUpperCase(Locale.ROOT)); // checked by the spec
        Duration fallback = Duration.ofMillis(30_000);
        if (fallback.compareTo(tools.config().maxTimeout()) > 0) {
            fallback = tools.config().maxTimeout();
        }
        SandboxTools.Timeout timeout = tools.timeout(a, "timeout_ms", fallback, TimeUnit.MILLISECONDS);
        Optional<FileWatch.Event> e = tools.await(() -> tools.fs().waitFor(path, kind, timeout.duration()),
                progress);
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("found", e.isPresent());
        List<String> notes = new ArrayList<>();
        if (e.isPresent()) {
            f.put("event", event(e.get()));
        } else {
            notes.add("no " + kind.code() + " of " + path + " within " + timeout.duration().toMillis() + " ms");
        }
        if (timeout.note() != null) {
            notes.add(timeout.note());
        }
        if (!notes.isEmpty()) {
            f.put("note", String.join("; ", notes));
        }
        return ToolResult.ok(f);
    }

    ToolResult stop(Args a) {
        String id = a.text("watch_id");
        FileWatch w = find(id);
        w.close();
        forget(id);
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("watch_id", id);
        f.put("stopped", true);
        return ToolResult.ok(f);
    }

    /** A watch the tools started in this sandbox and that is still open; {@code not_found} otherwise. */
    private FileWatch find(String id) {
        FileWatch w;
        synchronized (WATCHES) {
            Map<String, WeakReference<FileWatch>> mine = WATCHES.get(sandbox());
            WeakReference<FileWatch> ref = mine == null ? null : mine.get(id);
            w = ref == null ? null : ref.get();
        }
        if (w != null && !w.isOpen()) {
            forget(id);
            if (!sandbox().isOpen()) {
                throw new SandboxException(ErrorKind.CLOSED, "watch '" + id + "' ended: its sandbox is closed");
            }
            w = null; // ended by the backend (its agent went away): as good as unknown
        }
        if (w == null) {
            throw new SandboxException(ErrorKind.NOT_FOUND, "no watch '" + id + "' in this sandbox; open watches: "
                    + open() + "; start one with watch_files");
        }
        return w;
    }

    private void forget(String id) {
        synchronized (WATCHES) {
            Map<String, WeakReference<FileWatch>> mine = WATCHES.get(sandbox());
            if (mine != null) {
                mine.remove(id);
                if (mine.isEmpty()) {
                    WATCHES.remove(sandbox());
                }
            }
        }
    }

    /** The ids of this sandbox's open watches started through the tools, dropping ended ones; "none" if none. */
    private String open() {
        List<String> ids = new ArrayList<>();
        synchronized (WATCHES) {
            Map<String, WeakReference<FileWatch>> mine = WATCHES.get(sandbox());
            if (mine != null) {
                mine.values().removeIf(r -> r.get() == null || !r.get().isOpen());
                ids.addAll(mine.keySet());
            }
        }
        return ids.isEmpty() ? "none" : String.join(", ", ids);
    }

    /** One event as the tools give it; {@code from_path} only for a rename. */
    static Map<String, Object> event(FileWatch.Event e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("seq", e.seq());
        m.put("kind", e.kind().code());
        m.put("path", e.path());
        if (!e.fromPath().isEmpty()) {
            m.put("from_path", e.fromPath());
        }
        m.put("is_dir", e.dir());
        m.put("size", e.size());
        m.put("mtime", e.modified().toString());
        return m;
    }
}
