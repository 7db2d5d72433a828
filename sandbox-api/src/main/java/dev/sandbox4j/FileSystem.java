package dev.sandbox4j;

import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;

/**
 * The sandbox's workspace, seen from the host application: read, write, search and edit files.
 *
 * <p><b>Paths</b> are POSIX strings relative to the workspace ({@code src/app.py}); absolute paths are accepted
 * only under the workspace ({@code /workspace/src/app.py}). A path that leaves the workspace ({@code ../x}), holds
 * NUL, is empty where a file is needed, or has a segment over 255 bytes fails with {@link ErrorKind#INVALID_PATH}.
 * Symbolic links are never followed out of the workspace: a link met on the way fails with
 * {@link ErrorKind#PERMISSION_DENIED} or {@link ErrorKind#INVALID_PATH}, and special files (FIFOs, devices) are
 * never opened.
 *
 * <p><b>Failures change nothing.</b> Writes are atomic (a temporary file renamed over the target), so a failed write
 * leaves the old file whole; {@link #edit} applies all its edits or none. Every failure is a
 * {@link SandboxException} with a stable {@link ErrorKind}; a malformed argument that is not a path (a glob, a
 * regular expression, a negative range or depth, empty text to replace, no edits) is
 * {@link ErrorKind#INVALID_ARGUMENT}, checked before anything is read.
 *
 * <p><b>Sizes.</b> Whole-file reads are capped at {@link #MAX_READ_BYTES} ({@link ErrorKind#TOO_LARGE} beyond);
 * {@link #readTo} and {@link #write(String, InputStream)} stream files of any size.
 *
 * <p><b>Depth.</b> {@link #list}, {@link #find}, {@link #grep} and {@link #copy} walk at most 256 directory levels
 * below where they start; a tree nested deeper (sandboxed code can make one thousands of levels deep) fails them with
 * {@link ErrorKind#TOO_LARGE} instead of overflowing a stack or holding thousands of descriptors; list or search a
 * subdirectory, or list a smaller depth. {@link #deleteRecursively} removes a tree of any depth.
 */
public interface FileSystem {
    /** The largest file {@link #readText(String)} and {@link #readBytes(String)} read whole: 32 MiB. */
    int MAX_READ_BYTES = 32 << 20;

    /** Reads a whole file as UTF-8 (malformed bytes replaced). */
    String readText(String path);

    /**
     * Reads lines {@code fromLine} to {@code toLine} (1-based, inclusive; {@code toLine} -1 for the end), each with
     * its line terminator. Lines past the end are simply absent.
     */
    String readText(String path, int fromLine, int toLine);

    /** Reads a whole file. */
    byte[] readBytes(String path);

    /** Reads up to {@code length} bytes from {@code offset}; fewer at the end of the file. */
    byte[] readBytes(String path, long offset, int length);

    /** Streams a file of any size into {@code sink}; the sink is not closed. */
    void readTo(String path, OutputStream sink);

    /**
     * Streams a file like {@link #readTo} and fails with {@link ErrorKind#CONFLICT} when it changed while streaming:
     * its type, size or modification time after the transfer differ from before (a download with a change check,
     * like AIO's {@code change_policy=abort}). The sink may then hold a mix of old and new bytes: discard it. A change
     * that keeps the size and lands within the file system's timestamp granularity is not seen. The default
     * implementation is generic, on top of {@link #stat} and {@link #readTo}.
     *
     * @return the file as it was before and after the transfer
     */
    default FileInfo readToUnchanged(String path, OutputStream sink) {
        FileInfo before = stat(path);
        if (!before.isFile()) {
            throw new SandboxException(before.isDirectory() ? ErrorKind.IS_A_DIRECTORY : ErrorKind.PERMISSION_DENIED,
                    path + " is not a regular file");
        }
        readTo(path, sink);
        FileInfo after;
        try {
            after = stat(path);
        } catch (SandboxException e) {
            if (e.kind() != ErrorKind.NOT_FOUND) {
                throw e;
            }
            throw new SandboxException(ErrorKind.CONFLICT, path + " was removed while it was being read", e);
        }
        if (!after.isFile() || after.size() != before.size()
                || !after.modified().equals(before.modified())) {
            throw new SandboxException(ErrorKind.CONFLICT, path + " changed while it was being read (size "
                    + before.size() + " -> " + after.size() + ", modified " + before.modified() + " -> "
                    + after.modified() + "); read it again once it is stable");
        }
        return after;
    }

    /** Writes a file as UTF-8, replacing it atomically; parent directories are created. */
    void write(String path, String text);

    /** Writes a file, replacing it atomically; parent directories are created. */
    void write(String path, byte[] content);

    /** Streams {@code content} into a file, replacing it atomically; the stream is read to its end, not closed. */
    void write(String path, InputStream content);

    /** Appends UTF-8 text to a file, creating it and its parents if missing. */
    void append(String path, String text);

    /** Appends bytes to a file, creating it and its parents if missing. */
    void append(String path, byte[] content);

    /** Describes a file without following a symbolic link. */
    FileInfo stat(String path);

    /** Whether something (of any type, dangling links included) exists at the path. Invalid paths still throw. */
    boolean exists(String path);

    /** Lists a directory's direct children, hidden ones included, sorted by path. */
    default List<FileInfo> list(String path) {
        return list(path, 1);
    }

    /**
     * Lists a directory down to {@code depth} levels (1 for direct children), hidden entries included, sorted by path.
     * Links are listed, not entered.
     */
    List<FileInfo> list(String path, int depth);

    /**
     * Lists like {@link #list(String, int)} but leaves out hidden entries (names starting with a dot) with their
     * subtrees, as {@code ls} and {@code tree} do without {@code -a}.
     */
    List<FileInfo> listVisible(String path, int depth);

    /**
     * Finds files and directories under {@code path} whose path relative to {@code path} matches {@code glob}
     * ({@code *} within a segment, {@code **} across segments, {@code ?}, {@code [abc]}, {@code {a,b}}); a glob
     * without a slash matches the name at any depth. Anything matching one of {@code excludes} is skipped, with
     * its subtree. Returns workspace-relative paths, sorted.
     *
     * <p>What to look for comes first, then where, as in {@link #grep(String, String, GrepOptions)} (and grep(1),
     * rg, fd): {@code find("*.py", "src", List.of("**&#47;venv"))}.
     */
    List<String> find(String glob, String path, List<String> excludes);

    /**
     * Searches text files under {@code path} (or the file itself) for a Java regex, line by line, streaming each file
     * (any size, bounded memory; see {@link GrepOptions}). The result says what was not searched: binary files, files
     * over {@link GrepOptions#maxFileBytes()}, unreadable and special files, links (never followed), files that
     * vanished, and what the time budget did not reach are in {@link GrepResult#skipped()}, with the reason;
     * {@link GrepResult#truncated()} says the match cap was reached and {@link GrepResult#timedOut()} that the time
     * budget was. Empty matches mean "absent" only when {@link GrepResult#isComplete()}. Matches come in walk order
     * (depth first, names sorted; lines in file order), so a capped search gives the same first matches on every
     * backend.
     *
     * <p>When {@code path} names one file that cannot be searched, the call fails instead of returning nothing:
     * {@link ErrorKind#INVALID_ARGUMENT} ("... is binary ...") for a binary file, {@link ErrorKind#TOO_LARGE} over
     * {@link GrepOptions#maxFileBytes()}, {@link ErrorKind#PERMISSION_DENIED} for a link, a special file or an
     * unreadable file, {@link ErrorKind#NOT_FOUND} when it vanished. The matching work is bounded (see
     * {@link GrepOptions}): a pattern that would backtrack past the budget on one line fails with
     * {@link ErrorKind#INVALID_ARGUMENT} "pattern too expensive: ..." naming the file and line.
     */
    GrepResult grep(String regex, String path, GrepOptions options);

    default GrepResult grep(String regex, String path) {
        return grep(regex, path, GrepOptions.defaults());
    }

    /** Creates a directory and its missing parents; no error if it already is a directory. */
    void mkdirs(String path);

    /**
     * Moves or renames a file or directory. Fails with {@link ErrorKind#ALREADY_EXISTS} when the target exists (see
     * {@link #moveReplacing}).
     */
    void move(String from, String to);

    /**
     * Moves like {@link #move}, replacing what is at the target: a file, a link or an empty directory (a non-empty
     * directory is still refused).
     */
    void moveReplacing(String from, String to);

    /**
     * Copies a file, or a directory tree (links copied as links). Fails with {@link ErrorKind#ALREADY_EXISTS} when the
     * target exists (see {@link #copyReplacing}).
     */
    void copy(String from, String to);

    /** Copies like {@link #copy}, replacing the target by the rules of {@link #moveReplacing}. */
    void copyReplacing(String from, String to);

    /**
     * Deletes a file, a link (never followed) or an empty directory; a non-empty directory fails with
     * {@link ErrorKind#DIRECTORY_NOT_EMPTY} (see {@link #deleteRecursively}).
     */
    void delete(String path);

    /** Deletes a file, a link (never followed) or a directory with everything in it. */
    void deleteRecursively(String path);

    /**
     * Replaces the one occurrence of {@code oldText} with {@code newText}. Fails with {@link ErrorKind#NO_MATCH}
     * when it does not occur and {@link ErrorKind#AMBIGUOUS_MATCH} when it occurs more than once (the message says
     * how many times), changing nothing. The file must be valid UTF-8: otherwise it fails with
     * {@link ErrorKind#INVALID_ARGUMENT} (message {@code "not UTF-8 text: <path> has a byte that is not UTF-8 at
     * offset <n>; ..."}, the offset of the first bad byte) and the file stays byte for byte as it was, because
     * writing back a lossy decoding would change bytes the edit never meant to touch.
     */
    EditResult replace(String path, String oldText, String newText);

    /**
     * Applies several exact-text edits in order, each to the result of the ones before, atomically: all or none.
     * Each {@link Edit#oldText()} must occur exactly once at its turn. Content that is not valid UTF-8 fails as in
     * {@link #replace}.
     */
    EditResult edit(String path, List<Edit> edits);

    /**
     * Checks edits as {@link #edit} would apply them and returns the diff they would make, without touching the file
     * ({@link EditResult#applied()} false). Fails exactly where {@link #edit} would.
     */
    EditResult previewEdit(String path, List<Edit> edits);

    /**
     * Starts recording the changes under {@code path} (a directory, or one file), made by anything in the sandbox;
     * read them with {@link FileWatch#poll}. Fails {@link ErrorKind#NOT_FOUND} when the path does not exist,
     * {@link ErrorKind#INVALID_ARGUMENT} for a malformed glob, {@link ErrorKind#TOO_LARGE} past the
     * sandbox's watches, and {@link ErrorKind#UNSUPPORTED} on a backend without {@link Feature#FILE_WATCH}.
     */
    FileWatch watch(String path, FileWatch.Options options);

    /** Watches with {@link FileWatch.Options#defaults()}: recursive, every path, writes debounced by 100 ms. */
    default FileWatch watch(String path) {
        return watch(path, FileWatch.Options.defaults());
    }

    /**
     * Waits up to {@code timeout} for one change of {@code kind} to {@code path}, which need not exist yet (its
     * nearest existing directory is watched); empty when none came. {@link FileWatch.Kind#CREATE} answers at once,
     * with an event numbered 0, when the path already exists, and {@link FileWatch.Kind#REMOVE} when it does not:
     * the state waited for is there. Kinds are read as a waiting agent means them: {@code WRITE} is any new content
     * (written in place, or a file renamed onto the path or created there with content, as the file API's atomic
     * writes are; an empty file just created is not yet content),
     * {@code CREATE} the path appearing (created or renamed onto it), {@code REMOVE} the path going (removed or
     * renamed away).
     */
    java.util.Optional<FileWatch.Event> waitFor(String path, FileWatch.Kind kind, java.time.Duration timeout);
}
