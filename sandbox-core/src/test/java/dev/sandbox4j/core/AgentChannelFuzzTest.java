package dev.sandbox4j.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The host parses bytes a sandbox controls: a hostile or broken agent may send anything. Whatever it sends, the
 * channel must end cleanly (once, with a reason) or keep going, every command must get exactly one final event,
 * nothing may throw out of the reader, and no frame may make the host allocate more than {@link
 * AgentProtocol#MAX_FRAME}.
 */
class AgentChannelFuzzTest {
    private static final int COMMANDS = 8;

    @Test
    void randomStreamsNeverCrashHangOrLoseACommand() throws Exception {
        long seed0 = Long.getLong("sandbox4j.fuzz.seed", 20261123L);
        int rounds = Integer.getInteger("sandbox4j.fuzz.rounds", 400);
        for (int round = 0; round < rounds; round++) {
            long seed = seed0 + round;
            runOne(seed, hostileStream(new Random(seed)));
        }
    }

    @Test
    void aLengthOverTheLimitEndsTheChannelWithoutAllocatingIt() throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        frame(b, AgentProtocol.READY, 0, int4(AgentProtocol.VERSION));
        b.writeBytes(int4(Integer.MAX_VALUE));
        b.writeBytes(new byte[] {AgentProtocol.STDOUT, 0, 0, 0, 1});
        String why = runOne(-1, b.toByteArray());
        assertThat(why).contains("bad frame length " + Integer.MAX_VALUE);
    }

    @Test
    void anotherProtocolVersionIsRefused() throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        frame(b, AgentProtocol.READY, 0, int4(AgentProtocol.VERSION + 1));
        String why = runOne(-2, b.toByteArray());
        assertThat(why).contains("protocol version " + (AgentProtocol.VERSION + 1));
    }

    /** Feeds one stream to a channel with {@link #COMMANDS} commands; returns why the channel ended. */
    private static String runOne(long seed, byte[] stream) throws Exception {
        BytePipe fromAgent = new BytePipe(1 << 16);
        AtomicInteger ends = new AtomicInteger();
        CountDownLatch ended = new CountDownLatch(1);
        String[] reason = new String[1];
        AgentChannel channel = new AgentChannel("fuzz-" + seed, fromAgent.in, OutputStream.nullOutputStream(), why -> {
            reason[0] = why;
            ends.incrementAndGet();
            ended.countDown();
        });
        Map<Integer, AtomicInteger> finals = new ConcurrentHashMap<>();
        List<Throwable> thrown = new ArrayList<>();
        for (int id = 1; id <= COMMANDS; id++) {
            int cid = channel.newId();
            AtomicInteger count = new AtomicInteger();
            finals.put(cid, count);
            OutputBuffer out = new OutputBuffer(50);
            channel.spawn(cid, List.of("/bin/true"), List.of(), "/workspace", out.keepBytes(),
                    new AgentChannel.Events() {
                @Override
                public void spawned(int pid) {
                }

                @Override
                public void skipped(boolean stderr, long bytes, long chars) {
                    out.skip(bytes, chars);
                    try {
                        out.text();
                        out.truncation();
                    } catch (RuntimeException e) {
                        thrown.add(e);
                    }
                }

                @Override
                public void failed(String message) {
                    count.incrementAndGet();
                }

                @Override
                public void stdout(byte[] bytes) {
                    out.write(bytes);
                    if (bytes.length > AgentProtocol.MAX_FRAME) {
                        thrown.add(new AssertionError("frame over the limit: " + bytes.length));
                    }
                }

                @Override
                public void stderr(byte[] bytes) {
                }

                @Override
                public void exited(int code, long oomKills) {
                    count.incrementAndGet();
                }

                @Override
                public void lost(String why) {
                    count.incrementAndGet();
                }
            });
        }
        channel.start();
        Thread writer = new Thread(() -> {
            try {
                fromAgent.out.write(stream);
            } catch (IOException ignored) {
                // the channel stopped reading (a bad frame): fine
            } finally {
                fromAgent.close();
            }
        });
        writer.setDaemon(true);
        writer.start();
        assertThat(ended.await(10, TimeUnit.SECONDS)).as("seed %d: the channel ended within 10 s", seed).isTrue();
        fromAgent.close(); // a reader that stopped at a bad frame leaves the writer blocked: release it
        writer.join(TimeUnit.SECONDS.toMillis(5));
        assertThat(writer.isAlive()).as("seed %d: writer released", seed).isFalse();
        assertThat(ends.get()).as("seed %d: ended once", seed).isEqualTo(1);
        assertThat(thrown).as("seed %d", seed).isEmpty();
        // the backend hears of the end first, then each command still running: wait for those final events
        for (long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5); System.nanoTime() < until
                && finals.values().stream().anyMatch(n -> n.get() == 0); ) {
            Thread.sleep(1);
        }
        Thread.sleep(2); // a second final event, if the channel wrongly sent one, would land by now
        finals.forEach((id, n) -> assertThat(n.get()).as("seed %d: final events of command %d", seed, id).isEqualTo(1));
        assertThat(channel.endReason()).isEqualTo(reason[0]);
        assertThat(channel.isReady() || channel.endReason() != null).isTrue();
        channel.close();
        return reason[0];
    }

    /** A READY (usually), then a mix of valid, unknown, truncated, oversized and garbage frames. */
    private static byte[] hostileStream(Random r) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        if (r.nextInt(10) > 0) {
            frame(b, AgentProtocol.READY, 0, int4(r.nextInt(20) == 0 ? r.nextInt() : AgentProtocol.VERSION));
        }
        int n = r.nextInt(60);
        for (int i = 0; i < n; i++) {
            int id = r.nextInt(COMMANDS + 3) - 1;
            switch (r.nextInt(12)) {
                case 0 -> b.writeBytes(randomBytes(r, r.nextInt(64)));                       // garbage
                case 1 -> b.writeBytes(int4(r.nextInt(5)));                                  // length too small
                case 2 -> { // a header that promises more than follows (truncated at the end of the stream)
                    b.writeBytes(int4(5 + r.nextInt(1 << 16)));
                    b.write(AgentProtocol.STDOUT);
                    b.writeBytes(int4(id));
                    b.writeBytes(randomBytes(r, r.nextInt(100)));
                    return b.toByteArray();
                }
                case 3 -> frame(b, (byte) r.nextInt(256), id, randomBytes(r, r.nextInt(300)));  // any type
                case 4 -> frame(b, AgentProtocol.EXIT, id, randomBytes(r, r.nextInt(16)));       // short or long EXIT
                case 5 -> frame(b, AgentProtocol.SPAWNED, id, randomBytes(r, r.nextInt(8)));
                case 6 -> frame(b, AgentProtocol.FAILED, id, randomBytes(r, r.nextInt(200)));
                case 7 -> frame(b, AgentProtocol.STDERR, id, randomBytes(r, r.nextInt(4096)));
                case 8 -> frame(b, AgentProtocol.READY, id, randomBytes(r, r.nextInt(8)));
                case 9 -> frame(b, AgentProtocol.SKIPPED, id, r.nextBoolean() ? randomBytes(r, r.nextInt(20))
                        : skipped(r));                                                        // any counts
                default -> frame(b, AgentProtocol.STDOUT, id, randomBytes(r, r.nextInt(70_000)));
            }
        }
        return b.toByteArray();
    }

    /** A well-formed SKIPPED frame's payload with counts of any size, sign or ratio. */
    private static byte[] skipped(Random r) {
        java.nio.ByteBuffer p = java.nio.ByteBuffer.allocate(17);
        p.put(r.nextBoolean() ? AgentProtocol.STDOUT : AgentProtocol.STDERR);
        p.putLong(r.nextInt(4) == 0 ? r.nextLong() : r.nextInt(1 << 20));
        p.putLong(r.nextInt(4) == 0 ? r.nextLong() : r.nextInt(1 << 20));
        return p.array();
    }

    private static void frame(ByteArrayOutputStream b, byte type, int id, byte[] payload) {
        b.writeBytes(int4(payload.length + 5));
        b.write(type);
        b.writeBytes(int4(id));
        b.writeBytes(payload);
    }

    private static byte[] int4(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    private static byte[] randomBytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

}
