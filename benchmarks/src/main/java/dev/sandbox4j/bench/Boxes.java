package dev.sandbox4j.bench;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.Sandboxes;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.testcontainers.DockerClientFactory;

import java.nio.file.Path;

/** Open sandboxes shared by the benchmarks of one trial. */
public final class Boxes {
    private Boxes() {
    }

    @State(Scope.Benchmark)
    public static class Local {
        Sandbox sandbox;

        @Setup(Level.Trial)
        public void open() {
            sandbox = Sandboxes.open("local");
            Host.ok(sandbox.shell().run("true"));
        }

        @TearDown(Level.Trial)
        public void close() {
            sandbox.close();
        }
    }

    /** The default spec without the workspace quota (issue 16): what the quota costs, next to {@link Local}. */
    static dev.sandbox4j.SandboxSpec noQuota() {
        return dev.sandbox4j.SandboxSpec.builder()
                .limits(dev.sandbox4j.ResourceLimits.DEFAULTS.withoutWorkspaceQuota()).build();
    }

    @State(Scope.Benchmark)
    public static class LocalNoQuota {
        Sandbox sandbox;

        @Setup(Level.Trial)
        public void open() {
            sandbox = Sandboxes.open("local", noQuota());
            Host.ok(sandbox.shell().run("true"));
        }

        @TearDown(Level.Trial)
        public void close() {
            sandbox.close();
        }
    }

    /** The default spec without its CPU limit (one core): a pipeline of three processes then has both cores. */
    @State(Scope.Benchmark)
    public static class LocalNoCpuLimit {
        Sandbox sandbox;

        @Setup(Level.Trial)
        public void open() {
            sandbox = Sandboxes.open("local", dev.sandbox4j.SandboxSpec.builder()
                    .limits(dev.sandbox4j.ResourceLimits.DEFAULTS.withCpus(0)).build());
            Host.ok(sandbox.shell().run("true"));
        }

        @TearDown(Level.Trial)
        public void close() {
            sandbox.close();
        }
    }

    @State(Scope.Benchmark)
    public static class DockerNoQuota {
        Sandbox sandbox;

        @Setup(Level.Trial)
        public void open() {
            sandbox = Sandboxes.open("docker", noQuota());
            Host.ok(sandbox.shell().run("true"));
        }

        @TearDown(Level.Trial)
        public void close() {
            sandbox.close();
        }
    }

    @State(Scope.Benchmark)
    public static class Memory {
        Sandbox sandbox;

        @Setup(Level.Trial)
        public void open() {
            sandbox = Sandboxes.open("memory");
        }

        @TearDown(Level.Trial)
        public void close() {
            sandbox.close();
        }
    }

    /** A docker-backend sandbox, plus its container id and a Testcontainers view of the same container. */
    @State(Scope.Benchmark)
    public static class Docker {
        Sandbox sandbox;
        String containerId;
        DockerClient tc;
        InspectContainerResponse tcInfo;

        @Setup(Level.Trial)
        public void open() {
            sandbox = Sandboxes.open("docker");
            Host.ok(sandbox.shell().run("true"));
            containerId = Host.containerOf(sandbox);
        }

        /** Testcontainers is set up lazily: only its own benchmark pays for its client. */
        void testcontainers() {
            if (tc == null) {
                tc = DockerClientFactory.instance().client();
                tcInfo = tc.inspectContainerCmd(containerId).exec();
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            sandbox.close();
        }
    }

    /** A workspace directory for the hand-made bwrap jail. */
    @State(Scope.Benchmark)
    public static class BwrapWorkspace {
        Path dir;

        @Setup(Level.Trial)
        public void create() {
            dir = Host.bwrapWorkspace();
            Host.ok(Host.run(Host.bwrap(dir, "true")));
        }

        @TearDown(Level.Trial)
        public void delete() {
            Host.deleteTree(dir);
        }
    }
}
