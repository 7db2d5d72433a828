package dev.sandbox4j;

import java.util.List;

/**
 * How {@link FileSystem#grep} searches: which files (globs on the workspace-relative path or the file name), case
 * sensitivity, and a cap on matches. Binary files (a NUL in the first 8 KiB) and files larger than 16 MiB are
 * skipped. Immutable.
 *
 * <p><b>Work budget.</b> Patterns are {@link java.util.regex} patterns, whose engine backtracks: a pattern such as
 * {@code (a+)+$} can take exponential time on one line. So every backend bounds the work: matching one line may read
 * at most 1,000,000 + 1,000 x (line length) characters, and one grep call may spend at most 10 seconds matching.
 * Past either bound, grep fails with {@link ErrorKind#INVALID_ARGUMENT}, a message starting
 * {@code "pattern too expensive"} that names the file and line, and returns nothing partial. A pattern that does not
 * backtrack catastrophically stays far inside the budget.
 *
 * @param includes        globs a file must match to be searched; empty for every file
 * @param excludes        globs of files and directories to skip (a matching directory is not entered)
 * @param caseInsensitive whether the pattern ignores case
 * @param maxResults      stop after this many matches
 */
public record GrepOptions(List<String> includes, List<String> excludes, boolean caseInsensitive, int maxResults) {
    public static final int DEFAULT_MAX_RESULTS = 1000;

    public GrepOptions {
        includes = List.copyOf(includes);
        excludes = List.copyOf(excludes);
        if (maxResults <= 0) {
            throw new IllegalArgumentException("maxResults (" + maxResults + ") must be positive");
        }
    }

    public static GrepOptions defaults() {
        return new GrepOptions(List.of(), List.of(), false, DEFAULT_MAX_RESULTS);
    }

    public GrepOptions withIncludes(String... globs) {
        return new GrepOptions(List.of(globs), excludes, caseInsensitive, maxResults);
    }

    public GrepOptions withExcludes(String... globs) {
        return new GrepOptions(includes, List.of(globs), caseInsensitive, maxResults);
    }

    public GrepOptions withCaseInsensitive(boolean caseInsensitive) {
        return new GrepOptions(includes, excludes, caseInsensitive, maxResults);
    }

    public GrepOptions withMaxResults(int maxResults) {
        return new GrepOptions(includes, excludes, caseInsensitive, maxResults);
    }
}
