package dev.sandbox4j.local;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The host/jail protocol and its host-side codec. The jail's main process is the native agent
 * ({@code src/main/c/sbx-agent.c}, {@link #AGENT}), which speaks exactly these frames on its stdin and stdout.
 *
 * <p>A frame is {@code int length, byte type, int id, byte[length - 5] payload} (big-endian).
 */
final class JailAgent {
    // host -> jail
    static final byte SPAWN = 1;      // payload: strings argv..., then env as "K=V"..., then cwd (see encode)
    static final byte GO = 2;         // the command may exec now (it has been placed in its cgroups)
    static final byte STDIN = 3;
    static final byte STDIN_CLOSE = 4;
    static final byte SIGNAL = 5;     // payload: one byte, 15 = TERM, 9 = KILL; whole tree of the command
    // jail -> host
    static final byte SPAWNED = 10;   // payload: int pid in the jail
    static final byte FAILED = 11;    // payload: message
    static final byte STDOUT = 12;
    static final byte STDERR = 13;
    static final byte EXIT = 14;      // payload: int exit code (128 + signal when signalled)
    static final byte READY = 15;

    /**
     * The jail's main process: {@code sbx-agent [--nproc=N] [--data=BYTES]}. Each command runs as
     * {@code sbx-reaper -- argv} (the gate, the command's subreaper and tree kill, {@code src/main/c/sbx-reaper.c})
     * with, on hosts without a pids or memory cgroup, RLIMIT_NPROC = N + 2 (the agent, single-threaded, and the
     * jail's init; the count is per user namespace: this jail's) and RLIMIT_DATA = BYTES, soft = hard.
     */
    static final String AGENT = "/opt/sandbox4j/sbx-agent";

    private static final int MAX_FRAME = 16 << 20;

    private JailAgent() {
    }

    static void writeFrame(DataOutputStream out, byte type, int id, byte[] payload, int off, int len)
            throws IOException {
        writeFrame(out, type, id, payload, off, len, true);
    }

    static void writeFrame(DataOutputStream out, byte type, int id, byte[] payload, int off, int len, boolean flush)
            throws IOException {
        int size = len + 5;
        byte[] header = {(byte) (size >>> 24), (byte) (size >>> 16), (byte) (size >>> 8), (byte) size, type,
            (byte) (id >>> 24), (byte) (id >>> 16), (byte) (id >>> 8), (byte) id};
        synchronized (out) {
            out.write(header);
            out.write(payload, off, len);
            if (flush) {
                out.flush();
            }
        }
    }

    /** Reads one frame: returns {type, id, payload} as Object[]; null at end of stream. */
    static Object[] readFrame(DataInputStream in) throws IOException {
        int len;
        try {
            len = in.readInt();
        } catch (EOFException e) {
            return null;
        }
        if (len < 5 || len > MAX_FRAME) {
            throw new IOException("bad frame length " + len);
        }
        byte type = in.readByte();
        int id = in.readInt();
        byte[] payload = new byte[len - 5];
        in.readFully(payload);
        return new Object[] {type, id, payload};
    }

    static byte[] encodeStrings(List<String> strings) {
        try {
            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            DataOutputStream d = new DataOutputStream(bytes);
            d.writeInt(strings.size());
            for (String s : strings) {
                byte[] b = s.getBytes(StandardCharsets.UTF_8);
                d.writeInt(b.length);
                d.write(b);
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static int readInt(byte[] b) {
        return ((b[0] & 0xff) << 24) | ((b[1] & 0xff) << 16) | ((b[2] & 0xff) << 8) | (b[3] & 0xff);
    }
}
