package dev.sandbox4j.tools;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The status lines workers set with {@code set_status} (Spacebot's surface): one per worker (a sandbox's id unless
 * the caller names another), at most {@value #MAX_CHARS} characters, control characters replaced, so a status can be
 * shown in a channel, an MCP client's log, or a health endpoint without more checks. Shared by everything given the
 * same {@link ToolConfig}; bounded to {@value #MAX_WORKERS} workers, the least recently updated dropped first.
 * Thread-safe.
 */
public final class StatusBoard {
    /** The longest status kept, in characters (Spacebot's limit). */
    public static final int MAX_CHARS = 256;
    /** How many workers' statuses are kept. */
    public static final int MAX_WORKERS = 10_000;

    /**
     * One worker's status.
     *
     * @param workerId  whose status it is
     * @param status    the line as kept: sanitized, at most {@value #MAX_CHARS} characters
     * @param truncated whether the line set was longer
     * @param at        when it was set
     */
    public record Status(String workerId, String status, boolean truncated, Instant at) {
        public Status {
            Objects.requireNonNull(workerId, "workerId");
            Objects.requireNonNull(status, "status");
            Objects.requireNonNull(at, "at");
        }
    }

    private final LinkedHashMap<String, Status> statuses = new LinkedHashMap<>(16, 0.75f, false);
    private final List<Consumer<Status>> listeners = new CopyOnWriteArrayList<>();

    /** Sets a worker's status; returns it as kept, after listeners were told. */
    public Status set(String workerId, String status) {
        Objects.requireNonNull(workerId, "workerId");
        Objects.requireNonNull(status, "status");
        String clean = sanitize(status);
        boolean truncated = clean.length() > MAX_CHARS;
        if (truncated) {
            clean = truncate(clean);
        }
        Status s = new Status(sanitize(workerId).strip(), clean, truncated, Instant.now());
        synchronized (statuses) {
            statuses.remove(s.workerId());
            statuses.put(s.workerId(), s);
            while (statuses.size() > MAX_WORKERS) {
                statuses.remove(statuses.keySet().iterator().next());
            }
        }
        for (Consumer<Status> l : listeners) {
            try {
                l.accept(s);
            } catch (RuntimeException ignored) {
                // a listener's failure is its own; the status is set
            }
        }
        return s;
    }

    /** A worker's status, if it set one. */
    public Optional<Status> get(String workerId) {
        synchronized (statuses) {
            return Optional.ofNullable(statuses.get(workerId));
        }
    }

    /** Every worker's status, the most recently set first. */
    public List<Status> all() {
        List<Status> out;
        synchronized (statuses) {
            out = new ArrayList<>(statuses.values());
        }
        out.sort(Comparator.comparing(Status::at).reversed());
        return out;
    }

    /** How many workers have a status. */
    public int size() {
        synchronized (statuses) {
            return statuses.size();
        }
    }

    /** Forgets a worker's status (its sandbox closed). */
    public void remove(String workerId) {
        synchronized (statuses) {
            statuses.remove(workerId);
        }
    }

    /** Calls {@code listener} with every status set from now on; close the handle to stop. */
    public AutoCloseable subscribe(Consumer<Status> listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
        return () -> listeners.remove(listener);
    }

    /** Control characters (newlines included: a status is one line) become spaces; ends are stripped. */
    static String sanitize(String s) {
        StringBuilder b = new StringBuilder(Math.min(s.length(), MAX_CHARS * 4));
        for (int i = 0; i < s.length() && b.length() <= MAX_CHARS * 4; i++) {
            char c = s.charAt(i);
            b.append(Character.isISOControl(c) || c == '\u2028' || c == '\u2029' ? ' ' : c);
        }
        return b.toString().strip();
    }

    /**
     * Cuts to {@value #MAX_CHARS} characters with a trailing {@code ...}, at the last space when there is one (as
     * Spacebot cuts), never inside a surrogate pair.
     */
    static String truncate(String s) {
        int end = MAX_CHARS - 3;
        if (Character.isLowSurrogate(s.charAt(end))) {
            end--;
        }
        int space = s.lastIndexOf(' ', end);
        String head = (space > 0 ? s.substring(0, space) : s.substring(0, end)).stripTrailing();
        return head + "...";
    }
}
