package dev.sandbox4j.core;

import dev.sandbox4j.RawOutput;
import dev.sandbox4j.Truncation;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * A bounded head+tail capture of one output stream: keeps the first and last {@code limit} characters and counts
 * the rest, so a command that prints gigabytes costs about {@code 8 × limit} bytes of heap, never more.
 *
 * <p>Bytes are kept raw (up to 4 bytes a character at each end) and decoded as UTF-8 once, in {@link #text()};
 * {@link #raw()} gives the first and last {@code limit} of them as they are. Optional sinks receive every byte as it
 * arrives, raw and decoded as text, for streaming listeners. Thread-safe.
 */
public final class OutputBuffer {
    private final int limit;
    private final byte[] head;
    private int headLength;
    private final byte[] tail;
    private int tailPosition;
    private boolean tailWrapped;
    private long totalBytes;
    private long totalChars;
    private final Consumer<String> sink;
    private final Consumer<byte[]> rawSink;
    private final CharsetDecoder decoder;
    private ByteBuffer pending;

    /** A buffer keeping {@code limit} characters at each end. */
    public OutputBuffer(int limit) {
        this(limit, null);
    }

    /** A buffer keeping {@code limit} characters at each end, passing all text on to {@code sink} as it arrives. */
    public OutputBuffer(int limit, Consumer<String> sink) {
        this(limit, sink, null);
    }

    /**
     * A buffer keeping {@code limit} characters at each end, passing every chunk on to {@code rawSink} (a copy, before
     * the text) and all text on to {@code sink} as it arrives; either sink may be null.
     */
    public OutputBuffer(int limit, Consumer<String> sink, Consumer<byte[]> rawSink) {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit (" + limit + ") must be positive");
        }
        this.limit = limit;
        int capacity = Math.multiplyExact(limit, 4);
        this.head = new byte[capacity];
        this.tail = new byte[capacity];
        this.sink = sink;
        this.rawSink = rawSink;
        this.decoder = sink == null ? null : StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
    }

    /** The marker put between head and tail when the middle is cut. */
    public static String marker(long omittedChars) {
        return new Truncation(omittedChars, omittedChars).marker(); // the format is the API's
    }

    public synchronized void write(byte[] bytes, int offset, int length) {
        if (length <= 0) {
            return;
        }
        totalBytes += length;
        for (int i = offset, end = offset + length; i < end; i++) {
            if ((bytes[i] & 0xC0) != 0x80) {
                totalChars++;
            }
        }
        int fromHead = Math.min(length, head.length - headLength);
        if (fromHead > 0) {
            System.arraycopy(bytes, offset, head, headLength, fromHead);
            headLength += fromHead;
        }
        int rest = length - fromHead;
        if (rest > 0) {
            appendTail(bytes, offset + fromHead, rest);
        }
        if (rawSink != null) {
            emitRaw(java.util.Arrays.copyOfRange(bytes, offset, offset + length));
        }
        if (sink != null) {
            forward(bytes, offset, length);
        }
    }

    public void write(byte[] bytes) {
        write(bytes, 0, bytes.length);
    }

    /**
     * Counts {@code bytes} bytes of {@code chars} characters that went by without being written: the middle of a
     * stream whose source (the agent) already cut it, having sent the first {@code 2 × 4 × limit} bytes; the last
     * {@code 4 × limit} follow. The buffer then holds what it would have held had every byte been written.
     */
    public synchronized void skip(long bytes, long chars) {
        if (bytes <= 0 || chars < 0) {
            return;
        }
        totalBytes = saturatedAdd(totalBytes, bytes);
        totalChars = saturatedAdd(totalChars, chars);
        tailWrapped = true;
    }

    /** What the agent should keep of each end of a stream for this buffer: its head and tail capacity in bytes. */
    public int keepBytes() {
        return head.length;
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return r < 0 ? Long.MAX_VALUE : r;
    }

    /**
     * Reads {@code in} to its end into this buffer, in 64 KiB chunks, and returns the number of bytes read. Does not
     * close the stream.
     */
    public long drain(InputStream in) throws IOException {
        byte[] chunk = new byte[64 * 1024];
        long read = 0;
        for (int n; (n = in.read(chunk)) != -1; ) {
            write(chunk, 0, n);
            read += n;
        }
        return read;
    }

    /**
     * Drains {@code in} into this buffer on a daemon thread named {@code threadName} until it ends or fails (an
     * agent's stderr, kept for diagnostics).
     */
    public void drainInBackground(InputStream in, String threadName) {
        Thread t = new Thread(() -> {
            try {
                drain(in);
            } catch (IOException ignored) {
                // the stream's process is gone
            }
        }, threadName);
        t.setDaemon(true);
        t.start();
    }

    private void appendTail(byte[] bytes, int offset, int length) {
        if (length >= tail.length) {
            System.arraycopy(bytes, offset + length - tail.length, tail, 0, tail.length);
            tailPosition = 0;
            tailWrapped = true;
            return;
        }
        int first = Math.min(length, tail.length - tailPosition);
        System.arraycopy(bytes, offset, tail, tailPosition, first);
        System.arraycopy(bytes, offset + first, tail, 0, length - first);
        int end = tailPosition + length;
        if (end >= tail.length) {
            tailWrapped = true;
        }
        tailPosition = end % tail.length;
    }

    private void forward(byte[] bytes, int offset, int length) {
        ByteBuffer in;
        if (pending != null && pending.hasRemaining()) {
            in = ByteBuffer.allocate(pending.remaining() + length);
            in.put(pending).put(bytes, offset, length).flip();
        } else {
            in = ByteBuffer.wrap(bytes, offset, length);
        }
        CharBuffer out = CharBuffer.allocate(length + 4);
        decoder.decode(in, out, false);
        pending = in.hasRemaining() ? ByteBuffer.allocate(in.remaining()).put(in).flip() : null;
        out.flip();
        if (out.hasRemaining()) {
            emit(out.toString());
        }
    }

    /** Passes on any incomplete character left at the end of the stream. Call once when the stream ends. */
    public synchronized void finish() {
        if (sink != null && pending != null && pending.hasRemaining()) {
            CharBuffer out = CharBuffer.allocate(8);
            decoder.decode(pending, out, true);
            decoder.flush(out);
            pending = null;
            out.flip();
            if (out.hasRemaining()) {
                emit(out.toString());
            }
        }
    }

    private void emit(String text) {
        try {
            sink.accept(text);
        } catch (RuntimeException ignored) {
            // A listener's failure must not stop the command or lose the captured output.
        }
    }

    private void emitRaw(byte[] chunk) {
        try {
            rawSink.accept(chunk);
        } catch (RuntimeException ignored) {
            // as in emit
        }
    }

    /** Bytes this buffer holds on to, whatever went through it: {@code 8 × limit}. */
    public long retainedBytes() {
        return (long) head.length + tail.length;
    }

    /** Bytes written so far, all of them. */
    public synchronized long totalBytes() {
        return totalBytes;
    }

    /**
     * Characters a cut moves back (head) or on (tail) to fall on a line boundary: {@code min(200, limit / 10)}. A
     * line break farther from the cut leaves the cut where the character count falls, so a single huge line still
     * keeps its head and its tail, and each end keeps at least 90 percent of its {@code limit}.
     */
    public static int lineWindow(int limit) {
        return Math.min(200, limit / 10);
    }

    /**
     * The kept text: the whole stream, or head + {@link #marker} + tail when it is longer than twice the limit. The
     * head is the first {@code limit} characters, ending at the last line break among them when one lies within
     * {@link #lineWindow} characters of their end; the tail is the last {@code limit} characters, starting after the
     * first line break among them when one lies within that window of their start. A head that already ends a line
     * (the next character is a line break) or a tail that already starts one is kept as it is. The marker counts
     * every character not kept, those dropped to reach a line boundary included.
     */
    public synchronized String text() {
        Cut cut = cut();
        return cut == null ? unwrapped() : cut.head + marker(cut.omitted) + cut.tail;
    }

    /** The head and tail kept and the characters between, or null when the stream is kept whole. */
    private record Cut(String head, String tail, long omitted) {
    }

    private Cut cut() {
        String keptHead;
        String keptTail;
        boolean headEndsLine;
        boolean tailStartsLine;
        long omitted;
        if (!tailWrapped) {
            String all = unwrapped();
            int codePoints = all.codePointCount(0, all.length());
            if (codePoints <= 2L * limit) {
                return null;
            }
            int headEnd = all.offsetByCodePoints(0, limit);
            int tailStart = all.offsetByCodePoints(all.length(), -limit);
            keptHead = all.substring(0, headEnd);
            keptTail = all.substring(tailStart);
            headEndsLine = all.charAt(headEnd) == '\n';
            tailStartsLine = all.charAt(tailStart - 1) == '\n';
            omitted = omitted(codePoints);
        } else {
            String headText = decode(head, 0, headLength);
            int headCount = headText.codePointCount(0, headText.length());
            int headEnd = headText.offsetByCodePoints(0, Math.min(limit, headCount));
            keptHead = headText.substring(0, headEnd);
            headEndsLine = headEnd < headText.length() && headText.charAt(headEnd) == '\n';
            byte[] ordered = new byte[tail.length];
            System.arraycopy(tail, tailPosition, ordered, 0, tail.length - tailPosition);
            System.arraycopy(tail, 0, ordered, tail.length - tailPosition, tailPosition);
            int start = 0;
            while (start < ordered.length && start < 3 && (ordered[start] & 0xC0) == 0x80) {
                start++;
            }
            String tailText = decode(ordered, start, ordered.length - start);
            int tailCount = tailText.codePointCount(0, tailText.length());
            int tailStart = tailText.offsetByCodePoints(tailText.length(), -Math.min(limit, tailCount));
            keptTail = tailText.substring(tailStart);
            tailStartsLine = tailStart > 0 && tailText.charAt(tailStart - 1) == '\n';
            omitted = omitted(totalChars);
        }
        int window = lineWindow(limit);
        if (!headEndsLine && !keptHead.endsWith("\n")) {
            int lastBreak = keptHead.lastIndexOf('\n');
            if (lastBreak >= 0) {
                int dropped = keptHead.codePointCount(lastBreak + 1, keptHead.length());
                if (dropped <= window) {
                    keptHead = keptHead.substring(0, lastBreak + 1);
                    omitted = saturatedAdd(omitted, dropped);
                }
            }
        }
        if (!tailStartsLine) {
            int firstBreak = keptTail.indexOf('\n');
            if (firstBreak >= 0 && firstBreak + 1 < keptTail.length()) {
                int dropped = keptTail.codePointCount(0, firstBreak + 1);
                if (dropped <= window) {
                    keptTail = keptTail.substring(firstBreak + 1);
                    omitted = saturatedAdd(omitted, dropped);
                }
            }
        }
        return new Cut(keptHead, keptTail, omitted);
    }

    /** What the cap did: total bytes, and characters cut from the middle (the same count as the marker's). */
    public synchronized Truncation truncation() {
        Cut cut = cut();
        return new Truncation(totalBytes, cut == null ? 0 : cut.omitted);
    }

    /**
     * The raw bytes kept, capped in bytes: the whole stream when it is at most {@code 2 × limit} bytes, else its first
     * and last {@code limit} bytes (cut wherever the byte count falls, inside a character or not) and the count
     * of the bytes between.
     */
    public synchronized RawOutput raw() {
        if (!tailWrapped) {
            int length = headLength + tailPosition;
            byte[] all = new byte[length];
            System.arraycopy(head, 0, all, 0, headLength);
            System.arraycopy(tail, 0, all, headLength, tailPosition);
            if (length <= 2L * limit) {
                return RawOutput.of(all);
            }
            return RawOutput.of(java.util.Arrays.copyOf(all, limit), length - 2L * limit,
                    java.util.Arrays.copyOfRange(all, length - limit, length));
        }
        // wrapped: the head is full (4 × limit bytes) and so is the ring; its oldest byte is at tailPosition
        byte[] last = new byte[limit];
        int from = tailPosition - limit;
        if (from >= 0) {
            System.arraycopy(tail, from, last, 0, limit);
        } else {
            System.arraycopy(tail, tail.length + from, last, 0, -from);
            System.arraycopy(tail, 0, last, -from, tailPosition);
        }
        long omitted = totalBytes == Long.MAX_VALUE ? Long.MAX_VALUE - 2L * limit : totalBytes - 2L * limit;
        return RawOutput.of(java.util.Arrays.copyOf(head, limit), Math.max(1, omitted), last);
    }

    /** Everything, while the tail has not wrapped: decoded as one sequence (a character may straddle the two). */
    private String unwrapped() {
        byte[] all = new byte[headLength + tailPosition];
        System.arraycopy(head, 0, all, 0, headLength);
        System.arraycopy(tail, 0, all, headLength, tailPosition);
        return decode(all, 0, all.length);
    }

    private long omitted(long chars) {
        return Math.max(1, chars - 2L * limit);
    }

    private static String decode(byte[] bytes, int offset, int length) {
        return new String(bytes, offset, length, StandardCharsets.UTF_8);
    }
}
