package dev.sandbox4j.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.Feature;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The guarantees a backend declares as features, tested by their effect: a declared limit holds inside the sandbox
 * (and {@code info()} reports it), an undeclared one is reported as 0; isolation keeps host files, processes and
 * loopback services out of reach. Without these a backend could declare a feature it does not deliver and pass.
 */
public interface LimitsContract extends ConformanceSupport {
    private ExecResult sh(Sandbox sandbox, String cmd, int seconds) {
        return sandbox.shell().run(ExecRequest.shell(cmd).withTimeout(Duration.ofSeconds(seconds)));
    }

    private Sandbox open(ResourceLimits limits) {
        return fixture().open(SandboxSpec.builder().commandTimeout(Duration.ofSeconds(60)).limits(limits).build());
    }

    // ---- memory ------------------------------------------------------------------------------------------------

    @Test
    @Requires({Feature.SHELL, Feature.MEMORY_LIMIT})
    default void memoryLimit_overAllocation_isStoppedAndSandboxGoesOn(Sandbox ignored) {
        // a workspace quota that fits beside the processes: memory-backed workspaces count against the limit
        try (Sandbox sandbox = open(ResourceLimits.DEFAULTS.withMemoryBytes(256 * ResourceLimits.MIB)
                .withWorkspaceQuota(64 * ResourceLimits.MIB, 16_384))) {
            assertThat(sandbox.info().limits().memoryBytes()).isEqualTo(256 * ResourceLimits.MIB);
            ExecResult r = sh(sandbox, "python3 -c \"x = bytearray(768 * 1024 * 1024); x[::4096] = b'1' * "
                    + "len(x[::4096]); print('allocated')\"", 60);
            assertThat(r.stdout()).as("768 MiB must not fit in 256 MiB").doesNotContain("allocated");
            assertThat(r.status() == ExecStatus.KILLED || r.exitCode() != 0).isTrue();
            assertThat(sh(sandbox, "echo alive", 30).stdout()).isEqualTo("alive\n");
        }
    }

    @Test
    @Requires(absent = Feature.MEMORY_LIMIT)
    default void memoryLimit_undeclared_isReportedAsNone(Sandbox sandbox) {
        assertThat(sandbox.info().limits().memoryBytes()).isZero();
    }

    // ---- processes ---------------------------------------------------------------------------------------------

    @Test
    @Requires({Feature.SHELL, Feature.PROCESS_LIMIT})
    default void processLimit_forkFailsInsideAndTheCommandGoesOn(Sandbox ignored) throws InterruptedException {
        try (Sandbox sandbox = open(ResourceLimits.DEFAULTS.withMaxProcesses(64))) {
            assertThat(sandbox.info().limits().maxProcesses()).isEqualTo(64);
            ExecResult r = sh(sandbox, "python3 -c '\nimport os, time\nn = 0\nfor i in range(300):\n    try:\n"
                    + "        pid = os.fork()\n    except OSError as e:\n        print(\"refused\", e.errno)\n"
                    + "        break\n    if pid == 0:\n        time.sleep(3)\n        os._exit(0)\n    n += 1\n"
                    + "print(\"started\", n)\n'", 60);
            assertThat(r.status()).as(r.stderr()).isEqualTo(ExecStatus.COMPLETED);
            assertThat(r.stdout()).contains("refused 11");
            int started = Integer.parseInt(r.stdout().replaceAll("(?s).*started (\\d+).*", "$1"));
            assertThat(started).isLessThanOrEqualTo(64);
            assertThat(Checks.await(() -> "alive\n".equals(sh(sandbox, "echo alive", 30).stdout()),
                    Duration.ofSeconds(10))).as("the sandbox forks again once the command is over").isTrue();
        }
    }

    @Test
    @Requires(absent = Feature.PROCESS_LIMIT)
    default void processLimit_undeclared_isReportedAsNone(Sandbox sandbox) {
        assertThat(sandbox.info().limits().maxProcesses()).isZero();
    }

    // ---- CPU ---------------------------------------------------------------------------------------------------

    @Test
    @Requires({Feature.SHELL, Feature.CPU_LIMIT})
    default void cpuLimit_twoBusyProcessesGetHalfACore(Sandbox ignored) {
        try (Sandbox sandbox = open(ResourceLimits.DEFAULTS.withCpus(0.5))) {
            assertThat(sandbox.info().limits().cpus()).isEqualTo(0.5);
            // two busy loops for 3 s of wall time; without the limit they would use up to 6 s of CPU
            ExecResult r = sh(sandbox, "python3 -c '\nimport os, resource, time\nfor _ in range(2):\n"
                    + "    if os.fork() == 0:\n        end = time.time() + 3\n        while time.time() < end: pass\n"
                    + "        os._exit(0)\nos.wait(); os.wait()\nu = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
                    + "print(\"cpu %.2f\" % (u.ru_utime + u.ru_stime))\n'", 60);
            double cpu = Double.parseDouble(r.stdout().replaceAll("(?s).*cpu ([0-9.]+).*", "$1"));
            assertThat(cpu).as("CPU seconds used in 3 s of wall time at 0.5 cores").isLessThan(2.3);
        }
    }

    @Test
    @Requires(absent = Feature.CPU_LIMIT)
    default void cpuLimit_undeclared_isReportedAsNone(Sandbox sandbox) {
        assertThat(sandbox.info().limits().cpus()).isZero();
    }

    // ---- isolation ---------------------------------------------------------------------------------------------

    @Test
    @Requires({Feature.SHELL, Feature.ISOLATION})
    default void isolation_hostFilesAndProcessesAreOutOfReach(Sandbox sandbox) throws IOException {
        String secret = UUID.randomUUID().toString();
        Path file = Files.createTempFile("sandbox4j-kit-secret", ".txt");
        try {
            Files.writeString(file, secret);
            ExecResult r = sh(sandbox, "cat '" + file + "' 2>/dev/null; grep -rs '" + secret + "' /tmp /etc "
                    + "2>/dev/null | head -1", 30);
            assertThat(r.stdout()).doesNotContain(secret);
            // this JVM's own command line, as the sandbox would see it if host processes were visible
            String me = new String(Files.readAllBytes(Path.of("/proc/self/cmdline")),
                    java.nio.charset.StandardCharsets.UTF_8).replace('\0', ' ').trim();
            ExecResult ps = sh(sandbox, "for p in /proc/[0-9]*; do cat $p/cmdline 2>/dev/null | tr '\\0' ' '; "
                    + "echo; done", 30);
            assertThat(ps.stdout()).as("the host JVM is not visible").doesNotContain(me);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    @Requires({Feature.SHELL, Feature.NETWORK_ISOLATION})
    default void networkIsolation_hostLoopbackServiceIsOutOfReach(Sandbox sandbox) throws IOException {
        try (ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            int port = server.getLocalPort();
            ExecResult r = sh(sandbox, "python3 -c \"import socket\ntry:\n    socket.create_connection(("
                    + "'127.0.0.1', " + port + "), timeout=3); print('connected')\nexcept OSError as e:\n"
                    + "    print('refused')\"", 30);
            assertThat(r.stdout()).as(r.stderr()).isEqualTo("refused\n");
        }
    }
}
