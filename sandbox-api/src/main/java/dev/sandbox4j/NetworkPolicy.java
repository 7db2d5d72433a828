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
 *
 * <p><b>Brokered credentials</b> ({@link #withCredential}): a secret the sandbox needs to call one API, which never
 * enters the sandbox. Inside, only a placeholder of the same length exists (in an environment variable if asked); the
 * host's proxy puts the real value on requests to the credential's hosts only, and scrubs it from their responses:
 *
 * <pre>{@code
 * NetworkPolicy.allowDomains("api.anthropic.com")
 *     .withCredential(Credential.header("x-api-key", apiKey).forHost("api.anthropic.com")
 *         .exposedAs("ANTHROPIC_API_KEY"))
 * // in the sandbox: ANTHROPIC_BASE_URL=http://api.anthropic.com (plain HTTP to the proxy, which calls HTTPS)
 * }</pre>
 *
 * <p>Why one file of over 500 lines: it is one public immutable value, and its nested {@code Credential} (with its
 * {@code Kind}) belongs to it; moving them out would add top-level types to an API that keeps a budget of them.
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
    public static final NetworkPolicy NONE = new NetworkPolicy(Mode.NONE, List.of(), true, List.of());

    /** Any domain and port, with every resolved address checked against the address deny-list. */
    public static final NetworkPolicy ALLOW_ALL = new NetworkPolicy(Mode.ALL, List.of(), true, List.of());

    private static final NetworkPolicy ALLOW_ALL_UNFILTERED = new NetworkPolicy(Mode.ALL, List.of(), false, List.of());

    private final Mode mode;
    private final List<DomainRule> domains;
    private final boolean addressDenyList;
    private final List<Credential> credentials;

    private NetworkPolicy(Mode mode, List<DomainRule> domains, boolean addressDenyList, List<Credential> credentials) {
        this.mode = mode;
        this.domains = domains;
        this.addressDenyList = addressDenyList;
        this.credentials = credentials;
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
        return new NetworkPolicy(Mode.DOMAINS, List.copyOf(new ArrayList<>(rules)), true, List.of());
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
     * This policy with {@code credential} brokered by the host's proxy. Every host of the credential must be one this
     * policy lets through on port 443 (the proxy calls it over HTTPS), and no host may already have a credential.
     *
     * @throws IllegalArgumentException when a host is not permitted or already has a credential
     */
    public NetworkPolicy withCredential(Credential credential) {
        Objects.requireNonNull(credential, "credential");
        if (credential.hosts().isEmpty()) {
            throw new IllegalArgumentException("the credential names no host: add forHost(...)");
        }
        for (String host : credential.hosts()) {
            if (!permits(host, credential.port())) {
                throw new IllegalArgumentException("the credential's host " + host + " is not allowed by the policy "
                        + this + " on port " + credential.port());
            }
            if (credentialFor(host) != null) {
                throw new IllegalArgumentException("the host " + host + " already has a credential");
            }
        }
        List<Credential> all = new ArrayList<>(credentials);
        all.add(credential);
        return new NetworkPolicy(mode, domains, addressDenyList, List.copyOf(all));
    }

    /** The brokered credentials, in the order they were added. */
    public List<Credential> credentials() {
        return credentials;
    }

    /** The credential brokered for {@code host} (a name, compared as {@link DomainRule} does), or null. */
    public Credential credentialFor(String host) {
        String name = DomainRule.normalize(host);
        for (Credential c : credentials) {
            if (c.hosts().contains(name)) {
                return c;
            }
        }
        return null;
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
        return mode == other.mode && addressDenyList == other.addressDenyList && domains.equals(other.domains)
                && credentials.equals(other.credentials);
    }

    @Override
    public int hashCode() {
        return Objects.hash(mode, domains, addressDenyList, credentials);
    }

    /** {@code none}, {@code all}, {@code all (no address deny-list)} or {@code domains [pypi.org, *.x.org:443]}. */
    @Override
    public String toString() {
        String base;
        switch (mode) {
            case NONE:
                base = "none";
                break;
            case ALL:
                base = addressDenyList ? "all" : "all (no address deny-list)";
                break;
            default:
                base = "domains " + domains;
        }
        return credentials.isEmpty() ? base : base + ", credentials " + credentials;
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

    /**
     * A secret the host's proxy applies to requests to its hosts, so that it never enters the sandbox. Immutable;
     * {@link #toString()}, {@code equals} and {@code hashCode} never use the secret (two credentials are equal only when
     * they are the same object, since a placeholder is random).
     *
     * <p>How the sandbox calls a brokered host: over plain HTTP through the proxy ({@code http://api.example.com/...},
     * with {@code HTTP_PROXY} set, as every sandbox with a network policy has it); the proxy replaces the credential's
     * header or query parameter with the real value and calls the host over HTTPS on port 443 (or {@link #onPort}), verifying its
     * certificate. A {@code CONNECT} (HTTPS from inside) to the host stays a blind tunnel that carries only the
     * placeholder. Responses from the host are scrubbed: the secret's bytes become the placeholder's before the sandbox
     * sees them.
     */
    public static final class Credential {
        /** How the secret is put on a request. */
        public enum Kind {
            /** A header with the secret as its whole value. */
            HEADER,
            /** {@code Authorization: Bearer <secret>}. */
            BEARER,
            /** {@code Authorization: Basic base64(user:secret)}. */
            BASIC,
            /** A query parameter with the secret as its value. */
            QUERY_PARAMETER
        }

        private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();
        private static final String PREFIX = "sandbox4j-placeholder-";
        /** The shortest secret the proxy brokers. */
        public static final int MIN_SECRET = 8;
        private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

        private final Kind kind;
        private final String name;
        private final String user;
        private final String secret;
        private final String placeholder;
        private final List<String> hosts;
        private final int port;
        private final String envName;

        private Credential(Kind kind, String name, String user, String secret, String placeholder, List<String> hosts,
                int port, String envName) {
            this.kind = kind;
            this.name = name;
            this.user = user;
            this.secret = secret;
            this.placeholder = placeholder;
            this.hosts = hosts;
            this.port = port;
            this.envName = envName;
        }

        private static Credential of(Kind kind, String name, String user, String secret) {
            Objects.requireNonNull(secret, "secret");
            if (!secret.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
                throw new IllegalArgumentException("a credential's secret must be printable ASCII without spaces (it "
                        + "goes into an HTTP header or query)");
            }
            if (secret.length() < MIN_SECRET) {
                throw new IllegalArgumentException("a credential's secret must have at least " + MIN_SECRET
                        + " characters: the proxy scrubs it from responses, and a shorter one would match ordinary "
                        + "text");
            }
            return new Credential(kind, name, user, secret, placeholderFor(secret), List.of(), 443, null);
        }

        /** The secret as the whole value of header {@code headerName} (e.g. {@code x-api-key}). */
        public static Credential header(String headerName, String secret) {
            return of(Kind.HEADER, token(headerName, "headerName"), null, secret);
        }

        /** {@code Authorization: Bearer <token>}. */
        public static Credential bearer(String token) {
            return of(Kind.BEARER, "Authorization", null, token);
        }

        /** {@code Authorization: Basic} with {@code user} (not secret) and {@code password} (secret). */
        public static Credential basic(String user, String password) {
            Objects.requireNonNull(user, "user");
            if (user.indexOf(':') >= 0 || !user.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
                throw new IllegalArgumentException("a basic-auth user must be printable ASCII without ':' or spaces");
            }
            return of(Kind.BASIC, "Authorization", user, password);
        }

        /** The secret as the value of query parameter {@code parameter}, for APIs that take a key in the URL. */
        public static Credential queryParameter(String parameter, String secret) {
            return of(Kind.QUERY_PARAMETER, token(parameter, "parameter"), null, secret);
        }

        /** This credential for {@code hosts} too (exact names; the policy must allow each). */
        public Credential forHost(String... hosts) {
            List<String> all = new ArrayList<>(this.hosts);
            for (String h : hosts) {
                String name = DomainRule.normalize(Objects.requireNonNull(h, "host"));
                if (name.isEmpty() || name.startsWith("*") || name.indexOf(':') >= 0 || name.indexOf('/') >= 0) {
                    throw new IllegalArgumentException("a credential's host is an exact name without port: " + h);
                }
                if (!all.contains(name)) {
                    all.add(name);
                }
            }
            return new Credential(kind, name, user, secret, placeholder, List.copyOf(all), port, envName);
        }

        /** The HTTPS port the proxy calls the hosts on (default 443; a self-hosted endpoint may listen elsewhere). */
        public Credential onPort(int httpsPort) {
            if (httpsPort < 1 || httpsPort > 65535) {
                throw new IllegalArgumentException("bad port " + httpsPort);
            }
            return new Credential(kind, name, user, secret, placeholder, hosts, httpsPort, envName);
        }

        /** Puts the placeholder in the sandbox's environment as {@code variable} (e.g. {@code ANTHROPIC_API_KEY}). */
        public Credential exposedAs(String variable) {
            Objects.requireNonNull(variable, "variable");
            if (variable.isEmpty() || variable.indexOf('=') >= 0 || variable.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("bad environment variable name: " + variable);
            }
            return new Credential(kind, name, user, secret, placeholder, hosts, port, variable);
        }

        public Kind kind() {
            return kind;
        }

        /** The header or query parameter the credential is applied as. */
        public String name() {
            return name;
        }

        /** The basic-auth user, or null. */
        public String user() {
            return user;
        }

        public List<String> hosts() {
            return hosts;
        }

        /** The HTTPS port of the hosts. */
        public int port() {
            return port;
        }

        /** The environment variable that holds the placeholder inside the sandbox, or null. */
        public String envName() {
            return envName;
        }

        /** What the sandbox sees instead of the secret: random, of the secret's length. */
        public String placeholder() {
            return placeholder;
        }

        /** The real value, for the host's proxy only; never log it or hand it to a sandbox. */
        public String revealSecret() {
            return secret;
        }

        @Override
        public String toString() {
            return kind.name().toLowerCase(Locale.ROOT) + (kind == Kind.BEARER || kind == Kind.BASIC ? "" : " " + name)
                    + " for " + hosts + (port == 443 ? "" : ":" + port) + (envName == null ? "" : " as $" + envName);
        }

        private static String token(String s, String what) {
            Objects.requireNonNull(s, what);
            if (s.isEmpty() || !s.chars().allMatch(c -> c > 0x20 && c < 0x7f && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0)) {
                throw new IllegalArgumentException("bad " + what + ": " + s);
            }
            return s;
        }

        /** Random, of the secret's length, never equal to it; starts with a recognisable prefix where it fits. */
        private static String placeholderFor(String secret) {
            int n = secret.length();
            while (true) {
                StringBuilder sb = new StringBuilder(n);
                int fixed = n >= PREFIX.length() + 8 ? PREFIX.length() : 0;
                sb.append(PREFIX, 0, fixed);
                while (sb.length() < n) {
                    sb.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
                }
                String p = sb.toString();
                if (!p.equals(secret)) {
                    return p;
                }
            }
        }
    }
}
