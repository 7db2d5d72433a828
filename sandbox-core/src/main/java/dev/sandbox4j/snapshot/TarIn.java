package dev.sandbox4j.snapshot;

import dev.sandbox4j.ErrorKind;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * The snapshot reader, for hostile input: it extracts into a fresh private directory only regular files, directories
 * and symbolic links (kept as links, never followed: an entry under a link is refused), with no entry outside the root,
 * set-uid and set-gid bits dropped, bounded entry count, sizes, path lengths and depth, and checks the manifest's
 * SHA-256 of everything before it. Any failure is a {@link Bad} with its kind; the caller deletes the directory.
 */
final class TarIn {
    static final int MAX_PATH = 4096;
    static final int MAX_DEPTH = 256;
    static final int MAX_PAX = 64 << 10;
    private static final int BLOCK = TarOut.BLOCK;

    /** A refused snapshot, with the error kind it is reported as. */
    static final class Bad extends IOException {
        final ErrorKind kind;

        Bad(ErrorKind kind, String message) {
            super(message);
            this.kind = kind;
        }
    }

    /**
     * What may be extracted: entries (the reader's own bound), entries and bytes of the workspace's quota and one
     * file's bytes (0: no bound).
     */
    record Bounds(long maxEntries, long quotaEntries, long maxBytes, long maxFileBytes) {
    }

    /** What was extracted. */
    record Result(long entries, long bytes, String manifest) {
    }

    private final InputStream in;
    private final Path root;
    private final Bounds bounds;
    private final MessageDigest sha = TarOut.sha256();
    private final List<Object[]> dirModes = new ArrayList<>();
    private long entries;
    private long bytes;

    private TarIn(InputStream in, Path root, Bounds bounds) {
        this.in = in;
        this.root = root;
        this.bounds = bounds;
    }

    /** Extracts the snapshot read from {@code in} into the empty directory {@code root}. */
    static Result extract(InputStream in, Path root, Bounds bounds) throws IOException {
        return new TarIn(in, root, bounds).run();
    }

    private Result run() throws IOException {
        String paxPath = null;
        String paxLink = null;
        while (true) {
            byte[] h = block();
            if (isZero(h)) {
                throw corrupt("the archive ends without its manifest (cut short, or not a sandbox4j snapshot)");
            }
            checkHeader(h);
            char type = (char) h[156];
            long size = octal(h, 124, 12, "size");
            String name = paxPath != null ? paxPath : string(h, 0, 100);
            if (type == '0' && paxPath == null && name.equals(TarOut.MANIFEST)) {
                return manifest(size);
            }
            sha.update(h);
            if (type == 'x') {
                String[] pax = pax(size);
                paxPath = pax[0];
                paxLink = pax[1];
                continue;
            }
            String link = paxLink != null ? paxLink : string(h, 157, 100);
            paxPath = null;
            paxLink = null;
            if (++entries > bounds.maxEntries()) {
                throw new Bad(ErrorKind.TOO_LARGE, "the snapshot holds more than " + bounds.maxEntries()
                        + " entries, the most a snapshot may hold");
            }
            if (bounds.quotaEntries() > 0 && entries > bounds.quotaEntries()) {
                throw new Bad(ErrorKind.NO_SPACE_LEFT, "the snapshot holds more than the workspace quota's "
                        + bounds.quotaEntries() + " files, directories and links");
            }
            int mode = (int) octal(h, 100, 8, "mode") & 0777; // set-uid, set-gid and sticky dropped
            entry(type, relative(name), mode, size, link);
        }
    }

    private void entry(char type, Path rel, int mode, long size, String link) throws IOException {
        Path target = prepare(rel, type == '5');
        switch (type) {
            case '0', '\0' -> file(target, rel, mode, size);
            case '5' -> {
                if (size != 0) {
                    throw corrupt("directory " + rel + " has content");
                }
                if (!Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createDirectory(target);
                }
                dirModes.add(new Object[] {target, mode});
            }
            case '2' -> {
                if (size != 0 || link.isEmpty() || link.length() > MAX_PATH || link.indexOf('\0') >= 0) {
                    throw corrupt("link " + rel + " has a bad target");
                }
                Files.createSymbolicLink(target, Path.of(link));
            }
            default -> throw new Bad(ErrorKind.INVALID_ARGUMENT, "the snapshot holds " + kindOf(type) + " at " + rel
                    + ": only files, directories and symbolic links are restored");
        }
    }

    private static String kindOf(char type) {
        return switch (type) {
            case '1' -> "a hard link";
            case '3' -> "a character device";
            case '4' -> "a block device";
            case '6' -> "a FIFO";
            default -> "an entry of type '" + (type >= 0x21 && type < 0x7f ? String.valueOf(type)
                    : "\\" + (int) type) + "'";
        };
    }

    private void file(Path target, Path rel, int mode, long size) throws IOException {
        if (bounds.maxFileBytes() > 0 && size > bounds.maxFileBytes()) {
            throw new Bad(ErrorKind.TOO_LARGE, rel + " has " + size + " bytes, over the sandbox's file size limit");
        }
        bytes += size;
        if (bounds.maxBytes() > 0 && bytes > bounds.maxBytes()) {
            throw new Bad(ErrorKind.NO_SPACE_LEFT, "the snapshot holds more than the workspace quota's "
                    + bounds.maxBytes() + " bytes");
        }
        try (OutputStream out = Files.newOutputStream(target, StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            byte[] buf = new byte[64 << 10];
            long left = size;
            while (left > 0) {
                int n = in.read(buf, 0, (int) Math.min(buf.length, left));
                if (n < 0) {
                    throw corrupt("the archive ends inside " + rel);
                }
                sha.update(buf, 0, n);
                out.write(buf, 0, n);
                left -= n;
            }
        }
        skipPadding(size);
        Files.setPosixFilePermissions(target, perms(mode));
    }

    /** The entry's place: every parent a real directory (made if missing, never a link), the name free. */
    private Path prepare(Path rel, boolean directory) throws IOException {
        Path at = root;
        for (int i = 0; i < rel.getNameCount() - 1; i++) {
            at = at.resolve(rel.getName(i));
            BasicFileAttributes a = attrs(at);
            if (a == null) {
                Files.createDirectory(at);
            } else if (!a.isDirectory()) {
                throw new Bad(ErrorKind.INVALID_ARGUMENT, "the snapshot puts " + rel + " under "
                        + root.relativize(at) + ", which is " + (a.isSymbolicLink() ? "a symbolic link" : "a file")
                        + ": links are never followed");
            }
        }
        Path target = at.resolve(rel.getFileName());
        BasicFileAttributes a = attrs(target);
        if (a != null && !(directory && a.isDirectory())) {
            if (a.isDirectory()) {
                throw corrupt(rel + " comes twice, as a directory and as another type");
            }
            Files.delete(target); // a later entry of the same name wins, as in tar; a link is removed, not followed
        }
        return target;
    }

    private static BasicFileAttributes attrs(Path p) throws IOException {
        try {
            return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (java.nio.file.NoSuchFileException e) {
            return null;
        }
    }

    private Result manifest(long size) throws IOException {
        if (size > MAX_PAX) {
            throw corrupt("the manifest is too large");
        }
        String expected = HexFormat.of().formatHex(sha.digest());
        byte[] body = exactly((int) size);
        skipPadding(size);
        String text = new String(body, StandardCharsets.UTF_8);
        if (!text.startsWith("format=" + TarOut.FORMAT + "\n")) {
            throw corrupt("the manifest is not of format " + TarOut.FORMAT);
        }
        if (!text.contains("\nsha256=" + expected + "\n")) {
            throw corrupt("its SHA-256 does not match the manifest's (altered or cut)");
        }
        if (!text.contains("\nentries=" + entries + "\n")) {
            throw corrupt("the manifest's entry count differs from the archive's");
        }
        byte[] tail = new byte[BLOCK];
        int zeros = 0;
        while (true) {
            int n = in.readNBytes(tail, 0, BLOCK);
            if (n == 0) {
                break;
            }
            if (n < BLOCK || !isZero(tail) || ++zeros > 128) {
                throw corrupt("bytes follow the manifest");
            }
        }
        if (zeros < 2) {
            throw corrupt("the archive's end is missing");
        }
        for (int i = dirModes.size() - 1; i >= 0; i--) {
            Files.setPosixFilePermissions((Path) dirModes.get(i)[0], perms((Integer) dirModes.get(i)[1]));
        }
        return new Result(entries, bytes, text);
    }

    private String[] pax(long size) throws IOException {
        if (size > MAX_PAX) {
            throw corrupt("a PAX header of " + size + " bytes");
        }
        byte[] body = exactly((int) size);
        sha.update(body);
        skipPadding(size);
        String[] out = new String[2];
        int at = 0;
        while (at < body.length) {
            int space = indexOf(body, (byte) ' ', at);
            if (space < 0) {
                throw corrupt("a bad PAX record");
            }
            int len;
            try {
                len = Integer.parseInt(new String(body, at, space - at, StandardCharsets.US_ASCII));
            } catch (NumberFormatException e) {
                throw corrupt("a bad PAX record length");
            }
            if (len <= space - at + 1 || at + len > body.length || body[at + len - 1] != '\n') {
                throw corrupt("a bad PAX record length");
            }
            String rec = utf8(body, space + 1, at + len - 1 - space - 1);
            int eq = rec.indexOf('=');
            if (eq > 0) {
                String key = rec.substring(0, eq);
                if (key.equals("path")) {
                    out[0] = rec.substring(eq + 1);
                } else if (key.equals("linkpath")) {
                    out[1] = rec.substring(eq + 1);
                }
            }
            at += len;
        }
        return out;
    }

    private static int indexOf(byte[] b, byte v, int from) {
        for (int i = from; i < b.length; i++) {
            if (b[i] == v) {
                return i;
            }
        }
        return -1;
    }

    private Path relative(String name) throws Bad {
        String n = name.endsWith("/") ? name.substring(0, name.length() - 1) : name;
        if (n.isEmpty() || n.length() > MAX_PATH || n.startsWith("/") || n.indexOf('\0') >= 0) {
            throw new Bad(ErrorKind.INVALID_ARGUMENT, "the snapshot holds an entry outside the workspace or "
                    + "unnamed: '" + printable(name) + "'");
        }
        String[] parts = n.split("/", -1);
        if (parts.length > MAX_DEPTH) {
            throw new Bad(ErrorKind.TOO_LARGE, "an entry nested deeper than " + MAX_DEPTH + " levels");
        }
        for (String p : parts) {
            if (p.isEmpty() || p.equals(".") || p.equals("..") || p.getBytes(StandardCharsets.UTF_8).length > 255) {
                throw new Bad(ErrorKind.INVALID_ARGUMENT, "the snapshot holds an entry outside the workspace or "
                        + "badly named: '" + printable(name) + "'");
            }
        }
        if (n.equals(TarOut.MANIFEST)) {
            throw corrupt("a second manifest");
        }
        return Path.of(n);
    }

    private static String printable(String s) {
        String t = s.length() > 200 ? s.substring(0, 200) + "..." : s;
        return t.replaceAll("\\p{Cntrl}", "?");
    }

    private static void checkHeader(byte[] h) throws Bad {
        if (h[257] != 'u' || h[258] != 's' || h[259] != 't' || h[260] != 'a' || h[261] != 'r') {
            throw corrupt("a header without the ustar mark");
        }
        long want = octal(h, 148, 8, "checksum");
        long sum = 0;
        for (int i = 0; i < BLOCK; i++) {
            sum += i >= 148 && i < 156 ? ' ' : h[i] & 0xff;
        }
        if (sum != want) {
            throw corrupt("a header's checksum is wrong");
        }
    }

    static long octal(byte[] h, int off, int len, String what) throws Bad {
        long v = 0;
        boolean digits = false;
        for (int i = off; i < off + len; i++) {
            byte b = h[i];
            if (b >= '0' && b <= '7') {
                v = (v << 3) | (b - '0');
                digits = true;
                if (v > 077777777777L) {
                    throw corrupt("a header's " + what + " is out of range");
                }
            } else if (b == 0 || b == ' ') {
                if (digits) {
                    break;
                }
            } else {
                throw corrupt("a header's " + what + " is not octal");
            }
        }
        return v;
    }

    private static String string(byte[] h, int off, int len) throws Bad {
        int end = off;
        while (end < off + len && h[end] != 0) {
            end++;
        }
        return utf8(h, off, end - off);
    }

    private static String utf8(byte[] b, int off, int len) throws Bad {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(b, off, len)).toString();
        } catch (CharacterCodingException e) {
            throw corrupt("a name that is not UTF-8");
        }
    }

    private static Set<PosixFilePermission> perms(int mode) {
        Set<PosixFilePermission> s = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] all = PosixFilePermission.values(); // OWNER_READ .. OTHERS_EXECUTE, 0400 .. 0001
        for (int i = 0; i < 9; i++) {
            if ((mode & (0400 >> i)) != 0) {
                s.add(all[i]);
            }
        }
        return s;
    }

    private byte[] block() throws IOException {
        return exactly(BLOCK);
    }

    private byte[] exactly(int n) throws IOException {
        byte[] b = in.readNBytes(n);
        if (b.length != n) {
            throw corrupt("the archive is cut short");
        }
        return b;
    }

    private void skipPadding(long size) throws IOException {
        int rest = (int) (size % BLOCK);
        if (rest != 0) {
            sha.update(exactly(BLOCK - rest));
        }
    }

    private static boolean isZero(byte[] b) {
        for (byte x : b) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }

    static Bad corrupt(String why) {
        return new Bad(ErrorKind.INVALID_ARGUMENT, "corrupt snapshot: " + why);
    }

}
