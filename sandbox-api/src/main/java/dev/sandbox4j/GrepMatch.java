package dev.sandbox4j;

/**
 * One line that matched a {@link FileSystem#grep}.
 *
 * @param path       workspace-relative path of the file
 * @param lineNumber 1-based line number
 * @param line       the line, without its line terminator (long lines are cut at 2,000 characters)
 */
public record GrepMatch(String path, int lineNumber, String line) {
}
