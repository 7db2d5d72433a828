package dev.sandbox4j.core.egress;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Turns a host name into addresses, outside the sandbox. Replaceable so tests can point names at loopback fixtures;
 * every answer still goes through the {@link AddressDenyList}.
 */
@FunctionalInterface
public interface Resolver {
    /** The host's resolver ({@link InetAddress#getAllByName}). */
    Resolver SYSTEM = host -> List.of(InetAddress.getAllByName(host));

    /** The addresses of {@code host} (a name, never an IP literal: the proxy parses those itself). */
    List<InetAddress> resolve(String host) throws UnknownHostException;
}
