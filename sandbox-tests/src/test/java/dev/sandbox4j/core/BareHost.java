package dev.sandbox4j.core;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Feature;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.Language;
import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxInfo;
import dev.sandbox4j.SandboxSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The smallest {@link SandboxHost}: {@code sbx-agent} on plain pipes over a temporary directory, with no jail and no
 * engine, so the whole conformance kit runs against the shared layer ({@link AgentSandbox}, the agent's client, the
 * agent itself) on every build. It is also the worked example of docs/architecture.md's "writing a backend": each
 * numbered step there is a numbered comment here.
 *
 * <p>What it is not: isolation. Its commands run as the JVM's user (mapped to root of a user namespace), see the
 * host's whole file system and network, and have no limits; {@link #FEATURES} says so. The one namespace it makes is
 * a pid namespace ({@code unshare}), so the agent is its pid 1: then the agent sweeps every orphan a command leaves
 * and a close ends every process of the sandbox at once. The workspace is a host directory, so commands see it there
 * ({@link #workspaceRoot()}), not at {@code /workspace}.
 *
 * <p>Lives in sandbox-tests' test sources, not sandbox-core's: the kit (sandbox-tests) depends on sandbox-memory,
 * which depends on sandbox-core, so sandbox-core's tests cannot depend on the kit without a cycle.
 */
final class BareHost implements SandboxHost {
    /** What the bare host really provides: the agent's features, none of isolation or limits. */
    static final Set<Feature> FEATURES = Set.copyOf(EnumSet.of(Feature.SHELL, Feature.BACKGROUND_PROCESSES,
            Feature.PROCESS_REGISTRY, Feature.TERMINAL,
            Feature.SHARED_PROCESS_SPACE, Feature.CODE_EXECUTION, Feature.CODE_CONTEXTS, Feature.FILE_WATCH,
            Feature.SYMLINKS, Feature.POSIX_PERMISSIONS, Feature.BYTE_FILE_NAMES));

    /**
     * Step 1, the isolation: none but a user and pid namespace, with the agent as pid 1 (a new /proc, so the agent's
     * sweep sees its own namespace's processes); {@code --kill-child} ends the agent, and with it the namespace, when
     * the launcher dies.
     */
    static final List<String> NAMESPACES = List.of("unshare", "--user", "--map-root-user", "--pid", "--fork",
            "--kill-child", "--mount-proc", "--");

    /** This JVM's sandboxes' directories start so (a leak check finds them). */
    static final String PREFIX = "bare-host-" + ProcessHandle.current().pid() + "-";
    private static final AtomicInteger IDS = new AtomicInteger();

    private final String id;
    private final Path dir;
    private final Path workspace;
    private final Path bin;
    private final OutputBuffer agentErr = new OutputBuffer(4000);
    private volatile Process agent;

    private BareHost(String id, Path dir) {
        this.id = id;
        this.dir = dir;
        this.workspace = dir.resolve("workspace");
        this.bin = dir.resolve("bin");
    }

    /**
     * Step 0, open: refuse what cannot hold before anything is made (a workspace source or mount it has no feature for;
     * a network policy: the sandbox shares the host's
     * network namespace; limits are not refused but reported as none, {@link #ready}), then AgentSandbox over the host.
     */
    static Sandbox open(SandboxSpec spec) {
        String refused = HostDirs.unsupported(spec, FEATURES, "the bare host");
        if (refused != null) {
            throw new SandboxException(ErrorKind.UNSUPPORTED, refused); // a workspace source or mount it cannot make
        }
        if (spec.network().mode() != NetworkPolicy.Mode.NONE) {
            throw new SandboxException(ErrorKind.UNSUPPORTED, "the bare host has no network namespace, so no "
                    + "network policy: its commands share the host's network");
        }
        Path dir;
        try {
            dir = Files.createTempDirectory(PREFIX,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (IOException e) {
            throw new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, "no temporary directory: " + e.getMessage(), e);
        }
        // AgentSandbox closes the host (which removes dir) when anything after this fails
        return AgentSandbox.open(new BareHost("bare-" + ProcessHandle.current().pid() + "-" + IDS.incrementAndGet(),
                dir), spec);
    }

    /** Whether this machine can make the namespaces (unprivileged user namespaces, util-linux's unshare). */
    static String unavailableReason() {
        try {
            Process p = new ProcessBuilder(concat(NAMESPACES, List.of("/bin/true"))).redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 ? null
                    : "unshare cannot make a user and pid namespace here: " + out;
        } catch (IOException e) {
            return "no unshare (util-linux): " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    // ---------------------------------------------------------------- SandboxHost

    @Override
    public String id() {
        return id;
    }

    /**
     * Step 2, the agent as the first process: its binaries where the sandbox sees them, then the agent on two pipes,
     * its stderr kept for diagnostics. The environment is the sandbox's fixed base (the agent gives it to every
     * command, under the spec's variables).
     */
    @Override
    public AgentStreams start(Context context) {
        try {
            Files.createDirectory(workspace);
            Files.createDirectory(dir.resolve("staging"));
            Files.createDirectory(bin);
            Path agentFile = AgentBinary.write(bin, AgentBinary.AGENT);
            Path reaper = AgentBinary.write(bin, AgentBinary.REAPER);
            ProcessBuilder pb = new ProcessBuilder(concat(NAMESPACES,
                    List.of(agentFile.toString(), "--reaper=" + reaper)));
            pb.environment().clear();
            pb.environment().putAll(Map.of("PATH", "/usr/local/bin:/usr/bin:/bin", "HOME", workspace.toString(),
                    "TMPDIR", "/tmp", "LANG", "C.UTF-8", "USER", "sandbox", "LOGNAME", "sandbox"));
            pb.directory(workspace.toFile());
            agent = pb.start();
        } catch (IOException e) {
            throw new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, "cannot start the agent: " + e.getMessage(), e);
        }
        agentErr.drainInBackground(agent.getErrorStream(), "sandbox4j-" + id + "-stderr");
        return new AgentStreams(agent.getInputStream(), agent.getOutputStream());
    }

    @Override
    public SandboxException agentDidNotStart(String why) {
        return new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, "the agent did not start: " + why + "; "
                + diagnostics());
    }

    /** Step 3, the environment of the shared layer's own commands (the language probe): fixed, none of the user's. */
    @Override
    public List<String> internalEnv() {
        return List.of("PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C", "HOME=" + workspace, "BASH_ENV=", "ENV=");
    }

    /** Step 4, where the sandbox sees the agent's binaries and its workspace: here, their host directories. */
    @Override
    public String agentDir() {
        return bin.toString();
    }

    @Override
    public String workspaceRoot() {
        return workspace.toString();
    }

    /** Step 5, what the sandbox is, once the agent is up (the shared probe found {@code interpreters}). */
    @Override
    public SandboxInfo ready(AgentRunner runner, Map<Language, String> interpreters) {
        return new SandboxInfo(id, "bare", FEATURES, ResourceLimits.NONE, Map.of("workspace", workspace.toString(),
                "isolation", "none: a user and pid namespace only (" + String.join(" ", NAMESPACES) + ")"));
    }

    /** Step 6, the file API: a host directory, so the host's own NIO workspace (staging outside it). */
    @Override
    public FileSystem workspace(AgentRunner runner, Context context) {
        return new NioWorkspace(workspace, dir.resolve("staging"),
                NioWorkspace.Options.defaults().withGuard(context::checkOpen));
    }

    /** Step 7, death: why the sandbox is gone though nobody closed it (checked before every operation: cheap). */
    @Override
    public String whyGone() {
        Process p = agent;
        return p != null && !p.isAlive() ? "the bare host's agent exited; " + diagnostics() : null;
    }

    @Override
    public String death(String why) {
        return "the bare host's agent died (" + why + "); " + diagnostics();
    }

    /** Step 8, errors: every error the shared layer reports goes through the host's translation point. */
    @Override
    public SandboxException closedError(String deathDetail) {
        return new SandboxException(ErrorKind.CLOSED, "sandbox " + id + " is closed"
                + (deathDetail == null ? "" : ": " + deathDetail));
    }

    @Override
    public SandboxException error(ErrorKind kind, String message, Throwable cause) {
        return new SandboxException(kind, message, cause);
    }

    /**
     * Step 9, close: after AgentSandbox ended every command and closed the channel. Killing the launcher kills the
     * agent ({@code --kill-child}), and the end of a pid namespace's pid 1 kills every process in it.
     */
    @Override
    public void close() {
        Process p = agent;
        if (p != null) {
            p.destroyForcibly();
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            NioWorkspace.deleteTree(dir);
        } catch (IOException ignored) {
            // a test's leak check reports what is left
        }
    }

    /** The host pid of the launcher ({@code unshare}), for tests that look at the sandbox's processes. */
    long launcherPid() {
        return agent.pid();
    }

    private String diagnostics() {
        Process p = agent;
        String err = agentErr.text().trim();
        String rc = p == null ? "not started" : p.isAlive() ? "running" : "exit " + p.exitValue();
        return rc + (err.isEmpty() ? "" : ": " + err);
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    @Override
    public String toString() {
        return "BareHost[" + id + "]";
    }
}
