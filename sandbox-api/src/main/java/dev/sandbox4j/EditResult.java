package dev.sandbox4j;

/**
 * The outcome of {@link FileSystem#replace} or {@link FileSystem#edit}.
 *
 * @param path    workspace-relative path of the file
 * @param diff    a unified diff of the change ({@code --- a/path}, {@code +++ b/path}), empty if nothing changed
 * @param edits   how many edits were applied (or would be, for a preview)
 * @param applied false for a preview ({@link FileSystem#previewEdit}): the file was not touched
 */
public record EditResult(String path, String diff, int edits, boolean applied) {
    /** Edits written to the file. */
    public static EditResult written(String path, String diff, int edits) {
        return new EditResult(path, diff, edits, true);
    }

    /** Edits checked and shown as a diff, the file left untouched ({@link FileSystem#previewEdit}). */
    public static EditResult preview(String path, String diff, int edits) {
        return new EditResult(path, diff, edits, false);
    }
}
