package dev.sandbox4j.core;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a backend's own short commands through the agent (a probe, a file script), beside the user's: with a fixed
 * environment and working directory of the backend's choosing, the whole output kept or streamed to the caller, a
 * deadline, and slots of their own ({@value #SLOTS} at once per sandbox), so that the bound on the processes a
 * sandbox's commands hold ({@link AgentShell#commandPermits}) covers these too. They do not draw from the shell's
 * slots: a user command holding one may itself need an internal command (its working directory's check), which
 * must never wait for a slot the user's commands hold.
 *
 * <p>Threads: {@code run} blocks its caller; output arrives on the channel's reader thread and, when streamed, is
 * handed to the caller's sink on the calling thread.
 */
public final class AgentRunner {
    /** Internal commands alive at once per sandbox. */
    public static final int SLOTS = 8;

    private final AgentChannel channel;
    private final List<String> env;
    private final String cwd;
    private final Semaphore slots = new Semaphore(SLOTS, true);

    /** Commands run with exactly {@code env} (nothing of the user's) in {@code cwd}, as the agent sees it. */
    public AgentRunner(AgentChannel channel, List<String> env, String cwd) {
        this.channel = channel;
        this.env = List.copyOf(env);
        this.cwd = cwd;
    }

    private void acquire(List<String> argv, long deadline, Duration timeout)
            throws IOException, InterruptedException, TimeoutException {
        while (!slots.tryAcquire(50, TimeUnit.MILLISECONDS)) {
            String ended = channel.endReason();
            if (ended != null) {
                throw new IOException("the sandbox's agent is gone: " + ended);
            }
            if (System.nanoTime() - deadline > 0) {
                throw new TimeoutException(argv.get(0) + " found no free slot within " + timeout.toMillis() + " ms");
            }
        }
    }

    /** What {@link #run} returns: the exit code and the raw bytes of both streams. */
    public record Ran(int exitCode, byte[] stdout, byte[] stderr) {
        public String out() {
            return new String(stdout, StandardCharsets.UTF_8);
        }

        public String err() {
            return new String(stderr, StandardCharsets.UTF_8);
        }
    }

    /**
     * Runs a short command of the backend's own (a probe, a file operation) with no stdin: stdout goes to
     * {@code out} when given, else is kept up to {@code cap} bytes; stderr is kept up to 64 KiB. {@code out} is
     * written on the calling thread, never on the reader thread, so it may itself use the sandbox (up to
     * {@value #STREAM_BUFFER} bytes of output wait for it meanwhile). A command that does not end within
     * {@code timeout} is killed and a {@link TimeoutException} thrown; one whose kept output passes {@code cap} is
     * killed and an {@link IOException} thrown.
     */
    public Ran run(List<String> argv, OutputStream out, int cap, Duration timeout)
            throws IOException, InterruptedException, TimeoutException {
        return run(argv, (InputStream) null, out, cap, timeout);
    }

    /** As {@link #run(List, OutputStream, int, Duration)}, with {@code stdin} (or null) as its input. */
    public Ran run(List<String> argv, byte[] stdin, OutputStream out, int cap, Duration timeout)
            throws IOException, InterruptedException, TimeoutException {
        return run(argv, stdin == null ? null : new java.io.ByteArrayInputStream(stdin), out, cap, timeout);
    }

    /**
     * As {@link #run(List, OutputStream, int, Duration)}, with {@code stdin} (or null) read to its end
     * and sent as the command's input, {@value #STDIN_CHUNK} bytes at a time (the host holds no more than that; the
     * agent queues up to 16 MiB and then stops reading, which blocks the sender). Sending stops early when the
     * command ends (it stopped reading: a full disk, a limit) or the deadline passes. Failures of {@code stdin}
     * itself are thrown as they are, after the command is killed.
     */
    public Ran run(List<String> argv, InputStream stdin, OutputStream out, int cap, Duration timeout)
            throws IOException, InterruptedException, TimeoutException {
        return run(argv, null, stdin, out, cap, timeout);
    }

    /**
     * Runs the agent's file operation {@code argv} (a FILE frame; see {@code AgentWorkspace}) on the workspace at
     * {@code root}, as {@link #run(List, InputStream, OutputStream, int, Duration)} runs a command, with two
     * differences that keep a failed write from committing anything: when {@code stdin} fails, the operation's stdin is
     * closed (its content then lacks the end mark, so it removes its temporary and exits) and awaited before
     * {@link StdinFailed} is thrown; and at the deadline it gets TERM, on which it removes its temporary, not KILL.
     */
    public Ran file(List<String> argv, String root, InputStream stdin, OutputStream out, int cap, Duration timeout)
            throws IOException, InterruptedException, TimeoutException {
        return run(argv, root, stdin, out, cap, timeout);
    }

    private Ran run(List<String> argv, String fileRoot, InputStream stdin, OutputStream out, int cap,
                    Duration timeout) throws IOException, InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        acquire(argv, deadline, timeout);
        try {
            return runHolding(argv, fileRoot, stdin, out, cap, timeout, deadline);
        } finally {
            slots.release();
        }
    }

    private Ran runHolding(List<String> argv, String fileRoot, InputStream stdin, OutputStream out, int cap,
                           Duration timeout, long deadline)
            throws IOException, InterruptedException, TimeoutException {
        ByteArrayOutputStream bout = new ByteArrayOutputStream();
        ByteArrayOutputStream berr = new ByteArrayOutputStream();
        CompletableFuture<Integer> exit = new CompletableFuture<>();
        BytePipe streamed = out == null ? null : new BytePipe(STREAM_BUFFER);
        IOException[] failed = new IOException[1];
        int id = channel.newId();
        AgentChannel.Events events = new AgentChannel.Events() {
            @Override
            public void spawned(int pid) {
            }

            @Override
            public void failed(String message) {
                exit.completeExceptionally(new IOException("cannot run " + argv.get(0) + ": " + message));
                end();
            }

            @Override
            public void stdout(byte[] bytes) {
                if (streamed != null) {
                    try {
                        streamed.out.write(bytes);
                    } catch (IOException e) {
                        // the caller stopped reading (its sink failed): the command is being killed
                    }
                } else if (failed[0] == null && bout.size() + bytes.length > cap) {
                    failed[0] = new IOException("output over " + cap + " bytes");
                    try {
                        channel.signal(id, 9);
                    } catch (IOException ignored) {
                        // gone
                    }
                } else if (failed[0] == null) {
                    bout.write(bytes, 0, bytes.length);
                }
            }

            @Override
            public void stderr(byte[] bytes) {
                synchronized (berr) {
                    if (berr.size() < 64 * 1024) {
                        berr.write(bytes, 0, Math.min(bytes.length, 64 * 1024 - berr.size()));
                    }
                }
            }

            @Override
            public void exited(int code, long oomKills) {
                end();
                exit.complete(code);
            }

            @Override
            public void lost(String why) {
                end();
                exit.completeExceptionally(new IOException("the sandbox's agent is gone: " + why));
            }

            private void end() {
                if (streamed != null) {
                    streamed.finish();
                }
            }
        };
        if (fileRoot != null) {
            channel.file(id, argv, fileRoot, events);
        } else {
            channel.spawn(id, argv, env, cwd, events);
        }
        channel.go(id, false);
        IOException stdinFailed = stdin == null ? null : sendStdin(id, stdin, exit, deadline, fileRoot == null);
        channel.closeStdin(id, true);
        if (streamed != null) {
            // the copy below blocks on the pipe: the shared timer ends it at the deadline
            java.util.concurrent.ScheduledFuture<?> stop = AgentShell.TIMER.schedule(() -> {
                if (!exit.isDone()) {
                    streamed.close();
                }
            }, timeout.toMillis(), TimeUnit.MILLISECONDS);
            try {
                byte[] buf = new byte[65536];
                for (int n; (n = streamed.in.read(buf, 0, buf.length)) >= 0; ) {
                    out.write(buf, 0, n);
                }
            } catch (IOException e) {
                streamed.close();
                channel.signal(id, 9);
                channel.forget(id);
                throw e;
            } finally {
                stop.cancel(false);
            }
        }
        int code;
        try {
            code = exit.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            channel.signal(id, fileRoot == null ? 9 : 15);
            channel.forget(id);
            throw new TimeoutException(argv.get(0) + " did not finish within " + timeout.toMillis() + " ms");
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
        if (stdinFailed != null) {
            throw new StdinFailed(stdinFailed);
        }
        if (failed[0] != null) {
            throw failed[0];
        }
        synchronized (berr) {
            return new Ran(code, bout.toByteArray(), berr.toByteArray());
        }
    }

    /**
     * Sends {@code stdin}; a failure of the caller's stream kills the command ({@code kill}) and is thrown, or (a file
     * operation) is returned, for the caller to throw once the operation has ended on its stdin's close.
     */
    private IOException sendStdin(int id, InputStream stdin, CompletableFuture<Integer> exit, long deadline,
                                  boolean kill) throws IOException {
        byte[] chunk = new byte[STDIN_CHUNK];
        try {
            for (int n; !exit.isDone() && System.nanoTime() < deadline && (n = stdin.readNBytes(chunk, 0,
                    chunk.length)) > 0; ) {
                channel.stdin(id, chunk, 0, n, false);
            }
        } catch (IOException e) {
            return failedStdin(id, exit, kill, e);
        }
        return null;
    }

    private IOException failedStdin(int id, CompletableFuture<Integer> exit, boolean kill, IOException e)
            throws IOException {
        if (channel.endReason() != null || exit.isDone()) {
            return null; // the channel ended under the sender, or the command stopped reading: its exit tells why
        }
        if (!kill) {
            return e;
        }
        channel.signal(id, 9);
        channel.forget(id);
        throw new StdinFailed(e);
    }

    /** The command's input could not be read: not the agent's failure, the caller's stream's (the cause). */
    public static final class StdinFailed extends IOException {
        StdinFailed(IOException cause) {
            super(cause.getMessage(), cause);
        }
    }



    /** Output a streaming {@link #run} keeps for its caller's sink (beyond it, the reader thread waits). */
    static final int STREAM_BUFFER = 4 << 20;

    /** The largest STDIN frame {@link #run} sends (the agent queues 16 MiB of stdin before it stops reading). */
    static final int STDIN_CHUNK = 256 << 10;
}
