package dev.sandbox4j.kubernetes;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.core.AgentBinary;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The TCP connector's handshake between this host's {@link AgentConnector} and the real {@code sbx-agent --listen}
 * (this machine's build, run as a plain process on loopback: no Docker needed), and against peers that are not it.
 */
class AgentConnectorTest {
    @TempDir
    Path dir;
    Process agent;

    @AfterEach
    void stop() {
        if (agent != null) {
            agent.destroyForcibly();
        }
    }

    private int startAgent(byte[] key) throws IOException, InterruptedException {
        Path bin = dir.resolve("sbx-agent");
        Files.write(bin, AgentBinary.bytes(AgentBinary.AGENT));
        bin.toFile().setExecutable(true);
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        ProcessBuilder pb = new ProcessBuilder(bin.toString(), "--listen=127.0.0.1:" + port, "--reaper=/bin/false");
        pb.environment().put("SBX4J_AGENT_KEY", HexFormat.of().formatHex(key));
        agent = pb.redirectErrorStream(true).start();
        for (int i = 0; i < 200; i++) {
            try (Socket probe = new Socket("127.0.0.1", port)) {
                return port; // listening (this probe sends nothing: the agent drops it after its 5 s)
            } catch (IOException e) {
                Thread.sleep(10);
            }
        }
        throw new AssertionError("the agent did not listen: " + new String(agent.getInputStream().readAllBytes(),
                StandardCharsets.UTF_8));
    }

    @Test
    void theRightKeyGetsReadyAndAWrongOneIsRefusedWithoutEndingTheAgent() throws Exception {
        byte[] key = ControllerSimulator.randomKey();
        int port = startAgent(key);
        assertThatThrownBy(() -> AgentConnector.connect("127.0.0.1", port, ControllerSimulator.randomKey(),
                Duration.ofSeconds(10))).isInstanceOfSatisfying(AgentConnector.Refused.class,
                e -> assertThat(e.kind).isEqualTo(ErrorKind.PERMISSION_DENIED));
        try (Socket s = AgentConnector.connect("127.0.0.1", port, key, Duration.ofSeconds(10))) {
            byte[] header = new byte[13];
            new DataInputStream(s.getInputStream()).readFully(header);
            assertThat(header[4]).as("the first frame is READY").isEqualTo(dev.sandbox4j.core.AgentProtocol.READY);
            // one connection, ever: the listener is closed
            assertThatThrownBy(() -> AgentConnector.connect("127.0.0.1", port, key, Duration.ofSeconds(2)))
                    .isInstanceOf(AgentConnector.Refused.class).hasMessageContaining("cannot connect");
        }
        // the connection ended: the agent ends as when its stdin ends
        assertThat(agent.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(agent.exitValue()).isZero();
    }

    /**
     * A hostile peer in the cluster opens connections and says nothing (or garbage): the handshakes run side by side
     * and a full table replaces its oldest, so neither 40 silent connections nor garbage keep the host out. With one
     * handshake at a time, each silent connection held the agent for its 5 s and the host's connect behind 40 of them
     * took minutes.
     */
    @Test
    void silentAndGarbagePeersDoNotKeepTheHostOut() throws Exception {
        byte[] key = ControllerSimulator.randomKey();
        int port = startAgent(key);
        List<Socket> silent = new ArrayList<>();
        try {
            for (int i = 0; i < 40; i++) {
                Socket peer = new Socket("127.0.0.1", port);
                if (i % 4 == 0) {
                    peer.getOutputStream().write(new byte[] {0x47, 0x45, 0x54, 0x20, 0x2f}); // "GET /", then nothing
                }
                silent.add(peer);
            }
            // 20 s: one handshake at a time would need 40 x 5 s here
            try (Socket s = AgentConnector.connect("127.0.0.1", port, key, Duration.ofSeconds(20))) {
                byte[] header = new byte[13];
                new DataInputStream(s.getInputStream()).readFully(header);
                assertThat(header[4]).isEqualTo(dev.sandbox4j.core.AgentProtocol.READY);
                // the silent peers were let go once the host got in
                for (Socket peer : silent) {
                    peer.setSoTimeout(5000);
                    assertThat(peer.getInputStream().readAllBytes().length).isLessThanOrEqualTo(40);
                }
            }
        } finally {
            for (Socket peer : silent) {
                peer.close();
            }
        }
    }

    @Test
    void aKeyThatIsNot64HexDigitsStopsTheAgentAtOnce() throws Exception {
        Path bin = dir.resolve("sbx-agent");
        Files.write(bin, AgentBinary.bytes(AgentBinary.AGENT));
        bin.toFile().setExecutable(true);
        ProcessBuilder pb = new ProcessBuilder(bin.toString(), "--listen=127.0.0.1:1", "--reaper=/bin/false");
        pb.environment().put("SBX4J_AGENT_KEY", "not-hex");
        agent = pb.redirectErrorStream(true).start();
        assertThat(agent.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(agent.exitValue()).isEqualTo(2);
        assertThat(new String(agent.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                .contains("bad key in SBX4J_AGENT_KEY");
    }

    @Test
    void aPeerThatIsNotAnAgentOrDoesNotHoldTheKeyIsRefused() throws Exception {
        byte[] key = ControllerSimulator.randomKey();
        try (ServerSocket server = new ServerSocket(0)) {
            CompletableFuture<Void> junk = CompletableFuture.runAsync(() -> {
                try (Socket c = server.accept()) {
                    c.getOutputStream().write("HTTP/1.1 200 OK\r\n\r\nhello hello hello hello ...".getBytes());
                } catch (IOException ignored) {
                    // the test fails on its own
                }
            });
            assertThatThrownBy(() -> AgentConnector.connect("127.0.0.1", server.getLocalPort(), key,
                    Duration.ofSeconds(5))).isInstanceOfSatisfying(AgentConnector.Refused.class,
                    e -> assertThat(e.kind).isEqualTo(ErrorKind.BACKEND_UNAVAILABLE))
                    .hasMessageContaining("not a sandbox4j agent");
            junk.get(5, TimeUnit.SECONDS);
            // an impostor that speaks the protocol under another key: it cannot answer the host's nonce
            byte[] other = ControllerSimulator.randomKey();
            CompletableFuture<Void> impostor = CompletableFuture.runAsync(() -> {
                try (Socket c = server.accept()) {
                    c.getOutputStream().write("SBXAUTH1".getBytes(StandardCharsets.US_ASCII));
                    c.getOutputStream().write(new byte[32]);
                    byte[] answer = new DataInputStream(c.getInputStream()).readNBytes(64);
                    c.getOutputStream().write(AgentConnector.hmac(other, "sandbox4j agent v1"
                            .getBytes(StandardCharsets.US_ASCII), java.util.Arrays.copyOfRange(answer, 32, 64)));
                } catch (IOException ignored) {
                    // the test fails on its own
                }
            });
            assertThatThrownBy(() -> AgentConnector.connect("127.0.0.1", server.getLocalPort(), key,
                    Duration.ofSeconds(5))).isInstanceOfSatisfying(AgentConnector.Refused.class,
                    e -> assertThat(e.kind).isEqualTo(ErrorKind.PERMISSION_DENIED))
                    .hasMessageContaining("does not hold the pool's key");
            impostor.get(5, TimeUnit.SECONDS);
        }
    }
}
