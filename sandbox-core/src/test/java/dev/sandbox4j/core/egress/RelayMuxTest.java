package dev.sandbox4j.core.egress;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The host side of the relay protocol against a scripted (and a random, hostile) relay. */
class RelayMuxTest {
    private RelayMux mux;
    private final java.util.List<FakeRelay> relays = new java.util.ArrayList<>();

    @AfterEach
    void tearDown() throws IOException {
        if (mux != null) {
            mux.close();
        }
        for (FakeRelay r : relays) {
            r.stdout.close(); // a piped reader only wakes up when its writer closes
        }
    }

    static byte[] frame(int type, long id, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(RelayMux.HEADER + payload.length);
        b.put((byte) type).putInt((int) id).putInt(payload.length).put(payload);
        return b.array();
    }

    static byte[] frame(int type, long id) {
        return frame(type, id, new byte[0]);
    }

    static byte[] hello(int port) {
        return frame(RelayMux.HELLO, 0, new byte[] {RelayMux.VERSION, (byte) (port >> 8), (byte) port});
    }

    static byte[] credit(long n) {
        return ByteBuffer.allocate(4).putInt((int) n).array();
    }

    /** A scripted relay: the test writes its stdout and reads its stdin as frames. */
    private static final class FakeRelay {
        final PipedOutputStream stdout = new PipedOutputStream();
        final PipedInputStream muxIn;
        final PipedInputStream stdinReader;
        final PipedOutputStream muxOut;
        final DataInputStream frames;

        FakeRelay() throws IOException {
            muxIn = new PipedInputStream(stdout, 1 << 20);
            muxOut = new PipedOutputStream();
            stdinReader = new PipedInputStream(muxOut, 1 << 20);
            frames = new DataInputStream(stdinReader);
        }

        void send(byte[]... fs) throws IOException {
            for (byte[] f : fs) {
                stdout.write(f);
            }
            stdout.flush();
        }

        /** The next frame the mux wrote: {type, id, payload}. */
        Object[] next() throws IOException {
            int type = frames.readUnsignedByte();
            long id = frames.readInt() & 0xffffffffL;
            byte[] p = new byte[frames.readInt()];
            frames.readFully(p);
            return new Object[] {type, id, p};
        }
    }

    private FakeRelay fakeRelay() throws IOException {
        FakeRelay r = new FakeRelay();
        relays.add(r);
        return r;
    }

    @Test
    void oneConnection_echoesThroughFramesAndEndsWithEofAndClose() throws Exception {
        FakeRelay relay = fakeRelay();
        mux = new RelayMux(relay.muxIn, relay.muxOut, (in, out) -> {
            in.transferTo(out);
            out.close();
        }).start();
        relay.send(hello(3128));
        assertThat(mux.awaitReady(Duration.ofSeconds(5))).isEqualTo(3128);
        relay.send(frame(RelayMux.OPEN, 1), frame(RelayMux.DATA, 1, "hi".getBytes(StandardCharsets.US_ASCII)),
                frame(RelayMux.EOF, 1));
        Object[] data = relay.next();
        assertThat(data[0]).isEqualTo(RelayMux.DATA);
        assertThat(data[1]).isEqualTo(1L);
        assertThat(new String((byte[]) data[2], StandardCharsets.US_ASCII)).isEqualTo("hi");
        assertThat(relay.next()[0]).isEqualTo(RelayMux.EOF);
        assertThat(relay.next()[0]).isEqualTo(RelayMux.CLOSE);
        waitUntil(() -> mux.openConnections() == 0);
    }

    @Test
    void dataBeyondTheWindow_abortsThatConnectionOnly() throws Exception {
        FakeRelay relay = fakeRelay();
        CountDownLatch never = new CountDownLatch(1);
        mux = new RelayMux(relay.muxIn, relay.muxOut, (in, out) -> {
            try {
                never.await(); // a handler that does not read
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }).start();
        relay.send(hello(1), frame(RelayMux.OPEN, 1), frame(RelayMux.OPEN, 2));
        byte[] chunk = new byte[RelayMux.MAX_PAYLOAD];
        for (int i = 0; i < RelayMux.WINDOW / RelayMux.MAX_PAYLOAD; i++) {
            relay.send(frame(RelayMux.DATA, 1, chunk));
        }
        relay.send(frame(RelayMux.DATA, 1, new byte[1]));
        Object[] f = relay.next();
        assertThat(f[0]).isEqualTo(RelayMux.CLOSE);
        assertThat(f[1]).isEqualTo(1L);
        try {
            assertThat(mux.isClosed()).isFalse();
            assertThat(mux.failure()).isNull();
            assertThat(mux.peakConnectionBytes()).isLessThanOrEqualTo(RelayMux.WINDOW + 1);
            // connection 2 is still served: its data arrives and is credited
            relay.send(frame(RelayMux.DATA, 2, new byte[10]));
            relay.send(frame(RelayMux.EOF, 2));
        } finally {
            never.countDown();
        }
        // both handlers return now: connection 1 was closed already, 2 gets its CLOSE
        Object[] close2 = relay.next();
        assertThat(close2[0]).isEqualTo(RelayMux.CLOSE);
        assertThat(close2[1]).isEqualTo(2L);
    }

    @Test
    void readingGrantsCreditBack() throws Exception {
        FakeRelay relay = fakeRelay();
        mux = new RelayMux(relay.muxIn, relay.muxOut, (in, out) -> in.transferTo(OutputStream.nullOutputStream()))
                .start();
        relay.send(hello(1), frame(RelayMux.OPEN, 1));
        byte[] chunk = new byte[RelayMux.MAX_PAYLOAD];
        long granted = 0;
        long sent = 0;
        while (sent < 8L * RelayMux.WINDOW) { // 8 windows' worth, sent as a well-behaved relay: only within credit
            if (RelayMux.WINDOW - (sent - granted) >= chunk.length) {
                relay.send(frame(RelayMux.DATA, 1, chunk));
                sent += chunk.length;
            } else {
                Object[] f = relay.next();
                assertThat(f[0]).isEqualTo(RelayMux.CREDIT);
                granted += ByteBuffer.wrap((byte[]) f[2]).getInt() & 0xffffffffL;
            }
        }
        assertThat(mux.failure()).isNull();
        assertThat(mux.peakConnectionBytes()).isLessThanOrEqualTo(RelayMux.WINDOW);
    }

    @Test
    void writing_stopsAtTheWindowUntilCreditComes() throws Exception {
        FakeRelay relay = fakeRelay();
        mux = new RelayMux(relay.muxIn, relay.muxOut, (in, out) -> out.write(new byte[3 * RelayMux.WINDOW])).start();
        relay.send(hello(1), frame(RelayMux.OPEN, 1));
        long got = 0;
        while (got < RelayMux.WINDOW) {
            Object[] f = relay.next();
            assertThat(f[0]).isEqualTo(RelayMux.DATA);
            got += ((byte[]) f[2]).length;
        }
        assertThat(got).isEqualTo(RelayMux.WINDOW);
        Thread.sleep(300);
        assertThat(relay.stdinReader.available()).as("nothing beyond the window without credit").isZero();
        relay.send(frame(RelayMux.CREDIT, 1, credit(RelayMux.WINDOW)));
        while (got < 2L * RelayMux.WINDOW) {
            got += ((byte[]) relay.next()[2]).length;
        }
        assertThat(got).isEqualTo(2L * RelayMux.WINDOW);
    }

    @Test
    void creditBeyondTheWindow_abortsThatConnection() throws Exception {
        FakeRelay relay = fakeRelay();
        CountDownLatch never = new CountDownLatch(1);
        mux = new RelayMux(relay.muxIn, relay.muxOut, (in, out) -> {
            try {
                never.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }).start();
        relay.send(hello(1), frame(RelayMux.OPEN, 5), frame(RelayMux.CREDIT, 5, credit(1)));
        Object[] f = relay.next();
        assertThat(f[0]).isEqualTo(RelayMux.CLOSE);
        assertThat(f[1]).isEqualTo(5L);
        never.countDown();
    }

    @Test
    void connectionsBeyondTheMaximum_areRefused() throws Exception {
        FakeRelay relay = fakeRelay();
        CountDownLatch never = new CountDownLatch(1);
        mux = new RelayMux(relay.muxIn, relay.muxOut, (in, out) -> {
            try {
                never.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, 2, Duration.ofMinutes(1)).start();
        relay.send(hello(1), frame(RelayMux.OPEN, 1), frame(RelayMux.OPEN, 2), frame(RelayMux.OPEN, 3));
        Object[] f = relay.next();
        assertThat(f[0]).isEqualTo(RelayMux.CLOSE);
        assertThat(f[1]).isEqualTo(3L);
        assertThat(mux.openConnections()).isEqualTo(2);
        never.countDown();
    }

    @Test
    void handlersStillRunningAfterTheRelayClosed_stillCountAgainstTheMaximum() throws Exception {
        FakeRelay relay = fakeRelay();
        CountDownLatch release = new CountDownLatch(1);
        mux = new RelayMux(relay.muxIn, relay.muxOut, (in, out) -> {
            try {
                release.await(); // e.g. a proxy still waiting on its upstream after the client went away
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, 2, Duration.ofMinutes(1)).start();
        relay.send(hello(1), frame(RelayMux.OPEN, 1), frame(RelayMux.CLOSE, 1), frame(RelayMux.OPEN, 2),
                frame(RelayMux.CLOSE, 2), frame(RelayMux.OPEN, 3));
        Object[] f = relay.next();
        assertThat(f[0]).isEqualTo(RelayMux.CLOSE);
        assertThat(f[1]).as("the third connection is refused: two handlers still run").isEqualTo(3L);
        assertThat(mux.openConnections()).isEqualTo(2);
        release.countDown();
        waitUntil(() -> mux.openConnections() == 0);
        relay.send(frame(RelayMux.OPEN, 4), frame(RelayMux.EOF, 4));
        waitUntil(() -> mux.peakConnections() == 2 && mux.openConnections() == 0);
        Object[] accepted = relay.next();
        assertThat(accepted[1]).as("a later connection is served again").isEqualTo(4L);
    }

    @Test
    @org.junit.jupiter.api.Timeout(20)
    void aClientThatNeverFinishesItsHead_isClosedThroughTheMuxToo() throws Exception {
        FakeRelay relay = fakeRelay();
        EgressProxy proxy = EgressProxy.builder(dev.sandbox4j.NetworkPolicy.ALLOW_ALL)
                .headTimeout(Duration.ofMillis(300)).resolver(host -> {
                    throw new AssertionError("nothing to resolve");
                }).build();
        mux = new RelayMux(relay.muxIn, relay.muxOut, proxy::serve).start();
        long start = System.nanoTime();
        relay.send(hello(1), frame(RelayMux.OPEN, 1),
                frame(RelayMux.DATA, 1, "GET http://a.test/ HTTP/1.1\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII)));
        Object[] f = relay.next();
        while (!f[0].equals(RelayMux.CLOSE)) {
            assertThat(f[0]).as("no response bytes, only EOF/CLOSE").isNotEqualTo(RelayMux.DATA);
            f = relay.next();
        }
        assertThat(f[1]).isEqualTo(1L);
        assertThat(System.nanoTime() - start).isBetween(TimeUnit.MILLISECONDS.toNanos(250),
                TimeUnit.SECONDS.toNanos(10));
    }

    @Test
    void protocolViolations_endTheMuxWithTheReason() throws Exception {
        assertEnds("the first frame was not HELLO", frame(RelayMux.OPEN, 1));
        assertEnds("protocol 9", frame(RelayMux.HELLO, 0, new byte[] {9, 0, 1}));
        assertEnds("frame of 16385 bytes", hello(1), new byte[] {3, 0, 0, 0, 1, 0, 0, 0x40, 1});
        assertEnds("frame of 4294967295 bytes", hello(1), new byte[] {3, 0, 0, 0, 1, -1, -1, -1, -1});
        assertEnds("bad OPEN", hello(1), frame(RelayMux.OPEN, 2), frame(RelayMux.OPEN, 2));
        assertEnds("unknown frame type 77", hello(1), frame(77, 1));
        assertEnds("truncated frame", hello(1), new byte[] {2, 0, 0});
        assertEnds("truncated frame", hello(1), new byte[] {3, 0, 0, 0, 1, 0, 0, 0, 9, 1, 2});
        assertEnds("CREDIT of length 3", hello(1), frame(RelayMux.CREDIT, 1, new byte[3]));
        assertEnds("empty DATA", hello(1), frame(RelayMux.DATA, 1));
        assertEnds(null, hello(1)); // a clean end between frames is no failure
    }

    @Test
    void aRelayThatStopsReadingItsStdin_cannotQueueUnboundedRefusals() throws Exception {
        ByteArrayOutputStream script = new ByteArrayOutputStream();
        script.write(hello(1));
        for (int i = 1; i <= 6000; i++) {
            script.write(frame(RelayMux.OPEN, i));
        }
        CountDownLatch closed = new CountDownLatch(1);
        OutputStream stuck = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                try {
                    closed.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw new IOException("closed");
            }

            @Override
            public void close() {
                closed.countDown();
            }
        };
        CountDownLatch never = new CountDownLatch(1);
        mux = new RelayMux(new ByteArrayInputStream(script.toByteArray()), stuck, (in, out) -> {
            try {
                never.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, 1, Duration.ofMinutes(1)).start();
        assertThat(mux.awaitClosed(Duration.ofSeconds(10))).isTrue();
        assertThat(mux.failure()).contains("not reading its stdin");
        never.countDown();
    }

    /**
     * Random, mostly well-formed but hostile relays: every run must end (the input ends) within seconds, with no
     * internal error, no connection holding more than its window, no more connections than allowed, and no thread
     * left behind.
     */
    @Test
    void fuzz_randomAndTruncatedFrames_neverHangThrowOrGrow() throws Exception {
        int maxConnections = 4;
        for (int seed = 0; seed < 400; seed++) {
            Random rnd = new Random(seed);
            byte[] input = randomRelayOutput(rnd);
            if (rnd.nextInt(4) == 0) {
                input = java.util.Arrays.copyOf(input, rnd.nextInt(input.length + 1));
            }
            RelayMux m = new RelayMux(new ByteArrayInputStream(input), OutputStream.nullOutputStream(),
                    (in, out) -> {
                        int kind = ThreadLocalRandom.current().nextInt(3);
                        if (kind == 0) { // a handler that never reads: what the relay sends must stay bounded
                            try {
                                Thread.sleep(300);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            return;
                        }
                        byte[] buf = new byte[1 + ThreadLocalRandom.current().nextInt(40000)];
                        int n = in.read(buf);
                        if (n > 0) {
                            out.write(buf, 0, n);
                        }
                        if (kind == 2) {
                            in.transferTo(OutputStream.nullOutputStream());
                        }
                        out.close();
                    }, maxConnections, Duration.ofMillis(200)).start();
            assertThat(m.awaitClosed(Duration.ofSeconds(10))).as("seed %d ended", seed).isTrue();
            String failure = m.failure();
            assertThat(failure == null || !failure.contains("internal error")).as("seed %d: %s", seed, failure)
                    .isTrue();
            assertThat(m.peakConnectionBytes()).as("seed %d", seed).isLessThanOrEqualTo(RelayMux.WINDOW);
            assertThat(m.peakConnections()).as("seed %d", seed).isLessThanOrEqualTo(maxConnections);
        }
        waitUntil(() -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().startsWith("sandbox4j-relay-")));
    }

    private static byte[] randomRelayOutput(Random rnd) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (rnd.nextInt(10) > 0) {
            out.write(hello(1 + rnd.nextInt(65535)));
        }
        long nextId = 1;
        int frames = rnd.nextInt(300);
        for (int i = 0; i < frames; i++) {
            // mostly one of the last few connections opened, so that some receive more than their window
            long id = rnd.nextInt(5) == 0 ? rnd.nextInt(Integer.MAX_VALUE)
                    : Math.max(1, nextId - 1 - rnd.nextInt(3));
            // frames that end the mux (an unknown type, junk) are rare, so most runs get deep into the stream
            int pick = rnd.nextInt(200);
            switch (pick < 2 ? 9 + pick : rnd.nextInt(9) == 8 ? 11 : rnd.nextInt(9)) {
                case 0, 1 -> out.write(frame(RelayMux.OPEN, rnd.nextInt(8) == 0 ? id : nextId++));
                case 2, 3, 4, 5 -> {
                    byte[] p = new byte[rnd.nextInt(8) == 0 ? 0 : 1 + rnd.nextInt(RelayMux.MAX_PAYLOAD)];
                    rnd.nextBytes(p);
                    out.write(frame(RelayMux.DATA, id, p));
                }
                case 6 -> out.write(frame(RelayMux.EOF, id));
                case 7 -> out.write(frame(RelayMux.CLOSE, id));
                case 8 -> out.write(frame(RelayMux.CREDIT, id, credit(rnd.nextInt(RelayMux.WINDOW + 10))));
                case 9 -> out.write(frame(rnd.nextInt(256), id, new byte[rnd.nextInt(5)]));
                case 10 -> {
                    byte[] junk = new byte[rnd.nextInt(20)];
                    rnd.nextBytes(junk);
                    out.write(junk);
                }
                default -> out.write(frame(RelayMux.DATA, id, new byte[RelayMux.MAX_PAYLOAD]));
            }
        }
        return out.toByteArray();
    }

    private static void assertEnds(String reason, byte[]... frames) throws Exception {
        ByteArrayOutputStream script = new ByteArrayOutputStream();
        for (byte[] f : frames) {
            script.write(f);
        }
        RelayMux m = new RelayMux(new ByteArrayInputStream(script.toByteArray()), OutputStream.nullOutputStream(),
                (in, out) -> in.transferTo(out)).start();
        assertThat(m.awaitClosed(Duration.ofSeconds(5))).isTrue();
        if (reason == null) {
            assertThat(m.failure()).isNull();
        } else {
            assertThat(m.failure()).contains(reason);
        }
    }

    private static void waitUntil(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 10 s");
            }
            Thread.sleep(20);
        }
    }
}
