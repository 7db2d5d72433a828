package dev.sandbox4j.bench;

import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.Sandboxes;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.util.ArrayList;
import java.util.List;

/** A sandbox's whole life for one command, and the same by hand. */
public class OpenClose {
    @Benchmark
    public ExecResult local() {
        try (Sandbox s = Sandboxes.open("local")) {
            ExecResult r = s.shell().run("true");
            Host.ok(r);
            return r;
        }
    }

    /** The same without the workspace quota: no tmpfs mounted at open, none unmounted at close. */
    @Benchmark
    public ExecResult localNoQuota() {
        try (Sandbox s = Sandboxes.open("local", Boxes.noQuota())) {
            ExecResult r = s.shell().run("true");
            Host.ok(r);
            return r;
        }
    }

    @Benchmark
    public ExecResult docker() {
        try (Sandbox s = Sandboxes.open("docker")) {
            ExecResult r = s.shell().run("true");
            Host.ok(r);
            return r;
        }
    }

    /** Baseline: {@code docker run --rm} with the backend's hardening flags, running {@code true}. */
    @Benchmark
    public int dockerRunRm() {
        List<String> argv = new ArrayList<>(List.of("docker", "run", "--rm"));
        argv.addAll(Host.dockerHardened());
        argv.addAll(List.of(Host.IMAGE, "true"));
        int exit = Host.runDiscard(argv);
        Host.ok(exit);
        return exit;
    }

    /** Sandboxes opened by {@link #dockerOpenOnly}, closed after each invocation, outside the timing. */
    @State(Scope.Thread)
    public static class Opened {
        final List<Sandbox> sandboxes = new ArrayList<>();
        final List<String> containers = new ArrayList<>();

        @TearDown(Level.Invocation)
        public void close() {
            sandboxes.forEach(Sandbox::close);
            sandboxes.clear();
            if (!containers.isEmpty()) {
                List<String> argv = new ArrayList<>(List.of("docker", "rm", "-f"));
                argv.addAll(containers);
                Host.runDiscard(argv);
                containers.clear();
            }
        }
    }

    /** Open alone (the sandbox is ready for commands when it returns); close is not timed. */
    @Benchmark
    public Sandbox dockerOpenOnly(Opened o) {
        Sandbox s = Sandboxes.open("docker");
        o.sandboxes.add(s);
        return s;
    }

    /** Baseline for the open target: {@code docker run -d} of a hardened container; removal is not timed. */
    @Benchmark
    public String dockerRunDetached(Opened o) {
        List<String> argv = new ArrayList<>(List.of("docker", "run", "-d"));
        argv.addAll(Host.dockerHardened());
        argv.addAll(List.of("--entrypoint", "/bin/sleep", Host.IMAGE, "infinity"));
        String id = Host.check(argv);
        o.containers.add(id);
        return id;
    }

    /** Open alone for the local backend; close is not timed. */
    @Benchmark
    public Sandbox localOpenOnly(Opened o) {
        Sandbox s = Sandboxes.open("local");
        o.sandboxes.add(s);
        return s;
    }
}
