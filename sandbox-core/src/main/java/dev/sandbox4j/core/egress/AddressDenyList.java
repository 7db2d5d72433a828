package dev.sandbox4j.core.egress;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * Addresses the proxy never connects to, whatever name led there: loopback, RFC 1918 private, 100.64/10 shared,
 * link-local (169.254/16, including the cloud metadata address 169.254.169.254), 0.0.0.0/8, multicast, 240/4 reserved
 * and broadcast, IPv6 unspecified, loopback, unique-local fc00::/7, link-local fe80::/10, site-local fec0::/10 and
 * multicast, the IPv4 address embedded in IPv4-mapped, IPv4-compatible, NAT64 (64:ff9b::/96) and 6to4 (2002::/16)
 * forms, and the host's own interface addresses (re-read at most every 30 seconds). Immutable.
 */
public final class AddressDenyList {
    private static final long OWN_ADDRESSES_TTL_NANOS = 30_000_000_000L;

    private final boolean enabled;
    private final Set<InetSocketAddress> exempt;
    private volatile Set<InetAddress> ownAddresses = Set.of();
    private volatile long ownAddressesRead;
    private volatile boolean ownAddressesLoaded;

    private AddressDenyList(boolean enabled, Set<InetSocketAddress> exempt) {
        this.enabled = enabled;
        this.exempt = exempt;
    }

    /** The standard list. */
    public static AddressDenyList standard() {
        return new AddressDenyList(true, Set.of());
    }

    /** No deny-list at all ({@code NetworkPolicy.allowAllIncludingPrivateAddresses()}). */
    public static AddressDenyList disabled() {
        return new AddressDenyList(false, Set.of());
    }

    /**
     * This list, except that exactly these address-and-port pairs pass (and nothing else at those addresses). For
     * tests, whose fixtures can only live on loopback; never use it to reach a real host service from a sandbox.
     */
    public AddressDenyList exemptingForTests(InetSocketAddress... endpoints) {
        Set<InetSocketAddress> all = new HashSet<>(exempt);
        for (InetSocketAddress e : endpoints) {
            Objects.requireNonNull(e.getAddress(), "exempt endpoints must be resolved addresses");
            all.add(new InetSocketAddress(e.getAddress(), e.getPort()));
        }
        return new AddressDenyList(enabled, Collections.unmodifiableSet(all));
    }

    /** Why a connection to {@code address:port} is denied ("loopback", "private (RFC 1918)", ...), or null. */
    public String deniedReason(InetAddress address, int port) {
        if (!enabled || exempt.contains(new InetSocketAddress(address, port))) {
            return null;
        }
        String reason = categorize(address);
        if (reason == null && ownAddresses().contains(address)) {
            reason = "an address of the host";
        }
        return reason;
    }

    /** The deny category of an address by its value alone, or null when it is a public unicast address. */
    static String categorize(InetAddress address) {
        byte[] b = address.getAddress();
        if (address instanceof Inet4Address) {
            return categorize4(b, 0);
        }
        if (!(address instanceof Inet6Address) || b.length != 16) {
            return "not an IP address";
        }
        int b0 = b[0] & 0xff;
        int b1 = b[1] & 0xff;
        if (allZero(b, 0, 10)) {
            if ((b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff) {
                String r = categorize4(b, 12);
                return r == null ? null : r + " (IPv4-mapped)";
            }
            if (allZero(b, 10, 15)) {
                int last = b[15] & 0xff;
                if (last == 0) {
                    return "unspecified";
                }
                if (last == 1) {
                    return "loopback";
                }
            }
            if (allZero(b, 10, 12)) {
                String r = categorize4(b, 12);
                return r == null ? "IPv4-compatible (deprecated)" : r + " (IPv4-compatible)";
            }
        }
        if (b0 == 0x00 && b1 == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b && allZero(b, 4, 12)) {
            String r = categorize4(b, 12);
            if (r != null) {
                return r + " (NAT64)";
            }
        }
        if (b0 == 0x20 && b1 == 0x02) {
            String r = categorize4(b, 2);
            if (r != null) {
                return r + " (6to4)";
            }
        }
        if ((b0 & 0xfe) == 0xfc) {
            return "unique local (fc00::/7)";
        }
        if (b0 == 0xfe && (b1 & 0xc0) == 0x80) {
            return "link-local (fe80::/10)";
        }
        if (b0 == 0xfe && (b1 & 0xc0) == 0xc0) {
            return "site-local (fec0::/10)";
        }
        if (b0 == 0xff) {
            return "multicast";
        }
        return null;
    }

    private static String categorize4(byte[] b, int o) {
        int a0 = b[o] & 0xff;
        int a1 = b[o + 1] & 0xff;
        if (a0 == 0) {
            return "this network (0.0.0.0/8)";
        }
        if (a0 == 127) {
            return "loopback";
        }
        if (a0 == 10 || (a0 == 172 && (a1 & 0xf0) == 16) || (a0 == 192 && a1 == 168)) {
            return "private (RFC 1918)";
        }
        if (a0 == 100 && (a1 & 0xc0) == 64) {
            return "shared address space (100.64.0.0/10)";
        }
        if (a0 == 169 && a1 == 254) {
            return a1 == 254 && (b[o + 2] & 0xff) == 169 && (b[o + 3] & 0xff) == 254
                    ? "link-local (cloud metadata)" : "link-local";
        }
        if (a0 >= 224 && a0 <= 239) {
            return "multicast";
        }
        if (a0 >= 240) {
            return a0 == 255 && a1 == 255 && (b[o + 2] & 0xff) == 255 && (b[o + 3] & 0xff) == 255
                    ? "broadcast" : "reserved (240.0.0.0/4)";
        }
        return null;
    }

    private static boolean allZero(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return true;
    }

    private Set<InetAddress> ownAddresses() {
        long now = System.nanoTime();
        if (!ownAddressesLoaded || now - ownAddressesRead > OWN_ADDRESSES_TTL_NANOS) {
            Set<InetAddress> own = new HashSet<>();
            try {
                for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                    for (InetAddress a : Collections.list(nif.getInetAddresses())) {
                        own.add(stripScope(a));
                    }
                }
            } catch (SocketException | RuntimeException e) {
                // keep the last known set: the value checks above still hold
                own.addAll(ownAddresses);
            }
            ownAddresses = Set.copyOf(own);
            ownAddressesRead = now;
            ownAddressesLoaded = true;
        }
        return ownAddresses;
    }

    private static InetAddress stripScope(InetAddress a) {
        if (a instanceof Inet6Address && ((Inet6Address) a).getScopeId() != 0) {
            try {
                return InetAddress.getByAddress(a.getAddress());
            } catch (UnknownHostException e) {
                return a;
            }
        }
        return a;
    }

    @Override
    public String toString() {
        return enabled ? (exempt.isEmpty() ? "standard" : "standard except " + exempt) : "disabled";
    }
}
