package dev.sandbox4j;

/**
 * One line that matched a {@link FileSystem#grep}.
 *
 * @param path       workspace-relative path of the file
 * @param lineNumber 1-based line number
 * @param line       the line, without its line terminator. A line over 2,000 characters is cut to an excerpt of
 *                   2,000 characters around the first match (from the line's start when the match ends within its
 *                   first 2,000 characters, else from 200 characters before the match), and each cut side carries a
 *                   marker saying how many characters were left out: {@code "[... 1234 chars cut] "} before,
 *                   {@code " [... 5678 chars cut]"} after
 */
public record GrepMatch(String path, int lineNumber, String line) {
}
