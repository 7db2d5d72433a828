package dev.sandbox4j.core.egress;

import dev.sandbox4j.NetworkPolicy;
import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The sandbox's only way out: an HTTP proxy in the host JVM that serves one client connection at a time per call of
 * {@link #serve}. It understands {@code CONNECT host:port} (tunnels: HTTPS, git, anything over TCP) and plain HTTP
 * requests in absolute form ({@code GET http://host/path}) or origin form with a {@code Host} header.
 *
 * <p>For every request: the name is checked against the {@link NetworkPolicy} (an IP literal passes only under
 * {@link NetworkPolicy.Mode#ALL}), resolved here (outside the sandbox) by the {@link Resolver}, and every address is
 * checked against the {@link AddressDenyList}; only an address that passed is dialed, so a rebinding answer or a literal
 * pointing at loopback, a private network or the metadata address is never sent a packet. A refusal is an immediate
 * {@code 403} whose body and {@code X-Sandbox4j-Egress} header give the reason; every decision is logged at debug.
 *
 * <p>The bytes come from a hostile sandbox: the request head is bounded (8 KiB a line, 32 KiB and 100 header lines in
 * all) and must arrive within the head timeout, connects have a timeout, tunnels an idle timeout, and nothing is
 * buffered beyond one 16 KiB copy buffer per direction. After the head of a plain HTTP request the connection is piped
 * to the same upstream (which was already approved) with {@code Connection: close}: one request per connection.
 */
public final class EgressProxy {
    /** Opens the upstream TCP connection to an address that has passed every check. Replaceable for tests. */
    @FunctionalInterface
    public interface Dialer {
        /** The plain socket dialer. */
        Dialer PLAIN = (target, timeoutMillis) -> {
            Socket s = new Socket();
            try {
                s.connect(target, timeoutMillis);
                return s;
            } catch (IOException | RuntimeException e) {
                s.close();
                throw e;
            }
        };

        Socket dial(InetSocketAddress target, int timeoutMillis) throws IOException;
    }

    static final int MAX_LINE = 8 * 1024;
    static final int MAX_HEAD = 32 * 1024;
    static final int MAX_HEADERS = 100;
    private static final int COPY_BUFFER = 16 * 1024;
    private static final long LINGER_BYTES = 4L << 20;
    private static final long LINGER_MILLIS = 2000;
    private static final System.Logger LOG = System.getLogger(EgressProxy.class.getName());
    private static final Set<String> HOP_BY_HOP = Set.of("connection", "proxy-connection", "keep-alive",
            "proxy-authorization", "proxy-authenticate", "te", "trailer", "upgrade", "host");
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final ScheduledExecutorService TIMER = dev.sandbox4j.core.Background.timer();

    private final NetworkPolicy policy;
    private final Resolver resolver;
    private final AddressDenyList denyList;
    private final Dialer dialer;
    private final int connectTimeoutMillis;
    private final long headTimeoutMillis;
    private final int idleTimeoutMillis;
    private final javax.net.ssl.SSLContext upstreamTls;
    private final Scrubber scrubber;

    private EgressProxy(Builder b) {
        this.policy = b.policy;
        this.resolver = b.resolver;
        this.denyList = b.denyList != null ? b.denyList
                : b.policy.addressDenyList() ? AddressDenyList.standard() : AddressDenyList.disabled();
        this.dialer = b.dialer;
        this.connectTimeoutMillis = millis(b.connectTimeout);
        this.headTimeoutMillis = millis(b.headTimeout);
        this.idleTimeoutMillis = millis(b.idleTimeout);
        this.upstreamTls = b.upstreamTls != null ? b.upstreamTls : defaultTls();
        this.scrubber = Scrubber.of(b.policy);
    }

    private static javax.net.ssl.SSLContext defaultTls() {
        try {
            return javax.net.ssl.SSLContext.getDefault();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no default TLS context", e);
        }
    }

    /** A proxy enforcing {@code policy} with the system resolver and the standard deny-list (or none, if opted out). */
    public static EgressProxy of(NetworkPolicy policy) {
        return builder(policy).build();
    }

    public static Builder builder(NetworkPolicy policy) {
        return new Builder(policy);
    }

    public NetworkPolicy policy() {
        return policy;
    }

    /**
     * Serves one client connection: reads one request head from {@code in}, answers or tunnels, and returns when the
     * connection is done. Closing {@code out} must mean "no more bytes to the client" (a half-close); the caller closes
     * both when this returns. Never leaves a refused client waiting: every refusal is answered before returning.
     *
     * @throws IOException when the client's streams fail (nothing more can be said to it)
     */
    public void serve(InputStream in, OutputStream out) throws IOException {
        BufferedInputStream client = new BufferedInputStream(in, COPY_BUFFER);
        // only the input is closed here: closing the output may block (a relay's credit), and this timer is shared;
        // the read below then fails and the caller closes the rest
        ScheduledFuture<?> headDeadline = TIMER.schedule(() -> closeQuietly(in), headTimeoutMillis,
                TimeUnit.MILLISECONDS);
        Request request;
        try {
            request = Request.read(client);
        } catch (BadRequest e) {
            headDeadline.cancel(false);
            LOG.log(System.Logger.Level.DEBUG, "egress deny: bad request ({0})", e.getMessage());
            refuse(client, out, e.status, e.statusText, "bad-request", e.getMessage());
            return;
        } finally {
            headDeadline.cancel(false);
        }
        if (request == null) {
            return; // closed before a request
        }
        Target target = request.target;
        String where = request.method + " " + target;
        NetworkPolicy.Credential credential = Brokered.match(policy, request);
        // a brokered request goes to the host's HTTPS port, whatever plain-HTTP port the sandbox named
        int port = credential != null ? credential.port() : target.port;
        String denied = checkName(credential != null ? new Target(target.host, port, null) : target);
        if (denied != null) {
            LOG.log(System.Logger.Level.DEBUG, "egress deny {0}: {1}", where, denied);
            refuse(client, out, 403, "Forbidden", "domain-denied", denied);
            return;
        }
        Socket upstream = connect(client, out, target, port, where);
        if (upstream == null) {
            return; // refused: the client has its answer
        }
        LOG.log(System.Logger.Level.DEBUG, "egress allow {0} -> {1}{2}", where,
                upstream.getInetAddress().getHostAddress(), credential != null ? " (brokered, https)" : "");
        try (Socket up = upstream) {
            up.setSoTimeout(idleTimeoutMillis);
            up.setTcpNoDelay(true);
            if (credential != null) {
                brokered(client, out, up, request, credential);
                return;
            }
            OutputStream upOut = up.getOutputStream();
            if (request.isConnect()) {
                out.write("HTTP/1.1 200 Connection established\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
            } else {
                upOut.write(request.forwardedHead());
                upOut.flush();
            }
            tunnel(client, out, up);
        }
    }

    /**
     * Resolves {@code target} here, drops every address the deny-list refuses for {@code port}, and dials the rest in
     * turn; null after answering the client with the refusal.
     */
    private Socket connect(InputStream client, OutputStream out, Target target, int port, String where)
            throws IOException {
        List<InetAddress> addresses;
        if (target.literal != null) {
            addresses = List.of(target.literal);
        } else {
            try {
                addresses = resolver.resolve(target.host);
            } catch (UnknownHostException | RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "egress fail {0}: cannot resolve", where);
                refuse(client, out, 502, "Bad Gateway", "unresolved", "cannot resolve " + target.host);
                return null;
            }
        }
        List<InetAddress> permitted = new ArrayList<>();
        String firstDenial = null;
        for (InetAddress a : addresses == null ? List.<InetAddress>of() : addresses) {
            if (a == null) {
                continue;
            }
            String reason = denyList.deniedReason(a, port);
            if (reason == null) {
                permitted.add(a);
            } else if (firstDenial == null) {
                firstDenial = "address denied: " + target.host + " -> " + a.getHostAddress() + " (" + reason + ")";
            }
        }
        if (permitted.isEmpty()) {
            String reason = firstDenial != null ? firstDenial : "cannot resolve " + target.host;
            LOG.log(System.Logger.Level.DEBUG, "egress deny {0}: {1}", where, reason);
            refuse(client, out, firstDenial != null ? 403 : 502, firstDenial != null ? "Forbidden" : "Bad Gateway",
                    firstDenial != null ? "address-denied" : "unresolved", reason);
            return null;
        }
        IOException lastFailure = null;
        for (InetAddress a : permitted) {
            try {
                return dialer.dial(new InetSocketAddress(a, port), connectTimeoutMillis);
            } catch (IOException e) {
                lastFailure = e;
            }
        }
        boolean timeout = lastFailure instanceof SocketTimeoutException;
        LOG.log(System.Logger.Level.DEBUG, "egress fail {0}: {1}", where, String.valueOf(lastFailure));
        refuse(client, out, timeout ? 504 : 502, timeout ? "Gateway Timeout" : "Bad Gateway", "connect-failed",
                "cannot connect to " + target.host + ":" + port + (timeout ? " (timed out)" : ""));
        return null;
    }

    /**
     * A request with a brokered credential: TLS to the host (its certificate checked for its name), the head with the
     * real value, the request body as the sandbox sends it, the response scrubbed ({@link Brokered}).
     */
    private void brokered(InputStream client, OutputStream out, Socket plain, Request request,
            NetworkPolicy.Credential credential) throws IOException {
        javax.net.ssl.SSLSocket tls;
        try {
            tls = (javax.net.ssl.SSLSocket) upstreamTls.getSocketFactory().createSocket(plain, request.target.host,
                    credential.port(), true);
            javax.net.ssl.SSLParameters params = tls.getSSLParameters();
            params.setEndpointIdentificationAlgorithm("HTTPS");
            tls.setSSLParameters(params);
            tls.startHandshake();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "egress fail {0}: TLS to the brokered host: {1}", request.target,
                    e.getMessage());
            refuse(client, out, 502, "Bad Gateway", "tls-failed", "TLS to " + request.target.host
                    + " failed; the credential was not sent");
            return;
        }
        try (tls) {
            OutputStream upOut = tls.getOutputStream();
            upOut.write(Brokered.head(request, credential));
            upOut.flush();
            Thread body = new Thread(() -> {
                try {
                    copy(client, upOut);
                } catch (IOException e) {
                    closeQuietly(tls);
                }
            }, "sandbox4j-egress-" + THREADS.incrementAndGet());
            body.setDaemon(true);
            body.start();
            try {
                Brokered.relay(tls.getInputStream(), out, scrubber.copy(), request.method);
            } catch (Brokered.BadResponse e) {
                LOG.log(System.Logger.Level.DEBUG, "egress fail {0}: {1}", request.target, e.getMessage());
                if (!e.started) {
                    respond(out, 502, "Bad Gateway", "bad-response", e.getMessage());
                }
            }
            out.close();
        } finally {
            closeQuietly(client);
        }
    }

    /** Null when the policy lets the name and port through, else the reason. */
    private String checkName(Target target) {
        if (policy.mode() == NetworkPolicy.Mode.NONE) {
            return "domain not allowed: the sandbox's network policy is none";
        }
        if (target.literal != null) {
            return policy.mode() == NetworkPolicy.Mode.ALL ? null
                    : "domain not allowed: IP address " + target.host + " (the policy lists domain names)";
        }
        return policy.permits(target.host, target.port) ? null
                : "domain not allowed: " + target.host + ":" + target.port + " is not in the policy (" + policy + ")";
    }

    /** Pipes both ways until both directions ended (or the idle timeout, or an error). */
    private void tunnel(InputStream client, OutputStream clientOut, Socket up) throws IOException {
        InputStream upIn = up.getInputStream();
        OutputStream upOut = up.getOutputStream();
        Thread toUpstream = new Thread(() -> {
            try {
                copy(client, upOut);
                up.shutdownOutput();
            } catch (IOException e) {
                closeQuietly(up);
            }
        }, "sandbox4j-egress-" + THREADS.incrementAndGet());
        toUpstream.setDaemon(true);
        toUpstream.start();
        try {
            copy(upIn, clientOut);
            clientOut.close();
            toUpstream.join(idleTimeoutMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly(up);
            closeQuietly(client);
        }
    }

    private static void copy(InputStream from, OutputStream to) throws IOException {
        byte[] buf = new byte[COPY_BUFFER];
        int n;
        while ((n = from.read(buf)) >= 0) {
            to.write(buf, 0, n);
            to.flush();
        }
    }

    /**
     * Answers, half-closes, then reads and drops what the client still sends (a request body: at most 4 MiB, for at
     * most 2 s) before the caller closes: closing a socket with unread input resets it, and the client could lose the
     * answer with the reason.
     */
    private static void refuse(InputStream client, OutputStream out, int status, String text, String code,
            String reason) throws IOException {
        respond(out, status, text, code, reason);
        ScheduledFuture<?> stop = TIMER.schedule(() -> closeQuietly(client), LINGER_MILLIS, TimeUnit.MILLISECONDS);
        try {
            byte[] buf = new byte[COPY_BUFFER];
            long dropped = 0;
            int n;
            while (dropped < LINGER_BYTES && (n = client.read(buf)) >= 0) {
                dropped += n;
            }
        } catch (IOException e) {
            // closed at the linger deadline, or the client went away: either way done
        } finally {
            stop.cancel(false);
        }
    }

    static void respond(OutputStream out, int status, String text, String code, String reason) throws IOException {
        byte[] body = ("sandbox4j egress: " + reason + "\n").getBytes(StandardCharsets.UTF_8);
        String head = "HTTP/1.1 " + status + " " + text + "\r\n"
                + "Content-Type: text/plain; charset=utf-8\r\n"
                + "Content-Length: " + body.length + "\r\n"
                + "X-Sandbox4j-Egress: " + code + "\r\n"
                + "Connection: close\r\n\r\n";
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        out.close();
    }

    /**
     * A loopback TCP listener serving each accepted connection on its own thread (tests and diagnostics; sandboxes reach
     * the proxy through {@link RelayMux}).
     */
    public Listener listen(InetSocketAddress bind) throws IOException {
        return new Listener(this, bind);
    }

    /** See {@link #listen}. Closing it stops accepting and closes the connections it serves. */
    public static final class Listener implements Closeable {
        private final ServerSocket server;
        private final Set<Socket> open = new HashSet<>();

        private Listener(EgressProxy proxy, InetSocketAddress bind) throws IOException {
            if (!bind.getAddress().isLoopbackAddress()) {
                throw new IllegalArgumentException("the proxy's test listener binds loopback only, not " + bind);
            }
            server = new ServerSocket();
            server.bind(bind, 50);
            Thread acceptor = new Thread(() -> {
                while (!server.isClosed()) {
                    Socket s;
                    try {
                        s = server.accept();
                    } catch (IOException e) {
                        return;
                    }
                    synchronized (open) {
                        open.add(s);
                    }
                    Thread t = new Thread(() -> {
                        try (Socket c = s) {
                            c.setSoTimeout(proxy.idleTimeoutMillis);
                            OutputStream halfClosing = new FilterOutputStream(c.getOutputStream()) {
                                @Override
                                public void write(byte[] b, int off, int len) throws IOException {
                                    out.write(b, off, len);
                                }

                                @Override
                                public void close() throws IOException {
                                    flush();
                                    if (!c.isClosed() && !c.isOutputShutdown()) {
                                        c.shutdownOutput();
                                    }
                                }
                            };
                            proxy.serve(c.getInputStream(), halfClosing);
                        } catch (IOException | RuntimeException e) {
                            LOG.log(System.Logger.Level.DEBUG, "egress listener connection ended: {0}", e.toString());
                        } finally {
                            synchronized (open) {
                                open.remove(s);
                            }
                        }
                    }, "sandbox4j-egress-" + THREADS.incrementAndGet());
                    t.setDaemon(true);
                    t.start();
                }
            }, "sandbox4j-egress-listener");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        public int port() {
            return server.getLocalPort();
        }

        @Override
        public void close() {
            closeQuietly(server);
            synchronized (open) {
                open.forEach(EgressProxy::closeQuietly);
                open.clear();
            }
        }
    }

    /** Builds an {@link EgressProxy}. */
    public static final class Builder {
        private final NetworkPolicy policy;
        private Resolver resolver = Resolver.SYSTEM;
        private AddressDenyList denyList;
        private Dialer dialer = Dialer.PLAIN;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration headTimeout = Duration.ofSeconds(30);
        private Duration idleTimeout = Duration.ofMinutes(10);
        private javax.net.ssl.SSLContext upstreamTls;

        private Builder(NetworkPolicy policy) {
            this.policy = Objects.requireNonNull(policy, "policy");
        }

        /** How names are resolved (default {@link Resolver#SYSTEM}). */
        public Builder resolver(Resolver resolver) {
            this.resolver = Objects.requireNonNull(resolver, "resolver");
            return this;
        }

        /** The address deny-list (default: standard, or disabled when the policy opted out of it by name). */
        public Builder denyList(AddressDenyList denyList) {
            this.denyList = Objects.requireNonNull(denyList, "denyList");
            return this;
        }

        /** How upstream connections are opened (default {@link Dialer#PLAIN}). */
        public Builder dialer(Dialer dialer) {
            this.dialer = Objects.requireNonNull(dialer, "dialer");
            return this;
        }

        /** Upstream connect timeout per address (default 10 s). */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive(timeout, "connectTimeout");
            return this;
        }

        /** Time a client has to send its whole request head (default 30 s). */
        public Builder headTimeout(Duration timeout) {
            this.headTimeout = positive(timeout, "headTimeout");
            return this;
        }

        /** A tunnel or upstream read with no bytes for this long is closed (default 10 min). */
        public Builder idleTimeout(Duration timeout) {
            this.idleTimeout = positive(timeout, "idleTimeout");
            return this;
        }

        /** The TLS of brokered requests to their hosts (default: the JVM's, with its trust store). */
        public Builder upstreamTls(javax.net.ssl.SSLContext context) {
            this.upstreamTls = Objects.requireNonNull(context, "context");
            return this;
        }

        public EgressProxy build() {
            return new EgressProxy(this);
        }

        private static Duration positive(Duration d, String what) {
            Objects.requireNonNull(d, what);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " (" + d + ") must be positive");
            }
            return d;
        }
    }

    // ------------------------------------------------------------------ request parsing

    /** A refusal before any name was looked at: a malformed or oversized head. */
    static final class BadRequest extends Exception {
        private static final long serialVersionUID = 1L;
        final int status;
        final String statusText;

        BadRequest(int status, String statusText, String message) {
            super(message, null, false, false);
            this.status = status;
            this.statusText = statusText;
        }

        BadRequest(String message) {
            this(400, "Bad Request", message);
        }
    }

    /** Where a request goes: a lower-case name or an IP literal (then {@link #literal} is set), and a port. */
    static final class Target {
        final String host;
        final int port;
        final InetAddress literal;

        Target(String host, int port, InetAddress literal) {
            this.host = host;
            this.port = port;
            this.literal = literal;
        }

        String authority() {
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + (port == 80 ? "" : ":" + port);
        }

        @Override
        public String toString() {
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
        }

        /** {@code host[:port]} or {@code [v6][:port]}; IPv4 literals only in canonical dotted-quad form. */
        static Target parse(String authority, int defaultPort) throws BadRequest {
            if (authority.isEmpty() || authority.indexOf('@') >= 0) {
                throw new BadRequest("bad host '" + printable(authority) + "'");
            }
            String host;
            String rest;
            if (authority.startsWith("[")) {
                int close = authority.indexOf(']');
                if (close < 0) {
                    throw new BadRequest("bad IPv6 literal '" + printable(authority) + "'");
                }
                host = authority.substring(1, close);
                rest = authority.substring(close + 1);
                if (host.isEmpty() || !host.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.')) {
                    throw new BadRequest("bad IPv6 literal '" + printable(authority) + "'");
                }
            } else {
                int colon = authority.indexOf(':');
                host = colon < 0 ? authority : authority.substring(0, colon);
                rest = colon < 0 ? "" : authority.substring(colon);
            }
            int port = defaultPort;
            if (!rest.isEmpty()) {
                String p = rest.substring(1);
                if (rest.charAt(0) != ':' || p.isEmpty() || p.length() > 5
                        || !p.chars().allMatch(c -> c >= '0' && c <= '9')) {
                    throw new BadRequest("bad port in '" + printable(authority) + "'");
                }
                port = Integer.parseInt(p);
            }
            if (port < 1 || port > 65535) {
                throw new BadRequest("bad or missing port in '" + printable(authority) + "'");
            }
            if (authority.startsWith("[")) {
                InetAddress a;
                try {
                    a = InetAddress.getByName("[" + host + "]"); // a literal: no lookup
                } catch (UnknownHostException e) {
                    throw new BadRequest("bad IPv6 literal '" + printable(authority) + "'");
                }
                return new Target(a.getHostAddress(), port, a);
            }
            String name = host.toLowerCase(Locale.ROOT);
            if (name.endsWith(".")) {
                name = name.substring(0, name.length() - 1);
            }
            InetAddress v4 = dottedQuad(name);
            if (v4 != null) {
                return new Target(name, port, v4);
            }
            if (!isDomainName(name)) {
                throw new BadRequest("bad host '" + printable(host) + "'");
            }
            String last = name.substring(name.lastIndexOf('.') + 1);
            if (last.chars().allMatch(c -> c >= '0' && c <= '9') || last.startsWith("0x")) {
                throw new BadRequest("'" + name + "' is neither a domain name nor a dotted-quad IPv4 address");
            }
            return new Target(name, port, null);
        }

        private static InetAddress dottedQuad(String s) {
            String[] parts = s.split("\\.", -1);
            if (parts.length != 4) {
                return null;
            }
            byte[] b = new byte[4];
            for (int i = 0; i < 4; i++) {
                String p = parts[i];
                if (p.isEmpty() || p.length() > 3 || (p.length() > 1 && p.charAt(0) == '0')
                        || !p.chars().allMatch(c -> c >= '0' && c <= '9')) {
                    return null;
                }
                int v = Integer.parseInt(p);
                if (v > 255) {
                    return null;
                }
                b[i] = (byte) v;
            }
            try {
                return Inet4Address.getByAddress(s, b);
            } catch (UnknownHostException e) {
                return null;
            }
        }

        private static boolean isDomainName(String name) {
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
    }

    /** One parsed request head. */
    static final class Request {
        final String method;
        final String path;
        final String version;
        final Target target;
        final List<String[]> headers;

        private Request(String method, String path, String version, Target target, List<String[]> headers) {
            this.method = method;
            this.path = path;
            this.version = version;
            this.target = target;
            this.headers = headers;
        }

        boolean isConnect() {
            return method.equals("CONNECT");
        }

        /** Null when the stream ends before any byte. */
        static Request read(InputStream in) throws IOException, BadRequest {
            int[] budget = {MAX_HEAD};
            String line = readLine(in, budget);
            while (line != null && line.isEmpty()) { // tolerate leading empty lines (RFC 9112 2.2)
                line = readLine(in, budget);
            }
            if (line == null) {
                return null;
            }
            String[] parts = line.split(" ", -1);
            if (parts.length != 3 || !isToken(parts[0])
                    || !(parts[2].equals("HTTP/1.1") || parts[2].equals("HTTP/1.0"))) {
                throw new BadRequest("bad request line '" + printable(line) + "'");
            }
            String method = parts[0];
            String uri = parts[1];
            List<String[]> headers = new ArrayList<>();
            String hostHeader = null;
            boolean contentLength = false;
            boolean chunked = false;
            while (true) {
                String h = readLine(in, budget);
                if (h == null) {
                    throw new BadRequest("request head ended early");
                }
                if (h.isEmpty()) {
                    break;
                }
                if (headers.size() >= MAX_HEADERS) {
                    throw new BadRequest(431, "Request Header Fields Too Large", "more than " + MAX_HEADERS
                            + " header lines");
                }
                int colon = h.indexOf(':');
                if (colon <= 0 || !isToken(h.substring(0, colon))) {
                    throw new BadRequest("bad header line '" + printable(h) + "'");
                }
                String name = h.substring(0, colon);
                String value = h.substring(colon + 1).trim();
                String lower = name.toLowerCase(Locale.ROOT);
                if (lower.equals("host")) {
                    if (hostHeader != null) {
                        throw new BadRequest("more than one Host header");
                    }
                    hostHeader = value;
                } else if (lower.equals("content-length")) {
                    contentLength = true;
                } else if (lower.equals("transfer-encoding")) {
                    chunked = true;
                }
                headers.add(new String[] {name, value});
            }
            if (contentLength && chunked) {
                throw new BadRequest("both Content-Length and Transfer-Encoding");
            }
            Target target;
            String path;
            if (method.equals("CONNECT")) {
                target = Target.parse(uri, -1);
                path = null;
            } else if (uri.regionMatches(true, 0, "http://", 0, 7)) {
                String rest = uri.substring(7);
                int slash = indexOfAny(rest, "/?#");
                String authority = slash < 0 ? rest : rest.substring(0, slash);
                path = slash < 0 ? "/" : rest.substring(slash);
                int hash = path.indexOf('#');
                if (hash >= 0) {
                    path = path.substring(0, hash);
                }
                if (!path.startsWith("/")) {
                    path = "/" + path;
                }
                target = Target.parse(authority, 80);
            } else if (uri.startsWith("/")) {
                if (hostHeader == null) {
                    throw new BadRequest("origin-form request without a Host header");
                }
                target = Target.parse(hostHeader, 80);
                path = uri;
            } else if (uri.contains("://")) {
                throw new BadRequest("only http:// URLs can be forwarded (use CONNECT for https)");
            } else {
                throw new BadRequest("bad request target '" + printable(uri) + "'");
            }
            return new Request(method, path, parts[2], target, headers);
        }

        /** The head sent upstream: origin form, our own Host, no hop-by-hop headers, {@code Connection: close}. */
        byte[] forwardedHead() {
            return forwardedHead(path, target.authority(), Set.of(), List.of());
        }

        /** As {@link #forwardedHead()}, with {@code path} and {@code host}, without {@code alsoDrop}, plus {@code extra}. */
        byte[] forwardedHead(String path, String host, Set<String> alsoDrop, List<String[]> extra) {
            Set<String> drop = new HashSet<>(HOP_BY_HOP);
            drop.addAll(alsoDrop);
            for (String[] h : headers) {
                if (h[0].equalsIgnoreCase("connection") || h[0].equalsIgnoreCase("proxy-connection")) {
                    for (String token : h[1].split(",")) {
                        drop.add(token.trim().toLowerCase(Locale.ROOT));
                    }
                }
            }
            StringBuilder sb = new StringBuilder();
            sb.append(method).append(' ').append(path).append(' ').append(version).append("\r\n");
            sb.append("Host: ").append(host).append("\r\n");
            for (String[] h : headers) {
                if (!drop.contains(h[0].toLowerCase(Locale.ROOT))) {
                    sb.append(h[0]).append(": ").append(h[1]).append("\r\n");
                }
            }
            for (String[] h : extra) {
                sb.append(h[0]).append(": ").append(h[1]).append("\r\n");
            }
            sb.append("Connection: close\r\n\r\n");
            return sb.toString().getBytes(StandardCharsets.ISO_8859_1);
        }

        /** One line without its CRLF (or bare LF); null at end of stream before any byte of it. */
        private static String readLine(InputStream in, int[] budget) throws IOException, BadRequest {
            StringBuilder sb = new StringBuilder();
            while (true) {
                int c = in.read();
                if (c < 0) {
                    if (sb.length() == 0) {
                        return null;
                    }
                    throw new BadRequest("request head ended early");
                }
                if (--budget[0] < 0) {
                    throw new BadRequest(431, "Request Header Fields Too Large", "request head over "
                            + MAX_HEAD + " bytes");
                }
                if (c == '\n') {
                    int len = sb.length();
                    if (len > 0 && sb.charAt(len - 1) == '\r') {
                        sb.setLength(len - 1);
                    }
                    return sb.toString();
                }
                if (sb.length() >= MAX_LINE) {
                    throw new BadRequest(431, "Request Header Fields Too Large", "a request head line over "
                            + MAX_LINE + " bytes");
                }
                if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
                    throw new BadRequest("control character in the request head");
                }
                if (sb.length() > 0 && sb.charAt(sb.length() - 1) == '\r') {
                    throw new BadRequest("bare CR in the request head");
                }
                sb.append((char) c);
            }
        }

        private static boolean isToken(String s) {
            if (s.isEmpty()) {
                return false;
            }
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c <= 0x20 || c >= 0x7f || "()<>@,;:\\\"/[]?={}".indexOf(c) >= 0) {
                    return false;
                }
            }
            return true;
        }

        private static int indexOfAny(String s, String chars) {
            for (int i = 0; i < s.length(); i++) {
                if (chars.indexOf(s.charAt(i)) >= 0) {
                    return i;
                }
            }
            return -1;
        }
    }

    private static String printable(String s) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length() && i < 200; i++) {
            char c = s.charAt(i);
            sb.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return s.length() > 200 ? sb + "..." : sb.toString();
    }

    static void closeQuietly(Closeable c) {
        try {
            if (c != null) {
                c.close();
            }
        } catch (IOException | RuntimeException e) {
            // nothing more to do
        }
    }

    private static int millis(Duration d) {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, d.toMillis()));
    }
}
