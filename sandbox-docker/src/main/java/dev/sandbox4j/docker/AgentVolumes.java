package dev.sandbox4j.docker;

import dev.sandbox4j.core.AgentBinary;

import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The engine-side volumes every sandbox mounts and none may write: the agent's binaries (one volume per engine and
 * binary version) and, on Podman, the seccomp profile (a path on the engine's host). Both are filled through the
 * archive endpoint of a carrier container that is never started; made once per engine and JVM, then looked up.
 */
final class AgentVolumes {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Engine.class); // the log names Engine, as before the split
    /** Where the binaries volume is mounted in a sandbox (read-only), and the name of its complete copy. */
    static final String BIN_MOUNT = "/var/sandbox4j";
    static final String BIN_READY = "ready";

    private final Engine engine;

    AgentVolumes(Engine engine) {
        this.engine = engine;
    }

    // ---------------------------------------------------------------------------------------------- seccomp on Podman

    private static final Map<String, String> SECCOMP_PATHS = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * The {@code seccomp=} security option for this engine. Docker takes the profile's JSON inline; Podman's compat API
     * (4.x, 5.x) takes only a path on the engine's host (podman issue 27710). For Podman the profile goes, once per
     * engine and JVM, into a volume of its own named by the profile's hash ({@code sandbox4j-seccomp-<hash>}, root's,
     * mounted by no sandbox, outside the janitor's label), written through the archive endpoint of a carrier
     * container that is never started; the option then names the file at the volume's mount point on the engine's
     * host. A remote engine works the same.
     */
    String seccompOption(String profileJson) {
        if (!engine.traits().podman()) {
            return "seccomp=" + profileJson;
        }
        String hash = sha256(profileJson).substring(0, 16);
        return SECCOMP_PATHS.computeIfAbsent(engine.host + "|" + hash,
                k -> "seccomp=" + installProfile(hash, profileJson));
    }

    /** Forgets the installed profile (its volume was removed under us), so the next open writes it again. */
    void forgetSeccomp() {
        SECCOMP_PATHS.keySet().removeIf(k -> k.startsWith(engine.host + "|"));
    }

    private String installProfile(String hash, String json) {
        String volume = "sandbox4j-seccomp-" + hash;
        byte[] content = json.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        try {
            engine.control.inspectVolumeCmd(volume).exec();
        } catch (com.github.dockerjava.api.exception.NotFoundException e) {
            engine.control.createVolumeCmd().withName(volume).withLabels(Map.of("dev.sandbox4j.seccomp", hash)).exec();
        }
        String carrier = carrier("sandbox4j-seccomp-" + hash, volume, "/profile");
        try {
            TarUpload.upload(engine.control, carrier, "/profile", List.of(new TarUpload.Entry("seccomp.json", 0444,
                    content.length, () -> new java.io.ByteArrayInputStream(content))), 0, 0);
        } finally {
            engine.removeContainerQuietly(carrier);
        }
        String mountpoint = engine.control.inspectVolumeCmd(volume).exec().getMountpoint();
        if (mountpoint == null || mountpoint.isBlank()) {
            throw DockerErrors.error(dev.sandbox4j.ErrorKind.BACKEND_UNAVAILABLE, "the Podman engine at " + engine.host
                    + " did not say where volume " + volume + " is; the seccomp profile needs a path there");
        }
        return mountpoint + "/seccomp.json";
    }

    // ---------------------------------------------------------------------------------------------- agent binaries

    private static final Map<String, String> BINARY_VOLUMES = new java.util.concurrent.ConcurrentHashMap<>();

    /** The binaries of one architecture, as uploaded, and the hash naming their volume. */
    private record Binaries(List<TarUpload.Entry> entries, String hash) {
    }

    /** Per architecture, read, checked and hashed once per JVM: an open only looks them up. */
    private static final Map<String, Binaries> BINARIES = new java.util.concurrent.ConcurrentHashMap<>();


    /**
     * The volume holding the agent's binaries for {@code arch}, made once per engine and binary version, mounted
     * read-only into every sandbox: uploading them into each container cost a third of an open (133 ms of 601,
     * docs/benchmarks.md). The volume ({@code sandbox4j-bin-<hash>}, root's, outside the janitor's label) is filled
     * through a carrier container that is never started: each filler writes a directory of its own, then points the
     * {@code ready} link at it, so a sandbox never runs a half-written binary, and two JVMs filling at once both
     * leave a complete copy. A volume whose {@code ready} already holds the agent is used as it is.
     *
     * <p>Once made or found in this JVM it is trusted without a look on Docker: {@code docker volume prune} may remove
     * it while no sandbox runs, and the mount then makes an empty one, so the agent cannot start; the open notices
     * that ({@link #repairBinaries}) and opens again. On Podman a mount that makes a missing volume chowns it to the
     * sandbox user, so there it is still looked at (one inspect) on every open.
     */
    String binariesVolume(String arch) {
        Binaries b = binariesFor(arch);
        String hash = b.hash();
        List<TarUpload.Entry> entries = b.entries();
        String key = engine.host + "|" + arch + "|" + hash;
        String volume = BINARY_VOLUMES.computeIfAbsent(key, k -> installBinaries(hash, entries));
        if (!engine.traits().podman()) {
            return volume;
        }
        try {
            engine.control.inspectVolumeCmd(volume).exec();
            return volume;
        } catch (com.github.dockerjava.api.exception.NotFoundException e) {
            BINARY_VOLUMES.remove(key);
            return BINARY_VOLUMES.computeIfAbsent(key, k -> installBinaries(hash, entries));
        }
    }

    private Binaries binariesFor(String arch) {
        Binaries b = BINARIES.get(arch);
        if (b == null) {
            b = binaries(arch);
            BINARIES.putIfAbsent(arch, b);
        }
        return b;
    }

    /**
     * After a sandbox's agent did not start (its container is removed by then): whether the binaries volume lacked
     * the agent (pruned, then made empty by the sandbox's mount) and has it now, so the open may try once more.
     * False when the volume was whole (the failure was another) or when looking failed: the open's own error stands.
     */
    boolean repairBinaries(String arch) {
        try {
            Binaries b = binariesFor(arch);
            String volume = "sandbox4j-bin-" + b.hash();
            boolean mountMade;
            try {
                Map<String, String> labels = engine.control.inspectVolumeCmd(volume).exec().getLabels();
                mountMade = labels == null || !labels.containsKey("dev.sandbox4j.bin");
            } catch (com.github.dockerjava.api.exception.NotFoundException e) {
                mountMade = false;
            }
            if (mountMade) {
                // made by a mount, not by installBinaries: made again as ours (fails harmlessly while in use)
                engine.removeVolumeQuietly(volume);
            }
            return fillBinaries(b.hash(), b.entries());
        } catch (RuntimeException e) {
            LOG.debug("checking the binaries volume failed", e);
            return false;
        }
    }

    /** The agent, reaper and relay for {@code arch}, checked against the build's checksums, and their hash. */
    private Binaries binaries(String arch) {
        List<TarUpload.Entry> entries = new ArrayList<>();
        java.security.MessageDigest digest;
        try {
            digest = java.security.MessageDigest.getInstance("SHA-256");
            for (String name : List.of(AgentBinary.RELAY, AgentBinary.REAPER, AgentBinary.AGENT)) {
                byte[] b = AgentBinary.bytes(name, arch);
                digest.update(name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                digest.update(b);
                entries.add(new TarUpload.Entry(name, 0555, b.length, () -> new java.io.ByteArrayInputStream(b)));
            }
        } catch (IOException e) {
            throw DockerErrors.error(dev.sandbox4j.ErrorKind.UNSUPPORTED, "the Docker engine at " + engine.host + " runs "
                    + arch + ": " + e.getMessage());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        return new Binaries(List.copyOf(entries), java.util.HexFormat.of().formatHex(digest.digest()).substring(0, 16));
    }

    /** Forgets which volumes this JVM made or checked (for tests: the next open looks again). */
    static void forgetBinariesForTests() {
        BINARY_VOLUMES.clear();
    }

    private String installBinaries(String hash, List<TarUpload.Entry> binaries) {
        fillBinaries(hash, binaries);
        return "sandbox4j-bin-" + hash;
    }

    /** Makes the volume if missing and fills it if its {@code ready} lacks the agent; whether it had to fill it. */
    private boolean fillBinaries(String hash, List<TarUpload.Entry> binaries) {
        String volume = "sandbox4j-bin-" + hash;
        try {
            engine.control.inspectVolumeCmd(volume).exec();
        } catch (com.github.dockerjava.api.exception.NotFoundException e) {
            var create = engine.control.createVolumeCmd().withName(volume).withLabels(Map.of("dev.sandbox4j.bin", hash));
            if (engine.traits().podman()) {
                // Podman chowns a new volume to the first container's user unless it names its owner (docker.md)
                create.withDriver("local").withDriverOpts(Map.of("o", "uid=0,gid=0"));
            }
            create.exec();
        }
        String carrier = carrier("sandbox4j-bin-" + hash, volume, "/v");
        try {
            if (exists(carrier, "/v/" + BIN_READY + "/" + binaries.get(binaries.size() - 1).name())) {
                return false;
            }
            String dir = "c-" + java.util.UUID.randomUUID().toString().substring(0, 12);
            List<TarUpload.Entry> copy = new ArrayList<>();
            copy.add(new TarUpload.Entry(dir, 0755, 0, null));
            for (TarUpload.Entry e : binaries) {
                copy.add(new TarUpload.Entry(dir + "/" + e.name(), e.mode(), e.size(), e.content()));
            }
            TarUpload.upload(engine.control, carrier, "/v", copy, 0, 0);
            TarUpload.upload(engine.control, carrier, "/v", List.of(TarUpload.Entry.link(BIN_READY, dir)), 0, 0);
            return true;
        } finally {
            engine.removeContainerQuietly(carrier);
        }
    }

    /** Whether {@code path} exists in a container (following links on the way), by the archive endpoint. */
    private boolean exists(String containerId, String path) {
        try (InputStream in = engine.control.copyArchiveFromContainerCmd(containerId, path).exec()) {
            return in.read() >= 0;
        } catch (com.github.dockerjava.api.exception.NotFoundException e) {
            return false;
        } catch (IOException | RuntimeException e) {
            return false; // fill it again: a second complete copy is the worst that can happen
        }
    }

    /**
     * A container that is never started, with {@code volume} at {@code target}: the archive endpoint writes into the
     * volume through it. Labelled as ours with a short expiry, so the janitor removes one a dead JVM left.
     */
    private String carrier(String name, String volume, String target) {
        return engine.control.createContainerCmd(engine.options.image())
                .withName(name + "-" + java.util.UUID.randomUUID().toString().substring(0, 8))
                .withEntrypoint("/bin/true").withCmd(List.of())
                .withLabels(Map.of(Engine.LABEL, "1", Engine.LABEL_OWNER, Engine.OWNER,
                        Engine.LABEL_EXPIRES, Long.toString(Instant.now().getEpochSecond() + 120)))
                .withHostConfig(com.github.dockerjava.api.model.HostConfig.newHostConfig().withNetworkMode("none")
                        .withMounts(List.of(new com.github.dockerjava.api.model.Mount()
                                .withType(com.github.dockerjava.api.model.MountType.VOLUME).withSource(volume)
                                .withTarget(target))))
                .exec().getId();
    }

    private static String sha256(String s) {
        try {
            byte[] d = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            StringBuilder b = new StringBuilder();
            for (byte x : d) {
                b.append(String.format("%02x", x));
            }
            return b.toString();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
