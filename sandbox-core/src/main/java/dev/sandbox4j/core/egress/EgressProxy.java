package dev.sandbox4j.core.egress;

import dev.sandbox4j.NetworkPolicy;
import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
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
    static final int COPY_BUFFER = 16 * 1024;
    private static final System.Logger LOG = System.getLogger(EgressProxy.class.getName());
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
            ProxyResponses.refuse(client, out, e.status, e.statusText, "bad-request", e.getMessage());
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
            ProxyResponses.refuse(client, out, 403, "Forbidden", "domain-denied", denied);
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
                ProxyResponses.refuse(client, out, 502, "Bad Gateway", "unresolved", "cannot resolve " + target.host);
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
            ProxyResponses.refuse(client, out, firstDenial != null ? 403 : 502, firstDenial != null ? "Forbidden" : "Bad Gateway",
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
        ProxyResponses.refuse(client, out, timeout ? 504 : 502, timeout ? "Gateway Timeout" : "Bad Gateway", "connect-failed",
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
            ProxyResponses.refuse(client, out, 502, "Bad Gateway", "tls-failed", "TLS to " + request.target.host
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
                    ProxyResponses.respond(out, 502, "Bad Gateway", "bad-response", e.getMessage());
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
