package dev.sandbox4j.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Test support: the native agent run on the host, outside any jail (it then never sweeps), with the host's own
 * codec ({@link AgentProtocol#writeFrame}, {@link AgentProtocol#readFrame}) on its pipes.
 */
final class AgentRun implements AutoCloseable {
    final Process process;
    final Path err;
    private final DataOutputStream out;
    private final DataInputStream in;

    private AgentRun(Process process, Path err) {
        this.process = process;
        this.err = err;
        this.out = new DataOutputStream(new BufferedOutputStream(process.getOutputStream(), 1 << 16));
        this.in = new DataInputStream(new BufferedInputStream(process.getInputStream(), 1 << 16));
    }

    /** Starts the agent for this host's architecture with the reaper beside it; the first frame is READY. */
    static AgentRun start(Path dir, String... flags) throws IOException {
        Path agent = extract(dir, AgentBinary.AGENT);
        Path reaper = extract(dir, AgentBinary.REAPER);
        Path err = Files.createTempFile(dir, "agent-err", ".txt");
        List<String> argv = new ArrayList<>(List.of(agent.toString(), "--reaper=" + reaper));
        argv.addAll(List.of(flags));
        ProcessBuilder pb = new ProcessBuilder(argv).redirectError(err.toFile());
        pb.environment().clear();
        pb.environment().put("PATH", "/usr/bin:/bin");
        pb.environment().put("BASE", "from-the-agent");
        AgentRun run = new AgentRun(pb.start(), err);
        AgentProtocol.Frame ready = run.next();
        assertThat(ready).as("first frame").isNotNull();
        assertThat(ready.type()).isEqualTo(AgentProtocol.READY);
        assertThat(AgentProtocol.readInt(ready.payload())).as("protocol version").isEqualTo(AgentProtocol.VERSION);
        return run;
    }

    /** The helper {@code name} for this host's architecture in {@code dir/bin}, executable. */
    static Path extract(Path dir, String name) throws IOException {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(bin, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        return AgentBinary.write(bin, name);
    }

    /** Whether the process is alive (not gone, not a zombie), from its /proc/<pid>/stat. */
    static boolean alive(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"), StandardCharsets.ISO_8859_1);
            char s = stat.charAt(stat.lastIndexOf(')') + 2);
            return s != 'Z' && s != 'X';
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** A line of /proc/<pid>/status without its key; an IOException when there is none. */
    static String status(long pid, String key) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"), StandardCharsets.ISO_8859_1)) {
            if (line.startsWith(key + ":")) {
                return line.substring(key.length() + 1).trim();
            }
        }
        throw new IOException("no " + key + " in /proc/" + pid + "/status");
    }

    OutputStream raw() {
        return out;
    }

    void send(byte type, int id, byte[] payload) throws IOException {
        AgentProtocol.writeFrame(out, type, id, payload, 0, payload.length);
    }

    static byte[] spawnPayload(List<String> argv, List<String> env, String cwd) {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        b.writeBytes(AgentProtocol.encodeStrings(argv));
        b.writeBytes(AgentProtocol.encodeStrings(env));
        b.writeBytes(AgentProtocol.encodeStrings(List.of(cwd)));
        return b.toByteArray();
    }

    /** SPAWN, GO, then the stdin bytes (if any) and STDIN_CLOSE. */
    void run(int id, List<String> argv, byte[] stdin) throws IOException {
        send(AgentProtocol.SPAWN, id, spawnPayload(argv, List.of(), "/"));
        send(AgentProtocol.GO, id, new byte[0]);
        if (stdin != null && stdin.length > 0) {
            send(AgentProtocol.STDIN, id, stdin);
        }
        send(AgentProtocol.STDIN_CLOSE, id, new byte[0]);
    }

    /** The next frame; null at the end of the agent's output. */
    AgentProtocol.Frame next() throws IOException {
        return AgentProtocol.readFrame(in);
    }

    /** Reads frames until command {@code id} ends; returns {exit code, stdout, stderr, failure or null}. */
    Object[] awaitEnd(int id) throws IOException {
        java.io.ByteArrayOutputStream o = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream e = new java.io.ByteArrayOutputStream();
        for (AgentProtocol.Frame f; (f = next()) != null; ) {
            if (f.id() != id) {
                continue;
            }
            byte[] p = f.payload();
            switch (f.type()) {
                case AgentProtocol.STDOUT -> o.writeBytes(p);
                case AgentProtocol.STDERR -> e.writeBytes(p);
                case AgentProtocol.FAILED -> {
                    return new Object[] {-1, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8),
                        new String(p, StandardCharsets.UTF_8)};
                }
                case AgentProtocol.EXIT -> {
                    return new Object[] {AgentProtocol.readInt(p), o.toString(StandardCharsets.UTF_8),
                        e.toString(StandardCharsets.UTF_8), null};
                }
                default -> { }
            }
        }
        throw new IOException("the agent's output ended before command " + id + " did; stderr: " + stderr());
    }

    /** A /proc/self/status value of the agent in KiB (VmRSS, VmHWM). */
    long memKib(String key) throws IOException {
        return Long.parseLong(status(process.pid(), key).split("\\s+")[0]);
    }

    String stderr() throws IOException {
        return Files.readString(err, StandardCharsets.UTF_8);
    }

    /** Closes the agent's stdin and waits for its exit code; -1 when it did not exit within the time. */
    int closeAndAwait(long seconds) throws Exception {
        try {
            out.close();
        } catch (IOException ignored) {
            // it may be gone already
        }
        return awaitExit(seconds);
    }

    int awaitExit(long seconds) throws InterruptedException {
        return process.waitFor(seconds, TimeUnit.SECONDS) ? process.exitValue() : -1;
    }

    /** The agent's direct children (the commands' reapers). */
    List<Long> children() {
        List<Long> pids = new ArrayList<>();
        process.toHandle().children().forEach(h -> pids.add(h.pid()));
        return pids;
    }

    @Override
    public void close() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
