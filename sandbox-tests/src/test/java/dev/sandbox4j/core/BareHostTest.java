package dev.sandbox4j.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shared agent layer on the bare host, beyond the kit: many commands at once through one agent (moved here from
 * sandbox-local's NativeAgentTest: it needs the agent, not the jail), and the pid namespace that makes the agent
 * sweep orphans and a close end every process.
 */
class BareHostTest {
    @BeforeAll
    static void available() {
        BareConformanceTest.assumeAvailable();
    }

    @Test
    void manyCommandsAtOnceInOneSandbox() throws Exception {
        int n = 48;
        try (Sandbox s = BareHost.open(SandboxSpec.defaults())) {
            ExecutorService pool = Executors.newFixedThreadPool(n);
            try {
                List<Future<ExecResult>> runs = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    String id = Integer.toString(i);
                    runs.add(pool.submit(() -> s.shell().run(ExecRequest.argv("/bin/sh", "-c",
                            "head -c 200000 /dev/zero | tr '\\0' x | wc -c; cat; echo \"$0\" >&2; exit $(( $0 % 5 ))",
                            id).withStdin(("in-" + id).getBytes()))));
                }
                for (int i = 0; i < n; i++) {
                    ExecResult r = runs.get(i).get(120, TimeUnit.SECONDS);
                    assertThat(r.stdout()).as("stdout of %d", i).isEqualTo("200000\nin-" + i);
                    assertThat(r.stderr()).as("stderr of %d", i).isEqualTo(i + "\n");
                    assertThat(r.exitCode()).as("exit of %d", i).isEqualTo(i % 5);
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void theAgentIsPidOne_sweepsOrphans_andCloseEndsEveryProcess() throws Exception {
        Sandbox s = BareHost.open(SandboxSpec.defaults());
        List<ProcessHandle> processes;
        try {
            assertThat(s.shell().run("tr '\\0' ' ' < /proc/1/cmdline").stdout()).contains("sbx-agent --reaper=");
            // an orphan (its parent exits at once) is re-parented to the agent, which kills it when the command ends
            ExecResult r = s.shell().run("sh -c 'sleep 300 & echo $!' ; sleep 0.2");
            String orphan = r.stdout().trim();
            assertThat(orphan).matches("\\d+");
            long swept = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (s.shell().run("test -e /proc/" + orphan).exitCode() == 0 && System.nanoTime() < swept) {
                Thread.sleep(50);
            }
            assertThat(s.shell().run("test -e /proc/" + orphan).exitCode()).as("the orphan, swept").isNotZero();
            ExecHandle running = s.shell().start(ExecRequest.shell("sleep 300 & sleep 301"));
            assertThat(running.isAlive()).isTrue();
            long launcher = ((BareHost) ((AgentSandbox) s).host()).launcherPid();
            processes = ProcessHandle.of(launcher).orElseThrow().descendants().toList();
            assertThat(processes.stream().map(h -> h.info().commandLine().orElse("")))
                    .anyMatch(c -> c.contains("sleep 300")).anyMatch(c -> c.contains("sleep 301"));
        } finally {
            s.close();
        }
        // by host pid: a process that escaped the namespace's end would be re-parented, not gone (the kernel kills
        // the namespace's processes as its pid 1 ends, and who reaps them may take a moment: zombies count as gone)
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        List<Long> left = running(processes);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            left = running(processes);
        }
        assertThat(left).as("processes of the closed sandbox").isEmpty();
        assertThat(new BareConformanceTest.BareFixture().leaks()).isEmpty();
    }

    /** The pids among {@code processes} that still run (not gone, not a zombie). */
    private static List<Long> running(List<ProcessHandle> processes) {
        List<Long> pids = new ArrayList<>();
        for (ProcessHandle h : processes) {
            try {
                String stat = Files.readString(Path.of("/proc/" + h.pid() + "/stat"), StandardCharsets.ISO_8859_1);
                char state = stat.charAt(stat.lastIndexOf(')') + 2);
                if (state != 'Z' && state != 'X') {
                    pids.add(h.pid());
                }
            } catch (IOException e) {
                // gone
            }
        }
        return pids;
    }

    @Test
    void aNetworkPolicyIsRefused_theBareHostHasNoNetworkNamespace() {
        SandboxSpec spec = SandboxSpec.builder().network(NetworkPolicy.allowDomains("example.com")).build();
        try {
            BareHost.open(spec).close();
            throw new AssertionError("opened");
        } catch (SandboxException e) {
            assertThat(e.kind()).isEqualTo(ErrorKind.UNSUPPORTED);
        }
        assertThat(new BareConformanceTest.BareFixture().leaks()).isEmpty();
    }
}
