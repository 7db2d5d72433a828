package dev.sandbox4j.local;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The jail's main process, and the whole host/jail protocol. Runs inside the jail as {@code java -cp /opt/sandbox4j
 * dev.sandbox4j.local.JailAgent}; reads frames on stdin and writes frames on stdout. It must stay one self-contained
 * class (no nested or anonymous classes, no other dependencies): the host copies this class file alone into the jail.
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
     * System property "prlimit,nproc,dataBytes": on hosts without a pids or memory cgroup each command starts under
     * prlimit with RLIMIT_NPROC = nproc + the agent's own threads (the count is per user namespace: this jail's) and,
     * when dataBytes &gt; 0, RLIMIT_DATA = dataBytes. Soft = hard, so the command cannot raise them.
     */
    static final String RLIMITS = "sandbox4j.rlimits";
    /** Gate: the command waits for one line on stdin before exec, so the host can move it into cgroups first. */
    /**
     * Each command's first process: reads the gate line (the host has placed it in its cgroups by then), runs the
     * command as its child, keeps the command's whole tree as a child subreaper, and kills what is left of it when
     * the command ends ({@code src/main/c/sbx-reaper.c}).
     */
    static final String REAPER = "/opt/sandbox4j/sbx-reaper";

    private static final int MAX_FRAME = 16 << 20;

    private final DataOutputStream out;
    private final Map<Integer, Proc> procs = new ConcurrentHashMap<>();

    private JailAgent(OutputStream out) {
        this.out = new DataOutputStream(out);
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

    static List<String> decodeStrings(DataInputStream d) throws IOException {
        int n = d.readInt();
        List<String> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            byte[] b = new byte[d.readInt()];
            d.readFully(b);
            list.add(new String(b, StandardCharsets.UTF_8));
        }
        return list;
    }

    static byte[] intBytes(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    static int readInt(byte[] b) {
        return ((b[0] & 0xff) << 24) | ((b[1] & 0xff) << 16) | ((b[2] & 0xff) << 8) | (b[3] & 0xff);
    }

    public static void main(String[] args) throws Exception {
        // frames go out in one write each (PrintStream would split them into several)
        JailAgent agent = new JailAgent(new java.io.BufferedOutputStream(
                new java.io.FileOutputStream(java.io.FileDescriptor.out), 128 * 1024));
        System.setOut(System.err);
        agent.send(READY, 0, new byte[0]);
        agent.loop(new DataInputStream(System.in));
        // the host closed the channel: the sandbox is closing
        Runtime.getRuntime().halt(0);
    }

    private void send(byte type, int id, byte[] payload) {
        send(type, id, payload, 0, payload.length);
    }

    private void send(byte type, int id, byte[] payload, int off, int len) {
        try {
            writeFrame(out, type, id, payload, off, len);
        } catch (IOException e) {
            Runtime.getRuntime().halt(3);
        }
    }

    private void loop(DataInputStream in) throws IOException {
        for (Object[] frame; (frame = readFrame(in)) != null; ) {
            byte type = (Byte) frame[0];
            int id = (Integer) frame[1];
            byte[] payload = (byte[]) frame[2];
            Proc p = procs.get(id);
            switch (type) {
                case SPAWN -> spawn(id, payload);
                case GO -> {
                    if (p != null) {
                        // the gate line goes straight into the empty pipe (one byte never blocks); nothing else
                        // has been written yet: the host sends STDIN frames only after GO
                        try {
                            OutputStream gate = p.process.getOutputStream();
                            gate.write('\n');
                            gate.flush();
                        } catch (IOException ignored) {
                            // the gate is gone; its exit is reported by the reaper
                        }
                        p.gateOpen = true;
                    }
                }
                case STDIN -> {
                    if (p != null) {
                        if (p.feeder == null) {
                            p.feeder = thread(() -> feed(p), "in-" + id);
                        }
                        p.stdin.add(payload);
                    }
                }
                case STDIN_CLOSE -> {
                    if (p != null) {
                        if (p.feeder == null) {
                            // nothing queued: close the command's stdin here, without a feeder thread
                            p.feeder = Thread.currentThread();
                            try {
                                p.process.getOutputStream().close();
                            } catch (IOException ignored) {
                                // already closed
                            }
                        } else {
                            p.stdin.add(new byte[0]);
                        }
                    }
                }
                case SIGNAL -> {
                    if (p != null) {
                        signal(id, p, payload.length > 0 ? payload[0] : 9);
                    }
                }
                default -> System.err.println("sandbox4j agent: unknown frame " + type);
            }
        }
    }

    /** One running command; a plain holder (no nested class allowed, so it is an Object[]-free record of fields). */
    private static final class Proc { // NOTE: nested class file JailAgent$Proc.class is copied too
        Process process;
        final LinkedBlockingQueue<byte[]> stdin = new LinkedBlockingQueue<>();
        volatile boolean gateOpen;
        volatile boolean done;
        java.util.concurrent.Future<?> outPump;
        java.util.concurrent.Future<?> errPump;
        Object feeder; // set by the frame loop only: the task writing the command's stdin, once there is one
    }

    /** Pumps, feeders and reapers run on reused threads: starting fresh ones per command costs start latency. */
    private static final java.util.concurrent.ExecutorService THREADS = java.util.concurrent.Executors
            .newCachedThreadPool(r -> {
                Thread t = new Thread(null, r, "sandbox4j-agent", 256 * 1024);
                t.setDaemon(true);
                return t;
            });

    private static java.util.concurrent.Future<?> thread(Runnable r, String name) {
        return THREADS.submit(r);
    }

    private void spawn(int id, byte[] payload) {
        try {
            DataInputStream d = new DataInputStream(new java.io.ByteArrayInputStream(payload));
            List<String> argv = decodeStrings(d);
            List<String> env = decodeStrings(d);
            String cwd = decodeStrings(d).get(0);
            List<String> cmd = new ArrayList<>(rlimitPrefix());
            cmd.add(REAPER);
            cmd.add("--");
            cmd.addAll(argv);
            ProcessBuilder pb = new ProcessBuilder(cmd);
            Map<String, String> e = pb.environment();
            for (String kv : env) {
                int eq = kv.indexOf('=');
                e.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
            File dir = new File(cwd);
            if (!dir.isDirectory()) {
                send(FAILED, id, ("working directory does not exist: " + cwd).getBytes(StandardCharsets.UTF_8));
                return;
            }
            pb.directory(dir);
            Proc p = new Proc();
            p.process = pb.start();
            procs.put(id, p);
            // the host places the gate in its cgroups while the pumps start; the gate holds until GO
            send(SPAWNED, id, intBytes((int) p.process.pid()));
            p.outPump = thread(() -> pump(id, p, p.process.getInputStream(), STDOUT), "out-" + id);
            p.errPump = thread(() -> pump(id, p, p.process.getErrorStream(), STDERR), "err-" + id);
            thread(() -> reap(id, p), "wait-" + id);
        } catch (IOException | RuntimeException e) {
            send(FAILED, id, String.valueOf(e.getMessage()).getBytes(StandardCharsets.UTF_8));
        }
    }

    private static List<String> rlimitPrefix() {
        String spec = System.getProperty(RLIMITS);
        if (spec == null) {
            return List.of();
        }
        String[] parts = spec.split(",");
        List<String> prefix = new ArrayList<>(List.of(parts[0]));
        long nproc = Long.parseLong(parts[1]);
        long data = Long.parseLong(parts[2]);
        if (nproc > 0) {
            // the jail's tasks of this uid are the agent's threads, bwrap's init and the commands
            long limit = nproc + ownThreads() + 1;
            prefix.add("--nproc=" + limit + ":" + limit);
        }
        if (data > 0) {
            prefix.add("--data=" + data + ":" + data);
        }
        prefix.add("--");
        return prefix;
    }

    private static long ownThreads() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Threads:")) {
                    return Long.parseLong(line.substring(8).trim());
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // fall through
        }
        return Thread.activeCount() + 16;
    }

    private void pump(int id, Proc p, InputStream in, byte type) {
        byte[] buf = new byte[64 * 1024];
        try {
            for (int n; (n = in.read(buf)) != -1; ) {
                if (!p.done) {
                    send(type, id, buf, 0, n);
                }
            }
        } catch (IOException ignored) {
            // stream closed
        }
    }

    private void feed(Proc p) {
        OutputStream in = p.process.getOutputStream();
        try {
            while (true) {
                byte[] b = p.stdin.poll(1, TimeUnit.SECONDS);
                if (b == null) {
                    if (!p.process.isAlive()) {
                        break;
                    }
                    continue;
                }
                if (b.length == 0) {
                    break;
                }
                in.write(b);
                in.flush();
            }
        } catch (IOException | InterruptedException ignored) {
            // the command stopped reading
        } finally {
            try {
                in.close();
            } catch (IOException ignored) {
                // nothing to do
            }
        }
    }

    private void reap(int id, Proc p) {
        int code;
        while (true) {
            try {
                code = p.process.waitFor();
                break;
            } catch (InterruptedException ignored) {
                // keep waiting
            }
        }
        // give the pipes a moment to deliver what the command wrote; a background child may hold them for ever
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
        for (java.util.concurrent.Future<?> t : List.of(p.outPump, p.errPump)) {
            long left = deadline - System.nanoTime();
            if (left > 0) {
                try {
                    t.get(left, TimeUnit.NANOSECONDS);
                } catch (InterruptedException ignored) {
                    break;
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ignored) {
                    // a background child holds the pipe; report the exit anyway
                }
            }
        }
        p.done = true;
        procs.remove(id);
        // a reaper killed from inside the sandbox left its tree to the init: it goes now
        sweepOrphans();
        send(EXIT, id, intBytes(code));
    }

    /**
     * TERM goes to the command's reaper, which forwards it to the whole tree. KILL kills the reaper; what it kept
     * is re-parented to the jail's init and swept: a process whose parent is the init and is not this agent has
     * lost its reaper, so it is killed wherever it came from.
     */
    private void signal(int id, Proc p, int sig) {
        if (sig != 9) {
            p.process.toHandle().destroy();
            return;
        }
        p.process.toHandle().destroyForcibly();
        try {
            p.process.onExit().get(1, TimeUnit.SECONDS);
        } catch (InterruptedException | java.util.concurrent.ExecutionException
                 | java.util.concurrent.TimeoutException ignored) {
            // swept anyway
        }
        sweepOrphans();
    }

    /** Kills every process re-parented to the jail's init (pid 1) other than this agent, until none is left. */
    static void sweepOrphans() {
        long self = ProcessHandle.current().pid();
        for (int round = 0; round < 100; round++) {
            List<ProcessHandle> orphans = ProcessHandle.allProcesses()
                    .filter(h -> h.pid() != self && h.pid() != 1
                            && h.parent().map(pp -> pp.pid() == 1).orElse(false))
                    .toList();
            if (orphans.isEmpty()) {
                return;
            }
            for (ProcessHandle h : orphans) {
                h.destroyForcibly();
                h.descendants().forEach(ProcessHandle::destroyForcibly);
            }
            try {
                Thread.sleep(round < 10 ? 1 : 10);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
