package dev.sandbox4j;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How {@link FileSystem#grep} searches: which files (globs on the workspace-relative path or the file name), case
 * sensitivity, a cap on matches, an optional cap on file size and a time budget. Immutable.
 *
 * <p><b>What is searched.</b> Every regular text file asked for, whatever its size: files are streamed, so memory
 * stays bounded (a few MiB per call) however large a file or a line is. A file is binary, and skipped, when its first
 * 8 KiB hold a NUL byte. Nothing is skipped silently: binary files, files over {@link #maxFileBytes()}, unreadable
 * ones, special files, links (never followed), files that vanish meanwhile and files the time budget did not reach
 * are listed in {@link GrepResult#skipped()}, with the reason.
 *
 * <p><b>Long lines.</b> A line of up to 1,048,576 characters is matched whole. A longer line (a minified bundle, a
 * one-line JSON dump) is matched in windows of that size, each overlapping the previous by 4,096 characters: a match
 * of up to 4,096 characters is found wherever it lies; a longer match that spans two windows can be missed, and
 * look-arounds see no further than the window. {@code ^} and {@code $} still match only at the line's real start and
 * end. A match's reported text is capped (see {@link GrepMatch#line()}).
 *
 * <p><b>Work budget.</b> Patterns are {@link java.util.regex} patterns, whose engine backtracks: a pattern such as
 * {@code (a+)+$} can take exponential time on one line. So every backend bounds the work: matching one line (or one
 * window of a long line) may read at most 1,000,000 + 1,000 x (its length) characters. Past that, grep fails with
 * {@link ErrorKind#INVALID_ARGUMENT}, a message starting {@code "pattern too expensive"} that names the file and line,
 * and returns nothing partial. A pattern that does not backtrack catastrophically stays far inside the budget.
 *
 * <p><b>Time budget.</b> One call searches for at most {@link #timeBudget()} (30 seconds by default). When it runs
 * out, grep returns what it found so far with {@link GrepResult#timedOut()} set, and the files it did not search to
 * the end as {@link GrepResult.Reason#TIME_BUDGET}: a partial answer an agent can act on, never an error, never a
 * hang.
 *
 * @param includes        globs a file must match to be searched; empty for every file
 * @param excludes        globs of files and directories to skip (a matching directory is not entered)
 * @param caseInsensitive whether the pattern ignores case
 * @param maxResults      stop after this many matches ({@link GrepResult#truncated()} then says so)
 * @param maxFileBytes    skip files larger than this many bytes ({@link GrepResult.Reason#TOO_LARGE}); 0, the
 *                        default, searches every file whatever its size
 * @param timeBudget      how long one call may search before it returns partial results; positive
 */
public record GrepOptions(List<String> includes, List<String> excludes, boolean caseInsensitive, int maxResults,
                          long maxFileBytes, Duration timeBudget) {
    public static final int DEFAULT_MAX_RESULTS = 1000;
    public static final Duration DEFAULT_TIME_BUDGET = Duration.ofSeconds(30);

    public GrepOptions {
        includes = List.copyOf(includes);
        excludes = List.copyOf(excludes);
        if (maxResults <= 0) {
            throw new IllegalArgumentException("maxResults (" + maxResults + ") must be positive");
        }
        if (maxFileBytes < 0) {
            throw new IllegalArgumentException("maxFileBytes (" + maxFileBytes + ") must be 0 (no cap) or positive");
        }
        Objects.requireNonNull(timeBudget, "timeBudget");
        if (timeBudget.isNegative() || timeBudget.isZero()) {
            throw new IllegalArgumentException("timeBudget (" + timeBudget + ") must be positive");
        }
    }

    public static GrepOptions defaults() {
        return new GrepOptions(List.of(), List.of(), false, DEFAULT_MAX_RESULTS, 0, DEFAULT_TIME_BUDGET);
    }

    public GrepOptions withIncludes(String... globs) {
        return new GrepOptions(List.of(globs), excludes, caseInsensitive, maxResults, maxFileBytes, timeBudget);
    }

    public GrepOptions withExcludes(String... globs) {
        return new GrepOptions(includes, List.of(globs), caseInsensitive, maxResults, maxFileBytes, timeBudget);
    }

    public GrepOptions withCaseInsensitive(boolean caseInsensitive) {
        return new GrepOptions(includes, excludes, caseInsensitive, maxResults, maxFileBytes, timeBudget);
    }

    public GrepOptions withMaxResults(int maxResults) {
        return new GrepOptions(includes, excludes, caseInsensitive, maxResults, maxFileBytes, timeBudget);
    }

    /** Skips (and reports as {@link GrepResult.Reason#TOO_LARGE}) files over this size; 0 for no cap. */
    public GrepOptions withMaxFileBytes(long maxFileBytes) {
        return new GrepOptions(includes, excludes, caseInsensitive, maxResults, maxFileBytes, timeBudget);
    }

    /** How long one call may search before it returns partial results marked {@link GrepResult#timedOut()}. */
    public GrepOptions withTimeBudget(Duration timeBudget) {
        return new GrepOptions(includes, excludes, caseInsensitive, maxResults, maxFileBytes, timeBudget);
    }
}
