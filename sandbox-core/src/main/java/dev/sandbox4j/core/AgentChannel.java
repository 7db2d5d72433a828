package dev.sandbox4j.core;

import dev.sandbox4j.Terminal;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The host's end of one agent: frames to it on one stream, frames from it on another, whatever carries them
 * (bwrap's pipes, a container's attach stream). One reader thread demultiplexes the agent's frames to each
 * command's {@link Events}; writers share the outgoing stream under a lock.
 *
 * <p>The agent's bytes are untrusted: a frame longer than {@link AgentProtocol#MAX_FRAME}, or any malformed frame,
 * ends the channel (every command then ends too) rather than the host's memory or threads.
 */
public final class AgentChannel implements Closeable {
    /** What the agent says about one command; called on the reader thread, in the agent's order. */
    public interface Events {
        void spawned(int pid);

        void failed(String message);

        void stdout(byte[] bytes);

        void stderr(byte[] bytes);

        /** The command ended with {@code code}; {@code oomKills} is the sandbox's OOM-kill count then, or -1. */
        void exited(int code, long oomKills);

        /** The channel ended before the command did. */
        void lost(String why);

        /**
         * The agent kept back {@code bytes} bytes ({@code chars} characters) of the middle of a stream under a SPAWN's
         * keep; what follows is the stream's tail. Never called for a command spawned without one.
         */
        default void skipped(boolean stderr, long bytes, long chars) {
        }
    }

    /** What the agent says about one file watch; called on the reader thread. */
    public interface WatchEvents {
        void events(byte[] records);

        void overflow();

        /** The watch ended: refused by the agent, or the channel ended. */
        void ended(String why);
    }

    private final Map<Integer, WatchEvents> watches = new ConcurrentHashMap<>();
    private final Map<Integer, CompletableFuture<Integer>> watchStarts = new ConcurrentHashMap<>();
    private final String name;
    private final InputStream fromAgent;
    private final DataOutputStream toAgent;
    private final Consumer<String> onEnd;
    private final Map<Integer, Events> commands = new ConcurrentHashMap<>();
    /** LEASE frames waiting for the agent's LEASED or FAILED. */
    private final Map<Integer, CompletableFuture<Void>> leases = new ConcurrentHashMap<>();
    private final AtomicInteger ids = new AtomicInteger();
    private final AtomicLong lastOomKills = new AtomicLong(-1);
    private final CompletableFuture<Integer> ready = new CompletableFuture<>();
    private volatile String endReason;
    private volatile boolean closed;

    /**
     * @param onEnd called once, on the reader thread, when the agent's stream ends or turns bad, with why (not
     *              called after {@link #close()})
     */
    public AgentChannel(String name, InputStream fromAgent, OutputStream toAgent, Consumer<String> onEnd) {
        this.name = name;
        this.fromAgent = fromAgent;
        this.toAgent = new DataOutputStream(new BufferedOutputStream(toAgent, 65536));
        this.onEnd = onEnd;
    }

    /** Starts the reader thread. */
    public AgentChannel start() {
        Thread t = new Thread(this::readLoop, "sandbox4j-" + name + "-agent");
        t.setDaemon(true);
        t.start();
        return this;
    }

    /**
     * Waits for the agent's READY; an {@link IOException} saying why when it does not come in time, speaks another
     * protocol version or the stream ends first.
     */
    public void awaitReady(Duration timeout) throws IOException, InterruptedException {
        try {
            ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IOException("the agent did not report ready within " + timeout.toMillis() + " ms");
        } catch (ExecutionException e) {
            throw new IOException(e.getCause().getMessage(), e.getCause());
        }
    }

    public boolean isReady() {
        return ready.isDone() && !ready.isCompletedExceptionally();
    }

    /** Why the channel ended, or null while it is up. */
    public String endReason() {
        return endReason;
    }

    /** A fresh command id. */
    public int newId() {
        return ids.incrementAndGet();
    }

    /** The OOM-kill count the agent reported with its latest EXIT, or -1 (not reported). */
    public long lastOomKills() {
        return lastOomKills.get();
    }

    /** Registers a command and asks the agent to start it, held at its gate until {@link #go}. */
    public void spawn(int id, List<String> argv, List<String> env, String cwd, Events events) throws IOException {
        spawn(id, argv, env, cwd, 0, events);
    }

    /**
     * As {@link #spawn(int, List, List, String, Events)}; with {@code keep} in 1..{@link AgentProtocol#MAX_KEEP} the
     * agent sends only what a head+tail cap of {@code keep} bytes each end keeps, and {@link Events#skipped} for the rest.
     */
    public void spawn(int id, List<String> argv, List<String> env, String cwd, int keep, Events events)
            throws IOException {
        spawn(id, argv, env, cwd, keep, null, events);
    }

    /**
     * As {@link #spawn(int, List, List, String, int, Events)}, under {@code terminal}'s size unless it is null
     * (PROTOCOL.md, "Terminals"): the agent opens it in the sandbox; the command's output is all STDOUT.
     */
    public void spawn(int id, List<String> argv, List<String> env, String cwd, int keep, Terminal terminal,
                      Events events) throws IOException {
        if (keep < 0 || keep > AgentProtocol.MAX_KEEP) {
            throw new IllegalArgumentException("keep " + keep + " is not in 0.." + AgentProtocol.MAX_KEEP);
        }
        ByteArrayOutputStream payload = new ByteArrayOutputStream();
        payload.writeBytes(AgentProtocol.encodeStrings(argv));
        payload.writeBytes(AgentProtocol.encodeStrings(env));
        payload.writeBytes(AgentProtocol.encodeStrings(List.of(cwd)));
        payload.write(keep >>> 24);
        payload.write(keep >>> 16);
        payload.write(keep >>> 8);
        payload.write(keep);
        if (terminal != null) {
            payload.writeBytes(ints(terminal.cols(), terminal.rows()));
        }
        commands.put(id, events);
        try {
            send(AgentProtocol.SPAWN, id, payload.toByteArray(), true);
        } catch (IOException e) {
            commands.remove(id);
            throw e;
        }
    }

    /**
     * Registers a file operation and asks the agent to run it (FILE: PROTOCOL.md, "File operations"): the agent's
     * own code in a child held at its gate until {@link #go}, a command in every other respect (stdin, output, SIGNAL,
     * EXIT). {@code root} is the workspace's absolute path in the sandbox, the paths in {@code argv} relative to it.
     */
    public void file(int id, List<String> argv, String root, Events events) throws IOException {
        ByteArrayOutputStream payload = new ByteArrayOutputStream();
        payload.writeBytes(AgentProtocol.encodeStrings(argv));
        payload.writeBytes(AgentProtocol.encodeStrings(List.of()));
        payload.writeBytes(AgentProtocol.encodeStrings(List.of(root)));
        commands.put(id, events);
        try {
            send(AgentProtocol.FILE, id, payload.toByteArray(), true);
        } catch (IOException e) {
            commands.remove(id);
            throw e;
        }
    }

    /** Lets a spawned command run; {@code flush} false when more frames for it follow at once. */
    public void go(int id, boolean flush) throws IOException {
        send(AgentProtocol.GO, id, new byte[0], flush);
    }

    public void stdin(int id, byte[] bytes, int off, int len, boolean flush) throws IOException {
        byte[] chunk = new byte[len];
        System.arraycopy(bytes, off, chunk, 0, len);
        send(AgentProtocol.STDIN, id, chunk, flush);
    }

    public void closeStdin(int id, boolean flush) throws IOException {
        send(AgentProtocol.STDIN_CLOSE, id, new byte[0], flush);
    }

    /** Signals the command's whole tree: 15 (TERM) or 9 (KILL). */
    public void signal(int id, int signal) throws IOException {
        send(AgentProtocol.SIGNAL, id, new byte[] {(byte) signal}, true);
    }

    /** Resizes a terminal command's terminal; the agent ignores it for any other id. */
    public void resize(int id, int cols, int rows) throws IOException {
        send(AgentProtocol.RESIZE, id, ints(cols, rows), true);
    }

    private static byte[] ints(int a, int b) {
        return new byte[] {(byte) (a >>> 24), (byte) (a >>> 16), (byte) (a >>> 8), (byte) a,
            (byte) (b >>> 24), (byte) (b >>> 16), (byte) (b >>> 8), (byte) b};
    }

    public void flush() throws IOException {
        synchronized (toAgent) {
            toAgent.flush();
        }
    }

    /**
     * Starts a watch of {@code absolute} in the sandbox, its events reported under {@code prefix}, and waits for the
     * agent to say it records; an {@link IOException} with the agent's reason when it refuses.
     */
    public void watch(int id, String absolute, String prefix, boolean recursive, WatchEvents events,
                      Duration timeout) throws IOException, InterruptedException {
        ByteArrayOutputStream payload = new ByteArrayOutputStream();
        payload.write(recursive ? 1 : 0);
        payload.writeBytes(AgentProtocol.encodeStrings(List.of(absolute, prefix)));
        CompletableFuture<Integer> started = new CompletableFuture<>();
        watchStarts.put(id, started);
        watches.put(id, events);
        try {
            send(AgentProtocol.WATCH, id, payload.toByteArray(), true);
            started.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            watches.remove(id);
            throw new IOException(e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            unwatch(id);
            throw new IOException("the agent did not start the watch within " + timeout.toMillis() + " ms");
        } catch (IOException | InterruptedException e) {
            watches.remove(id);
            throw e;
        } finally {
            watchStarts.remove(id);
        }
    }

    /**
     * Leases the sandbox (PROTOCOL.md "Leases and reattach"): from now on the agent outlives this channel for
     * {@code leaseMs} and takes a later host that proves it holds {@code key} on the loopback {@code port}. Waits for
     * the agent's answer; an {@link IOException} with its reason when it refuses.
     */
    public void lease(long leaseMs, int port, byte[] key, Duration timeout) throws IOException, InterruptedException {
        java.nio.ByteBuffer payload = java.nio.ByteBuffer.allocate(8 + 4 + AgentHandshake.KEY_BYTES);
        payload.putLong(leaseMs).putInt(port).put(key);
        int id = newId();
        CompletableFuture<Void> done = new CompletableFuture<>();
        leases.put(id, done);
        try {
            send(AgentProtocol.LEASE, id, payload.array(), true);
            done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IOException(e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IOException("the agent did not take the lease within " + timeout.toMillis() + " ms (an agent "
                    + "older than this host?)");
        } finally {
            leases.remove(id);
            java.util.Arrays.fill(payload.array(), (byte) 0);
        }
    }

    /** Stops a watch; its events stop at once. */
    public void unwatch(int id) {
        watches.remove(id);
        try {
            send(AgentProtocol.UNWATCH, id, new byte[0], true);
        } catch (IOException ignored) {
            // the agent is gone, and its watches with it
        }
    }

    /** Forgets a command (its events stop). */
    public void forget(int id) {
        commands.remove(id);
    }

    private void send(byte type, int id, byte[] payload, boolean flush) throws IOException {
        if (endReason != null) {
            throw new IOException("the sandbox's agent is gone: " + endReason);
        }
        AgentProtocol.writeFrame(toAgent, type, id, payload, 0, payload.length, flush);
    }

    private void readLoop() {
        String why = "the agent's channel ended";
        DataInputStream in = new DataInputStream(new BufferedInputStream(fromAgent, 65536));
        try {
            for (AgentProtocol.Frame f; (f = AgentProtocol.readFrame(in)) != null; ) {
                byte type = f.type();
                int id = f.id();
                byte[] p = f.payload();
                if (type == AgentProtocol.READY) {
                    int version = p.length == 4 ? AgentProtocol.readInt(p) : 0;
                    if (version != AgentProtocol.VERSION) {
                        why = "the agent speaks protocol version " + version + ", this host "
                                + AgentProtocol.VERSION;
                        break;
                    }
                    ready.complete(version);
                    continue;
                }
                CompletableFuture<Void> lease = type == AgentProtocol.LEASED || type == AgentProtocol.FAILED
                        ? leases.remove(id) : null;
                if (lease != null) {
                    if (type == AgentProtocol.LEASED) {
                        lease.complete(null);
                    } else {
                        lease.completeExceptionally(new IOException(new String(p, StandardCharsets.UTF_8)));
                    }
                    continue;
                }
                Events e = commands.get(id);
                if (e == null) {
                    watchFrame(type, id, p);
                    continue;
                }
                switch (type) {
                    case AgentProtocol.SPAWNED -> e.spawned(p.length >= 4 ? AgentProtocol.readInt(p) : -1);
                    case AgentProtocol.FAILED -> {
                        commands.remove(id);
                        e.failed(new String(p, StandardCharsets.UTF_8));
                    }
                    case AgentProtocol.STDOUT -> e.stdout(p);
                    case AgentProtocol.STDERR -> e.stderr(p);
                    case AgentProtocol.SKIPPED -> {
                        // bounded: a confused agent's counts are dropped, never thrown on this thread
                        if (p.length == 17 && (p[0] == AgentProtocol.STDOUT || p[0] == AgentProtocol.STDERR)) {
                            long bytes = AgentProtocol.readLong(p, 1);
                            long chars = AgentProtocol.readLong(p, 9);
                            if (bytes > 0 && chars >= 0 && chars <= bytes) {
                                e.skipped(p[0] == AgentProtocol.STDERR, bytes, chars);
                            }
                        }
                    }
                    case AgentProtocol.EXIT -> {
                        commands.remove(id);
                        long oom = -1;
                        if (p.length >= 12) {
                            oom = AgentProtocol.readLong(p, 4);
                            if (oom >= 0) {
                                lastOomKills.accumulateAndGet(oom, Math::max);
                            }
                        }
                        e.exited(p.length >= 4 ? AgentProtocol.readInt(p) : -1, oom);
                    }
                    default -> {
                        // a newer agent's frame this host does not know: ignored
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            why = "the agent's channel failed: " + e.getMessage();
        }
        end(why);
    }

    private void watchFrame(byte type, int id, byte[] p) {
        WatchEvents w = watches.get(id);
        if (w == null) {
            return; // stopped meanwhile, or a confused agent
        }
        switch (type) {
            case AgentProtocol.WATCHING -> {
                CompletableFuture<Integer> started = watchStarts.get(id);
                if (started != null) {
                    started.complete(p.length >= 4 ? AgentProtocol.readInt(p) : 0);
                }
            }
            case AgentProtocol.FAILED -> {
                String why = new String(p, StandardCharsets.UTF_8);
                CompletableFuture<Integer> started = watchStarts.get(id);
                watches.remove(id);
                if (started != null) {
                    started.completeExceptionally(new IOException(why));
                } else {
                    w.ended(why);
                }
            }
            case AgentProtocol.WATCH_EVENTS -> w.events(p);
            case AgentProtocol.WATCH_OVERFLOW -> w.overflow();
            default -> {
                // not a watch's frame
            }
        }
    }

    private void end(String why) {
        synchronized (this) {
            if (endReason != null) {
                return;
            }
            endReason = why;
        }
        ready.completeExceptionally(new IOException(why));
        if (!closed) {
            // first the backend (it may mark the commands with a better reason, or close the sandbox)
            onEnd.accept(why);
        }
        for (Integer id : List.copyOf(commands.keySet())) {
            Events e = commands.remove(id);
            if (e != null) {
                e.lost(why);
            }
        }
        for (Integer id : List.copyOf(watchStarts.keySet())) {
            CompletableFuture<Integer> started = watchStarts.get(id);
            if (started != null) {
                started.completeExceptionally(new IOException("the sandbox's agent is gone: " + why));
            }
        }
        for (Integer id : List.copyOf(watches.keySet())) {
            WatchEvents w = watches.remove(id);
            if (w != null) {
                w.ended(why);
            }
        }
    }

    /**
     * Closes the stream to the agent (the agent then kills every command and exits) and ends every command, run and
     * watch in flight at once, as lost with "the sandbox was closed": their callers return now, not when the
     * transport notices (Docker's attach connection ends only with the container's removal, seconds later).
     */
    @Override
    public void close() {
        closed = true;
        end("the sandbox was closed");
        try {
            synchronized (toAgent) {
                toAgent.close();
            }
        } catch (IOException ignored) {
            // already gone
        }
    }

    @Override
    public String toString() {
        return "AgentChannel[" + name + "]";
    }
}
