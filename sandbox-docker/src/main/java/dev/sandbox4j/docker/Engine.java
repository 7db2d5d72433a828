package dev.sandbox4j.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.command.ExecCreateCmdResponse;
import com.github.dockerjava.api.command.InspectExecResponse;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.transport.DockerHttpClient;
import com.github.dockerjava.zerodep.ZerodepDockerHttpClient;
import dev.sandbox4j.SandboxException;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/** The connection to one Docker engine: a control client with short timeouts and a stream client for exec output. */
final class Engine implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(Engine.class);
    static final String LABEL = "dev.sandbox4j";
    static final String LABEL_OWNER = "dev.sandbox4j.owner";
    static final String LABEL_EXPIRES = "dev.sandbox4j.expires";
    static final String LABEL_ID = "dev.sandbox4j.id";
    static final String OWNER = ownerId();

    final DockerOptions options;
    final DockerClient control;
    final DockerClient stream;
    final String host;

    private Engine(DockerOptions options, DockerClient control, DockerClient stream, String host) {
        this.options = options;
        this.control = control;
        this.stream = stream;
        this.host = host;
    }

    static Engine connect(DockerOptions options, Duration requestTimeout) {
        DefaultDockerClientConfig.Builder b = DefaultDockerClientConfig.createDefaultConfigBuilder();
        if (options.dockerHost() != null) {
            b.withDockerHost(options.dockerHost());
        }
        if (options.apiVersion() != null) {
            b.withApiVersion(options.apiVersion());
        }
        DockerClientConfig cfg = b.build();
        DockerHttpClient controlHttp = new ZerodepDockerHttpClient.Builder().dockerHost(cfg.getDockerHost())
                .sslConfig(cfg.getSSLConfig()).maxConnections(32).connectionTimeout(options.connectTimeout())
                .responseTimeout(requestTimeout).build();
        // Exec output may be silent for as long as the command's own timeout; that timeout bounds the wait instead.
        DockerHttpClient streamHttp = new ZerodepDockerHttpClient.Builder().dockerHost(cfg.getDockerHost())
                .sslConfig(cfg.getSSLConfig()).maxConnections(256).connectionTimeout(options.connectTimeout())
                .responseTimeout(Duration.ofDays(1)).build();
        return new Engine(options, DockerClientImpl.getInstance(cfg, controlHttp),
                DockerClientImpl.getInstance(cfg, streamHttp), cfg.getDockerHost().toString());
    }

    /** Pings the engine; empty when it answers, else why not. */
    static Optional<String> probe(DockerOptions options) {
        try (Engine e = connect(options, options.pingTimeout())) {
            CompletableFuture<Void> ping = CompletableFuture.runAsync(() -> e.control.pingCmd().exec());
            try {
                ping.get(options.pingTimeout().toMillis() + 500, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException te) {
                ping.cancel(true);
                return Optional.of("the Docker engine at " + e.host + " did not answer a ping within "
                        + options.pingTimeout().toMillis() + " ms; start dockerd or set DOCKER_HOST");
            }
            try {
                e.control.inspectImageCmd(options.image()).exec();
            } catch (RuntimeException ie) {
                return Optional.of("the Docker engine at " + e.host + " has no image '" + options.image()
                        + "'; build it with scripts/build-test-image.sh or set SANDBOX4J_DOCKER_IMAGE");
            }
            return Optional.empty();
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted while pinging the Docker engine");
        } catch (Exception ex) {
            Throwable c = ex.getCause() != null ? ex.getCause() : ex;
            return Optional.of("cannot reach the Docker engine (" + c.getClass().getSimpleName() + ": "
                    + c.getMessage() + "); start dockerd, or set DOCKER_HOST (unix:///var/run/docker.sock or "
                    + "tcp://host:2375) to a running engine");
        }
    }

    @Override
    public void close() {
        try {
            control.close();
        } catch (IOException | RuntimeException ignored) {
            // best effort
        }
        try {
            stream.close();
        } catch (IOException | RuntimeException ignored) {
            // best effort
        }
    }

    // ---------------------------------------------------------------------------------------------- tar upload

    /** One file or directory to upload; directories have null content. */
    record Entry(String name, int mode, long size, InputStreamSupplier content) {
    }

    @FunctionalInterface
    interface InputStreamSupplier {
        InputStream open() throws IOException;
    }

    /** Uploads entries (names relative to {@code remoteDir}) owned by uid:gid, streaming through a pipe. */
    void upload(String containerId, String remoteDir, List<Entry> entries, int uid, int gid) {
        PipedInputStream in = new PipedInputStream(1 << 20);
        CompletableFuture<Void> writer;
        try {
            PipedOutputStream pout = new PipedOutputStream(in);
            writer = CompletableFuture.runAsync(() -> {
                try (TarArchiveOutputStream tar = new TarArchiveOutputStream(pout)) {
                    tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
                    tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
                    for (Entry en : entries) {
                        boolean dir = en.content() == null;
                        TarArchiveEntry te = new TarArchiveEntry(dir ? en.name() + "/" : en.name());
                        te.setMode((dir ? 040000 : 0100000) | en.mode());
                        te.setIds(uid, gid);
                        te.setModTime(java.util.Date.from(Instant.now()));
                        if (!dir) {
                            te.setSize(en.size());
                        }
                        tar.putArchiveEntry(te);
                        if (!dir) {
                            try (InputStream data = en.content().open()) {
                                long copied = data.transferTo(tar);
                                if (copied != en.size()) {
                                    throw new IOException("content changed size while uploading " + en.name());
                                }
                            }
                        }
                        tar.closeArchiveEntry();
                    }
                    tar.finish();
                } catch (IOException ex) {
                    throw new java.io.UncheckedIOException(ex);
                }
            }, UPLOADERS);
        } catch (IOException ex) {
            throw DockerErrors.error(dev.sandbox4j.ErrorKind.IO_ERROR, "preparing an upload: " + ex.getMessage(), ex);
        }
        try {
            control.copyArchiveToContainerCmd(containerId).withRemotePath(remoteDir).withTarInputStream(in)
                    // copyUIDGID stays false: the engine then keeps the tar headers' uid/gid (the sandbox user).
                    // copyUIDGID=true makes Engine 20.10 look the container user up in the *host's* passwd.
                    .withNoOverwriteDirNonDir(false).exec();
        } catch (RuntimeException ex) {
            writer.cancel(true);
            throw DockerErrors.translate("uploading to the sandbox", ex);
        } finally {
            try {
                in.close();
            } catch (IOException ignored) {
                // closed
            }
        }
        try {
            writer.get(30, TimeUnit.SECONDS);
        } catch (Exception ex) {
            Throwable c = ex.getCause() != null ? ex.getCause() : ex;
            throw DockerErrors.error(dev.sandbox4j.ErrorKind.IO_ERROR, "uploading to the sandbox: " + c.getMessage(), c);
        }
    }

    private static final java.util.concurrent.ExecutorService UPLOADERS = daemonPool("sandbox4j-docker-upload");

    /**
     * An unbounded pool of daemon threads that end after 5 s idle (a cached pool keeps them 60 s, which after a
     * burst of 64 sandboxes leaves dozens of idle threads in the application for a minute).
     */
    static java.util.concurrent.ExecutorService daemonPool(String name) {
        return new java.util.concurrent.ThreadPoolExecutor(0, Integer.MAX_VALUE, 5, TimeUnit.SECONDS,
                new java.util.concurrent.SynchronousQueue<>(), r -> {
                    Thread t = new Thread(r, name);
                    t.setDaemon(true);
                    return t;
                });
    }

    /** Spools a stream of unknown length to a host temp file so the tar header can carry its size. */
    static Path spool(InputStream content, String what) {
        try {
            Path tmp = Files.createTempFile("sandbox4j-upload", ".bin");
            tmp.toFile().deleteOnExit();
            try (OutputStream o = Files.newOutputStream(tmp)) {
                content.transferTo(o);
            } catch (IOException | RuntimeException e) {
                Files.deleteIfExists(tmp);
                throw e;
            }
            return tmp;
        } catch (IOException e) {
            throw DockerErrors.error(dev.sandbox4j.ErrorKind.IO_ERROR, "reading the content to write to " + what
                    + ": " + e.getMessage(), e);
        }
    }

    // ---------------------------------------------------------------------------------------------- janitor

    /** Minimum time between two janitor runs against the same engine in one JVM. */
    static final Duration JANITOR_INTERVAL = Duration.ofSeconds(2);
    private static final Map<String, Long> JANITOR_LAST = new java.util.concurrent.ConcurrentHashMap<>();
    private static final java.util.concurrent.ExecutorService JANITORS =
            java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "sandbox4j-docker-janitor");
                t.setDaemon(true);
                return t;
            });

    /**
     * Runs the janitor in the background, on its own connection, at most once per {@link #JANITOR_INTERVAL} per engine
     * and JVM; never on the caller's path.
     */
    void janitorInBackground() {
        long now = System.nanoTime();
        boolean[] due = new boolean[1];
        JANITOR_LAST.compute(host, (k, last) -> {
            if (last == null || now - last >= JANITOR_INTERVAL.toNanos()) {
                due[0] = true;
                return now;
            }
            return last;
        });
        if (!due[0]) {
            return;
        }
        try {
            JANITORS.execute(() -> {
                try (Engine e = connect(options, options.requestTimeout())) {
                    e.janitor();
                } catch (RuntimeException ex) {
                    LOG.debug("sandbox4j janitor failed", ex);
                }
            });
        } catch (RuntimeException ex) {
            LOG.debug("sandbox4j janitor not scheduled", ex);
        }
    }

    /**
     * Removes containers and volumes of sandbox4j whose owner JVM on this host is gone or whose expiry passed.
     * Best effort: errors are logged, never thrown.
     */
    void janitor() {
        try {
            long now = Instant.now().getEpochSecond();
            List<Container> containers = control.listContainersCmd().withShowAll(true)
                    .withLabelFilter(Map.of(LABEL, "1")).exec();
            List<String> live = new ArrayList<>();
            for (Container c : containers) {
                Map<String, String> labels = c.getLabels() == null ? Map.of() : c.getLabels();
                if (stale(labels, now)) {
                    LOG.info("sandbox4j janitor: removing stale container {}", c.getId());
                    removeContainerQuietly(c.getId());
                } else if (labels.get(LABEL_ID) != null) {
                    live.add(labels.get(LABEL_ID));
                }
            }
            var volumes = control.listVolumesCmd().withFilter("label", List.of(LABEL + "=1")).exec().getVolumes();
            if (volumes != null) {
                for (var v : volumes) {
                    Map<String, String> labels = v.getLabels() == null ? Map.of() : v.getLabels();
                    if (stale(labels, now) && !live.contains(labels.get(LABEL_ID))) {
                        LOG.info("sandbox4j janitor: removing stale volume {}", v.getName());
                        removeVolumeQuietly(v.getName());
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.debug("sandbox4j janitor failed", e);
        }
    }

    static boolean stale(Map<String, String> labels, long nowEpoch) {
        String expires = labels.get(LABEL_EXPIRES);
        if (expires != null) {
            try {
                if (Long.parseLong(expires) < nowEpoch) {
                    return true;
                }
            } catch (NumberFormatException ignored) {
                // not ours to judge
            }
        }
        String owner = labels.get(LABEL_OWNER);
        if (owner == null) {
            return false;
        }
        String[] parts = owner.split(":");
        if (parts.length != 3 || !parts[0].equals(OWNER.split(":")[0])) {
            return false; // another host's sandbox: only its expiry counts
        }
        try {
            long pid = Long.parseLong(parts[1]);
            long start = Long.parseLong(parts[2]);
            Optional<ProcessHandle> p = ProcessHandle.of(pid);
            if (p.isEmpty()) {
                return true;
            }
            Optional<Instant> started = p.get().info().startInstant();
            return started.isPresent() && Math.abs(started.get().toEpochMilli() - start) > 2000;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    void removeContainerQuietly(String id) {
        try {
            control.removeContainerCmd(id).withForce(true).withRemoveVolumes(true).exec();
        } catch (RuntimeException e) {
            LOG.debug("removing container {} failed: {}", id, e.toString());
        }
    }

    void removeVolumeQuietly(String name) {
        for (int i = 0; i < 5; i++) {
            try {
                control.removeVolumeCmd(name).exec();
                return;
            } catch (com.github.dockerjava.api.exception.NotFoundException e) {
                return;
            } catch (RuntimeException e) {
                LOG.debug("removing volume {} failed: {}", name, e.toString());
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static String ownerId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = System.getenv().getOrDefault("HOSTNAME", "unknown");
        }
        host = host.replace(':', '_');
        ProcessHandle self = ProcessHandle.current();
        long start = self.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
        return host + ":" + self.pid() + ":" + start;
    }
}
