package dev.sandbox4j.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 11's three failures, in whatever setting this runs (root or not, cgroup v1 or v2, delegated or not): each
 * limit the default spec asks for holds, or the default spec is refused with a typed error naming it; the process
 * limit and the tree kill hold everywhere. The same class runs as root and as a non-root user on the build host and
 * inside the cgroup v2 VM (scripts/test-as-user.sh, scripts/vm-test.sh).
 */
class LimitsTest {
    private static ExecResult sh(Sandbox s, String cmd, int seconds) {
        return s.shell().run(ExecRequest.shell(cmd).withTimeout(Duration.ofSeconds(seconds)));
    }

    @Test
    void defaultSpecOpensOnlyWhereEveryLimitHolds() {
        Limits here = Jail.limitsHere();
        System.out.println("[limits] setting: " + CgroupSetting.get(LocalOptions.defaults()) + "; " + here);
        String noQuota = WorkspaceQuota.unavailableReason(Host.get(LocalOptions.defaults()));
        if (here.memory() && here.processes() && here.cpu() && noQuota == null) {
            try (Sandbox s = Jail.PROVIDER.open(SandboxSpec.defaults())) {
                assertThat(s.info().limits()).isEqualTo(ResourceLimits.DEFAULTS);
            }
        } else {
            assertThatThrownBy(() -> Jail.PROVIDER.open(SandboxSpec.defaults()))
                    .isInstanceOf(SandboxException.class)
                    .satisfies(e -> {
                        SandboxException se = (SandboxException) e;
                        assertThat(se.kind()).isEqualTo(ErrorKind.UNSUPPORTED);
                        assertThat(se.kind().retryable()).isFalse();
                        if (!here.memory()) {
                            assertThat(se.getMessage()).contains("memory");
                        }
                        if (!here.cpu()) {
                            assertThat(se.getMessage()).contains("CPU");
                        }
                        if (here.memory() && here.cpu() && noQuota != null) {
                            assertThat(se.getMessage()).contains("workspace quota");
                        }
                        assertThat(se.getMessage()).contains("bestEffortLimits");
                    });
            assertThat(Jail.leaks()).isEmpty();
        }
    }

    @Test
    void bestEffortReportsExactlyWhatHolds() {
        Limits here = Jail.limitsHere();
        try (Sandbox s = Jail.PROVIDER.open(SandboxSpec.builder().bestEffortLimits(true).build())) {
            ResourceLimits l = s.info().limits();
            assertThat(l.memoryBytes()).isEqualTo(here.memory() ? ResourceLimits.DEFAULTS.memoryBytes() : 0);
            assertThat(l.maxProcesses()).isEqualTo(here.processes() ? ResourceLimits.DEFAULTS.maxProcesses() : 0);
            assertThat(l.cpus()).isEqualTo(here.cpu() ? ResourceLimits.DEFAULTS.cpus() : 0);
        }
    }

    @Test
    void threeGibibytesDoNotFitInOne() {
        Limits here = Jail.limitsHere();
        try (Sandbox s = Jail.open(SandboxSpec.defaults())) {
            // 48 x 64 MiB, so that no single allocation is refused by the host's overcommit check before the limit
            // is reached (a VM with 3 GiB refuses one 3 GiB bytearray outright)
            ExecResult r = sh(s, "python3 -c \"x = [bytearray(64 << 20) for i in range(48)]; print('ok')\"", 60);
            assertThat(r.stdout()).doesNotContain("ok");
            if (here.memory()) {
                assertThat(r.status()).isEqualTo(ExecStatus.KILLED);
                assertThat(r.detail()).contains("memory limit");
            } else {
                // best effort: the per-process data limit, reported in details as such
                assertThat(r.stderr()).contains("MemoryError");
                assertThat(s.info().details().get("memory")).contains("per process");
            }
            assertThat(sh(s, "echo alive", 10).stdout()).isEqualTo("alive\n");
        }
    }

    @Test
    void sixHundredProcessesDoNotFitInTwoHundredFiftySix() {
        try (Sandbox s = Jail.open(SandboxSpec.defaults())) {
            assertThat(s.info().limits().maxProcesses()).isEqualTo(256);
            // 600 children that each sleep 5 s: fork must fail (EAGAIN) at the limit, inside the command
            ExecResult r = sh(s, "python3 -c '\nimport os, time\nn = 0\nfor i in range(600):\n    try:\n"
                    + "        pid = os.fork()\n    except OSError as e:\n        print(\"refused\", e.errno)\n"
                    + "        break\n    if pid == 0:\n        time.sleep(5)\n        os._exit(0)\n    n += 1\n"
                    + "print(\"started\", n)\n'", 60);
            assertThat(r.status()).isEqualTo(ExecStatus.COMPLETED);
            assertThat(r.stdout()).contains("refused 11");
            int started = Integer.parseInt(r.stdout().replaceAll("(?s).*started (\\d+).*", "$1"));
            assertThat(started).isLessThanOrEqualTo(256).isGreaterThan(100);
            // the sleepers ended with their command: the next one forks freely
            ExecResult after = sh(s, "ps -eo comm= | grep -c python3 || true", 10);
            assertThat(after.stdout().trim()).isEqualTo("0");
        }
    }

    @Test
    void timeoutLeavesNoSurvivorHoweverItForked() throws Exception {
        try (Sandbox s = Jail.open(SandboxSpec.defaults())) {
            long t0 = System.nanoTime();
            ExecResult r = s.shell().run(ExecRequest.shell("env -i /bin/sh -c \"(setsid sleep 1007 &); "
                    + "trap '' TERM HUP; sleep 1008 & exit 0\" & sleep 30").withTimeout(Duration.ofSeconds(1)));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertThat(r.status()).isEqualTo(ExecStatus.TIMEOUT);
            assertThat(ms).as("returned at the deadline + the kill ladder").isLessThan(4_000);
            ExecResult left = sh(s, "ps -eo args= | grep -E '^sleep 100[78]' || true", 10);
            assertThat(left.stdout()).isEmpty();
        }
    }

    /**
     * Issue 11's timeout figure in whatever setting this runs: 24 concurrent and 16 sequential `sleep 100` with a 1 s
     * timeout. Every call says TIMEOUT, no sleep is left 2 s after the last one, and the return times are printed
     * (docs/reliability.md collects them per setting); the bound asserted is the kit's timeout + 2 s, not a speed.
     */
    @Test
    void timeoutsReturnPromptlyAndLeaveNoSurvivor() throws Exception {
        try (Sandbox s = Jail.open(SandboxSpec.defaults())) {
            java.util.List<Long> ms = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
            java.util.List<String> wrong = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
            Runnable one = () -> {
                long t0 = System.nanoTime();
                ExecResult r = s.shell().run(ExecRequest.shell("sleep 100.7").withTimeout(Duration.ofSeconds(1)));
                ms.add((System.nanoTime() - t0) / 1_000_000);
                if (r.status() != ExecStatus.TIMEOUT) {
                    wrong.add(r.status() + " " + r.exitCode());
                }
            };
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(24);
            java.util.List<java.util.concurrent.Future<?>> fs = new java.util.ArrayList<>();
            for (int i = 0; i < 24; i++) {
                fs.add(pool.submit(one));
            }
            for (java.util.concurrent.Future<?> f : fs) {
                f.get(2, java.util.concurrent.TimeUnit.MINUTES);
            }
            pool.shutdown();
            for (int i = 0; i < 16; i++) {
                one.run();
            }
            Thread.sleep(2_000);
            String left = sh(s, "ps -eo args= | grep -c '^sleep 100.7' || true", 10).stdout().trim();
            long[] sorted = ms.stream().mapToLong(Long::longValue).sorted().toArray();
            System.out.println("[timeouts] " + CgroupSetting.get(LocalOptions.defaults()).description + ": n="
                    + sorted.length + " p50 " + sorted[sorted.length / 2] + " ms, p99 "
                    + sorted[(int) Math.floor(0.99 * (sorted.length - 1))] + " ms, max " + sorted[sorted.length - 1]
                    + " ms; survivors 2 s later: " + left);
            assertThat(wrong).isEmpty();
            assertThat(left).isEqualTo("0");
            assertThat(sorted[sorted.length - 1]).as("slowest return (ms)").isLessThan(3_000);
        }
    }

    @Test
    void finishedCommandLeavesNoSurvivor() {
        try (Sandbox s = Jail.open(SandboxSpec.defaults())) {
            ExecResult r = sh(s, "env -i /bin/sh -c \"(setsid sleep 1017 &); sleep 1018 &\"; echo done", 10);
            assertThat(r.stdout()).isEqualTo("done\n");
            ExecResult left = sh(s, "ps -eo args= | grep -E '^sleep 101[78]' || true", 10);
            assertThat(left.stdout()).isEmpty();
        }
    }
}
