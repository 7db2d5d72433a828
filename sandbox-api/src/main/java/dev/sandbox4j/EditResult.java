package dev.sandbox4j;

/**
 * The outcome of {@link FileSystem#replace} or {@link FileSystem#edit}.
 *
 * @param path    workspace-relative path of the file
 * @param diff    a unified diff of the change ({@code --- a/path}, {@code +++ b/path}), empty if nothing changed
 * @param edits   how many edits were applied (or would be, on a dry run)
 * @param applied false for a dry run: the file was not touched
 */
public record EditResult(String path, String diff, int edits, boolean applied) {
}
