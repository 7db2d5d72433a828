package dev.sandbox4j.local;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/** Test helper: skips when bwrap is unavailable, fails instead when SANDBOX4J_REQUIRE lists "local". */
final class Jail {
    static final LocalSandboxProvider PROVIDER = new LocalSandboxProvider();

    private Jail() {
    }

    static void assumeAvailable() {
        dev.sandbox4j.testing.Required.orSkip("local", PROVIDER.unavailableReason());
    }

    static Sandbox open() {
        return open(SandboxSpec.defaults());
    }

    /**
     * Opens a sandbox; where this host cannot enforce every limit (a non-root user on cgroup v1, say) the spec
     * accepts best effort, so that the kit and the attack tests still run there. {@link LimitsTest} checks, per
     * setting, that the limits hold or that the default spec is refused.
     */
    static Sandbox open(SandboxSpec spec) {
        assumeAvailable();
        Limits here = limitsHere();
        boolean all = here.memory() && here.processes() && here.cpu()
                && WorkspaceQuota.unavailableReason(Host.get(LocalOptions.defaults())) == null;
        return PROVIDER.open(all ? spec : spec.toBuilder().bestEffortLimits(true).build());
    }

    static Limits limitsHere() {
        assumeAvailable();
        LocalOptions o = LocalOptions.defaults();
        return Limits.of(Host.get(o), CgroupSetting.get(o));
    }

    /**
     * Host resources this JVM's sandboxes left behind: bwrap/agent processes in their cgroups, their cgroups, their
     * temp directories. Other JVMs' sandboxes (a parallel build, a benchmark) are not this test's leaks.
     */
    /** This JVM, if it is an ancestor of {@code h}. */
    private static Optional<ProcessHandle> ancestors(ProcessHandle h) {
        long me = ProcessHandle.current().pid();
        for (Optional<ProcessHandle> p = h.parent(); p.isPresent(); p = p.get().parent()) {
            if (p.get().pid() == me) {
                return p;
            }
        }
        return Optional.empty();
    }

    static List<String> leaks() {
        List<String> leaks = new ArrayList<>(Cgroups.leftovers());
        try (Stream<Path> s = Files.list(Path.of("/proc"))) {
            s.filter(p -> p.getFileName().toString().matches("\\d+")).forEach(p -> {
                try {
                    String cmd = Files.readString(p.resolve("cmdline")).replace('\0', ' ');
                    // ours: in one of this JVM's sandbox cgroups or, where there are none, below this JVM
                    long pid = Long.parseLong(p.getFileName().toString());
                    boolean ours = Files.readString(p.resolve("cgroup")).contains("/sbx-" + BwrapHost.OWNER)
                            || ProcessHandle.of(pid).flatMap(h -> ancestors(h)).isPresent();
                    if (ours && (cmd.contains("/opt/sandbox4j/sbx-agent") || cmd.startsWith("bwrap --args")
                            || cmd.contains("/bwrap --args"))) {
                        leaks.add("process " + p.getFileName() + ": " + cmd);
                    }
                } catch (IOException | RuntimeException ignored) {
                    // gone
                }
            });
        } catch (IOException ignored) {
            // no /proc
        }
        try {
            // workspace quota tmpfs mounts of this JVM's sandboxes
            for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
                if (line.contains(BwrapHost.PREFIX + BwrapHost.OWNER) && line.contains(WorkspaceQuota.DEVICE)) {
                    leaks.add("mount " + line);
                }
            }
        } catch (IOException ignored) {
            // no /proc
        }
        try (Stream<Path> s = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            // the agent's binaries are written once per JVM (AgentFiles), not per sandbox: not a leak
            s.filter(p -> p.getFileName().toString().startsWith(BwrapHost.PREFIX + BwrapHost.OWNER)
                            && AgentFiles.dirs().stream().noneMatch(d -> d.getFileName().equals(p.getFileName())))
                    .forEach(p -> leaks.add("temp dir " + p));
        } catch (IOException ignored) {
            // none
        }
        return leaks;
    }
}
