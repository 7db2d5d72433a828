package dev.sandbox4j.core;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileInfo;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The entry records of the agent's {@code stat} and {@code list} operations (PROTOCOL.md, "File operations"): byte
 * type, long size, int mode, long mtime seconds, int nanoseconds, string link, string path. The bytes come from the
 * sandbox: every length is checked against what is left, and a record that does not fit ends the parse as an error.
 */
final class AgentEntries {
    /** The fixed part of a record: type, size, mode, seconds, nanoseconds and the two lengths. */
    static final int FIXED = 33;

    private AgentEntries() {
    }

    /**
     * One entry: its type ({@code f d l o}, or {@code u} a file and {@code D} a directory the sandbox user cannot
     * read), size, permission bits, modification time, link target (for a link), path below the listed directory (as
     * UTF-8, a byte that is not replaced) and that path's raw bytes.
     */
    record Entry(char type, long size, int mode, Instant modified, String link, String path, byte[] raw) {
        FileInfo info(String rel) {
            return switch (type) {
                case 'f', 'u' -> FileInfo.file(rel, size, mode, modified);
                case 'd', 'D' -> FileInfo.directory(rel, size, mode, modified);
                case 'l' -> FileInfo.symlink(rel, link, size, mode, modified);
                default -> FileInfo.other(rel, size, mode, modified);
            };
        }
    }

    static List<Entry> parse(AgentWorkspace ws, byte[] b) {
        List<Entry> out = new ArrayList<>();
        int at = 0;
        while (at < b.length) {
            if (b.length - at < FIXED) {
                throw malformed(ws);
            }
            char type = (char) (b[at] & 0xff);
            long size = AgentProtocol.readLong(b, at + 1);
            int mode = AgentProtocol.readInt(b, at + 9);
            long secs = AgentProtocol.readLong(b, at + 13);
            int nanos = AgentProtocol.readInt(b, at + 21);
            int llen = AgentProtocol.readInt(b, at + 25);
            if (llen < 0 || llen > b.length - at - FIXED || "fdlouD".indexOf(type) < 0 || nanos < 0
                    || nanos > 999_999_999 || size < 0) {
                throw malformed(ws);
            }
            String link = new String(b, at + 29, llen, StandardCharsets.UTF_8);
            int plenAt = at + 29 + llen;
            int plen = AgentProtocol.readInt(b, plenAt);
            if (plen < 0 || plen > b.length - plenAt - 4) {
                throw malformed(ws);
            }
            byte[] raw = java.util.Arrays.copyOfRange(b, plenAt + 4, plenAt + 4 + plen);
            Instant modified;
            try {
                modified = Instant.ofEpochSecond(secs, nanos);
            } catch (java.time.DateTimeException e) {
                modified = Instant.EPOCH;
            }
            out.add(new Entry(type, size, mode, modified, type == 'l' ? link : null,
                    new String(raw, StandardCharsets.UTF_8), raw));
            at = plenAt + 4 + plen;
        }
        return out;
    }

    private static dev.sandbox4j.SandboxException malformed(AgentWorkspace ws) {
        return ws.error(ErrorKind.IO_ERROR, "a malformed entry record from the sandbox's agent", null);
    }
}
