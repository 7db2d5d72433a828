package dev.sandbox4j.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileWatch;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * AIO's watch endpoints over {@link FileWatch}: create, long-poll, wait for one event, SSE, delete. They answer
 * resource-style JSON with HTTP status codes (404 for an unknown watcher), as the document says, except create, whose
 * id the document reads from {@code data.watcher_id}. Long polls and waits are bounded (60 s and 300 s), as is the
 * number of watchers (the sandbox's own limit).
 */
final class AioWatches {
    private static final Set<String> KINDS = Set.of("create", "write", "remove", "rename", "chmod");
    static final Duration MAX_POLL = Duration.ofSeconds(60);
    static final Duration MAX_WAIT = Duration.ofSeconds(300);
    private static final Duration SSE_BEAT = Duration.ofSeconds(15);

    private final Supplier<Sandbox> sandbox;
    private final AioShapes shapes;
    private final Map<String, FileWatch> watchers = new ConcurrentHashMap<>();

    AioWatches(Supplier<Sandbox> sandbox, AioShapes shapes) {
        this.sandbox = sandbox;
        this.shapes = shapes;
    }

    /** Stops every watcher (the sandbox is going away). */
    void clear() {
        watchers.values().forEach(FileWatch::close);
        watchers.clear();
    }

    void post(String route, ObjectNode body, HttpServletResponse res) throws IOException {
        if (route.equals("watch")) {
            create(body, res);
        } else if (route.equals("watch/wait")) {
            waitFor(body, res);
        } else if (route.startsWith("watch/") && route.endsWith("/poll")) {
            poll(route.substring("watch/".length(), route.length() - "/poll".length()), body, res);
        } else {
            AioFileApi.json(res, 404, Map.of("detail", "Not Found"));
        }
    }

    private void create(ObjectNode body, HttpServletResponse res) throws IOException {
        String path = text(body, "path", null);
        if (path == null) {
            AioFileApi.json(res, 400, shapes.refused("watch", null, "invalid_argument", "'path' is required"));
            return;
        }
        FileWatch.Options o = FileWatch.Options.defaults()
                .withRecursive(body.path("recursive").asBoolean(true))
                .withIncludes(strings(body, "include_patterns"))
                .withExcludes(excludes(strings(body, "exclude")))
                .withDebounce(Duration.ofMillis(Math.max(0, Math.min(60_000, body.path("debounce").asLong(100)))));
        FileWatch w = sandbox.get().files().watch(shapes.in(path), o);
        watchers.put(w.id(), w);
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("watcher_id", w.id());
        data.put("path", shapes.out(w.path()));
        data.put("recursive", o.recursive());
        AioFileApi.json(res, 200, shapes.ok("Watcher created", data));
    }

    /** AIO's excludes are names ({@code .git}, {@code node_modules}): each also excludes what is under it. */
    private static List<String> excludes(List<String> given) {
        List<String> out = new ArrayList<>();
        for (String g : given) {
            out.add(g);
            if (!g.contains("*") && !g.endsWith("/**")) {
                out.add(g + "/**");
                out.add("**/" + g);
                out.add("**/" + g + "/**");
            }
        }
        return out;
    }

    private void poll(String id, ObjectNode body, HttpServletResponse res) throws IOException {
        FileWatch w = watchers.get(id);
        if (w == null) {
            AioFileApi.json(res, 404, Map.of("detail", "watcher " + id + " not found"));
            return;
        }
        long cursor = Math.max(0, body.path("cursor").asLong(0));
        int limit = (int) Math.max(1, Math.min(1000, body.path("limit").asLong(100)));
        Duration wait = seconds(body.path("timeout").asDouble(0), MAX_POLL);
        FileWatch.Batch b = w.poll(cursor, wait);
        List<Map<String, Object>> events = new ArrayList<>();
        long next = cursor;
        for (FileWatch.Event e : b.events()) {
            if (events.size() == limit) {
                break;
            }
            events.add(shapes.event(e, w.path()));
            next = e.seq();
        }
        boolean more = b.events().size() > events.size();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("watcher_id", id);
        out.put("events", events);
        out.put("cursor", more ? next : Math.max(next, b.cursor()));
        out.put("overflow", b.overflow());
        out.put("has_more", more);
        AioFileApi.json(res, 200, out);
    }

    private void waitFor(ObjectNode body, HttpServletResponse res) throws IOException {
        String path = text(body, "path", null);
        if (path == null) {
            AioFileApi.json(res, 400, shapes.refused("watch", null, "invalid_argument", "'path' is required"));
            return;
        }
        List<String> types = strings(body, "event_types");
        if (types.isEmpty()) {
            types = List.copyOf(KINDS);
        }
        for (String t : types) {
            if (!KINDS.contains(t)) {
                AioFileApi.json(res, 400, shapes.refused("watch", path, "invalid_argument", "event type '" + t
                        + "' is not one of " + KINDS));
                return;
            }
        }
        Duration timeout = seconds(body.path("timeout").asDouble(30), MAX_WAIT);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("event", awaitOne(shapes.in(path), types, timeout));
        AioFileApi.json(res, 200, out);
    }

    /** The first event of one of the types on the path, or null at the timeout; an existing file is a create. */
    private Map<String, Object> awaitOne(String path, List<String> types, Duration timeout) {
        Sandbox s = sandbox.get();
        String rel = path.startsWith("/workspace/") ? path.substring("/workspace/".length()) : path;
        int slash = rel.lastIndexOf('/');
        String parent = slash < 0 ? "." : rel.substring(0, slash);
        String name = rel.substring(slash + 1);
        try (FileWatch w = s.files().watch(parent, FileWatch.Options.defaults().withRecursive(false)
                .withIncludes(List.of(name)).withDebounce(Duration.ZERO))) {
            if (types.contains("create") && s.files().exists(rel)) {
                var info = s.files().stat(rel);
                return shapes.event(new FileWatch.Event(0, FileWatch.Kind.CREATE, info.path(), "",
                        info.isDirectory(), info.size(), info.modified()), w.path());
            }
            long cursor = 0;
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                FileWatch.Batch b = w.poll(cursor, Duration.ofNanos(left));
                for (FileWatch.Event e : b.events()) {
                    if (types.contains(e.kind().code()) && (e.path().equals(rel) || e.fromPath().equals(rel))) {
                        return shapes.event(e, w.path());
                    }
                }
                cursor = b.cursor();
            }
        }
    }

    /** Server-sent events: {@code watch_started}, then {@code file_change} (id {@code watcher:seq}), {@code overflow}. */
    void events(String id, HttpServletRequest req, HttpServletResponse res) throws IOException {
        FileWatch w = watchers.get(id);
        if (w == null) {
            AioFileApi.json(res, 404, Map.of("detail", "watcher " + id + " not found"));
            return;
        }
        res.setStatus(200);
        res.setContentType("text/event-stream");
        res.setCharacterEncoding("UTF-8");
        res.setHeader("Cache-Control", "no-cache");
        OutputStream out = res.getOutputStream();
        send(out, null, "watch_started", Map.of("watcher_id", id, "path", shapes.out(w.path())));
        long cursor = lastEventId(req, id);
        while (w.isOpen() && watchers.get(id) == w) {
            FileWatch.Batch b;
            try {
                b = w.poll(cursor, SSE_BEAT);
            } catch (SandboxException e) {
                return; // the watch or its sandbox ended: so does the stream
            }
            if (b.overflow()) {
                send(out, null, "overflow", Map.of("watcher_id", id, "cursor", b.cursor()));
            }
            for (FileWatch.Event e : b.events()) {
                send(out, id + ":" + e.seq(), "file_change", shapes.event(e, w.path()));
            }
            if (b.events().isEmpty() && !b.overflow()) {
                out.write(": keep-alive\n\n".getBytes(StandardCharsets.UTF_8)); // fails once the client is gone
                out.flush();
            }
            cursor = b.cursor();
        }
    }

    /** A reconnecting SSE client says where it was ({@code Last-Event-ID: watcher:seq}). */
    private static long lastEventId(HttpServletRequest req, String id) {
        String last = req.getHeader("Last-Event-ID");
        if (last != null && last.startsWith(id + ":")) {
            try {
                return Math.max(0, Long.parseLong(last.substring(id.length() + 1)));
            } catch (NumberFormatException e) {
                return 0;
            }
        }
        return 0;
    }

    private static void send(OutputStream out, String id, String event, Object data) throws IOException {
        StringBuilder sb = new StringBuilder();
        if (id != null) {
            sb.append("id: ").append(id).append('\n');
        }
        sb.append("event: ").append(event).append('\n');
        sb.append("data: ").append(AioFileApi.JSON.writeValueAsString(data)).append("\n\n");
        out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    void delete(String id, HttpServletResponse res) throws IOException {
        FileWatch w = watchers.remove(id);
        if (w == null) {
            AioFileApi.json(res, 404, Map.of("detail", "watcher " + id + " not found"));
            return;
        }
        w.close();
        AioFileApi.json(res, 200, Map.of("watcher_id", id, "deleted", true));
    }

    private static Duration seconds(double s, Duration max) {
        if (!(s > 0)) {
            return Duration.ZERO;
        }
        long millis = (long) Math.min(max.toMillis(), Math.ceil(s * 1000));
        return Duration.ofMillis(millis);
    }

    private static String text(JsonNode body, String field, String otherwise) {
        JsonNode n = body.get(field);
        return n != null && n.isTextual() && !n.asText().isBlank() ? n.asText() : otherwise;
    }

    private static List<String> strings(JsonNode body, String field) {
        List<String> out = new ArrayList<>();
        JsonNode n = body.get(field);
        if (n != null && n.isArray()) {
            n.forEach(v -> {
                if (v.isTextual()) {
                    out.add(v.asText());
                }
            });
        }
        return out;
    }
}
