package dev.sandbox4j.core;

import dev.sandbox4j.ErrorKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A leased agent (sbx-lease.c, PROTOCOL.md "Leases and reattach"), the real binary run as a plain process: it takes
 * LEASE once, refuses a second host while one is attached, outlives its host's channel, takes a later host only with
 * the key (a wrong one changes nothing), directly or through {@code --connect}, and ends when the lease runs out.
 */
class AgentLeaseTest {
    @TempDir
    Path dir;

    private static byte[] key() {
        byte[] k = new byte[32];
        new SecureRandom().nextBytes(k);
        return k;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static byte[] lease(long ms, int port, byte[] key) {
        return ByteBuffer.allocate(44).putLong(ms).putInt(port).put(key).array();
    }

    @Test
    void leasedAgentOutlivesItsHostAndTakesOnlyAHostWithTheKey() throws Exception {
        byte[] key = key();
        int port = freePort();
        try (AgentRun agent = AgentRun.start(dir)) {
            agent.send(AgentProtocol.LEASE, 3, new byte[7]);
            assertThat(agent.next().type()).as("a malformed LEASE").isEqualTo(AgentProtocol.FAILED);
            agent.send(AgentProtocol.LEASE, 4, lease(1500, port, key));
            AgentProtocol.Frame leased = agent.next();
            assertThat(leased.type()).isEqualTo(AgentProtocol.LEASED);
            assertThat(leased.id()).isEqualTo(4);
            agent.send(AgentProtocol.LEASE, 5, lease(1500, port, key));
            assertThat(new String(agent.next().payload(), StandardCharsets.UTF_8)).contains("leased already");
            // attached: a second host's connection is closed before any greeting
            try (Socket s = new Socket("127.0.0.1", port)) {
                assertThat(s.getInputStream().read()).isEqualTo(-1);
            }
            agent.run(6, List.of("/bin/sh", "-c", "sleep 1000"), null);
            assertThat(agent.next().type()).isEqualTo(AgentProtocol.SPAWNED);
            List<Long> commands = agent.process.descendants().map(ProcessHandle::pid).toList();
            assertThat(commands).isNotEmpty();
            agent.raw().close(); // the host lets go
            assertThat(agent.process.waitFor(300, TimeUnit.MILLISECONDS)).as("the agent waits for a host").isFalse();
            // a wrong key: refused, and the agent waits on
            try (Socket s = new Socket("127.0.0.1", port)) {
                assertThatThrownBy(() -> AgentHandshake.run(s.getInputStream(), s.getOutputStream(), key(), "test",
                        "the key")).isInstanceOfSatisfying(AgentHandshake.Refused.class,
                        e -> assertThat(e.kind()).isEqualTo(ErrorKind.PERMISSION_DENIED));
            }
            // the right key, through the relay a later host starts in the sandbox
            Process relay = new ProcessBuilder(dir.resolve("bin").resolve(AgentBinary.AGENT).toString(),
                    "--connect=127.0.0.1:" + port).start();
            AgentHandshake.run(relay.getInputStream(), relay.getOutputStream(), key, "relay", "the key");
            DataInputStream in = new DataInputStream(relay.getInputStream());
            AgentProtocol.Frame ready = AgentProtocol.readFrame(in);
            assertThat(ready.type()).isEqualTo(AgentProtocol.READY);
            java.io.DataOutputStream out = new java.io.DataOutputStream(relay.getOutputStream());
            byte[] spawn = AgentRun.spawnPayload(List.of("/bin/sh", "-c", "echo again"),
                    List.of(), "/");
            AgentProtocol.writeFrame(out, AgentProtocol.SPAWN, 1, spawn, 0, spawn.length);
            AgentProtocol.writeFrame(out, AgentProtocol.GO, 1, new byte[0], 0, 0);
            StringBuilder said = new StringBuilder();
            for (AgentProtocol.Frame f; (f = AgentProtocol.readFrame(in)) != null && f.type() != AgentProtocol.EXIT; ) {
                if (f.type() == AgentProtocol.STDOUT) {
                    said.append(new String(f.payload(), StandardCharsets.UTF_8));
                }
            }
            assertThat(said.toString()).isEqualTo("again\n");
            assertThat(commands).as("the old host's command was killed at the detach").noneMatch(AgentRun::alive);
            relay.getOutputStream().close(); // the later host lets go too: no host comes, the lease runs out
            assertThat(relay.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(agent.process.waitFor(30, TimeUnit.SECONDS)).as("the agent ends when its lease runs out")
                    .isTrue();
            assertThat(agent.process.exitValue()).isZero();
        }
    }

    @Test
    void unleasedAgentEndsWithItsHost() throws Exception {
        try (AgentRun agent = AgentRun.start(dir)) {
            agent.raw().close();
            assertThat(agent.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(agent.process.exitValue()).isZero();
        }
    }
}
