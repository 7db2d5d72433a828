package dev.sandbox4j.docker;

import com.github.dockerjava.api.command.InspectContainerResponse;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.core.AgentHandshake;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Leases on Docker (docs/reattach.md): what a leased container carries in its labels (the lease's length, the agent's
 * loopback port, the limits it was opened with; never the credential, which only its agent holds), how a later host
 * finds it, and the handshake through the relay the engine's exec starts in it.
 */
final class ContainerLease {
    static final String LABEL_LEASE = "dev.sandbox4j.lease-ms";
    static final String LABEL_PORT = "dev.sandbox4j.lease-port";
    static final String LABEL_LIMITS = "dev.sandbox4j.limits";
    /**
     * The JVM that opened it, in place of {@link Engine#LABEL_OWNER}: a janitor of a version before leases removes a
     * container whose owner is dead or whose expiry passed, and would remove a leased one (it did, in this project's
     * shared test engine); without those two labels it leaves it, and this version's janitor goes by the lease.
     */
    static final String LABEL_OPENER = "dev.sandbox4j.lease-opener";
    /** The agent's listener for a later host, on the container's loopback (bound before any command runs). */
    static final int PORT = 7079;
    private static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(15);

    private ContainerLease() {
    }

    /** Refuses what a leased sandbox cannot have (before anything is made). */
    static void checkOpen(dev.sandbox4j.SandboxSpec spec) {
        if (!spec.lease().isZero() && spec.network().mode() != dev.sandbox4j.NetworkPolicy.Mode.NONE) {
            throw DockerErrors.error(ErrorKind.UNSUPPORTED, "a leased sandbox cannot have a network policy yet: "
                    + "its egress proxy runs in the JVM that opened it and ends with it (docs/reattach.md)");
        }
    }

    /** The command the engine's exec runs in the container: the agent's relay to its own listener. */
    static java.util.List<String> relay(int port) {
        return java.util.List.of(ContainerConfig.AGENT_DIR + "/" + dev.sandbox4j.core.AgentBinary.AGENT,
                "--connect=127.0.0.1:" + port);
    }

    /** A leased container's labels, beside {@link ContainerConfig#labels}. */
    static void label(Map<String, String> labels, Duration lease, ResourceLimits granted) {
        labels.put(LABEL_OPENER, labels.remove(Engine.LABEL_OWNER));
        labels.remove(Engine.LABEL_EXPIRES);
        labels.put(LABEL_LEASE, Long.toString(lease.toMillis()));
        labels.put(LABEL_PORT, Integer.toString(PORT));
        labels.put(LABEL_LIMITS, granted.memoryBytes() + "," + granted.maxProcesses() + "," + granted.cpus() + ","
                + granted.maxFileBytes() + "," + granted.tmpBytes() + "," + granted.workspaceBytes() + ","
                + granted.workspaceInodes());
    }

    static boolean leased(Map<String, String> labels) {
        return labels.get(LABEL_LEASE) != null;
    }

    /** The limits a leased container was opened with (what its info reports after an attach). */
    static ResourceLimits limits(Map<String, String> labels) {
        String[] v = labels.getOrDefault(LABEL_LIMITS, "").split(",");
        try {
            return new ResourceLimits(Long.parseLong(v[0]), Integer.parseInt(v[1]), Double.parseDouble(v[2]),
                    Long.parseLong(v[3]), Long.parseLong(v[4]), Long.parseLong(v[5]), Long.parseLong(v[6]));
        } catch (RuntimeException e) {
            throw DockerErrors.error(ErrorKind.INTERNAL, "the leased container's limits label is not sandbox4j's");
        }
    }

    static Duration lease(Map<String, String> labels) {
        return Duration.ofMillis(Long.parseLong(labels.get(LABEL_LEASE)));
    }

    static int port(Map<String, String> labels) {
        return Integer.parseInt(labels.getOrDefault(LABEL_PORT, Integer.toString(PORT)));
    }

    /**
     * Attaches to the leased container of sandbox {@code id}: the engine's exec starts the agent's relay in it, and
     * the agent checks the credential. Nothing changes in the sandbox when this fails.
     */
    static dev.sandbox4j.Sandbox attach(DockerOptions options, String id, dev.sandbox4j.AttachCredential credential,
                                        dev.sandbox4j.SandboxSpec settings) {
        Engine engine = Engine.connect(options, options.requestTimeout());
        ContainerHost h;
        try {
            InspectContainerResponse found = find(engine, id);
            Map<String, String> labels = found.getConfig().getLabels();
            dev.sandbox4j.SandboxSpec spec = settings.toBuilder().limits(limits(labels)).lease(lease(labels)).build();
            dev.sandbox4j.core.SandboxHost.Lease lease = new dev.sandbox4j.core.SandboxHost.Lease(credential,
                    spec.lease(), port(labels), false);
            String user = found.getConfig().getUser() == null || found.getConfig().getUser().isBlank()
                    ? options.user() : found.getConfig().getUser();
            h = ContainerHost.attaching(engine, spec, id, user, lease, found);
        } catch (RuntimeException e) {
            engine.close();
            throw DockerErrors.translate("attaching to Docker sandbox " + id, e);
        }
        try {
            return dev.sandbox4j.core.AgentSandbox.open(h, h.spec);
        } catch (RuntimeException e) {
            throw DockerErrors.translate("attaching to Docker sandbox " + id, e);
        }
    }

    /**
     * The running leased container of sandbox {@code id}.
     *
     * @throws dev.sandbox4j.SandboxException INVALID_ARGUMENT for an id that is not a sandbox id; NOT_FOUND when there
     *                                        is none, it has no lease, or its lease ran out
     */
    static InspectContainerResponse find(Engine engine, String id) {
        if (!id.matches("sbx-[0-9a-f]{1,32}")) {
            throw DockerErrors.error(ErrorKind.INVALID_ARGUMENT, "'" + id.replaceAll("[^A-Za-z0-9_.-]", "?")
                    + "' is not a Docker sandbox id (sbx- and hexadecimal digits)");
        }
        InspectContainerResponse r;
        try {
            r = engine.control.inspectContainerCmd("sandbox4j-" + id).exec();
        } catch (com.github.dockerjava.api.exception.NotFoundException e) {
            throw DockerErrors.error(ErrorKind.NOT_FOUND, "no sandbox " + id + " on this engine (never opened, "
                    + "closed, or its lease ran out)");
        }
        Map<String, String> labels = r.getConfig() == null || r.getConfig().getLabels() == null ? Map.of()
                : r.getConfig().getLabels();
        if (!id.equals(labels.get(Engine.LABEL_ID)) || !leased(labels)) {
            throw DockerErrors.error(ErrorKind.NOT_FOUND, "sandbox " + id + " has no lease: only a sandbox opened "
                    + "with SandboxSpec.Builder.lease can be attached to");
        }
        if (r.getState() == null || !Boolean.TRUE.equals(r.getState().getRunning())) {
            throw DockerErrors.error(ErrorKind.NOT_FOUND, "sandbox " + id + " has ended (its lease ran out)");
        }
        return r;
    }

    /**
     * The handshake with the leased agent through the relay on {@code attach}'s streams, bounded. A wrong key:
     * PERMISSION_DENIED (the agent hung up; nothing changed in the sandbox); the agent hung up before its greeting:
     * CONFLICT (a host is attached) unless the relay could not reach it.
     */
    static void handshake(ContainerAttach attach, dev.sandbox4j.AttachCredential credential, String id) {
        byte[] key = credential.keyBytes();
        CompletableFuture<Void> done = CompletableFuture.runAsync(() -> {
            try {
                AgentHandshake.run(attach.fromAgent(), attach.toAgent(), key, "sandbox " + id,
                        "the attach credential");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            } finally {
                java.util.Arrays.fill(key, (byte) 0);
            }
        }, ContainerHost.HELPERS);
        try {
            done.get(HANDSHAKE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            attach.closeOutput();
            throw DockerErrors.error(ErrorKind.TIMEOUT, "sandbox " + id + "'s agent did not complete the attach "
                    + "handshake within " + HANDSHAKE_TIMEOUT.toSeconds() + " s");
        } catch (InterruptedException e) {
            attach.closeOutput();
            Thread.currentThread().interrupt();
            throw DockerErrors.interrupted("attaching to sandbox " + id);
        } catch (ExecutionException e) {
            Throwable c = e.getCause() instanceof java.io.UncheckedIOException u ? u.getCause() : e.getCause();
            throw refused(c, id, attach.diagnostics());
        }
    }

    private static RuntimeException refused(Throwable c, String id, String relay) {
        if (c instanceof AgentHandshake.Refused r && r.kind() == ErrorKind.PERMISSION_DENIED) {
            return DockerErrors.error(ErrorKind.PERMISSION_DENIED, "the credential does not open sandbox " + id
                    + " (nothing was changed in it)");
        }
        if (c instanceof AgentHandshake.Refused r && r.getCause() instanceof java.io.EOFException
                && !relay.contains("connecting")) {
            return DockerErrors.error(ErrorKind.CONFLICT, "another host is attached to sandbox " + id + ": it must "
                    + "detach (or its JVM end) first");
        }
        return DockerErrors.error(ErrorKind.BACKEND_UNAVAILABLE, "cannot reach sandbox " + id + "'s agent: "
                + c.getMessage() + relay, c);
    }
}
