package dev.sandbox4j;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A watch on a workspace path, from {@link FileSystem#watch}: the changes made under it, by commands in the sandbox
 * as much as through the file API, read by cursor. Agents use it to wait for the file a background job writes, or to
 * follow a tree while a build runs.
 *
 * <p><b>Events</b> are buffered from the moment {@code watch} returns, numbered from 1 ({@link Event#seq()}), and
 * read with {@link #poll}: the events after a cursor, waiting up to a bound for the first one (long-poll). The buffer
 * holds {@link Options#capacity()} events; when a reader falls further behind, the oldest are dropped and the next
 * batch says {@link Batch#overflow()}, so a reader knows to rescan (the kernel's own queue overflowing says the same).
 *
 * <p><b>What an event says.</b> Its kind, the workspace-relative path, and for a file that still exists when the
 * event is read off the kernel, whether it is a directory, its size and modification time (else 0 and
 * {@link Instant#EPOCH}). Writes to one file within {@link Options#debounce()} of each other are one {@code WRITE}
 * event (the latest size). A rename inside the watched tree is one {@code RENAME} event with both paths; a file moved
 * in from outside is a {@code CREATE}, one moved out a {@code REMOVE}. A directory created under a recursive watch is
 * watched at once, and what was already in it when the watch got there is reported as created.
 *
 * <p>Closing a watch (or its sandbox) ends it: a waiting {@code poll} returns what it has, later calls fail with
 * {@link ErrorKind#CLOSED}. A sandbox holds at most 64 watches at a time ({@link ErrorKind#TOO_LARGE}
 * beyond); a recursive watch covers at most 8,192 directories (beyond, the rest is not watched and the watch reports
 * an overflow).
 */
public interface FileWatch extends AutoCloseable {

    /** This watch's id within its sandbox, such as {@code w3}. */
    String id();

    /** The watched path, relative to the workspace ({@code ""} for the workspace itself). */
    String path();

    /**
     * The events numbered after {@code cursor} (0 for all still buffered), waiting up to {@code wait} for the first
     * one; an empty batch when none came. Pass the returned {@link Batch#cursor()} to the next call.
     */
    Batch poll(long cursor, Duration wait);

    /** Whether the watch still records events (not closed, its sandbox open). */
    boolean isOpen();

    /** Stops the watch and drops its events. Idempotent. */
    @Override
    void close();

    /** What happened to a path. */
    enum Kind {
        CREATE, WRITE, REMOVE, RENAME, CHMOD;

        /** The lower-case wire code, such as {@code create}. */
        public String code() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * One change.
     *
     * @param seq      its number in this watch, from 1, without gaps unless the buffer overflowed
     * @param kind     what happened
     * @param path     the workspace-relative path (the new one for a rename)
     * @param fromPath the old path of a {@link Kind#RENAME}; empty otherwise
     * @param dir      whether the path is a directory
     * @param size     its size in bytes when the event was read (0 if gone)
     * @param modified its modification time when the event was read ({@link Instant#EPOCH} if gone)
     */
    record Event(long seq, Kind kind, String path, String fromPath, boolean dir, long size, Instant modified) {
        public Event {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(fromPath, "fromPath");
            Objects.requireNonNull(modified, "modified");
        }
    }

    /**
     * The answer to one {@link #poll}.
     *
     * @param events   the events after the cursor asked for, oldest first
     * @param cursor   the cursor for the next poll (the last event's number, or the one asked for when none came)
     * @param overflow whether events after the cursor were lost (buffer full, kernel queue overflow, too many
     *                 directories): rescan what matters
     */
    record Batch(List<Event> events, long cursor, boolean overflow) {
        public Batch {
            events = List.copyOf(events);
        }
    }

    /**
     * How to watch. Immutable; start from {@link #defaults()}.
     *
     * @param recursive whether changes in subdirectories count (default true)
     * @param includes  globs an event's workspace-relative path must match (as in {@link FileSystem#find}); empty
     *                  for every path
     * @param excludes  globs of paths whose events are dropped
     * @param debounce  writes to one file closer together than this are one event (default 100 ms; zero for every
     *                  write)
     * @param capacity  events buffered before the oldest are dropped (default 10,000; 1 to 1,000,000)
     */
    record Options(boolean recursive, List<String> includes, List<String> excludes, Duration debounce, int capacity) {
        public static final int DEFAULT_CAPACITY = 10_000;

        public Options {
            includes = List.copyOf(includes);
            excludes = List.copyOf(excludes);
            Objects.requireNonNull(debounce, "debounce");
            if (debounce.isNegative()) {
                throw new IllegalArgumentException("negative debounce: " + debounce);
            }
            if (capacity < 1 || capacity > 1_000_000) {
                throw new IllegalArgumentException("capacity must be 1 to 1,000,000: " + capacity);
            }
        }

        public static Options defaults() {
            return new Options(true, List.of(), List.of(), Duration.ofMillis(100), DEFAULT_CAPACITY);
        }

        public Options withRecursive(boolean value) {
            return new Options(value, includes, excludes, debounce, capacity);
        }

        public Options withIncludes(List<String> value) {
            return new Options(recursive, value, excludes, debounce, capacity);
        }

        public Options withExcludes(List<String> value) {
            return new Options(recursive, includes, value, debounce, capacity);
        }

        public Options withDebounce(Duration value) {
            return new Options(recursive, includes, excludes, value, capacity);
        }

        public Options withCapacity(int value) {
            return new Options(recursive, includes, excludes, debounce, value);
        }
    }
}
