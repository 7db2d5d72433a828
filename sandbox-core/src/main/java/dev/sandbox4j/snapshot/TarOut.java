package dev.sandbox4j.snapshot;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The snapshot writer: POSIX ustar entries (a PAX header before any whose path or link target exceeds ustar's
 * fields), then the manifest entry {@link #MANIFEST} holding the SHA-256 of every byte before it, then the end of
 * the archive. Sizes past {@code maxBytes} fail with {@link StoreFull} before the byte is written.
 */
final class TarOut implements AutoCloseable {
    /** The manifest's name at the archive's root; a workspace file of that name is skipped at capture. */
    static final String MANIFEST = ".sandbox4j-snapshot.manifest";
    static final String FORMAT = "sandbox4j-snapshot/1";
    static final int BLOCK = 512;

    /** The store's bound was reached. */
    static final class StoreFull extends IOException {
        StoreFull(long max) {
            super("the snapshot would exceed the store's limit of " + max + " bytes");
        }
    }

    private final CountingOut counted;
    private final DigestOutputStream out;
    private final MessageDigest sha;
    private long entries;

    TarOut(OutputStream sink, long maxBytes) {
        this.counted = new CountingOut(sink, maxBytes);
        this.sha = sha256();
        this.out = new DigestOutputStream(counted, sha);
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    long entries() {
        return entries;
    }

    long written() {
        return counted.count;
    }

    void directory(String path, int mode, long mtime) throws IOException {
        header(path + "/", '5', mode, 0, mtime, "");
    }

    void symlink(String path, String target, long mtime) throws IOException {
        header(path, '2', 0777, 0, mtime, target);
    }

    /** What writes a file's content into the archive. */
    interface Content {
        void writeTo(OutputStream sink) throws IOException;
    }

    /** A regular file of exactly {@code size} bytes; more is refused as they come, fewer at the end. */
    void file(String path, int mode, long size, long mtime, Content content) throws IOException {
        header(path, '0', mode, size, mtime, "");
        long[] left = {size};
        content.writeTo(new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                if (len > left[0]) {
                    throw new Changed(path + " grew while it was captured");
                }
                left[0] -= len;
                out.write(b, off, len);
            }
        });
        if (left[0] != 0) {
            throw new Changed(path + " shrank while it was captured");
        }
        pad(size);
    }

    /** A file's size changed between its listing and its read. */
    static final class Changed extends IOException {
        Changed(String message) {
            super(message);
        }
    }

    /** The end of a plain archive (no manifest): what a tree streamed into a sandbox's {@code tar -x} ends with. */
    void end() throws IOException {
        out.write(new byte[2 * BLOCK]);
        out.flush();
    }

    /** The manifest (with the checksum of all before it) and the end of the archive. */
    void finish(String manifestWithoutChecksum) throws IOException {
        String hex = HexFormat.of().formatHex(sha.digest());
        byte[] body = (manifestWithoutChecksum + "sha256=" + hex + "\n").getBytes(StandardCharsets.UTF_8);
        out.on(false);
        header(MANIFEST, '0', 0644, body.length, 0, "");
        out.write(body);
        pad(body.length);
        out.write(new byte[2 * BLOCK]);
        out.flush();
        entries--; // the manifest is not the workspace's
    }

    private void header(String path, char type, int mode, long size, long mtime, String link) throws IOException {
        byte[] name = path.getBytes(StandardCharsets.UTF_8);
        byte[] target = link.getBytes(StandardCharsets.UTF_8);
        if (name.length > 100 || target.length > 100) {
            StringBuilder pax = new StringBuilder();
            if (name.length > 100) {
                pax.append(record("path", path));
            }
            if (target.length > 100) {
                pax.append(record("linkpath", link));
            }
            byte[] p = pax.toString().getBytes(StandardCharsets.UTF_8);
            rawHeader("PaxHeaders/entry".getBytes(StandardCharsets.US_ASCII), 'x', 0644, p.length, mtime, new byte[0]);
            out.write(p);
            pad(p.length);
        }
        rawHeader(name.length > 100 ? cut(name) : name, type, mode, size, mtime, target.length > 100 ? new byte[0]
                : target);
        entries++;
    }

    /** A PAX record: its length counts itself. */
    static String record(String key, String value) {
        int body = key.length() + 1 + value.getBytes(StandardCharsets.UTF_8).length + 1 + 1;
        int len = body + String.valueOf(body).length();
        if (String.valueOf(len).length() != String.valueOf(body).length()) {
            len++;
        }
        return len + " " + key + "=" + value + "\n";
    }

    private static byte[] cut(byte[] name) {
        return java.util.Arrays.copyOf(name, 100);
    }

    private void rawHeader(byte[] name, char type, int mode, long size, long mtime, byte[] link) throws IOException {
        if (size > 077777777777L) {
            throw new IOException("a file over 8 GiB cannot be captured (ustar's size field)");
        }
        byte[] h = new byte[BLOCK];
        System.arraycopy(name, 0, h, 0, name.length);
        octal(h, 100, 8, mode & 01777);
        octal(h, 108, 8, 0);
        octal(h, 116, 8, 0);
        octal(h, 124, 12, size);
        octal(h, 136, 12, Math.max(0, Math.min(mtime, 077777777777L)));
        h[156] = (byte) type;
        System.arraycopy(link, 0, h, 157, link.length);
        System.arraycopy("ustar\0".getBytes(StandardCharsets.US_ASCII), 0, h, 257, 6);
        h[263] = '0';
        h[264] = '0';
        java.util.Arrays.fill(h, 148, 156, (byte) ' ');
        long sum = 0;
        for (byte b : h) {
            sum += b & 0xff;
        }
        octal(h, 148, 7, sum);
        out.write(h);
    }

    static void octal(byte[] h, int off, int len, long v) {
        String s = Long.toOctalString(v);
        int pad = len - 1 - s.length();
        for (int i = 0; i < len - 1; i++) {
            h[off + i] = (byte) (i < pad ? '0' : s.charAt(i - pad));
        }
        h[off + len - 1] = 0;
    }

    private void pad(long size) throws IOException {
        int rest = (int) (size % BLOCK);
        if (rest != 0) {
            out.write(new byte[BLOCK - rest]);
        }
    }

    @Override
    public void close() throws IOException {
        out.close();
    }

    /** Counts what goes to the sink and stops at the store's bound. */
    private static final class CountingOut extends OutputStream {
        private final OutputStream sink;
        private final long max;
        long count;

        CountingOut(OutputStream sink, long max) {
            this.sink = sink;
            this.max = max;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (count + len > max) {
                throw new StoreFull(max);
            }
            sink.write(b, off, len);
            count += len;
        }

        @Override
        public void flush() throws IOException {
            sink.flush();
        }

        @Override
        public void close() throws IOException {
            sink.close();
        }
    }
}
