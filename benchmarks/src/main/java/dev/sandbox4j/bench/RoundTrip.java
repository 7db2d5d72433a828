package dev.sandbox4j.bench;

import dev.sandbox4j.ExecResult;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.testcontainers.containers.Container;
import org.testcontainers.containers.ExecInContainerPattern;

import java.util.List;

/** One command in an open sandbox, and the same command run by hand. */
public class RoundTrip {
    @State(Scope.Benchmark)
    public static class Cmd {
        @Param({"true", "echo1k"})
        public String cmd;
        String line;
        int expected;

        @Setup(Level.Trial)
        public void resolve() {
            line = Host.command(cmd);
            expected = cmd.equals("true") ? 0 : 1024;
        }

        void check(int exit, int outLength) {
            if (exit != 0 || outLength != expected) {
                throw new IllegalStateException(cmd + ": exit " + exit + ", " + outLength + " bytes of output");
            }
        }
    }

    @Benchmark
    public ExecResult local(Cmd c, Boxes.Local b) {
        ExecResult r = b.sandbox.shell().run(c.line);
        c.check(r.exitCode(), r.stdout().length());
        return r;
    }

    @Benchmark
    public ExecResult docker(Cmd c, Boxes.Docker b) {
        ExecResult r = b.sandbox.shell().run(c.line);
        c.check(r.exitCode(), r.stdout().length());
        return r;
    }

    @Benchmark
    public ExecResult memory(Cmd c, Boxes.Memory b) {
        ExecResult r = b.sandbox.shell().run(c.line);
        c.check(r.exitCode(), r.stdout().length());
        return r;
    }

    /** Baseline: {@code /bin/sh -c line} with ProcessBuilder on the host, stdout and stderr read in full. */
    @Benchmark
    public Host.Out processBuilder(Cmd c) {
        Host.Out o = Host.sh(c.line);
        c.check(o.exit(), o.stdout().length);
        return o;
    }

    /** Baseline: a fresh hardened bwrap jail per command. */
    @Benchmark
    public Host.Out bwrapFresh(Cmd c, Boxes.BwrapWorkspace w) {
        Host.Out o = Host.run(Host.bwrap(w.dir, c.line));
        c.check(o.exit(), o.stdout().length);
        return o;
    }

    /** Baseline: {@code docker exec} CLI on the docker sandbox's own container. */
    @Benchmark
    public Host.Out dockerCli(Cmd c, Boxes.Docker b) {
        Host.Out o = Host.run(List.of("docker", "exec", "-u", Host.DOCKER_USER, "-w", "/workspace", b.containerId,
                "/bin/sh", "-c", c.line));
        c.check(o.exit(), o.stdout().length);
        return o;
    }

    /** Baseline: Testcontainers' execInContainer on the docker sandbox's own container. */
    @Benchmark
    public Container.ExecResult testcontainers(Cmd c, Boxes.Docker b) throws Exception {
        b.testcontainers();
        Container.ExecResult r = ExecInContainerPattern.execInContainerWithUser(b.tc, b.tcInfo, Host.DOCKER_USER,
                "/bin/sh", "-c", c.line);
        c.check(r.getExitCode(), r.getStdout().length());
        return r;
    }
}
