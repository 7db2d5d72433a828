package dev.sandbox4j.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.FileWatch;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The golden frames ({@code src/test/resources/agent-frames}, described in {@code src/main/c/PROTOCOL.md}) against
 * the host's codec: {@link AgentProtocol} decodes each to the fields it stands for and encodes those fields to the
 * same bytes, {@link AgentChannel} writes the host's frames and reads the agent's exactly so. The C unit tests
 * ({@code src/test/c/test-agent.c}) hold the agent's code to the same files, so a change on one side only fails
 * a build. ({@link GeneratedHeadersTest} checks the numbers C gets from {@link AgentProtocol}.)
 */
class AgentFramesTest {
    /** Each golden frame: type, id and payload. */
    private static Map<String, AgentProtocol.Frame> frames() {
        Map<String, AgentProtocol.Frame> f = new LinkedHashMap<>();
        f.put("ready", of(AgentProtocol.READY, 0, ints(5)));
        f.put("spawn", of(AgentProtocol.SPAWN, 7, concat(strings("sh", "-c", "echo hi"), strings("LANG=C.UTF-8", "A=1"),
                strings("/workspace"), ints(4096))));
        f.put("file", of(AgentProtocol.FILE, 11, concat(strings("stat", "src/a.txt"), strings(), strings("/workspace"))));
        f.put("port-connect", of(AgentProtocol.FILE, 12, concat(strings("connect", "8000"), strings(),
                strings("/workspace"))));
        f.put("go", of(AgentProtocol.GO, 7, new byte[0]));
        f.put("stdin", of(AgentProtocol.STDIN, 7, utf8("data\n")));
        f.put("stdin-close", of(AgentProtocol.STDIN_CLOSE, 7, new byte[0]));
        f.put("signal", of(AgentProtocol.SIGNAL, 7, new byte[] {9}));
        f.put("spawned", of(AgentProtocol.SPAWNED, 7, ints(42)));
        f.put("stdout", of(AgentProtocol.STDOUT, 7, utf8("hi\n")));
        f.put("stderr", of(AgentProtocol.STDERR, 7, utf8("café\n")));
        f.put("skipped", of(AgentProtocol.SKIPPED, 7, ByteBuffer.allocate(17).put(AgentProtocol.STDOUT).putLong(1000)
                .putLong(990).array()));
        f.put("exit", of(AgentProtocol.EXIT, 7, ByteBuffer.allocate(12).putInt(0).putLong(-1).array()));
        f.put("exit-killed", of(AgentProtocol.EXIT, 8, ByteBuffer.allocate(12).putInt(137).putLong(2).array()));
        f.put("failed", of(AgentProtocol.FAILED, 8, utf8("bad SPAWN frame: truncated list")));
        f.put("watch", of(AgentProtocol.WATCH, 9, concat(new byte[] {1}, strings("/workspace/src", "src"))));
        f.put("unwatch", of(AgentProtocol.UNWATCH, 9, new byte[0]));
        f.put("watching", of(AgentProtocol.WATCHING, 9, ints(3)));
        f.put("watch-events", of(AgentProtocol.WATCH_EVENTS, 9, concat(
                record(AgentProtocol.EVENT_CREATE, false, 5, 1764201600123L, "src/a.txt", ""),
                record(AgentProtocol.EVENT_RENAME, true, 0, 1764201600456L, "src/new", "src/old"))));
        f.put("watch-overflow", of(AgentProtocol.WATCH_OVERFLOW, 9, new byte[0]));
        f.put("pty-spawn", of(AgentProtocol.SPAWN, 12, concat(strings("bash", "-i"), strings("TERM=xterm-256color"),
                strings("/workspace"), ints(0), ints(80), ints(24))));
        f.put("pty-resize", of(AgentProtocol.RESIZE, 12, concat(ints(132), ints(43))));
        byte[] key = new byte[32];
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) i;
        }
        f.put("attach-lease", of(AgentProtocol.LEASE, 5, ByteBuffer.allocate(44).putLong(600_000).putInt(7079).put(key)
                .array()));
        f.put("attach-leased", of(AgentProtocol.LEASED, 5, new byte[0]));
        // well-formed as a frame, refused by the agent when it parses the SPAWN (see the C tests)
        f.put("spawn-bad-list", of(AgentProtocol.SPAWN, 10, concat(ints(3), ints(2), utf8("sh"))));
        return f;
    }

    @Test
    void everyGoldenFrameDecodesToItsFieldsAndEncodesToItsBytes() throws IOException {
        for (Map.Entry<String, AgentProtocol.Frame> e : frames().entrySet()) {
            byte[] golden = golden(e.getKey());
            byte type = e.getValue().type();
            int id = e.getValue().id();
            byte[] payload = e.getValue().payload();

            DataInputStream in = new DataInputStream(new ByteArrayInputStream(golden));
            AgentProtocol.Frame frame = AgentProtocol.readFrame(in);
            assertThat(frame).as(e.getKey()).isNotNull();
            assertThat(frame.type()).as("%s: type", e.getKey()).isEqualTo(type);
            assertThat(frame.id()).as("%s: id", e.getKey()).isEqualTo(id);
            assertThat(frame.payload()).as("%s: payload", e.getKey()).isEqualTo(payload);
            assertThat(AgentProtocol.readFrame(in)).as("%s: one frame", e.getKey()).isNull();

            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            AgentProtocol.writeFrame(new DataOutputStream(bytes), type, id, payload, 0, payload.length);
            assertThat(bytes.toByteArray()).as("%s: encoded", e.getKey()).isEqualTo(golden);
        }
    }

    @Test
    void aLengthOutsideFiveToMaxFrameIsRefused() throws IOException {
        assertThatThrownBy(() -> AgentProtocol.readFrame(stream(golden("bad-length-short"))))
                .isInstanceOf(IOException.class).hasMessage("bad frame length 4");
        assertThatThrownBy(() -> AgentProtocol.readFrame(stream(golden("bad-length-long"))))
                .isInstanceOf(IOException.class).hasMessage("bad frame length " + (AgentProtocol.MAX_FRAME + 1));
    }

    @Test
    void theChannelWritesTheGoldenHostFrames() throws Exception {
        BytePipe fromAgent = new BytePipe(1 << 16);
        Capture toAgent = new Capture(fromAgent.out);
        AgentChannel channel = new AgentChannel("golden", fromAgent.in, toAgent, why -> {
        }).start();
        try {
            channel.spawn(7, List.of("sh", "-c", "echo hi"), List.of("LANG=C.UTF-8", "A=1"), "/workspace", 4096,
                    new Recorder());
            assertThat(toAgent.take()).as("spawn").isEqualTo(golden("spawn"));
            channel.go(7, true);
            assertThat(toAgent.take()).as("go").isEqualTo(golden("go"));
            channel.file(11, List.of("stat", "src/a.txt"), "/workspace", new Recorder());
            assertThat(toAgent.take()).as("file").isEqualTo(golden("file"));
            channel.file(12, List.of("connect", "8000"), "/workspace", new Recorder());
            assertThat(toAgent.take()).as("port-connect").isEqualTo(golden("port-connect"));
            channel.stdin(7, utf8("..data\n.."), 2, 5, true);
            assertThat(toAgent.take()).as("stdin").isEqualTo(golden("stdin"));
            channel.closeStdin(7, true);
            assertThat(toAgent.take()).as("stdin-close").isEqualTo(golden("stdin-close"));
            channel.signal(7, 9);
            assertThat(toAgent.take()).as("signal").isEqualTo(golden("signal"));
            channel.spawn(12, List.of("bash", "-i"), List.of("TERM=xterm-256color"), "/workspace", 0,
                    dev.sandbox4j.Terminal.of(80, 24), new Recorder());
            assertThat(toAgent.take()).as("pty-spawn").isEqualTo(golden("pty-spawn"));
            channel.resize(12, 132, 43);
            assertThat(toAgent.take()).as("pty-resize").isEqualTo(golden("pty-resize"));
            // the fake agent answers the WATCH with the golden WATCHING
            toAgent.answer = golden("watching");
            channel.watch(9, "/workspace/src", "src", true, new AgentChannel.WatchEvents() {
                @Override
                public void events(byte[] records) {
                }

                @Override
                public void overflow() {
                }

                @Override
                public void ended(String why) {
                }
            }, Duration.ofSeconds(10));
            assertThat(toAgent.take()).as("watch").isEqualTo(golden("watch"));
            channel.unwatch(9);
            assertThat(toAgent.take()).as("unwatch").isEqualTo(golden("unwatch"));
        } finally {
            channel.close();
            fromAgent.close();
        }
    }

    @Test
    void theChannelReadsTheGoldenAgentFrames() throws Exception {
        BytePipe fromAgent = new BytePipe(1 << 16);
        AgentChannel channel = new AgentChannel("golden", fromAgent.in, OutputStream.nullOutputStream(), why -> {
        });
        Recorder seven = new Recorder();
        Recorder eight = new Recorder();
        channel.spawn(7, List.of("true"), List.of(), "/", 4096, seven);
        channel.spawn(8, List.of("true"), List.of(), "/", 0, eight);
        channel.start();
        try {
            for (String f : List.of("ready", "spawned", "stdout", "stderr", "skipped", "exit", "failed")) {
                fromAgent.out.write(golden(f));
            }
            channel.awaitReady(Duration.ofSeconds(10));
            assertThat(seven.done.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(eight.done.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(seven.seen).containsExactly("spawned 42", "stdout hi\n", "stderr café\n",
                    "skipped stdout 1000 bytes 990 chars", "exited 0 oom -1");
            assertThat(eight.seen).containsExactly("failed bad SPAWN frame: truncated list");
        } finally {
            channel.close();
            fromAgent.close();
        }
    }

    @Test
    void goldenWatchEventsDecodeToTheirRecords() throws IOException {
        List<String> seen = new ArrayList<>();
        AgentWatches.decode(payload("watch-events"), sink(seen));
        assertThat(seen).containsExactly("CREATE src/a.txt from '' dir false size 5 mtime 1764201600123",
                "RENAME src/new from 'src/old' dir true size 0 mtime 1764201600456");
    }

    @Test
    void everyEventKindConstantNamesTheKindItDecodesTo() throws IllegalAccessException {
        int kinds = 0;
        for (Field f : AgentProtocol.class.getFields()) {
            if (!f.getName().startsWith("EVENT_")) {
                continue;
            }
            kinds++;
            byte code = f.getByte(null);
            String kind = f.getName().substring("EVENT_".length());
            List<String> seen = new ArrayList<>();
            AgentWatches.decode(record(code, false, 0, 0, "a", kind.equals("RENAME") ? "b" : ""), sink(seen));
            assertThat(seen).as(f.getName()).hasSize(1);
            assertThat(seen.get(0)).as(f.getName()).startsWith(kind + " a ");
        }
        assertThat(kinds).as("one EVENT_ constant per FileWatch.Kind").isEqualTo(FileWatch.Kind.values().length);
    }

    private static WatchHub.Sink sink(List<String> seen) {
        return new WatchHub.Sink() {
            @Override
            public void event(FileWatch.Kind kind, String path, String from, boolean dir, long size, long mtime) {
                seen.add(kind + " " + path + " from '" + from + "' dir " + dir + " size " + size + " mtime " + mtime);
            }

            @Override
            public void overflow() {
                seen.add("overflow");
            }

            @Override
            public void ended(String why) {
                seen.add("ended " + why);
            }
        };
    }

    /** Records a command's events; done at its final one. */
    private static final class Recorder implements AgentChannel.Events {
        final List<String> seen = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch done = new CountDownLatch(1);

        @Override
        public void spawned(int pid) {
            seen.add("spawned " + pid);
        }

        @Override
        public void failed(String message) {
            seen.add("failed " + message);
            done.countDown();
        }

        @Override
        public void stdout(byte[] bytes) {
            seen.add("stdout " + new String(bytes, StandardCharsets.UTF_8));
        }

        @Override
        public void stderr(byte[] bytes) {
            seen.add("stderr " + new String(bytes, StandardCharsets.UTF_8));
        }

        @Override
        public void skipped(boolean stderr, long bytes, long chars) {
            seen.add("skipped " + (stderr ? "stderr " : "stdout ") + bytes + " bytes " + chars + " chars");
        }

        @Override
        public void exited(int code, long oomKills) {
            seen.add("exited " + code + " oom " + oomKills);
            done.countDown();
        }

        @Override
        public void lost(String why) {
            seen.add("lost " + why);
            done.countDown();
        }
    }

    /** What the channel wrote since the last take; on a flush of a WATCH, writes answer as the agent would. */
    private static final class Capture extends OutputStream {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final OutputStream agentSide;
        volatile byte[] answer;

        Capture(OutputStream agentSide) {
            this.agentSide = agentSide;
        }

        @Override
        public synchronized void write(int b) {
            bytes.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            bytes.write(b, off, len);
        }

        @Override
        public synchronized void flush() {
            byte[] a = answer;
            byte[] sent = bytes.toByteArray();
            if (a != null && sent.length > 4 && sent[4] == AgentProtocol.WATCH) {
                answer = null;
                try {
                    agentSide.write(a);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }

        synchronized byte[] take() {
            byte[] b = bytes.toByteArray();
            bytes.reset();
            return b;
        }
    }

    private static byte[] golden(String name) throws IOException {
        try (InputStream in = AgentFramesTest.class.getResourceAsStream("/agent-frames/" + name + ".bin")) {
            assertThat(in).as("agent-frames/%s.bin", name).isNotNull();
            return in.readAllBytes();
        }
    }

    private static byte[] payload(String name) throws IOException {
        return AgentProtocol.readFrame(stream(golden(name))).payload();
    }

    private static DataInputStream stream(byte[] b) {
        return new DataInputStream(new ByteArrayInputStream(b));
    }

    private static AgentProtocol.Frame of(byte type, int id, byte[] payload) {
        return new AgentProtocol.Frame(type, id, payload);
    }

    private static byte[] record(byte kind, boolean dir, long size, long mtime, String path, String from) {
        byte[] p = utf8(path);
        byte[] f = utf8(from);
        return ByteBuffer.allocate(26 + p.length + f.length).put(kind).put((byte) (dir ? 1 : 0)).putLong(size)
                .putLong(mtime).putInt(p.length).put(p).putInt(f.length).put(f).array();
    }

    /** A string list written independently of AgentProtocol.encodeStrings. */
    private static byte[] strings(String... strings) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(ints(strings.length));
        for (String s : strings) {
            b.writeBytes(ints(utf8(s).length));
            b.writeBytes(utf8(s));
        }
        return b.toByteArray();
    }

    private static byte[] ints(int... values) {
        ByteBuffer b = ByteBuffer.allocate(4 * values.length);
        for (int v : values) {
            b.putInt(v);
        }
        return b.array();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return b.toByteArray();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
