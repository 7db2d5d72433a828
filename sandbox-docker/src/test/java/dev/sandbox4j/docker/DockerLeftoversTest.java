package dev.sandbox4j.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A close that cannot reach the engine (here: a proxy in front of the engine's socket, switched off) leaves the
 * container and its volume to be removed later; once the engine answers again they go, with no open or close
 * needed to trigger it. The same path serves an open that failed at the fd limit (ChildJvmTest#nearTheFdLimit).
 */
class DockerLeftoversTest {
    private static final Path ENGINE = Path.of("/var/run/docker.sock");

    @Test
    @Timeout(120)
    void closeWhileTheEngineIsUnreachable_removesLaterWhenItAnswers(@TempDir Path dir) throws Exception {
        DockerTestSupport.requireDocker();
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(ENGINE) && DockerOptions.defaults().dockerHost()
                == null, "the engine's default unix socket");
        Path sock = dir.resolve("engine.sock");
        DockerOptions viaProxy = DockerOptions.defaults().withDockerHost("unix://" + sock)
                .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(2));
        try (Proxy proxy = new Proxy(sock)) {
            Sandbox s = new DockerSandboxProvider(viaProxy).open(SandboxSpec.defaults());
            String container = (ContainerHost.of(s)).containerId;
            String volume = (ContainerHost.of(s)).workspaceVolume;
            assertThat(s.shell().run("echo hi").stdout()).isEqualTo("hi\n");
            proxy.off();
            s.close();
            assertThat(exists(container, volume)).as("still there: the engine could not be asked").isNotEmpty();
            proxy.on();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            List<String> left = exists(container, volume);
            while (!left.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(200);
                left = exists(container, volume);
            }
            assertThat(left).as("removed once the engine answered").isEmpty();
        }
    }

    /** Which of the two still exist, asked on the engine's own socket. */
    private static List<String> exists(String container, String volume) {
        List<String> out = new java.util.ArrayList<>();
        try (Engine e = Engine.connect(DockerOptions.defaults(), Duration.ofSeconds(10))) {
            try {
                e.control.inspectContainerCmd(container).exec();
                out.add("container " + container);
            } catch (com.github.dockerjava.api.exception.NotFoundException gone) {
                // removed
            }
            try {
                e.control.inspectVolumeCmd(volume).exec();
                out.add("volume " + volume);
            } catch (com.github.dockerjava.api.exception.NotFoundException gone) {
                // removed
            }
        }
        return out;
    }

    /** Forwards a unix socket to the engine's; {@link #off} closes the listener and every connection through it. */
    private static final class Proxy implements AutoCloseable {
        private final Path path;
        private final Set<SocketChannel> open = ConcurrentHashMap.newKeySet();
        private volatile ServerSocketChannel server;

        Proxy(Path path) throws IOException {
            this.path = path;
            on();
        }

        synchronized void on() throws IOException {
            Files.deleteIfExists(path);
            ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            s.bind(UnixDomainSocketAddress.of(path));
            server = s;
            Thread t = new Thread(() -> accept(s), "test-proxy-accept");
            t.setDaemon(true);
            t.start();
        }

        synchronized void off() throws IOException {
            server.close();
            Files.deleteIfExists(path);
            for (SocketChannel c : open) {
                c.close();
            }
            open.clear();
        }

        private void accept(ServerSocketChannel s) {
            while (s.isOpen()) {
                try {
                    SocketChannel client = s.accept();
                    SocketChannel engine = SocketChannel.open(UnixDomainSocketAddress.of(ENGINE));
                    open.add(client);
                    open.add(engine);
                    pipe(client, engine);
                    pipe(engine, client);
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void pipe(SocketChannel from, SocketChannel to) {
            Thread t = new Thread(() -> {
                ByteBuffer b = ByteBuffer.allocate(64 << 10);
                try {
                    while (from.read(b) >= 0) {
                        b.flip();
                        while (b.hasRemaining()) {
                            to.write(b);
                        }
                        b.clear();
                    }
                    to.shutdownOutput();
                } catch (IOException e) {
                    try {
                        from.close();
                        to.close();
                    } catch (IOException ignored) {
                        // closing
                    }
                }
            }, "test-proxy-pipe");
            t.setDaemon(true);
            t.start();
        }

        @Override
        public void close() throws IOException {
            off();
        }
    }
}
