package dev.sandbox4j.core;

import dev.sandbox4j.Edit;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Checks of the non-path arguments of {@link dev.sandbox4j.FileSystem} calls, shared by every backend so that a bad
 * range, depth or regular expression fails the same way everywhere: {@link ErrorKind#INVALID_ARGUMENT}, before
 * anything is read or changed.
 */
public final class Arguments {
    private Arguments() {
    }

    /** Lines count from 1; the end is -1 (to the end of the file) or at least the start. */
    public static void lineRange(int fromLine, int toLine) {
        if (fromLine < 1 || (toLine != -1 && toLine < fromLine)) {
            throw invalid("line range [" + fromLine + ", " + toLine + "] is invalid: lines count from 1, and the"
                    + " end is -1 (to the end of the file) or at least the start");
        }
    }

    /** A byte range: neither part may be negative. */
    public static void byteRange(long offset, int length) {
        if (offset < 0 || length < 0) {
            throw invalid("offset (" + offset + ") and length (" + length + ") must not be negative");
        }
    }

    /** A listing depth: 1 lists the directory itself. */
    public static void depth(int depth) {
        if (depth < 1) {
            throw invalid("depth (" + depth + ") must be at least 1");
        }
    }

    /** The text {@code replace} looks for: never empty (it would match everywhere). */
    public static void textToReplace(String oldText, String path) {
        if (oldText.isEmpty()) {
            throw invalid("the text to replace in " + path + " is empty; give the exact text to replace");
        }
    }

    /** The edits of one {@code edit} call: at least one. */
    public static void edits(List<Edit> edits, String path) {
        if (edits.isEmpty()) {
            throw invalid("no edits given for " + path);
        }
    }

    /** {@code regex} compiled as {@code grep} uses it. */
    public static Pattern regex(String regex, boolean caseInsensitive) {
        try {
            return Pattern.compile(regex, caseInsensitive ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0);
        } catch (PatternSyntaxException e) {
            throw invalid("invalid regular expression '" + regex + "': " + e.getDescription());
        }
    }

    /** An {@link ErrorKind#INVALID_ARGUMENT} error with this message. */
    public static SandboxException invalid(String message) {
        return new SandboxException(ErrorKind.INVALID_ARGUMENT, message);
    }
}
