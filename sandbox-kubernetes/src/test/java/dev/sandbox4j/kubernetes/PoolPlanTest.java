package dev.sandbox4j.kubernetes;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.SandboxException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a template holds, read from the guide's and the test's pools, and which pool a spec gets. */
class PoolPlanTest {
    static final long MIB = ResourceLimits.MIB;

    static List<PoolPlan> plans() throws IOException {
        KubernetesSerialization json = new KubernetesSerialization();
        List<PoolPlan> plans = new ArrayList<>();
        for (var file : List.of(ControllerSimulator.POOL_YAML, ControllerSimulator.TEST_POOLS)) {
            for (String doc : Files.readString(file).split("\n---\n")) {
                if (doc.contains("kind: SandboxTemplate")) {
                    Crd.SandboxTemplate t = json.unmarshal(doc, Crd.SandboxTemplate.class);
                    String name = t.getMetadata().getName();
                    plans.add(PoolPlan.of(name.equals("sandbox4j") ? "sandbox4j-pool" : name, name, t.getSpec()));
                }
            }
        }
        return plans;
    }

    @Test
    void theGuidesTemplateHoldsTheDefaults() throws IOException {
        PoolPlan p = plans().get(0);
        assertThat(p).isEqualTo(new PoolPlan("sandbox4j-pool", "sandbox4j", "sandbox", 1024 * MIB, 1.0, 256,
                512 * MIB, false, true, "Localhost sandbox4j/default.json", java.util.Set.of()));
        ResourceLimits g = p.grant(ResourceLimits.DEFAULTS, false);
        assertThat(g.memoryBytes()).isEqualTo(1024 * MIB);
        assertThat(g.workspaceInodes()).as("a pod has no inode limit").isZero();
        assertThat(g.workspaceBytes()).as("so no workspace quota as the API means it").isZero();
        assertThat(g.maxFileBytes()).isZero();
    }

    @Test
    void eachSpecGetsThePoolThatFitsItBest() throws IOException {
        List<PoolPlan> plans = plans();
        assertThat(PoolPlan.choose(plans, ResourceLimits.DEFAULTS, false).pool()).isEqualTo("sandbox4j-pool");
        assertThat(PoolPlan.choose(plans, ResourceLimits.DEFAULTS.withMaxProcesses(64), false).pool())
                .isEqualTo("sandbox4j-small");
        assertThat(PoolPlan.choose(plans, ResourceLimits.DEFAULTS.withoutWorkspaceQuota(), false).pool())
                .isEqualTo("sandbox4j-noquota");
        assertThatThrownBy(() -> PoolPlan.choose(plans, ResourceLimits.DEFAULTS.withMemoryBytes(64 * MIB), false))
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind())
                        .isEqualTo(ErrorKind.UNSUPPORTED)).hasMessageContaining("memory limit");
        assertThat(PoolPlan.choose(plans, ResourceLimits.DEFAULTS.withMemoryBytes(64 * MIB), true).pool())
                .as("best effort: the first pool").isEqualTo("sandbox4j-pool");
    }

    /** A copy of {@code p} whose template runs {@code seccomp} (its sets parsed as PoolPlan.of does). */
    static PoolPlan withSeccomp(PoolPlan p, String pool, String seccomp) {
        java.util.Set<String> sets = seccomp.startsWith("Localhost ") ? PoolPlan.setsOf(seccomp.substring(10)) : null;
        return new PoolPlan(pool, p.template(), p.container(), p.memoryBytes(), p.cpus(), p.processes(),
                p.workspaceBytes(), p.workspaceInMemory(), p.egressDenied(), seccomp, sets);
    }

    @Test
    void theFilterChoosesFirst_andIsNeverRelaxedByBestEffort() throws IOException {
        PoolPlan base = plans().get(0);
        PoolPlan ours = base;
        PoolPlan debug = withSeccomp(base, "debug", "Localhost sandbox4j/debug.json");
        PoolPlan runtime = withSeccomp(base, "runtime", "RuntimeDefault");
        PoolPlan mine = withSeccomp(base, "mine", "Localhost profiles/mine.json");
        PoolPlan unconfined = withSeccomp(base, "unconfined", "Unconfined");
        PoolPlan unset = withSeccomp(base, "unset", "unset");
        java.util.Set<String> none = java.util.Set.of();
        List<PoolPlan> all = List.of(unconfined, unset, runtime, mine, debug, ours);
        assertThat(PoolPlan.choose(all, ResourceLimits.DEFAULTS, none, false, false)).isSameAs(ours);
        assertThat(PoolPlan.choose(all, ResourceLimits.DEFAULTS, java.util.Set.of("debug"), false, false))
                .isSameAs(debug);
        assertThat(PoolPlan.choose(List.of(unconfined, unset, runtime, mine), ResourceLimits.DEFAULTS, none, true,
                false)).as("accepted: the first with a filter").isSameAs(runtime);
        for (boolean accept : new boolean[] {false, true}) {
            assertThatThrownBy(() -> PoolPlan.choose(List.of(unconfined, unset), ResourceLimits.DEFAULTS, none, accept,
                    true)).isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind())
                            .isEqualTo(ErrorKind.UNSUPPORTED)).hasMessageContaining("unconfined: Unconfined");
        }
        assertThatThrownBy(() -> PoolPlan.choose(List.of(runtime, mine, ours), ResourceLimits.DEFAULTS,
                java.util.Set.of("io_uring"), true, true)).isInstanceOf(SandboxException.class)
                .hasMessageContaining("sandbox4j/io_uring.json");
    }
}
