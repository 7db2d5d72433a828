package dev.sandbox4j;

import java.util.List;
import java.util.Objects;

/**
 * What a {@link FileSystem#grep} found, and everything it did not search: an empty {@link #matches()} means "absent"
 * only when {@link #isComplete()}. Immutable.
 *
 * @param matches      the matching lines in walk order (depth first, names sorted) and line number (at most
 *                     {@link GrepOptions#maxResults()})
 * @param skipped      files that were not searched (or not to the end), sorted by path, at most
 *                     {@value #MAX_SKIPPED_LISTED} of them
 * @param skippedCount how many files were skipped in all, also past the cap of {@link #skipped()}
 * @param truncated    whether the search stopped at {@link GrepOptions#maxResults()}: more matches may exist
 * @param timedOut     whether the search stopped at {@link GrepOptions#timeBudget()}: the matches are partial, and
 *                     the files not searched to the end are in {@link #skipped()} as {@link Reason#TIME_BUDGET}
 */
public record GrepResult(List<GrepMatch> matches, List<Skipped> skipped, long skippedCount, boolean truncated,
                         boolean timedOut) {
    /** At most this many skipped files are listed; {@link #skippedCount()} counts them all. */
    public static final int MAX_SKIPPED_LISTED = 1000;

    public GrepResult {
        matches = List.copyOf(matches);
        skipped = List.copyOf(skipped);
        if (skipped.size() > MAX_SKIPPED_LISTED) {
            throw new IllegalArgumentException("at most " + MAX_SKIPPED_LISTED + " skipped files are listed, got "
                    + skipped.size());
        }
        if (skippedCount < skipped.size()) {
            throw new IllegalArgumentException("skippedCount (" + skippedCount + ") is below the " + skipped.size()
                    + " files listed");
        }
    }

    /** Why a file was not searched, or not to the end. */
    public enum Reason {
        /** A NUL byte in its first 8 KiB. */
        BINARY,
        /** Larger than {@link GrepOptions#maxFileBytes()}. */
        TOO_LARGE,
        /** It could not be opened or read (permissions, an I/O error); the detail says which. */
        UNREADABLE,
        /** A FIFO, socket or device: never opened. */
        SPECIAL_FILE,
        /** A symbolic link: never followed. */
        LINK,
        /** It disappeared (or was replaced) between the walk and the read. */
        VANISHED,
        /** {@link GrepOptions#timeBudget()} ran out before it was searched (to the end). */
        TIME_BUDGET;

        /** The lower-case name, as the agent tools print it ({@code time_budget}). */
        public String code() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * One file grep did not search, or not to the end.
     *
     * @param path   workspace-relative path
     * @param reason why
     * @param detail a short human-readable detail (a size, an error, the last line searched); may be empty
     */
    public record Skipped(String path, Reason reason, String detail) {
        public Skipped {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(reason, "reason");
            detail = detail == null ? "" : detail;
        }
    }

    /** Whether every file asked for was searched to the end and every match is here: no skip, cap or time-out. */
    public boolean isComplete() {
        return skippedCount == 0 && !truncated && !timedOut;
    }

    /** The paths of the matches, in walk order (depth first, names sorted), with repeats (one per matching line). */
    public List<String> paths() {
        return matches.stream().map(GrepMatch::path).toList();
    }
}
