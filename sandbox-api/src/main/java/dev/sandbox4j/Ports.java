package dev.sandbox4j;

import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * TCP ports of the sandbox opened on the host ({@link Sandbox#ports()}, {@link Feature#PORTS}): a server a command
 * started in the sandbox (a web app, a notebook) becomes reachable from the host, and readiness helpers say when it
 * is up.
 *
 * <p>An opened port listens on the host's loopback ({@code 127.0.0.1}) only. Each connection to it is carried
 * through the sandbox's agent and made inside the sandbox to its own loopback at the opened port, never to any
 * other address or sandbox, so it works the same whether the sandbox has a network or not, and on every backend that
 * runs the agent. Bounded per sandbox: at most {@link #MAX_OPEN} ports open at once (beyond: {@link ErrorKind#TOO_LARGE})
 * and {@link #MAX_CONNECTIONS} connections carried at once (a further one is accepted and closed at once). Closing a
 * {@link PortForward} or the sandbox closes the port and every connection through it.
 */
public interface Ports {
    /** Ports open at once per sandbox, at most. */
    int MAX_OPEN = 16;
    /** Connections carried at once per sandbox, at most. */
    int MAX_CONNECTIONS = 64;

    /** Opens {@code sandboxPort} (1..65535) on an ephemeral port of the host's loopback. */
    default PortForward open(int sandboxPort) {
        return open(sandboxPort, 0);
    }

    /**
     * Opens {@code sandboxPort} (1..65535) on {@code hostPort} of the host's loopback (0: an ephemeral one). Nothing
     * need listen in the sandbox yet: a connection made before a server listens is closed at once.
     *
     * @throws SandboxException {@link ErrorKind#INVALID_ARGUMENT} for a port out of range,
     *                          {@link ErrorKind#ALREADY_EXISTS} when {@code hostPort} is taken on the host,
     *                          {@link ErrorKind#TOO_LARGE} past {@link #MAX_OPEN}, {@link ErrorKind#UNSUPPORTED}
     */
    PortForward open(int sandboxPort, int hostPort);

    /** The ports open now, oldest first. */
    List<PortForward> list();

    /**
     * Waits until a connection to {@code sandboxPort} succeeds inside the sandbox (its loopback).
     *
     * @throws SandboxException {@link ErrorKind#TIMEOUT} when none did within {@code timeout}
     */
    void waitForPort(int sandboxPort, Duration timeout);

    /**
     * Waits until a line of the output of the background command {@code processId} ({@link Shell#processes()})
     * contains a match of {@code pattern}, and returns that line (without its terminator). Lines are at most 64 KiB
     * (longer ones are matched in 64 KiB pieces).
     *
     * @throws SandboxException {@link ErrorKind#TIMEOUT} when no line matched within {@code timeout},
     *                          {@link ErrorKind#NO_MATCH} when the command ended without one,
     *                          {@link ErrorKind#NOT_FOUND} for an unknown id
     */
    String waitForLog(String processId, Pattern pattern, Duration timeout);
}
