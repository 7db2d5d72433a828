package dev.sandbox4j;

import java.util.Arrays;
import java.util.Objects;

/**
 * The raw bytes of one output stream of a command, exactly as the command wrote them, capped head+tail in bytes as
 * {@link ExecResult#stdout()} is in characters: a stream of at most {@code 2 × outputLimit} bytes is kept whole,
 * a longer one as its first and last {@code outputLimit} bytes and the count of the bytes cut between them.
 *
 * <p>Use it where text would lie: binary output ({@code cat image.png}, {@code tar c}), output in a non-UTF-8
 * encoding, exact comparisons of tool output. The text of an {@link ExecResult} is these bytes decoded as UTF-8
 * with malformed sequences replaced by U+FFFD, so {@code printf '\377\376'} reads as two U+FFFD there and as the
 * bytes {@code FF FE} here.
 *
 * <p>Head and tail are apart, never joined, because a binary stream with its middle cut out is no longer valid
 * data; check {@link #truncated()} before treating {@link #bytes()} as the whole stream. Immutable: every array
 * in and out is copied.
 *
 * <pre>{@code
 * RawOutput out = sandbox.shell().run("cat logo.png").rawStdout();
 * if (!out.truncated()) {
 *     Files.write(Path.of("logo.png"), out.bytes());
 * }
 * }</pre>
 */
public final class RawOutput {
    private static final byte[] NONE = new byte[0];
    private static final RawOutput EMPTY = new RawOutput(NONE, NONE, 0);

    private final byte[] head;
    private final byte[] tail;
    private final long omittedBytes;

    private RawOutput(byte[] head, byte[] tail, long omittedBytes) {
        this.head = head;
        this.tail = tail;
        this.omittedBytes = omittedBytes;
    }

    /** A stream kept whole (the bytes are copied). */
    public static RawOutput of(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        return bytes.length == 0 ? EMPTY : new RawOutput(bytes.clone(), NONE, 0);
    }

    /**
     * A stream whose middle was cut: its first bytes, the number of bytes cut, its last bytes (copied). With
     * {@code omittedBytes} 0 it is a stream kept whole, head followed by tail.
     *
     * @throws IllegalArgumentException if {@code omittedBytes} is negative
     */
    public static RawOutput of(byte[] head, long omittedBytes, byte[] tail) {
        Objects.requireNonNull(head, "head");
        Objects.requireNonNull(tail, "tail");
        if (omittedBytes < 0) {
            throw new IllegalArgumentException("omittedBytes (" + omittedBytes + ") must not be negative");
        }
        if (omittedBytes == 0) {
            byte[] whole = Arrays.copyOf(head, head.length + tail.length);
            System.arraycopy(tail, 0, whole, head.length, tail.length);
            return whole.length == 0 ? EMPTY : new RawOutput(whole, NONE, 0);
        }
        return new RawOutput(head.clone(), tail.clone(), omittedBytes);
    }

    /** No output at all. */
    public static RawOutput empty() {
        return EMPTY;
    }

    /** Whether the cap cut bytes out of the middle of the stream. */
    public boolean truncated() {
        return omittedBytes > 0;
    }

    /** The bytes kept at the start: the whole stream when it was not {@link #truncated()}. A copy. */
    public byte[] head() {
        return head.clone();
    }

    /** The bytes kept at the end; empty when the stream was not {@link #truncated()}. A copy. */
    public byte[] tail() {
        return tail.clone();
    }

    /** Bytes cut out between {@link #head()} and {@link #tail()} (0 when the stream was kept whole). */
    public long omittedBytes() {
        return omittedBytes;
    }

    /** Bytes the command wrote to the stream, all of them: head, omitted and tail. */
    public long totalBytes() {
        long total = head.length + (long) tail.length + omittedBytes;
        return total < 0 ? Long.MAX_VALUE : total;
    }

    /**
     * The bytes kept, head followed by tail: the whole stream when it was not {@link #truncated()}, else the two
     * ends joined without the middle (check {@link #truncated()} first). A copy.
     */
    public byte[] bytes() {
        if (tail.length == 0) {
            return head.clone();
        }
        byte[] kept = Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, kept, head.length, tail.length);
        return kept;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RawOutput r && omittedBytes == r.omittedBytes && Arrays.equals(head, r.head)
                && Arrays.equals(tail, r.tail);
    }

    @Override
    public int hashCode() {
        return (Arrays.hashCode(head) * 31 + Arrays.hashCode(tail)) * 31 + Long.hashCode(omittedBytes);
    }

    /** The sizes, not the bytes: {@code RawOutput[5 bytes]} or {@code RawOutput[100 + 999800 omitted + 100 bytes]}. */
    @Override
    public String toString() {
        return truncated() ? "RawOutput[" + head.length + " + " + omittedBytes + " omitted + " + tail.length + " bytes]"
                : "RawOutput[" + head.length + " bytes]";
    }
}
