package dev.sandbox4j.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's side of the output cap (SPAWN's keep): a host buffer fed with what the agent sends (its streamed head,
 * SKIPPED, its ring) must hold exactly what it holds when fed the whole stream, for every length around the cap's
 * boundaries and for text that is not ASCII or not UTF-8 at all; and the channel carries about three times the keep,
 * whatever the command prints. The real agent binary, on the host, through the host's codec.
 */
class AgentOutputCapTest {
    @TempDir
    Path dir;

    /** The host buffers for one command, fed from the agent's frames; the bytes that crossed the channel. */
    private static final class Received {
        final OutputBuffer out;
        final OutputBuffer err;
        long channelBytes;
        int skips;
        int exit = -1;

        Received(int limit) {
            out = new OutputBuffer(limit);
            err = new OutputBuffer(limit);
        }
    }

    private static byte[] spawn(List<String> argv, String cwd, int keep) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(AgentRun.spawnPayload(argv, List.of(), cwd));
        b.writeBytes(ByteBuffer.allocate(4).putInt(keep).array());
        return b.toByteArray();
    }

    private static void runCapped(AgentRun a, int id, List<String> argv, String cwd, int keep) throws IOException {
        a.send(AgentProtocol.SPAWN, id, spawn(argv, cwd, keep));
        a.send(AgentProtocol.GO, id, new byte[0]);
        a.send(AgentProtocol.STDIN_CLOSE, id, new byte[0]);
    }

    /** Reads frames until every command in {@code got} has ended. */
    private static void awaitAll(AgentRun a, Map<Integer, Received> got) throws IOException {
        readUntil(a, got, () -> got.values().stream().allMatch(r -> r.exit >= 0));
        assertThat(got.values()).as("commands still running when the agent's output ended")
                .allMatch(r -> r.exit >= 0);
    }

    /** Reads frames until {@code done} holds or the agent's output ends. */
    private static void readUntil(AgentRun a, Map<Integer, Received> got, java.util.function.BooleanSupplier done)
            throws IOException {
        for (AgentProtocol.Frame f; !done.getAsBoolean() && (f = a.next()) != null; ) {
            Received r = got.get(f.id());
            if (r == null) {
                continue;
            }
            byte[] p = f.payload();
            switch (f.type()) {
                case AgentProtocol.STDOUT -> {
                    r.out.write(p);
                    r.channelBytes += p.length;
                }
                case AgentProtocol.STDERR -> {
                    r.err.write(p);
                    r.channelBytes += p.length;
                }
                case AgentProtocol.SKIPPED -> {
                    assertThat(p).hasSize(17);
                    (p[0] == AgentProtocol.STDERR ? r.err : r.out).skip(AgentProtocol.readLong(p, 1),
                            AgentProtocol.readLong(p, 9));
                    r.skips++;
                }
                case AgentProtocol.EXIT -> r.exit = AgentProtocol.readInt(p);
                case AgentProtocol.FAILED -> throw new AssertionError(new String(p));
                default -> { }
            }
        }
    }

    /** Text mixing ASCII, 2-, 3- and 4-byte characters, stray continuation bytes and bytes UTF-8 never has. */
    private static byte[] mixed(Random r, int length) {
        ByteArrayOutputStream b = new ByteArrayOutputStream(length + 4);
        String[] pieces = {"a", "b\n", "é", "€", "😀", "\u0800"};
        while (b.size() < length) {
            switch (r.nextInt(8)) {
                case 0 -> b.write(0x80 + r.nextInt(64));      // a continuation byte on its own
                case 1 -> b.write(0xF8 + r.nextInt(8));       // never in UTF-8
                default -> b.writeBytes(pieces[r.nextInt(pieces.length)].getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        byte[] all = b.toByteArray();
        return java.util.Arrays.copyOf(all, length); // may end inside a character
    }

    private static OutputBuffer whole(int limit, byte[] bytes) {
        OutputBuffer b = new OutputBuffer(limit);
        b.write(bytes);
        b.finish();
        return b;
    }

    @Test
    void aCappedStreamEndsAsIfTheHostHadSeenEveryByte() throws Exception {
        int limit = 25;
        int keep = 4 * limit;
        Random random = new Random(12);
        List<Integer> lengths = new ArrayList<>(List.of(0, 1, 2 * limit, 2 * limit + 1));
        for (int k = 1; k <= 5; k++) {
            for (int d = -3; d <= 3; d++) {
                lengths.add(k * keep + d);
            }
        }
        lengths.addAll(List.of(10 * keep + 3, 1_000 * keep + 7, 3 * 65_536 + 1));
        for (int i = 0; i < 20; i++) {
            lengths.add(random.nextInt(40 * keep));
        }
        try (AgentRun a = AgentRun.start(dir)) {
            Map<Integer, Received> got = new HashMap<>();
            Map<Integer, byte[]> sent = new HashMap<>();
            int id = 0;
            for (int length : lengths) {
                byte[] bytes = mixed(random, length);
                Path file = dir.resolve("out-" + (++id));
                Files.write(file, bytes);
                sent.put(id, bytes);
                got.put(id, new Received(limit));
                // stdout and stderr at once, so both rings run side by side
                runCapped(a, id, List.of("/bin/sh", "-c", "cat \"$0\" >&2 & cat \"$0\"; wait", file.toString()),
                        dir.toString(), keep);
                if (got.size() == 8) {
                    awaitAll(a, got);
                    check(got, sent, limit, keep);
                    got.clear();
                }
            }
            awaitAll(a, got);
            check(got, sent, limit, keep);
        }
    }

    private static void check(Map<Integer, Received> got, Map<Integer, byte[]> sent, int limit, int keep) {
        got.forEach((id, r) -> {
            byte[] bytes = sent.get(id);
            OutputBuffer expected = whole(limit, bytes);
            r.out.finish();
            r.err.finish();
            assertThat(r.exit).as("exit of the command printing %d bytes", bytes.length).isZero();
            assertThat(r.out.text()).as("stdout of %d bytes", bytes.length).isEqualTo(expected.text());
            assertThat(r.out.truncation()).as("stdout of %d bytes", bytes.length).isEqualTo(expected.truncation());
            assertThat(r.err.text()).as("stderr of %d bytes", bytes.length).isEqualTo(expected.text());
            assertThat(r.err.truncation()).as("stderr of %d bytes", bytes.length).isEqualTo(expected.truncation());
            assertThat(r.channelBytes).as("bytes that crossed the channel for %d bytes each way", bytes.length)
                    .isLessThanOrEqualTo(2L * Math.min(bytes.length, 3L * keep));
            assertThat(r.skips).as("SKIPPED frames for %d bytes each way", bytes.length)
                    .isEqualTo(bytes.length > 3 * keep ? 2 : 0);
        });
    }

    /** A gigabyte stays in the agent: a few hundred KiB cross the channel, the counts are exact, the agent stays small. */
    @Test
    void aFloodCrossesTheChannelAsHeadAndTailOnly() throws Exception {
        long total = 1L << 30;
        int limit = 15_000;
        try (AgentRun a = AgentRun.start(dir)) {
            Received r = new Received(limit);
            runCapped(a, 1, List.of("/bin/sh", "-c", "yes 'é€' | head -c " + total), "/", 4 * limit);
            awaitAll(a, Map.of(1, r));
            assertThat(r.exit).isZero();
            assertThat(r.channelBytes).isEqualTo(3L * 4 * limit);
            assertThat(r.out.truncation().totalBytes()).isEqualTo(total);
            // "é€\n" is 6 bytes and 3 characters; head -c ends on a whole line here (2^30 = 6 × 178956970 + 4)
            long chars = total / 6 * 3 + 2; // the last 4 bytes: "é" and the 2 first bytes of "€" → 1 + 1 chars counted
            // the last 15,000 characters start with the line break that ends a line cut in two: the cut moves past
            // it (issue 34), so one character more than 2 × limit is left out, and the tail starts a line
            assertThat(r.out.truncation().omittedChars()).isEqualTo(chars - 2L * limit + 1);
            assertThat(r.out.text()).startsWith("é€\né€\n").contains("characters truncated");
            String tail = r.out.text().substring(r.out.text().indexOf(" characters truncated ...]\n") + 27);
            assertThat(tail).startsWith("é€\né€\n").hasSize(limit - 1);
            assertThat(a.memKib("VmHWM")).as("agent peak RSS KiB").isLessThan(8 << 10);
        }
    }

    /**
     * Rings are bounded across commands: commands that find no room send their output whole, and every result is
     * still exact.
     */
    @Test
    void commandsBeyondTheRingBudgetSendTheirOutputWhole() throws Exception {
        int keep = AgentProtocol.MAX_KEEP;
        int limit = keep / 4;
        int commands = 40; // 40 rings of 1 MiB against a budget of 32 MiB
        long each = 3L * keep + 12_345;
        try (AgentRun a = AgentRun.start(dir)) {
            Map<Integer, Received> got = new HashMap<>();
            Path gate = dir.resolve("gate");
            for (int id = 1; id <= commands; id++) {
                got.put(id, new Received(limit));
                // each passes its head, then waits at the gate: all want a ring before any ends and frees one
                runCapped(a, id, List.of("/bin/sh", "-c", "head -c " + (2 * keep + 10) + " /dev/zero; "
                        + "while [ ! -e \"$0\" ]; do sleep 0.05; done; head -c " + (each - 2 * keep - 10)
                        + " /dev/zero", gate.toString()), "/", keep);
            }
            readUntil(a, got, () -> got.values().stream().allMatch(r -> r.channelBytes >= 2L * keep));
            Thread.sleep(300); // the 10 bytes after each head reach the agent, which takes a ring for them or not
            Files.createFile(gate);
            awaitAll(a, got);
            OutputBuffer expected = whole(limit, new byte[(int) each]);
            int whole = 0;
            for (Received r : got.values()) {
                r.out.finish();
                assertThat(r.exit).isZero();
                assertThat(r.out.truncation()).isEqualTo(expected.truncation());
                assertThat(r.out.text()).isEqualTo(expected.text());
                if (r.skips == 0) {
                    whole++;
                    assertThat(r.channelBytes).isEqualTo(each);
                }
            }
            assertThat(whole).as("commands that found no ring").isEqualTo(commands - 32);
            assertThat(a.memKib("VmHWM")).as("agent peak RSS KiB").isLessThan(48 << 10);
        }
    }
}
