package dev.sandbox4j.core;

import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.core.egress.AddressDenyList;
import dev.sandbox4j.core.egress.EgressProxy;
import dev.sandbox4j.core.egress.RelayMux;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * A sandbox's only way out, the same on every backend: {@code sbx-relay} runs in the sandbox (whose network has
 * loopback only) as a command of the agent, listens on 127.0.0.1:{@value #PORT}, and carries each connection over
 * its stdin and stdout, which the agent carries to the host; the host hands each one to an {@link EgressProxy} that
 * applies the {@link NetworkPolicy}. No socket is shared with the host, so a container on a remote engine works the
 * same. Programs find the proxy through {@code HTTP_PROXY}, {@code HTTPS_PROXY} and their lower-case forms.
 */
public final class AgentEgress implements AutoCloseable {
    /** Where the relay listens inside the sandbox. */
    public static final int PORT = 3128;

    private static volatile Function<NetworkPolicy, EgressProxy> factory = EgressProxy::of;

    private final AgentChannel channel;
    private final int id;
    private final RelayMux mux;
    private final NetworkPolicy policy;
    private final OutputBuffer diagnostics;

    private AgentEgress(AgentChannel channel, int id, RelayMux mux, NetworkPolicy policy, OutputBuffer diagnostics) {
        this.channel = channel;
        this.id = id;
        this.mux = mux;
        this.policy = policy;
        this.diagnostics = diagnostics;
    }

    /**
     * Replaces how the proxy is built for sandboxes opened from now on (tests: a resolver that maps test names to
     * loopback fixtures and a deny-list that exempts exactly them); {@code null} restores the default.
     */
    public static void overrideProxyForTests(Function<NetworkPolicy, EgressProxy> proxyFactory) {
        factory = proxyFactory == null ? EgressProxy::of : proxyFactory;
    }

    /**
     * For backends' conformance tests: until the returned handle is closed, names resolve through {@code resolver}
     * and exactly {@code exempt} pass the address deny-list (the kit's loopback fixtures stand in for the internet).
     */
    public static AutoCloseable overrideForTests(Function<String, InetAddress> resolver, InetSocketAddress... exempt) {
        overrideProxyForTests(policy -> EgressProxy.builder(policy).resolver(name -> List.of(resolver.apply(name)))
                .denyList(AddressDenyList.standard().exemptingForTests(exempt)).build());
        return () -> overrideProxyForTests(null);
    }

    /**
     * As {@link #overrideForTests(Function, InetSocketAddress...)}, with the TLS context brokered requests use to call
     * their hosts (the kit's HTTPS fixture has a certificate no trust store knows).
     */
    public static AutoCloseable overrideForTests(Function<String, InetAddress> resolver,
            javax.net.ssl.SSLContext upstreamTls, InetSocketAddress... exempt) {
        overrideProxyForTests(policy -> EgressProxy.builder(policy).resolver(name -> List.of(resolver.apply(name)))
                .denyList(AddressDenyList.standard().exemptingForTests(exempt)).upstreamTls(upstreamTls).build());
        return () -> overrideProxyForTests(null);
    }

    /**
     * Starts the relay at {@code relayPath} inside the sandbox through {@code channel} and waits until it listens.
     * The relay needs no cgroup placement of its own: it is the agent's child and counts against the agent's.
     */
    public static AgentEgress start(AgentChannel channel, String relayPath, NetworkPolicy policy, Duration timeout)
            throws IOException, InterruptedException {
        Objects.requireNonNull(policy, "policy");
        EgressProxy proxy = factory.apply(policy);
        int id = channel.newId();
        BytePipe fromRelay = new BytePipe(1 << 20);
        OutputBuffer diagnostics = new OutputBuffer(4000);
        CompletableFuture<Integer> spawned = new CompletableFuture<>();
        channel.spawn(id, List.of(relayPath, Integer.toString(PORT)), List.of(), "/", new AgentChannel.Events() {
            @Override
            public void spawned(int pid) {
                spawned.complete(pid);
            }

            @Override
            public void failed(String message) {
                diagnostics.write(message.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                spawned.complete(-1);
                fromRelay.close();
            }

            @Override
            public void stdout(byte[] bytes) {
                try {
                    fromRelay.out.write(bytes);
                } catch (IOException e) {
                    // the mux stopped reading (closed): the relay's output has nowhere to go
                }
            }

            @Override
            public void stderr(byte[] bytes) {
                diagnostics.write(bytes);
            }

            @Override
            public void exited(int code, long oomKills) {
                fromRelay.close();
            }

            @Override
            public void lost(String why) {
                spawned.complete(-1);
                fromRelay.close();
            }
        });
        OutputStream toRelay = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                channel.stdin(id, b, off, len, true);
            }

            @Override
            public void close() throws IOException {
                channel.closeStdin(id, true);
            }
        };
        try {
            if (spawned.get(timeout.toMillis(), TimeUnit.MILLISECONDS) <= 0) {
                throw new IOException("the network relay did not start: " + diagnostics.text().strip());
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("the network relay did not start in time", e);
        }
        channel.go(id, true);
        RelayMux mux = new RelayMux(fromRelay.in, toRelay, proxy::serve).start();
        try {
            int port = mux.awaitReady(timeout);
            if (port != PORT) {
                throw new IOException("the network relay listens on " + port + ", not " + PORT);
            }
        } catch (TimeoutException | IOException e) {
            mux.close();
            throw new IOException("the network relay did not come up: " + e.getMessage() + " "
                    + diagnostics.text().strip(), e);
        }
        return new AgentEgress(channel, id, mux, policy, diagnostics);
    }

    /**
     * The variables that point programs at the relay, and the placeholders of {@code policy}'s brokered credentials
     * under the names they are exposed as (never the secrets).
     */
    public static List<String> env(NetworkPolicy policy) {
        String url = "http://127.0.0.1:" + PORT;
        String none = "localhost,127.0.0.1,::1";
        List<String> env = new java.util.ArrayList<>(List.of("HTTP_PROXY=" + url, "HTTPS_PROXY=" + url,
                "http_proxy=" + url, "https_proxy=" + url, "NO_PROXY=" + none, "no_proxy=" + none));
        for (NetworkPolicy.Credential c : policy.credentials()) {
            if (c.envName() != null) {
                env.add(c.envName() + "=" + c.placeholder());
            }
        }
        return List.copyOf(env);
    }

    public NetworkPolicy policy() {
        return policy;
    }

    /** What the relay said on stderr (bounded), for diagnostics. */
    public String diagnostics() {
        return diagnostics.text();
    }

    /** Stops the proxy's connections and the relay. */
    @Override
    public void close() {
        mux.close();
        try {
            channel.signal(id, 9);
        } catch (IOException ignored) {
            // the sandbox is going anyway
        }
    }
}
