package dev.sandbox4j.core;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.PortForward;
import dev.sandbox4j.Ports;
import dev.sandbox4j.ProcessOutput;
import dev.sandbox4j.Processes;
import dev.sandbox4j.SandboxException;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * The {@link Ports} of an {@link AgentSandbox}: each opened port a {@link PortForwarder} on the host's loopback, each
 * connection a {@code connect} file operation of the agent (so the connect is made inside the sandbox, to its
 * loopback only, on every backend alike); the readiness helpers over the same operation and the process registry.
 */
final class AgentPorts implements Ports {
    /** The longest line {@link #waitForLog} holds; longer ones are matched in pieces of this size. */
    static final int MAX_LINE = 64 << 10;
    private static final InetAddress LOOPBACK = loopback();

    private final AgentChannel channel;
    private final String root;
    private final AgentRunner runner;
    private final Supplier<Processes> processes;
    private final Runnable checkUsable;
    private final Semaphore connections = new Semaphore(MAX_CONNECTIONS);
    private final List<PortForwarder> open = new ArrayList<>();
    private boolean closed;

    AgentPorts(AgentChannel channel, String root, AgentRunner runner, Supplier<Processes> processes,
               Runnable checkUsable) {
        this.channel = channel;
        this.root = root;
        this.runner = runner;
        this.processes = processes;
        this.checkUsable = checkUsable;
    }

    private static InetAddress loopback() {
        try {
            return InetAddress.getByAddress("localhost", new byte[] {127, 0, 0, 1});
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void checkPort(String what, int port, int min) {
        if (port < min || port > 65535) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, what + " " + port + " is not " + min + "..65535");
        }
    }

    @Override
    public PortForward open(int sandboxPort, int hostPort) {
        checkPort("sandbox port", sandboxPort, 1);
        checkPort("host port", hostPort, 0);
        checkUsable.run();
        synchronized (open) {
            if (closed) {
                throw new SandboxException(ErrorKind.CLOSED, "the sandbox was closed");
            }
            if (open.size() >= MAX_OPEN) {
                throw new SandboxException(ErrorKind.TOO_LARGE, "at most " + MAX_OPEN + " ports are open at once "
                        + "per sandbox; close one first");
            }
            ServerSocket server = bind(hostPort);
            PortForwarder f = new PortForwarder(channel, root, sandboxPort, server, connections, this::closed);
            open.add(f);
            f.start();
            return f;
        }
    }

    private static ServerSocket bind(int hostPort) {
        ServerSocket server = null;
        try {
            server = new ServerSocket();
            server.bind(new InetSocketAddress(LOOPBACK, hostPort), 64);
            return server;
        } catch (IOException e) {
            try {
                if (server != null) {
                    server.close();
                }
            } catch (IOException ignored) {
                // it never listened
            }
            if (e instanceof BindException) {
                throw new SandboxException(ErrorKind.ALREADY_EXISTS, "host port " + hostPort
                        + " cannot be bound on 127.0.0.1: " + e.getMessage(), e);
            }
            throw new SandboxException(ErrorKind.IO_ERROR, "cannot listen on 127.0.0.1:" + hostPort + ": "
                    + e.getMessage(), e);
        }
    }

    private void closed(PortForwarder f) {
        synchronized (open) {
            open.remove(f);
        }
    }

    @Override
    public List<PortForward> list() {
        checkUsable.run();
        synchronized (open) {
            return List.copyOf(open);
        }
    }

    @Override
    public void waitForPort(int sandboxPort, Duration timeout) {
        checkPort("sandbox port", sandboxPort, 1);
        Objects.requireNonNull(timeout, "timeout");
        long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
        long pause = 20;
        while (true) {
            checkUsable.run();
            try {
                long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
                AgentRunner.Ran r = runner.file(List.of("connect", Integer.toString(sandboxPort), "probe"), root,
                        null, null, 4096, Duration.ofMillis(Math.max(left, 1_000)));
                if (r.exitCode() == 0) {
                    return;
                }
            } catch (IOException | TimeoutException e) {
                checkUsable.run(); // a closed sandbox says so; anything else is retried until the deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SandboxException(ErrorKind.INTERRUPTED, "interrupted waiting for port " + sandboxPort, e);
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new SandboxException(ErrorKind.TIMEOUT, "nothing listened on port " + sandboxPort
                        + " in the sandbox within " + timeout.toMillis() + " ms");
            }
            sleep(Math.min(pause, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
            pause = Math.min(pause * 2, 250);
        }
    }

    @Override
    public String waitForLog(String processId, Pattern pattern, Duration timeout) {
        Objects.requireNonNull(processId, "processId");
        Objects.requireNonNull(pattern, "pattern");
        Objects.requireNonNull(timeout, "timeout");
        checkUsable.run();
        Processes p = processes.get();
        long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
        StringBuilder line = new StringBuilder();
        long cursor = 0;
        while (true) {
            long left = Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
            ProcessOutput out = p.read(processId, cursor, Duration.ofMillis(Math.min(left, 100)));
            cursor = out.next();
            String hit = scan(line, out.text(), pattern, !out.running());
            if (hit != null) {
                return hit;
            }
            if (!out.running()) {
                throw new SandboxException(ErrorKind.NO_MATCH, "process " + processId + " ended (" + out.status()
                        + ", exit " + out.exitCode() + ") without a line matching " + pattern.pattern());
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new SandboxException(ErrorKind.TIMEOUT, "no line of process " + processId + " matched "
                        + pattern.pattern() + " within " + timeout.toMillis() + " ms");
            }
        }
    }

    /**
     * Appends {@code text} to the partial {@code line} and returns the first complete line (or, at the end, the last
     * partial one) that matches; a line past {@link #MAX_LINE} is matched and dropped in pieces.
     */
    static String scan(StringBuilder line, String text, Pattern pattern, boolean end) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\n' || line.length() >= MAX_LINE) {
                String done = line.toString();
                line.setLength(0);
                if (c != '\n') {
                    line.append(c);
                }
                String trimmed = done.endsWith("\r") ? done.substring(0, done.length() - 1) : done;
                if (pattern.matcher(trimmed).find()) {
                    return trimmed;
                }
            } else {
                line.append(c);
            }
        }
        if (end && line.length() > 0 && pattern.matcher(line).find()) {
            return line.toString();
        }
        return null;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SandboxException(ErrorKind.INTERRUPTED, "interrupted waiting for a port", e);
        }
    }

    /** Closes every port and connection (the sandbox is closing); later calls are refused. */
    void closeAll() {
        List<PortForwarder> all;
        synchronized (open) {
            closed = true;
            all = List.copyOf(open);
        }
        for (PortForwarder f : all) {
            f.close();
        }
    }

    @Override
    public String toString() {
        return "Ports[" + channel + "]";
    }
}
