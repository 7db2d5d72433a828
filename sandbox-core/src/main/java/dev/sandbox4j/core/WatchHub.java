package dev.sandbox4j.core;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.FileWatch;
import dev.sandbox4j.SandboxException;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * File watches of one sandbox, written once for every backend: the backend supplies raw changes (its agent's
 * inotify, or its own file operations where nothing else writes), and this class filters, debounces, numbers and
 * buffers them, answers cursor polls with long-poll, and waits for one change. Bytes behind the raw changes came from
 * inside the sandbox: paths are re-checked here, and every buffer is bounded.
 */
public final class WatchHub {
    /** Watches one sandbox may hold at once. */
    public static final int MAX_WATCHES = 64;

    /** Where raw changes come from. */
    public interface Source {
        /**
         * Starts recording changes under the workspace-relative {@code path} (a directory or a file, checked to exist
         * and not to be a link) onto {@code sink}, with workspace-relative paths; returns once recording has begun.
         * An {@link IOException}'s message says why it could not.
         */
        void start(int id, String path, boolean recursive, Sink sink) throws IOException;

        /** Stops a watch; no call reaches its sink afterwards (late ones are dropped). */
        void stop(int id);
    }

    /** Receives one watch's raw changes, on any thread. */
    public interface Sink {
        /** One change; {@code fromPath} is empty unless {@code kind} is a rename; a gone file has size 0, mtime 0. */
        void event(FileWatch.Kind kind, String path, String fromPath, boolean dir, long size, long modifiedMillis);

        /** Changes were lost (the kernel's queue overflowed, or the tree has more directories than can be watched). */
        void overflow();

        /** The source ended this watch (its sandbox closed or its agent went away). */
        void ended(String why);
    }

    private final Source source;
    private final FileSystem files;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, Watch> watches = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** @param files the sandbox's file API (checks paths, answers {@code stat} for {@link #waitFor}) */
    public WatchHub(Source source, FileSystem files) {
        this.source = source;
        this.files = files;
    }

    public FileWatch watch(String path, FileWatch.Options options) {
        Predicate<String> include = options.includes().isEmpty() ? p -> true : Globs.any(options.includes());
        Predicate<String> exclude = options.excludes().isEmpty() ? p -> false : Globs.any(options.excludes());
        FileInfo root = files.stat(path); // checks the path, NOT_FOUND, never follows a link
        if (root.isSymlink() || root.isOther()) {
            throw Arguments.invalid("cannot watch " + root.path() + ": not a file or directory (a link is never "
                    + "followed)");
        }
        int id;
        Watch w;
        synchronized (watches) { // with closeAll: a watch made while the sandbox closes is refused or ended
            if (closed) {
                throw new SandboxException(ErrorKind.CLOSED, "the sandbox is closed");
            }
            if (watches.size() >= MAX_WATCHES) {
                throw new SandboxException(ErrorKind.TOO_LARGE, "this sandbox already has " + MAX_WATCHES
                        + " watches: stop one first");
            }
            id = ids.incrementAndGet();
            w = new Watch(id, root.path(), options, include, exclude);
            watches.put(id, w);
        }
        try {
            source.start(id, root.path(), options.recursive(), w);
        } catch (IOException e) {
            watches.remove(id);
            String why = String.valueOf(e.getMessage());
            ErrorKind kind = why.contains("No such file") ? ErrorKind.NOT_FOUND
                    : why.contains("limit") || why.contains("Too many") || why.contains("No space")
                    ? ErrorKind.TOO_LARGE : ErrorKind.IO_ERROR;
            throw new SandboxException(kind, "cannot watch " + root.path() + ": " + why, e);
        }
        return w;
    }

    /** See {@link FileSystem#waitFor}. */
    public Optional<FileWatch.Event> waitFor(String path, FileWatch.Kind kind, Duration timeout) {
        if (timeout.isNegative()) {
            throw Arguments.invalid("negative timeout: " + timeout);
        }
        String target = WorkspacePaths.requireNonRoot(WorkspacePaths.normalize(path));
        // the nearest existing directory above it, never the file itself: a file replaced by a rename (the file
        // API's atomic writes, an editor's save) is a new file, which a watch of the old one never sees
        String dir = WorkspacePaths.parent(target);
        while (!dir.isEmpty() && !files.exists(dir)) {
            dir = WorkspacePaths.parent(dir);
        }
        FileInfo at = files.stat(dir);
        if (!at.isDirectory()) {
            throw Arguments.invalid("cannot wait for " + target + ": " + dir + " is not a directory");
        }
        boolean deep = !WorkspacePaths.parent(target).equals(dir);
        FileWatch.Options options = FileWatch.Options.defaults().withRecursive(deep).withDebounce(Duration.ZERO);
        try (FileWatch w = watch(dir, options)) {
            // looked at only now that the watch records: a change in between is in the watch
            if (kind == FileWatch.Kind.CREATE && files.exists(target)) {
                return Optional.of(describe(0, kind, files.stat(target), ""));
            }
            if (kind == FileWatch.Kind.REMOVE && !files.exists(target)) {
                return Optional.of(new FileWatch.Event(0, kind, target, "", false, 0, Instant.EPOCH));
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            long cursor = 0;
            while (true) {
                long left = deadline - System.nanoTime();
                FileWatch.Batch b = w.poll(cursor, Duration.ofNanos(Math.max(0, left)));
                for (FileWatch.Event e : b.events()) {
                    if (answers(kind, target, e)) {
                        return Optional.of(e);
                    }
                }
                cursor = b.cursor();
                if (b.overflow() && kind == FileWatch.Kind.CREATE && files.exists(target)) {
                    return Optional.of(describe(0, kind, files.stat(target), ""));
                }
                if (left <= 0 || !w.isOpen()) {
                    return Optional.empty();
                }
            }
        }
    }

    /**
     * Whether {@code e} is the change a {@link #waitFor} of {@code kind} waits for: a write is any new content (a
     * write in place, or a file renamed onto the path or created with content, as the file API's atomic writes
     * are); a create is
     * the path appearing (created or renamed onto it); a remove, the path going (removed or renamed away).
     */
    static boolean answers(FileWatch.Kind kind, String target, FileWatch.Event e) {
        boolean onto = e.path().equals(target) && (e.kind() == FileWatch.Kind.CREATE
                || e.kind() == FileWatch.Kind.RENAME);
        return switch (kind) {
            // an empty create is a file opened for writing, not yet its content: the WRITE that follows answers
            case WRITE -> onto && (e.kind() == FileWatch.Kind.RENAME || e.size() > 0)
                    || e.path().equals(target) && e.kind() == FileWatch.Kind.WRITE;
            case CREATE -> onto;
            case REMOVE -> e.path().equals(target) && e.kind() == FileWatch.Kind.REMOVE
                    || e.kind() == FileWatch.Kind.RENAME && e.fromPath().equals(target);
            case RENAME -> e.kind() == FileWatch.Kind.RENAME && (e.path().equals(target)
                    || e.fromPath().equals(target));
            case CHMOD -> e.path().equals(target) && e.kind() == FileWatch.Kind.CHMOD;
        };
    }

    private static FileWatch.Event describe(long seq, FileWatch.Kind kind, FileInfo f, String from) {
        return new FileWatch.Event(seq, kind, f.path(), from, f.isDirectory(), f.size(),
                f.modified() == null ? Instant.EPOCH : f.modified());
    }

    /** The error of a backend without watches. */
    static SandboxException unsupported() {
        return new SandboxException(ErrorKind.UNSUPPORTED, "this backend cannot watch files (no Feature.FILE_WATCH)");
    }

    /** Ends every watch (the sandbox is closing): waiting polls return, later calls fail {@code CLOSED}. */
    public void closeAll(String why) {
        List<Watch> open;
        synchronized (watches) {
            closed = true;
            open = List.copyOf(watches.values());
        }
        for (Watch w : open) {
            w.end(why);
        }
    }

    /** Open watches (for tests and diagnostics). */
    public int size() {
        return watches.size();
    }

    /** One watch: its buffer of numbered events, filtered and debounced. */
    private final class Watch implements FileWatch, Sink {
        private final int id;
        private final String path;
        private final Options options;
        private final Predicate<String> include;
        private final Predicate<String> exclude;
        private final long debounceNanos;
        /** Buffered entries, oldest first; an entry with a null event marks lost changes. */
        private final ArrayDeque<Entry> buffer = new ArrayDeque<>();
        /** The newest unread WRITE of each path, for debouncing. */
        private final Map<String, Entry> pendingWrites = new HashMap<>();
        private long lastSeq;
        private long droppedUpTo;
        private long deliveredUpTo;
        private String endedWhy;

        Watch(int id, String path, Options options, Predicate<String> include, Predicate<String> exclude) {
            this.id = id;
            this.path = path;
            this.options = options;
            this.include = include;
            this.exclude = exclude;
            this.debounceNanos = options.debounce().toNanos();
        }

        @Override
        public String id() {
            return "w" + id;
        }

        @Override
        public String path() {
            return path;
        }

        @Override
        public void event(Kind kind, String p, String from, boolean dir, long size, long modifiedMillis) {
            if (!wanted(p) && !(kind == Kind.RENAME && wanted(from))) {
                return;
            }
            long now = System.nanoTime();
            Instant modified = modifiedMillis <= 0 ? Instant.EPOCH : Instant.ofEpochMilli(modifiedMillis);
            synchronized (this) {
                if (endedWhy != null) {
                    return;
                }
                if (kind == Kind.WRITE && debounceNanos > 0) {
                    Entry last = pendingWrites.get(p);
                    // still unread (a reader never misses the last write), and within the window since its first
                    if (last != null && last.event.seq() > deliveredUpTo && now - last.firstNanos < debounceNanos) {
                        last.event = new Event(last.event.seq(), kind, p, "", dir, size, modified);
                        return;
                    }
                }
                Entry e = new Entry(new Event(++lastSeq, kind, p, from, dir, size, modified), now);
                add(e);
                if (kind == Kind.WRITE) {
                    pendingWrites.put(p, e);
                } else {
                    pendingWrites.remove(p);
                    if (!from.isEmpty()) {
                        pendingWrites.remove(from);
                    }
                }
                notifyAll();
            }
        }

        private boolean wanted(String p) {
            if (p.isEmpty()) {
                return false;
            }
            String rel = path.isEmpty() ? p : p.equals(path) ? "" : p.startsWith(path + "/")
                    ? p.substring(path.length() + 1) : null;
            if (rel == null) {
                return false; // not under this watch: a confused or hostile source
            }
            if (!options.recursive() && rel.indexOf('/') >= 0) {
                return false;
            }
            return include.test(p) && !exclude.test(p) && !excludedAncestor(p);
        }

        private boolean excludedAncestor(String p) {
            for (int i = p.indexOf('/'); i > 0; i = p.indexOf('/', i + 1)) {
                if (exclude.test(p.substring(0, i))) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public synchronized void overflow() {
            if (endedWhy == null) {
                add(new Entry(++lastSeq));
                pendingWrites.clear();
                notifyAll();
            }
        }

        private void add(Entry e) {
            buffer.addLast(e);
            while (buffer.size() > options.capacity()) {
                Entry gone = buffer.removeFirst();
                droppedUpTo = gone.seqOrMark();
                if (gone.event != null && pendingWrites.get(gone.event.path()) == gone) {
                    pendingWrites.remove(gone.event.path());
                }
            }
        }

        @Override
        public void ended(String why) {
            end(why);
        }

        void end(String why) {
            synchronized (this) {
                if (endedWhy != null) {
                    return;
                }
                endedWhy = why;
                buffer.clear();
                pendingWrites.clear();
                notifyAll();
            }
            watches.remove(id);
        }

        @Override
        public Batch poll(long cursor, Duration wait) {
            if (cursor < 0) {
                throw Arguments.invalid("negative cursor: " + cursor);
            }
            if (wait.isNegative()) {
                throw Arguments.invalid("negative wait: " + wait);
            }
            long deadline = System.nanoTime() + wait.toNanos();
            synchronized (this) {
                while (true) {
                    if (endedWhy != null) {
                        throw new SandboxException(ErrorKind.CLOSED, "watch " + id() + " is closed: " + endedWhy);
                    }
                    if (lastSeq > cursor) {
                        break;
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return new Batch(List.of(), cursor, false);
                    }
                    try {
                        java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new SandboxException(ErrorKind.INTERRUPTED, "interrupted while polling " + id());
                    }
                }
                boolean lost = cursor < droppedUpTo;
                List<Event> out = new ArrayList<>();
                long next = cursor;
                for (Entry e : buffer) {
                    if (e.seqOrMark() <= cursor) {
                        continue;
                    }
                    if (e.event == null) {
                        lost = true;
                    } else {
                        out.add(e.event);
                    }
                    next = e.seqOrMark();
                }
                next = Math.max(next, lastSeq);
                deliveredUpTo = Math.max(deliveredUpTo, next);
                return new Batch(out, next, lost);
            }
        }

        @Override
        public synchronized boolean isOpen() {
            return endedWhy == null;
        }

        @Override
        public void close() {
            if (isOpen()) {
                source.stop(id);
                end("stopped");
            }
        }

        @Override
        public String toString() {
            return "FileWatch[" + id() + " " + (path.isEmpty() ? "." : path) + "]";
        }
    }

    /** A buffered event, or (event null) a mark of lost changes; numbered either way. */
    private static final class Entry {
        FileWatch.Event event;
        final long mark;
        final long firstNanos;

        Entry(FileWatch.Event event, long nanos) {
            this.event = event;
            this.mark = event.seq();
            this.firstNanos = nanos;
        }

        Entry(long mark) {
            this.event = null;
            this.mark = mark;
            this.firstNanos = 0;
        }

        long seqOrMark() {
            return mark;
        }
    }
}
