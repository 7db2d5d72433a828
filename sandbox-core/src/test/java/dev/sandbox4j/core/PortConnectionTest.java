package dev.sandbox4j.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The host side of an opened port against a scripted agent (the real one runs in the kit's PortContract on every
 * backend): a well-behaved operation's bytes reach the client with credit granted back; an operation that sends a
 * record over its bound or a credit for bytes never sent loses its connection (killed, the client closed, the slot
 * freed) and nothing else; and waitForLog's line scanning. (Data beyond the grant is refused the same way, by the
 * same check; it is not scripted here: the client's socket buffers take the bytes, so the grant grows meanwhile.)
 */
class PortConnectionTest {
    private final BytePipe fromAgent = new BytePipe(1 << 20);
    private final BytePipe toAgent = new BytePipe(4 << 20);
    private DataInputStream agentIn;
    private DataOutputStream agentOut;
    private AgentChannel channel;
    private final Semaphore slots = new Semaphore(1);
    private PortForwarder forward;

    @BeforeEach
    void start() throws Exception {
        channel = new AgentChannel("scripted", fromAgent.in, toAgent.out, why -> {
        }).start();
        agentIn = new DataInputStream(toAgent.in);
        agentOut = new DataOutputStream(fromAgent.out);
        AgentProtocol.writeFrame(agentOut, AgentProtocol.READY, 0, ByteBuffer.allocate(4)
                .putInt(AgentProtocol.VERSION).array(), 0, 4, true);
        channel.awaitReady(java.time.Duration.ofSeconds(10));
        ServerSocket server = new ServerSocket(0, 8, InetAddress.getByAddress(new byte[] {127, 0, 0, 1}));
        forward = new PortForwarder(channel, "/workspace", 8000, server, slots, f -> {
        });
        forward.start();
    }

    @AfterEach
    void stop() {
        forward.close();
        channel.close();
    }

    /** Reads host frames until one of {@code type}; returns it. */
    private AgentProtocol.Frame next(byte type) throws IOException {
        for (AgentProtocol.Frame f; (f = AgentProtocol.readFrame(agentIn)) != null; ) {
            if (f.type() == type) {
                return f;
            }
        }
        throw new IOException("the host's frames ended");
    }

    private static byte[] record(int n, String data) {
        byte[] d = data.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(4 + d.length).putInt(n).put(d).array();
    }

    private void stdout(int id, byte[] bytes) throws IOException {
        AgentProtocol.writeFrame(agentOut, AgentProtocol.STDOUT, id, bytes, 0, bytes.length, true);
    }

    /** Connects a client and plays the agent up to the initial credit; returns the operation's id. */
    private int connect(Socket client) throws Exception {
        client.setSoTimeout(10_000);
        AgentProtocol.Frame file = next(AgentProtocol.FILE);
        assertThat(new String(file.payload(), StandardCharsets.UTF_8)).contains("connect").contains("8000");
        next(AgentProtocol.GO);
        AgentProtocol.Frame credit = next(AgentProtocol.STDIN);
        assertThat(ByteBuffer.wrap(credit.payload()).getInt()).isEqualTo(-PortConnection.WINDOW);
        return file.id();
    }

    @Test
    void wellBehavedBytes_reachTheClient_andAreGrantedBack_andTheEndClosesIt() throws Exception {
        try (Socket client = new Socket(forward.address().getAddress(), forward.address().getPort())) {
            int id = connect(client);
            stdout(id, record(5, "hello"));
            byte[] got = client.getInputStream().readNBytes(5);
            assertThat(new String(got, StandardCharsets.UTF_8)).isEqualTo("hello");
            assertThat(ByteBuffer.wrap(next(AgentProtocol.STDIN).payload()).getInt()).as("credit back").isEqualTo(-5);
            client.getOutputStream().write("ping".getBytes(StandardCharsets.UTF_8));
            assertThat(next(AgentProtocol.STDIN).payload()).isEqualTo(record(4, "ping"));
            stdout(id, record(0, ""));
            AgentProtocol.writeFrame(agentOut, AgentProtocol.EXIT, id, ByteBuffer.allocate(12).putInt(0).putLong(-1)
                    .array(), 0, 12, true);
            assertThat(client.getInputStream().read()).isEqualTo(-1);
        }
        assertThat(slots.tryAcquire(10, TimeUnit.SECONDS)).as("the slot is free again").isTrue();
    }

    @Test
    void aRecordOverItsBound_orACreditForNothing_killsOnlyThatConnection() throws Exception {
        for (byte[] hostile : new byte[][] {
                ByteBuffer.allocate(4).putInt(PortConnection.READ + 1).array(),
                ByteBuffer.allocate(4).putInt(-10).array()}) {
            try (Socket client = new Socket(forward.address().getAddress(), forward.address().getPort())) {
                int id = connect(client);
                stdout(id, hostile);
                assertThat(next(AgentProtocol.SIGNAL).id()).isEqualTo(id);
                InputStream in = client.getInputStream();
                assertThat(in.read()).isEqualTo(-1);
            }
            assertThat(slots.tryAcquire(10, TimeUnit.SECONDS)).as("the slot is free again").isTrue();
            slots.release();
        }
        assertThat(channel.endReason()).as("the channel goes on").isNull();
    }

    @Test
    void waitForLogsScan_matchesWholeLines_crlfTrimmed_longOnesInPieces() {
        StringBuilder line = new StringBuilder();
        Pattern ready = Pattern.compile("ready on \\d+");
        assertThat(AgentPorts.scan(line, "starting\nready on 80", ready, false)).isNull();
        assertThat(AgentPorts.scan(line, "00\r\nmore", ready, false)).isEqualTo("ready on 8000");
        line.setLength(0);
        assertThat(AgentPorts.scan(line, "x".repeat(AgentPorts.MAX_LINE * 2 + 5), Pattern.compile("y"), false))
                .isNull();
        assertThat(line.length()).as("a long line is held in pieces").isLessThanOrEqualTo(AgentPorts.MAX_LINE);
        line.setLength(0);
        assertThat(AgentPorts.scan(line, "no newline at the end: ready on 1", ready, true)).endsWith("ready on 1");
    }
}
