package dev.sandbox4j.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The native agent ({@code sbx-agent}) driven directly on the host, outside bwrap, through the host's codec: the
 * protocol as the host uses it, hostile and garbage frames, bounded memory under output and input floods, many
 * commands at once. Needs no jail, only the binaries of this build.
 */
class AgentProtocolTest {
    @TempDir
    Path dir;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void speaksTheHostsProtocol() throws Exception {
        try (AgentRun a = AgentRun.start(dir)) {
            a.send(AgentProtocol.SPAWN, 1, AgentRun.spawnPayload(List.of("/bin/sh", "-c",
                    "echo \"out $FOO $BASE $PWD\"; cat; echo err >&2; exit 7"), List.of("FOO=bar", "BASE=spawned"),
                    dir.toString()));
            AgentProtocol.Frame spawned = a.next();
            assertThat(spawned.type()).isEqualTo(AgentProtocol.SPAWNED);
            assertThat(spawned.id()).isEqualTo(1);
            int pid = AgentProtocol.readInt(spawned.payload());
            assertThat(a.children()).containsExactly((long) pid);
            a.send(AgentProtocol.GO, 1, new byte[0]);
            a.send(AgentProtocol.STDIN, 1, bytes("in 1\n"));
            a.send(AgentProtocol.STDIN, 1, bytes("in 2\n"));
            a.send(AgentProtocol.STDIN_CLOSE, 1, new byte[0]);
            Object[] r = a.awaitEnd(1);
            assertThat(r).containsExactly(7, "out bar spawned " + dir + "\nin 1\nin 2\n", "err\n", null);

            a.send(AgentProtocol.SPAWN, 2, AgentRun.spawnPayload(List.of("true"), List.of(), "/no/such/dir"));
            assertThat(a.awaitEnd(2)[3]).isEqualTo("working directory does not exist: /no/such/dir");

            // a command not found is the reaper's 127, said as a shell says it (issue 36)
            a.run(3, List.of("no-such-command-here"), null);
            Object[] notFound = a.awaitEnd(3);
            assertThat(notFound[0]).isEqualTo(127);
            assertThat(notFound[2]).isEqualTo("no-such-command-here: command not found\n");

            a.run(4, List.of("sleep", "100"), null);
            a.send(AgentProtocol.SIGNAL, 4, new byte[] {15});
            assertThat(a.awaitEnd(4)[0]).isEqualTo(143);
            a.send(AgentProtocol.SPAWN, 5, AgentRun.spawnPayload(List.of("sleep", "100"), List.of(), "/"));
            a.send(AgentProtocol.GO, 5, new byte[0]);
            a.send(AgentProtocol.SIGNAL, 5, new byte[] {9});
            long t0 = System.nanoTime();
            assertThat(a.awaitEnd(5)[0]).isEqualTo(137);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(2000);

            // the host closing the channel ends the agent and what it runs
            a.run(6, List.of("sleep", "100"), null);
            AgentProtocol.Frame f = a.next();
            assertThat(f.type()).isEqualTo(AgentProtocol.SPAWNED);
            long reaper = AgentProtocol.readInt(f.payload());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            List<ProcessHandle> sleeper = List.of();
            while (sleeper.isEmpty() && System.nanoTime() < deadline) {
                sleeper = ProcessHandle.of(reaper).map(h -> h.children().toList()).orElse(List.of());
                Thread.sleep(5);
            }
            assertThat(sleeper).as("the reaper's command").hasSize(1);
            long command = sleeper.get(0).pid();
            assertThat(a.closeAndAwait(5)).isZero();
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while ((AgentRun.alive(reaper) || AgentRun.alive(command)) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(AgentRun.alive(reaper)).as("reaper of a command after the agent ended").isFalse();
            assertThat(AgentRun.alive(command)).as("the command after the agent ended").isFalse();
        }
    }

    /** The host's rlimit flags: RLIMIT_NPROC = N + 2 here (the agent, not pid 1 here, and an init), RLIMIT_DATA, soft = hard. */
    @Test
    void rlimitFlagsReachEveryCommand() throws Exception {
        // RLIMIT_NPROC counts every task of the user on the host here (no jail): as a non-root user this JVM's own
        // threads count, so the limit is set far above them (at 40 the command's fork failed, exit 125, once)
        try (AgentRun a = AgentRun.start(dir, "--nproc=9998", "--data=" + (512L << 20))) {
            a.run(1, List.of("cat", "/proc/self/limits"), null);
            Object[] r = a.awaitEnd(1);
            assertThat(r[0]).isEqualTo(0);
            assertThat(((String) r[1]).lines().map(l -> l.trim().split("\\s{2,}")).filter(f -> f.length >= 3)
                    .map(f -> f[0] + "=" + f[1] + ":" + f[2]).toList())
                    .contains("Max processes=10000:10000", "Max data size=" + (512L << 20) + ":" + (512L << 20));
        }
        Path agent = AgentRun.extract(dir, AgentBinary.AGENT);
        for (String bad : List.of("--nproc=x", "--data=-1", "--nproc=", "--what")) {
            Process p = new ProcessBuilder(agent.toString(), bad).redirectErrorStream(true).start();
            assertThat(p.waitFor(5, TimeUnit.SECONDS)).as("agent with %s ended", bad).isTrue();
            assertThat(p.exitValue()).as("exit code with %s", bad).isEqualTo(2);
            assertThat(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).as("output with %s", bad)
                    .doesNotContain("\0\0\0\5\17").contains(bad);
        }
    }

    @Test
    void badFrameLengthsEndTheAgent() throws Exception {
        for (int len : new int[] {0, 4, -1, Integer.MIN_VALUE, (16 << 20) + 1, Integer.MAX_VALUE}) {
            try (AgentRun a = AgentRun.start(dir)) {
                DataOutputStream d = new DataOutputStream(a.raw());
                d.writeInt(len);
                d.write(new byte[] {AgentProtocol.STDIN, 0, 0, 0, 1});
                d.flush();
                assertThat(a.awaitExit(5)).as("exit code after a frame of length %d", len).isEqualTo(2);
                assertThat(a.stderr()).contains("bad frame length");
            }
        }
    }

    @Test
    void hostileSpawnPayloadsAreRefusedAndTheAgentCarriesOn() throws Exception {
        byte[] good = AgentRun.spawnPayload(List.of("true"), List.of(), "/");
        List<byte[]> hostile = new ArrayList<>(List.of(
                new byte[0],
                new byte[] {0x7f, -1, -1, -1},                                  // 2^31-1 strings
                new byte[] {0, 0, 0, 1, 0x7f, -1, -1, -1, 'a'},                // a string longer than the frame
                new byte[] {0, 0, 0, 1, -1, -1, -1, -1, 'a'},                  // negative string length
                new byte[] {0, 0, 0, 1, 0, 0, 0, 2, 'a'},                      // truncated string
                AgentRun.spawnPayload(List.of(), List.of(), "/"),              // no argv
                AgentRun.spawnPayload(List.of("tr\0ue"), List.of(), "/"),      // NUL in argv
                AgentRun.spawnPayload(List.of("true"), List.of("NOEQUALS"), "/"),
                AgentRun.spawnPayload(List.of("true"), List.of("=x"), "/"),
                AgentRun.spawnPayload(List.of("true"), List.of(), "/\0etc"),
                java.util.Arrays.copyOf(good, good.length - 6)));              // no cwd list
        try (AgentRun a = AgentRun.start(dir)) {
            int id = 100;
            for (byte[] p : hostile) {
                a.send(AgentProtocol.SPAWN, ++id, p);
                Object[] r = a.awaitEnd(id);
                assertThat(r[3]).as("payload %d", id).isNotNull();
            }
            // unknown types and frames for commands that do not exist change nothing
            a.send((byte) 99, 1, bytes("x"));
            a.send(AgentProtocol.GO, 12345, new byte[0]);
            a.send(AgentProtocol.STDIN, 12345, bytes("x"));
            a.send(AgentProtocol.STDIN_CLOSE, 12345, new byte[0]);
            a.send(AgentProtocol.SIGNAL, 12345, new byte[] {9});
            a.send(AgentProtocol.SIGNAL, 12345, new byte[0]);
            // a duplicate id is refused while the first command runs
            a.send(AgentProtocol.SPAWN, 7, AgentRun.spawnPayload(List.of("sleep", "100"), List.of(), "/"));
            assertThat(a.next().type()).isEqualTo(AgentProtocol.SPAWNED);
            a.send(AgentProtocol.SPAWN, 7, good);
            AgentProtocol.Frame dup = a.next();
            assertThat(dup.type()).isEqualTo(AgentProtocol.FAILED);
            assertThat(new String(dup.payload(), StandardCharsets.UTF_8)).contains("duplicate");
            a.send(AgentProtocol.SIGNAL, 7, new byte[] {9});
            assertThat(a.awaitEnd(7)[0]).isEqualTo(137);
            a.run(8, List.of("echo", "still here"), null);
            assertThat(a.awaitEnd(8)).containsExactly(0, "still here\n", "", null);
            assertThat(a.closeAndAwait(5)).isZero();
        }
    }

    /** Random bytes, then EOF: the agent refuses (exit 2) or waits for the rest and ends at EOF; never hangs. */
    @Test
    void garbageNeverHangsTheAgent() throws Exception {
        var pool = Executors.newCachedThreadPool();
        for (int seed = 0; seed < 40; seed++) {
            Random random = new Random(seed);
            byte[] garbage = new byte[1 + random.nextInt(8192)];
            random.nextBytes(garbage);
            if (seed % 2 == 0) {
                // a plausible length prefix, so the type, id and payload parsers see the garbage too
                int len = 5 + random.nextInt(garbage.length);
                garbage[0] = (byte) (len >>> 24);
                garbage[1] = (byte) (len >>> 16);
                garbage[2] = (byte) (len >>> 8);
                garbage[3] = (byte) len;
                garbage[4] = (byte) (1 + random.nextInt(5));
            }
            try (AgentRun a = AgentRun.start(dir)) {
                OutputStream raw = a.raw();
                try {
                    raw.write(garbage);
                    raw.flush();
                } catch (IOException gone) {
                    // it refused the stream already
                }
                Future<?> drain = pool.submit(() -> {
                    while (a.next() != null) {
                        // discard
                    }
                    return null;
                });
                int code = a.closeAndAwait(10);
                assertThat(code).as("exit code after garbage (seed %d)", seed).isIn(0, 2);
                drain.get(10, TimeUnit.SECONDS);
            }
        }
        pool.shutdown();
    }

    @Test
    void maximalFramesDoNotAccumulate() throws Exception {
        try (AgentRun a = AgentRun.start(dir)) {
            byte[] big = new byte[(16 << 20) - 5];
            for (int i = 0; i < 24; i++) {
                a.send(AgentProtocol.STDIN, 4242, big); // no such command: read and dropped
            }
            a.run(1, List.of("true"), null);
            assertThat(a.awaitEnd(1)[0]).isEqualTo(0);
            // one frame's buffer at a time (16 MiB), never 24 of them; given back afterwards
            assertThat(a.memKib("VmHWM")).as("peak RSS KiB").isLessThan(40 << 10);
            assertThat(a.memKib("VmRSS")).as("RSS KiB after the big frames").isLessThan(8 << 10);
        }
    }

    /** Output far larger than the pipes, read slowly: the agent stops reading the command, its memory stays put. */
    @Test
    void outputFloodWithASlowReaderKeepsTheAgentSmall() throws Exception {
        long total = 128L << 20;
        try (AgentRun a = AgentRun.start(dir)) {
            a.run(1, List.of("head", "-c", Long.toString(total), "/dev/zero"), null);
            long got = 0;
            long maxRss = 0;
            int frames = 0;
            Integer exit = null;
            for (AgentProtocol.Frame f; exit == null && (f = a.next()) != null; ) {
                byte type = f.type();
                if (type == AgentProtocol.STDOUT) {
                    got += (f.payload()).length;
                    if (++frames % 32 == 0) {
                        maxRss = Math.max(maxRss, a.memKib("VmRSS"));
                        Thread.sleep(20); // ~100 MiB/s at most: slower than head writes
                    }
                } else if (type == AgentProtocol.EXIT) {
                    exit = AgentProtocol.readInt(f.payload());
                }
            }
            assertThat(exit).isZero();
            assertThat(got).isEqualTo(total);
            assertThat(maxRss).as("agent RSS KiB while 128 MiB went by").isGreaterThan(0).isLessThan(8 << 10);
            assertThat(a.memKib("VmHWM")).as("agent peak RSS KiB").isLessThan(8 << 10);
        }
    }

    /** Stdin for a command that does not read yet: at most a bounded queue, then the host's writes wait. */
    @Test
    void stdinFloodIsBoundedThenDelivered() throws Exception {
        int total = 64 << 20;
        try (AgentRun a = AgentRun.start(dir)) {
            a.send(AgentProtocol.SPAWN, 1, AgentRun.spawnPayload(List.of("/bin/sh", "-c", "sleep 2; wc -c"), List.of(),
                    "/"));
            a.send(AgentProtocol.GO, 1, new byte[0]);
            var pool = Executors.newSingleThreadExecutor();
            Future<?> writer = pool.submit(() -> {
                byte[] chunk = new byte[1 << 20];
                for (int i = 0; i < total / chunk.length; i++) {
                    a.send(AgentProtocol.STDIN, 1, chunk);
                }
                a.send(AgentProtocol.STDIN_CLOSE, 1, new byte[0]);
                return null;
            });
            long maxRss = 0;
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
            while (System.nanoTime() < until) {
                maxRss = Math.max(maxRss, a.memKib("VmRSS"));
                Thread.sleep(20);
            }
            assertThat(writer.isDone()).as("host writes wait while the command does not read").isFalse();
            Object[] r = a.awaitEnd(1);
            writer.get(30, TimeUnit.SECONDS);
            pool.shutdown();
            assertThat(r).containsExactly(0, total + "\n", "", null);
            assertThat(maxRss).as("agent RSS KiB with 64 MiB of stdin waiting").isLessThan(24 << 10);
        }
    }

    @Test
    void manyCommandsAtOnce() throws Exception {
        int n = 300;
        try (AgentRun a = AgentRun.start(dir)) {
            for (int id = 1; id <= n; id++) {
                a.run(id, List.of("/bin/sh", "-c", "i=0; while [ $i -lt 20 ]; do echo \"$0-$i\"; i=$((i+1)); done;"
                        + " cat; echo \"$0\" >&2; exit $(( $0 % 7 ))", Integer.toString(id)), bytes("stdin-" + id));
            }
            Map<Integer, StringBuilder> out = new HashMap<>();
            Map<Integer, StringBuilder> err = new HashMap<>();
            Map<Integer, Integer> exits = new HashMap<>();
            int spawned = 0;
            while (exits.size() < n) {
                AgentProtocol.Frame f = a.next();
                assertThat(f).as("frames until every command ended").isNotNull();
                int id = f.id();
                String text = new String(f.payload(), StandardCharsets.UTF_8);
                switch (f.type()) {
                    case AgentProtocol.SPAWNED -> {
                        assertThat(exits).doesNotContainKey(id);
                        spawned++;
                    }
                    case AgentProtocol.STDOUT -> out.computeIfAbsent(id, k -> new StringBuilder()).append(text);
                    case AgentProtocol.STDERR -> err.computeIfAbsent(id, k -> new StringBuilder()).append(text);
                    case AgentProtocol.EXIT -> exits.put(id, AgentProtocol.readInt(f.payload()));
                    case AgentProtocol.FAILED -> throw new AssertionError("command " + id + " failed: " + text);
                    default -> throw new AssertionError("unexpected frame " + f.type());
                }
            }
            assertThat(spawned).isEqualTo(n);
            for (int id = 1; id <= n; id++) {
                StringBuilder expect = new StringBuilder();
                for (int i = 0; i < 20; i++) {
                    expect.append(id).append('-').append(i).append('\n');
                }
                expect.append("stdin-").append(id);
                assertThat(out.get(id)).as("stdout of %d (exit %s, stderr %s)", id, exits.get(id), err.get(id))
                        .hasToString(expect.toString());
                assertThat(err.get(id)).as("stderr of %d", id).hasToString(id + "\n");
                assertThat(exits.get(id)).as("exit of %d", id).isEqualTo(id % 7);
            }
            assertThat(a.closeAndAwait(5)).isZero();
        }
    }
}
