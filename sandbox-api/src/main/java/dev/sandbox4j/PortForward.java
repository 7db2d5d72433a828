package dev.sandbox4j;

import java.net.InetSocketAddress;

/**
 * A port of the sandbox opened on the host by {@link Ports#open}: connections to {@link #address()} reach
 * {@link #sandboxPort()} on the sandbox's loopback. Closing it stops listening and ends its connections; idempotent.
 */
public interface PortForward extends AutoCloseable {
    /** The port in the sandbox. */
    int sandboxPort();

    /** Where it listens on the host: {@code 127.0.0.1} and the port (an ephemeral one when none was asked for). */
    InetSocketAddress address();

    /** Whether it still listens (not closed, its sandbox not closed). */
    boolean isOpen();

    @Override
    void close();
}
