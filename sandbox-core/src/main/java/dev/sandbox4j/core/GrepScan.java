package dev.sandbox4j.core;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.GrepMatch;
import dev.sandbox4j.GrepOptions;
import dev.sandbox4j.GrepResult;
import dev.sandbox4j.GrepResult.Reason;
import dev.sandbox4j.GrepResult.Skipped;
import dev.sandbox4j.SandboxException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * One {@link dev.sandbox4j.FileSystem#grep} call, shared by every backend: the backend walks its files and hands each
 * one to {@link #search} as a stream (or reports it with {@link #skip}); this class does the rest the same way
 * everywhere. It decodes UTF-8 (bad bytes become U+FFFD) in bounded memory whatever the size of the file or of a line,
 * tells binary files (a NUL in the first {@value #BINARY_PROBE} bytes), matches lines with {@link BoundedMatcher}
 * (long lines in overlapping windows, see {@link GrepOptions}), caps each reported line (see {@link GrepMatch#line()}),
 * stops at {@link GrepOptions#maxResults()} or at the time budget, and builds the {@link GrepResult}. Not thread-safe.
 */
public final class GrepScan {
    /** Lines up to this many characters are matched whole; longer ones in windows of this size. */
    static final int WINDOW_CHARS = 1 << 20;
    /** Characters each window of a long line shares with the previous one. */
    static final int OVERLAP_CHARS = 4096;
    /** A reported line is cut to this many characters (plus the markers). */
    static final int EXCERPT_CHARS = 2000;
    /** Characters shown before a match that does not lie within the first {@link #EXCERPT_CHARS} of its line. */
    static final int EXCERPT_BEFORE = 200;
    static final int BINARY_PROBE = 8192;
    private static final int READ_BYTES = 1 << 16;

    private final GrepOptions options;
    private final BoundedMatcher matcher;
    private final List<GrepMatch> matches = new ArrayList<>();
    private final List<Skipped> skipped = new ArrayList<>();
    private long skippedCount;
    private boolean truncated;

    private final byte[] bytes = new byte[READ_BYTES];
    private final char[] chars = new char[WINDOW_CHARS + 2 * READ_BYTES];
    private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);

    /**
     * Starts the call's clock. The regex is compiled as {@link Arguments#regex} does
     * ({@link ErrorKind#INVALID_ARGUMENT} when malformed).
     */
    public GrepScan(String regex, GrepOptions options) {
        this.options = options;
        this.matcher = new BoundedMatcher(Arguments.regex(regex, options.caseInsensitive()), options.timeBudget());
    }

    /** Whether the call has stopped (match cap or time budget): search nothing more. */
    public boolean stopped() {
        return truncated || matcher.timedOut();
    }

    /** Whether {@link GrepOptions#maxResults()} was reached: the rest need not even be walked. */
    public boolean truncated() {
        return truncated;
    }

    /**
     * Whether a regular file of {@code size} bytes should be searched now; when not, it has been reported (over
     * {@link GrepOptions#maxFileBytes()}, or the time budget gone), unless the match cap was reached.
     */
    public boolean admit(String path, long size) {
        if (truncated) {
            return false;
        }
        if (matcher.timedOut() || matcher.checkClock()) {
            skip(path, Reason.TIME_BUDGET, "not searched: the time budget of " + budget() + " ran out");
            return false;
        }
        if (options.maxFileBytes() > 0 && size > options.maxFileBytes()) {
            skip(path, Reason.TOO_LARGE, size + " bytes, over maxFileBytes " + options.maxFileBytes());
            return false;
        }
        return true;
    }

    /** Reports a file that was not searched (the list keeps the first {@value GrepResult#MAX_SKIPPED_LISTED}). */
    public void skip(String path, Reason reason, String detail) {
        skippedCount++;
        if (skipped.size() < GrepResult.MAX_SKIPPED_LISTED) {
            skipped.add(new Skipped(path, reason, detail));
        }
    }

    /**
     * Searches one file's content, read from {@code in} to its end or until the call stops (the caller closes it).
     * A binary file is reported as {@link Reason#BINARY}; a file the time budget cut short as
     * {@link Reason#TIME_BUDGET}.
     *
     * @throws IOException from the stream
     * @throws SandboxException "pattern too expensive" (see {@link BoundedMatcher})
     */
    public void search(String path, InputStream in) throws IOException {
        int probed = in.readNBytes(bytes, 0, BINARY_PROBE);
        for (int i = 0; i < probed; i++) {
            if (bytes[i] == 0) {
                skip(path, Reason.BINARY, "a NUL byte at offset " + i);
                return;
            }
        }
        new FileScan(path, in, probed).run();
    }

    /** The result so far, matches in walk order ({@link WorkspacePaths#walkOrder}) and line, skipped files by path. */
    public GrepResult result() {
        matches.sort(Comparator.comparing(GrepMatch::path, WorkspacePaths::walkOrder)
                .thenComparingInt(GrepMatch::lineNumber));
        skipped.sort(Comparator.comparing(Skipped::path));
        return new GrepResult(matches, skipped, skippedCount, truncated, matcher.timedOut());
    }

    /**
     * The result of a search of one named file: when that file was not searched for a reason other than the time
     * budget, the typed error for it instead ({@link #refusal}).
     */
    public GrepResult result(String file) {
        for (Skipped s : skipped) {
            if (s.path().equals(file) && s.reason() != Reason.TIME_BUDGET) {
                throw refusal(s);
            }
        }
        return result();
    }

    /** The error for a named file that could not be searched, by reason. */
    public static SandboxException refusal(Skipped s) {
        String p = s.path();
        String detail = s.detail().isEmpty() ? "" : " (" + s.detail() + ")";
        switch (s.reason()) {
            case BINARY:
                return Arguments.invalid(p + " is binary" + detail + "; grep searches text files only");
            case TOO_LARGE:
                return new SandboxException(ErrorKind.TOO_LARGE, p + " is too large to search" + detail
                        + "; raise or drop maxFileBytes");
            case SPECIAL_FILE:
                return new SandboxException(ErrorKind.PERMISSION_DENIED, p
                        + " is a special file (FIFO, socket or device); the file API does not open those");
            case LINK:
                return new SandboxException(ErrorKind.PERMISSION_DENIED, p
                        + " is a symbolic link; the file API does not follow links");
            case VANISHED:
                return new SandboxException(ErrorKind.NOT_FOUND, p + ": no such file or directory" + detail);
            default:
                return new SandboxException(ErrorKind.PERMISSION_DENIED, p + " cannot be read" + detail);
        }
    }

    private String budget() {
        return options.timeBudget().toString().substring(2).toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * One file, streamed: {@code chars[0, len)} holds decoded text; the current line's retained part starts at
     * {@code lineStart} ({@code lineOffset} characters of it were dropped before that), {@code scanned} is where the
     * search for its end continues.
     */
    private final class FileScan {
        private final String path;
        private final InputStream in;
        private final ByteBuffer bb;
        private boolean endOfBytes;
        private boolean flushed;
        private int len;
        private int lineStart;
        private int scanned;
        private long lineOffset;
        private int lineNumber = 1;
        /** A continued window: chars[lineStart] is context only (the last character of the previous window). */
        private boolean continued;
        // the current line's match, once found: where its excerpt starts and ends in the line, and its text
        private boolean matched;
        private long excerptFrom;
        private long excerptEnd;
        private String excerpt;

        FileScan(String path, InputStream in, int probed) {
            this.path = path;
            this.in = in;
            this.bb = ByteBuffer.wrap(bytes, 0, probed);
            decoder.reset();
        }

        void run() throws IOException {
            while (true) {
                int nl = indexOfNewline(scanned, len);
                if (nl >= 0) {
                    int end = nl > lineStart && chars[nl - 1] == '\r' ? nl - 1 : nl;
                    endLine(end);
                    lineStart = scanned = nl + 1;
                    if (stopped()) {
                        return;
                    }
                    continue;
                }
                scanned = len;
                if (len - lineStart >= WINDOW_CHARS) {
                    window();
                    if (matcher.timedOut()) {
                        timedOutHere();
                        return;
                    }
                }
                if (matcher.checkClock()) {
                    timedOutHere();
                    return;
                }
                if (!fill()) {
                    if (len > lineStart || continued) {
                        endLine(len > lineStart && chars[len - 1] == '\r' ? len - 1 : len);
                    }
                    return;
                }
            }
        }

        private int indexOfNewline(int from, int to) {
            char[] c = chars;
            for (int i = from; i < to; i++) {
                if (c[i] == '\n') {
                    return i;
                }
            }
            return -1;
        }

        /** The line ends at {@code end} (exclusive, terminator stripped): match what is left of it, report. */
        private void endLine(int end) {
            if (!matched) {
                int from = continued ? lineStart + 1 : lineStart;
                if (matcher.find(chars, lineStart, from, end, end, path, lineNumber)) {
                    matchedHere();
                } else if (matcher.timedOut()) {
                    timedOutHere();
                    return;
                }
            }
            if (matched) {
                if (excerpt == null) {
                    takeExcerpt(end);
                }
                long lineLength = lineOffset + (end - lineStart);
                long cutAfter = lineLength - excerptEnd;
                String text = (excerptFrom > 0 ? "[... " + excerptFrom + " chars cut] " : "") + excerpt
                        + (cutAfter > 0 ? " [... " + cutAfter + " chars cut]" : "");
                matches.add(new GrepMatch(path, lineNumber, text));
                if (matches.size() >= options.maxResults()) {
                    truncated = true;
                }
            }
            lineNumber = lineNumber == Integer.MAX_VALUE ? lineNumber : lineNumber + 1;
            lineOffset = 0;
            continued = false;
            matched = false;
            excerpt = null;
        }

        /**
         * A long line filled the window: match it, then keep only what the next window shares with it (or, once it
         * matched, what the excerpt still needs).
         */
        private void window() {
            if (!matched) {
                int from = continued ? lineStart + 1 : lineStart;
                // one character after the window stays outside it: $ cannot match at the window's edge
                if (matcher.find(chars, lineStart, from, len - 1, len, path, lineNumber)) {
                    matchedHere();
                }
            }
            int newStart;
            if (!matched) {
                // the next window starts OVERLAP_CHARS before this one's end, plus one character of context for ^
                newStart = len - (OVERLAP_CHARS + 2);
            } else if (excerpt == null && len - excerptIndex() < EXCERPT_CHARS) {
                newStart = excerptIndex(); // keep the excerpt's start until the buffer holds all of it
            } else {
                if (excerpt == null) {
                    takeExcerpt(len);
                }
                newStart = len;
            }
            lineOffset += newStart - lineStart;
            lineStart = newStart;
            continued = true;
        }

        /** Where the excerpt of the match just found starts in the line: see {@link GrepMatch#line()}. */
        private void matchedHere() {
            long matchStart = lineOffset + (matcher.start() - lineStart);
            long matchEnd = lineOffset + (matcher.end() - lineStart);
            long from = matchEnd <= EXCERPT_CHARS ? 0 : Math.max(0, matchStart - EXCERPT_BEFORE);
            excerptFrom = Math.max(from, lineOffset);
            matched = true;
        }

        private int excerptIndex() {
            return lineStart + (int) (excerptFrom - lineOffset);
        }

        /** Takes the excerpt from what the buffer holds of the line (up to {@code avail}). */
        private void takeExcerpt(int avail) {
            int at = excerptIndex();
            int to = (int) Math.min(avail, (long) at + EXCERPT_CHARS);
            excerpt = new String(chars, at, to - at);
            excerptEnd = excerptFrom + (to - at);
        }

        private void timedOutHere() {
            skip(path, Reason.TIME_BUDGET, "searched up to line " + lineNumber + " when the time budget of "
                    + budget() + " ran out");
        }

        /** Moves the current line to the front of the buffer and decodes more; false at the end of the file. */
        private boolean fill() throws IOException {
            if (lineStart > 0) {
                System.arraycopy(chars, lineStart, chars, 0, len - lineStart);
                len -= lineStart;
                scanned -= lineStart;
                lineStart = 0;
            }
            if (flushed) {
                return false;
            }
            CharBuffer cb = CharBuffer.wrap(chars, len, chars.length - len);
            while (true) {
                CoderResult r = decoder.decode(bb, cb, endOfBytes);
                if (cb.position() > len || r.isOverflow()) {
                    break;
                }
                if (endOfBytes) {
                    decoder.flush(cb);
                    flushed = true;
                    break;
                }
                bb.compact();
                int n = in.read(bytes, bb.position(), bb.remaining());
                if (n < 0) {
                    endOfBytes = true;
                } else {
                    bb.position(bb.position() + n);
                }
                bb.flip();
            }
            int before = len;
            len = cb.position();
            return len > before || !flushed;
        }
    }
}
