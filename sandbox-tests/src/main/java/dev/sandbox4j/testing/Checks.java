package dev.sandbox4j.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.GrepMatch;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.Truncation;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/** Assertion and data helpers the contracts share: typed errors, workspace snapshots, generated streams. */
public final class Checks {
    private Checks() {
    }

    /**
     * Available bytes and free inodes of the host file system holding {@code dir}, as statvfs reports them (through
     * {@code stat -f}: Java's FileStore has no inode count), for a backend's own test that its quota keeps the host's
     * disk still.
     */
    public static long[] freeBytesAndInodes(java.nio.file.Path dir) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("stat", "-f", "-c", "%a %S %f %d", dir.toString()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor()).as("stat -f %s: %s", dir, out).isZero();
        String[] f = out.split(" ");
        return new long[] {Long.parseLong(f[0]) * Long.parseLong(f[1]), Long.parseLong(f[3])};
    }

    /** Asserts the call fails with a {@link SandboxException} of this kind, and returns it for more checks. */
    public static SandboxException expectError(ErrorKind kind, ThrowingCallable call) {
        return expectError(List.of(kind), call);
    }

    /** Asserts the call fails with a {@link SandboxException} of one of these kinds, and returns it. */
    public static SandboxException expectError(List<ErrorKind> kinds, ThrowingCallable call) {
        Throwable thrown = catchThrowable(call);
        assertThat(thrown).as("expected a SandboxException of kind %s", kinds).isInstanceOf(SandboxException.class);
        SandboxException e = (SandboxException) thrown;
        assertThat(e.kind()).as("kind of %s", e).isIn(kinds);
        assertThat(e.code()).isEqualTo(e.kind().code());
        assertThat(e.getMessage()).as("message of %s", e).isNotBlank();
        return e;
    }

    /**
     * Everything in the workspace, hidden entries included: path to type, with the SHA-256 of each file and the
     * target of each link. Two equal snapshots mean a failed call changed nothing.
     */
    public static Map<String, String> snapshot(FileSystem fs) {
        Map<String, String> out = new TreeMap<>();
        for (FileInfo info : fs.list("", Integer.MAX_VALUE)) {
            String value = info.isFile() ? "FILE" : info.isDirectory() ? "DIRECTORY"
                    : info.isSymlink() ? "SYMLINK" : "OTHER";
            if (info.isFile()) {
                value += " " + sha256(fs.readBytes(info.path()));
            } else if (info.isSymlink()) {
                value += " -> " + info.linkTarget();
            }
            out.put(info.path(), value);
        }
        return out;
    }

    /** The paths of a listing, in its order. */
    public static List<String> paths(List<FileInfo> infos) {
        return infos.stream().map(FileInfo::path).collect(Collectors.toList());
    }

    /** The paths of grep matches, in their order. */
    public static List<String> grepPaths(List<GrepMatch> matches) {
        return matches.stream().map(GrepMatch::path).collect(Collectors.toList());
    }

    /**
     * A stream of {@code size} bytes made of {@code filler} repeated (cut to fit) and ending with {@code tail}, made
     * as it is read: big test files without big arrays.
     */
    public static java.io.InputStream generated(long size, String filler, String tail) {
        byte[] fill = utf8(filler);
        byte[] end = utf8(tail);
        long fillBytes = size - end.length;
        return new java.io.InputStream() {
            private long pos;

            @Override
            public int read() {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (pos >= size) {
                    return -1;
                }
                int n = (int) Math.min(len, size - pos);
                for (int i = 0; i < n; i++, pos++) {
                    b[off + i] = pos < fillBytes ? fill[(int) (pos % fill.length)] : end[(int) (pos - fillBytes)];
                }
                return n;
            }
        };
    }

    /** The paths of a grep result's matches, in their order. */
    public static List<String> grepPaths(dev.sandbox4j.GrepResult result) {
        return grepPaths(result.matches());
    }

    public static String sha256(byte[] bytes) {
        MessageDigest digest = newDigest();
        digest.update(bytes);
        return HexFormat.of().formatHex(digest.digest());
    }

    public static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Every byte value 0..255 once, in order. */
    public static byte[] allByteValues() {
        byte[] bytes = new byte[256];
        for (int i = 0; i < 256; i++) {
            bytes[i] = (byte) i;
        }
        return bytes;
    }

    public static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * What the output cap keeps of a whole stream, restated from the API's contract to check backends against: the
     * stream itself when it has at most {@code 2 × limit} characters; else its first {@code limit} characters, ending
     * at the last line break among them when that drops at most {@code min(200, limit / 10)} characters and the head
     * does not already end a line, and its last {@code limit} characters, starting after the first line break among
     * them under the same rule; the marker between counts every character left out.
     *
     * @return the expected text and the expected omitted characters
     */
    public static Map.Entry<String, Long> outputCap(String all, long totalBytes, int limit) {
        int chars = all.codePointCount(0, all.length());
        if (chars <= 2 * limit) {
            return Map.entry(all, 0L);
        }
        int window = Math.min(200, limit / 10);
        int headEnd = all.offsetByCodePoints(0, limit);
        int tailStart = all.offsetByCodePoints(all.length(), -limit);
        if (all.charAt(headEnd - 1) != '\n' && all.charAt(headEnd) != '\n') {
            int lastBreak = all.lastIndexOf('\n', headEnd - 1);
            if (lastBreak >= 0 && all.codePointCount(lastBreak + 1, headEnd) <= window) {
                headEnd = lastBreak + 1;
            }
        }
        if (all.charAt(tailStart - 1) != '\n') {
            int firstBreak = all.indexOf('\n', tailStart);
            if (firstBreak >= 0 && firstBreak + 1 < all.length()
                    && all.codePointCount(tailStart, firstBreak + 1) <= window) {
                tailStart = firstBreak + 1;
            }
        }
        long omitted = all.codePointCount(headEnd, tailStart);
        return Map.entry(all.substring(0, headEnd) + new Truncation(totalBytes, omitted).marker()
                + all.substring(tailStart), omitted);
    }

    /** {@code text} repeated until it is {@code length} characters long. */
    public static String repeatTo(String text, int length) {
        StringBuilder sb = new StringBuilder(length);
        while (sb.length() < length) {
            sb.append(text);
        }
        sb.setLength(length);
        return sb.toString();
    }

    /** Polls until the condition holds or the time is up; returns whether it held. */
    public static boolean await(BooleanSupplier condition, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(25);
        }
        return true;
    }

    /**
     * A stream of {@code size} pseudo-random bytes generated on the fly (never held whole), with their SHA-256
     * available once read to the end.
     */
    public static final class GeneratedStream extends InputStream {
        private final long size;
        private final long failAfter;
        private final MessageDigest digest = newDigest();
        private long position;
        private long state;

        /** {@code size} bytes from {@code seed}. */
        public GeneratedStream(long size, long seed) {
            this(size, seed, -1);
        }

        private GeneratedStream(long size, long seed, long failAfter) {
            this.size = size;
            this.state = seed == 0 ? 0x9E3779B97F4A7C15L : seed;
            this.failAfter = failAfter;
        }

        /** A stream that throws an {@link IOException} once it has given {@code failAfter} of its bytes. */
        public static GeneratedStream failingAfter(long size, long failAfter) {
            return new GeneratedStream(size, 42, failAfter);
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (failAfter >= 0 && position >= failAfter) {
                throw new IOException("the source stream broke after " + position + " bytes (on purpose)");
            }
            if (position >= size) {
                return -1;
            }
            int n = (int) Math.min(len, size - position);
            if (failAfter >= 0) {
                n = (int) Math.min(n, failAfter - position);
            }
            for (int i = 0; i < n; i++) {
                state ^= state << 13;
                state ^= state >>> 7;
                state ^= state << 17;
                b[off + i] = (byte) state;
            }
            digest.update(b, off, n);
            position += n;
            return n;
        }

        /** How many bytes were read so far. */
        public long position() {
            return position;
        }

        /** The SHA-256 of what was read; call once, at the end. */
        public String sha256() {
            return HexFormat.of().formatHex(digest.digest());
        }
    }

    /** A sink that keeps only a count and a SHA-256 of what it is given. */
    public static final class DigestSink extends OutputStream {
        private final MessageDigest digest = newDigest();
        private long count;
        private boolean closed;

        @Override
        public void write(int b) {
            digest.update((byte) b);
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            digest.update(b, off, len);
            count += len;
        }

        @Override
        public void close() {
            closed = true;
        }

        public long count() {
            return count;
        }

        public boolean closed() {
            return closed;
        }

        public String sha256() {
            return HexFormat.of().formatHex(digest.digest());
        }
    }

    /** A stream of {@code text} repeated to {@code size} bytes (ASCII text expected), generated on the fly. */
    public static InputStream repeatedText(String text, long size) {
        byte[] unit = utf8(text);
        return new InputStream() {
            private long position;

            @Override
            public int read() {
                return position < size ? unit[(int) (position++ % unit.length)] & 0xFF : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (position >= size) {
                    return -1;
                }
                int n = (int) Math.min(len, size - position);
                for (int i = 0; i < n; i++) {
                    b[off + i] = unit[(int) (position++ % unit.length)];
                }
                return n;
            }
        };
    }

    /** The bytes as a lower-case hex string, as {@code od -An -tx1 | tr -d ' \n'} prints them. */
    public static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    static byte[] range(byte[] bytes, int from, int to) {
        return Arrays.copyOfRange(bytes, from, to);
    }
}
