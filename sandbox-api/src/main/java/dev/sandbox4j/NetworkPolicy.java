package dev.sandbox4j;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * Where commands in a sandbox may connect. Immutable. Three modes:
 *
 * <ul>
 *   <li>{@link #NONE} (the default): loopback only, nothing leaves the sandbox.</li>
 *   <li>{@link #allowDomains(String...)}: HTTP and HTTPS (through a proxy the host controls) to the listed domains
 *       only. An entry is {@code example.com} (that name exactly) or {@code *.example.com} (any name below it, not
 *       {@code example.com} itself), optionally followed by {@code :port} or {@code :*}; without a port, 80 and 443.
 *       IP addresses cannot be listed: names are what the policy is about, and every address a name resolves to
 *       still has to pass the address deny-list.</li>
 *   <li>{@link #ALLOW_ALL}: any name and port, with the address deny-list (loopback, private, shared, link-local
 *       including the cloud metadata address, multicast, the host's own addresses) still applied. Turning the
 *       deny-list off is possible only by name: {@link #allowAllIncludingPrivateAddresses()}.</li>
 * </ul>
 *
 * <pre>{@code
 * SandboxSpec.builder().network(NetworkPolicy.allowDomains("pypi.org", "*.pythonhosted.org", "example.com:8443"))
 * }</pre>
 *
 * A backend that cannot enforce a policy fails to open with {@link ErrorKind#UNSUPPORTED}.
 */
public final class NetworkPolicy {
    /** The three kinds of policy. */
    public enum Mode {
        /** No network beyond the sandbox's own loopback. */
        NONE,
        /** Only the listed domains, through the host's proxy. */
        DOMAINS,
        /** Any name and port, through the host's proxy. */
        ALL
    }

    /** Loopback only: nothing leaves the sandbox, nothing on the host is reachable. The default. */
    public static final NetworkPolicy NONE = new NetworkPolicy(Mode.NONE, List.of(), true);

    /** Any domain and port, with every resolved address checked against the address deny-list. */
    public static final NetworkPolicy ALLOW_ALL = new NetworkPolicy(Mode.ALL, List.of(), true);

    private static final NetworkPolicy ALLOW_ALL_UNFILTERED = new NetworkPolicy(Mode.ALL, List.of(), false);

    private final Mode mode;
    private final List<DomainRule> domains;
    private final boolean addressDenyList;

    private NetworkPolicy(Mode mode, List<DomainRule> domains, boolean addressDenyList) {
        this.mode = mode;
        this.domains = domains;
        this.addressDenyList = addressDenyList;
    }

    /** {@link #NONE}. */
    public static NetworkPolicy none() {
        return NONE;
    }

    /** {@link #ALLOW_ALL}. */
    public static NetworkPolicy allowAll() {
        return ALLOW_ALL;
    }

    /**
     * Any name, port and address, including the host's loopback and private networks and the cloud metadata
     * address. Only for a sandbox that is meant to reach them; prefer {@link #ALLOW_ALL}.
     */
    public static NetworkPolicy allowAllIncludingPrivateAddresses() {
        return ALLOW_ALL_UNFILTERED;
    }

    /** Only these domains (see the class comment for the entry syntax); no entries is {@link #NONE}. */
    public static NetworkPolicy allowDomains(String... entries) {
        return allowDomains(Arrays.asList(Objects.requireNonNull(entries, "entries")));
    }

    /** Only these domains (see the class comment for the entry syntax); no entries is {@link #NONE}. */
    public static NetworkPolicy allowDomains(Collection<String> entries) {
        Objects.requireNonNull(entries, "entries");
        Set<DomainRule> rules = new LinkedHashSet<>();
        for (String entry : entries) {
            rules.add(DomainRule.parse(Objects.requireNonNull(entry, "entry")));
        }
        if (rules.isEmpty()) {
            return NONE;
        }
        return new NetworkPolicy(Mode.DOMAINS, List.copyOf(new ArrayList<>(rules)), true);
    }

    public Mode mode() {
        return mode;
    }

    /** The allow-list, in the order given; empty unless {@link Mode#DOMAINS}. */
    public List<DomainRule> domains() {
        return domains;
    }

    /** Whether resolved addresses are checked against the deny-list; false only for the opt-out by name. */
    public boolean addressDenyList() {
        return addressDenyList;
    }

    /**
     * Whether this policy lets a connection to {@code host:port} through, on names alone (the address deny-list is
     * the enforcer's second check). {@code host} is compared case-insensitively, with one trailing dot ignored; an IP
     * literal is permitted only by {@link Mode#ALL}.
     */
    public boolean permits(String host, int port) {
        switch (mode) {
            case ALL:
                return port > 0 && port <= 65535;
            case DOMAINS:
                String name = DomainRule.normalize(host);
                for (DomainRule rule : domains) {
                    if (rule.matches(name, port)) {
                        return true;
                    }
                }
                return false;
            default:
                return false;
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof NetworkPolicy)) {
            return false;
        }
        NetworkPolicy other = (NetworkPolicy) o;
        return mode == other.mode && addressDenyList == other.addressDenyList && domains.equals(other.domains);
    }

    @Override
    public int hashCode() {
        return Objects.hash(mode, domains, addressDenyList);
    }

    /** {@code none}, {@code all}, {@code all (no address deny-list)} or {@code domains [pypi.org, *.x.org:443]}. */
    @Override
    public String toString() {
        switch (mode) {
            case NONE:
                return "none";
            case ALL:
                return addressDenyList ? "all" : "all (no address deny-list)";
            default:
                return "domains " + domains;
        }
    }

    /** One allow-list entry: a name or {@code *.suffix}, and a port (or any port, or the default 80 and 443). */
    public static final class DomainRule {
        /** {@link #port()} of an entry written {@code name:*}. */
        public static final int ANY_PORT = -1;
        /** {@link #port()} of an entry written without a port: 80 and 443. */
        public static final int WEB_PORTS = 0;

        private final String pattern;
        private final int port;

        private DomainRule(String pattern, int port) {
            this.pattern = pattern;
            this.port = port;
        }

        /**
         * Parses {@code name}, {@code *.suffix}, either with {@code :port} or {@code :*}.
         *
         * @throws IllegalArgumentException for anything else (an IP address, a URL, a bare {@code *}, a bad port)
         */
        public static DomainRule parse(String entry) {
            String s = entry.trim();
            int port = WEB_PORTS;
            int colon = s.lastIndexOf(':');
            if (colon >= 0) {
                String p = s.substring(colon + 1);
                s = s.substring(0, colon);
                if (p.equals("*")) {
                    port = ANY_PORT;
                } else {
                    port = parsePort(p, entry);
                }
            }
            boolean wildcard = s.startsWith("*.");
            String name = normalize(wildcard ? s.substring(2) : s);
            if (!isDomainName(name)) {
                throw new IllegalArgumentException("network allow-list entry '" + entry
                        + "' is not a domain name, *.domain, or either with :port or :*");
            }
            if (isNumeric(name)) {
                throw new IllegalArgumentException("network allow-list entry '" + entry
                        + "' is an IP address: list domain names (addresses are checked against the deny-list)");
            }
            if (wildcard && name.indexOf('.') < 0) {
                throw new IllegalArgumentException("network allow-list entry '" + entry
                        + "' would allow a whole top-level domain");
            }
            return new DomainRule(wildcard ? "*." + name : name, port);
        }

        /** The name or {@code *.suffix}, lower case. */
        public String pattern() {
            return pattern;
        }

        /** A port, {@link #ANY_PORT} or {@link #WEB_PORTS}. */
        public int port() {
            return port;
        }

        /** Whether this entry covers {@code host} (already lower case, no trailing dot) at {@code port}. */
        boolean matches(String host, int port) {
            if (host == null || !portMatches(port)) {
                return false;
            }
            if (pattern.startsWith("*.")) {
                String suffix = pattern.substring(1); // ".example.com"
                return host.length() > suffix.length() && host.endsWith(suffix);
            }
            return host.equals(pattern);
        }

        private boolean portMatches(int p) {
            if (p <= 0 || p > 65535) {
                return false;
            }
            if (port == ANY_PORT) {
                return true;
            }
            if (port == WEB_PORTS) {
                return p == 80 || p == 443;
            }
            return p == port;
        }

        static String normalize(String host) {
            if (host == null) {
                return null;
            }
            String h = host.toLowerCase(Locale.ROOT);
            return h.endsWith(".") ? h.substring(0, h.length() - 1) : h;
        }

        /** LDH labels (and '_', which real names use), 1-63 characters each, 253 in all. */
        static boolean isDomainName(String name) {
            if (name.isEmpty() || name.length() > 253) {
                return false;
            }
            for (String label : name.split("\\.", -1)) {
                if (label.isEmpty() || label.length() > 63 || label.startsWith("-") || label.endsWith("-")) {
                    return false;
                }
                for (int i = 0; i < label.length(); i++) {
                    char c = label.charAt(i);
                    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) {
                        return false;
                    }
                }
            }
            return true;
        }

        /** A last label of digits or 0x... : an IPv4 address in one of its many spellings, not a name. */
        static boolean isNumeric(String name) {
            String last = name.substring(name.lastIndexOf('.') + 1);
            return last.chars().allMatch(c -> c >= '0' && c <= '9') || last.startsWith("0x");
        }

        private static int parsePort(String p, String entry) {
            if (p.isEmpty() || p.length() > 5 || !p.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw new IllegalArgumentException("network allow-list entry '" + entry + "' has a bad port");
            }
            int port = Integer.parseInt(p);
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("network allow-list entry '" + entry + "': port out of range");
            }
            return port;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof DomainRule && ((DomainRule) o).pattern.equals(pattern) && ((DomainRule) o).port == port;
        }

        @Override
        public int hashCode() {
            return pattern.hashCode() * 31 + port;
        }

        @Override
        public String toString() {
            return port == WEB_PORTS ? pattern : pattern + ":" + (port == ANY_PORT ? "*" : String.valueOf(port));
        }
    }
}
