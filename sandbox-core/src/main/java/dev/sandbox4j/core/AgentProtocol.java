package dev.sandbox4j.core;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The host/agent protocol and its host-side codec. Every sandbox's first process is the native agent
 * ({@code src/main/c/sbx-agent.c}), which speaks exactly these frames on its stdin and stdout, whatever carries
 * them (bwrap's pipes, a container's attach stream). The protocol is described in {@code src/main/c/PROTOCOL.md};
 * {@code src/test/resources/agent-frames} pins it to bytes, for this class and for the C code alike.
 *
 * <p>A frame is {@code int length, byte type, int id, byte[length - 5] payload} (big-endian). The agent's first
 * frame is {@link #READY} with its protocol version; the host refuses any other version.
 *
 * <p>The constants between the "wire constants" markers are the protocol's only definition: the build writes them
 * into the C agent's {@code sbx-protocol.h} (as {@code SBX_<name>}, by {@code src/main/c/gen-protocol.sh}), so they
 * must stay literal values.
 */
public final class AgentProtocol {
    // wire constants: begin
    /** The version this host speaks; the agent announces its own in {@link #READY}. */
    public static final int VERSION = 5;
    // host -> jail
    public static final byte SPAWN = 1;      // payload: strings argv..., env as "K=V"..., cwd; then int keep (0: all output)[, int cols, int rows: a terminal]
    public static final byte GO = 2;         // the command may exec now (it has been placed in its cgroups)
    public static final byte STDIN = 3;
    public static final byte STDIN_CLOSE = 4;
    public static final byte SIGNAL = 5;     // payload: one byte, 15 = TERM, 9 = KILL; whole tree of the command
    public static final byte WATCH = 6;      // payload: byte recursive, strings [absolute path, reported prefix]
    public static final byte UNWATCH = 7;
    public static final byte FILE = 8;       // payload as SPAWN's: argv = a file operation, env empty, [workspace root]
    public static final byte RESIZE = 9;     // payload: int cols, int rows of the command's terminal (see SPAWN's terminal)
    public static final byte LEASE = 24;     // payload: long lease ms, int port, 32-byte key (PROTOCOL.md "Leases and reattach")
    // jail -> host
    public static final byte SPAWNED = 10;   // payload: int pid in the jail
    public static final byte FAILED = 11;    // payload: message
    public static final byte STDOUT = 12;
    public static final byte STDERR = 13;
    public static final byte EXIT = 14;      // payload: int exit code (128 + signal when signalled)[, long OOM kills so far, -1 unknown]
    public static final byte READY = 15;     // payload: int protocol version
    public static final byte WATCHING = 16;  // payload: int directories watched; the watch records from now on
    public static final byte WATCH_EVENTS = 17; // payload: records (see AgentWatches)
    public static final byte WATCH_OVERFLOW = 18;
    public static final byte LEASED = 25;    // no payload: the agent outlives this channel and listens for a later host
    public static final byte SKIPPED = 19;   // payload: byte STDOUT|STDERR, long bytes, long characters not sent (see KEEP)
    // the kinds of WATCH_EVENTS records, in FileWatch.Kind's order (AgentWatches maps them)
    public static final byte EVENT_CREATE = 0;
    public static final byte EVENT_WRITE = 1;
    public static final byte EVENT_REMOVE = 2;
    public static final byte EVENT_RENAME = 3;
    public static final byte EVENT_CHMOD = 4;

    /** A frame's header: {@code int length, byte type, int id}; the length counts the type, the id and the payload. */
    public static final int HEADER = 9;

    /**
     * The largest {@code keep} a SPAWN may ask for: the agent then streams a stream's first {@code 2 × keep} bytes,
     * keeps only its last {@code keep} after them and sends {@link #SKIPPED} for the rest before the EXIT, so a
     * head+tail cap of {@code keep} bytes each end sees the same bytes as if all had come.
     */
    public static final int MAX_KEEP = 1 << 20;

    /** The largest frame either side accepts; a bigger (or smaller than a header) length ends the channel. */
    public static final int MAX_FRAME = 16 << 20;
    // wire constants: end

    private AgentProtocol() {
    }

    public static void writeFrame(DataOutputStream out, byte type, int id, byte[] payload, int off, int len)
            throws IOException {
        writeFrame(out, type, id, payload, off, len, true);
    }

    public static void writeFrame(DataOutputStream out, byte type, int id, byte[] payload, int off, int len, boolean flush)
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

    /** One frame of either direction: its type, the command's (or watch's) id, and its payload. */
    public record Frame(byte type, int id, byte[] payload) {
    }

    /** Reads one frame; null at end of stream. A length outside 5..{@link #MAX_FRAME} is an {@link IOException}. */
    public static Frame readFrame(DataInputStream in) throws IOException {
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
        return new Frame(type, id, payload);
    }

    public static byte[] encodeStrings(List<String> strings) {
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

    public static int readInt(byte[] b) {
        return readInt(b, 0);
    }

    public static int readInt(byte[] b, int at) {
        return ((b[at] & 0xff) << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
    }

    public static long readLong(byte[] b, int at) {
        return ((long) readInt(b, at) << 32) | (readInt(b, at + 4) & 0xffffffffL);
    }
}
