package dev.sandbox4j.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.Feature;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.core.AgentSandbox;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Pause on a local jail, seen from the host: the freezer's state, and the CPU time a busy loop gets while frozen. */
class LocalPauseTest {
    /** utime + stime, in clock ticks, of every process in the jail's cgroup (from /proc/<pid>/stat). */
    private static long cpuTicks(Cgroups cg) {
        long sum = 0;
        for (long pid : Cgroups.procsDeep(CgroupsV1.dir("freezer", cg.id))) {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                sum += Long.parseLong(f[11]) + Long.parseLong(f[12]); // fields 14 and 15 of stat(5)
            } catch (IOException | RuntimeException gone) {
                // exited between the listing and the read
            }
        }
        return sum;
    }

    @Test
    void aPausedBusyLoopGetsNoCpuTime() throws InterruptedException {
        try (Sandbox sandbox = Jail.open()) {
            Assumptions.assumeTrue(sandbox.info().supports(Feature.PAUSE), "no freezer here");
            Cgroups cg = ((BwrapHost) ((AgentSandbox) sandbox).host()).cgroups;
            Assumptions.assumeTrue(cg instanceof CgroupsV1, "measured on cgroup v1 hosts (this CI's)");
            try (ExecHandle loop = sandbox.shell().start(ExecRequest.shell("while :; do :; done"))) {
                long t0 = cpuTicks(cg);
                Thread.sleep(500);
                long running = cpuTicks(cg) - t0;
                assertThat(running).as("the measure sees a running loop's CPU time").isPositive();

                sandbox.pause();
                assertThat(Cgroups.read(cg.freezeFile()).trim()).isEqualTo("FROZEN");
                long p0 = cpuTicks(cg);
                Thread.sleep(500);
                long paused = cpuTicks(cg) - p0;
                assertThat(paused).as("CPU ticks of the jail's processes while frozen").isZero();

                sandbox.resume();
                assertThat(Cgroups.read(cg.freezeFile()).trim()).isEqualTo("THAWED");
                long r0 = cpuTicks(cg);
                Thread.sleep(500);
                assertThat(cpuTicks(cg) - r0).as("the loop runs again").isPositive();
                assertThat(loop.isAlive()).isTrue();
            }
        }
    }

    @Test
    void withoutACgroupPauseIsRefusedSayingWhy() {
        assertThat(Cgroups.none().freezeFile()).isNull();
        assertThat(Cgroups.none().freeze(true)).contains("no cgroup freezer", "delegated cgroup v2");
    }
}
