package dev.sandbox4j.docker;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The janitor's rule for leased containers (docs/reattach.md), without an engine. */
class EngineJanitorLeaseTest {
    private static Map<String, String> labels(boolean leased) {
        Map<String, String> l = new HashMap<>();
        l.put(Engine.LABEL, "1");
        l.put(Engine.LABEL_ID, "sbx-0123456789ab");
        // this host, a pid that cannot be running: the owner is dead
        l.put(Engine.LABEL_OWNER, Engine.OWNER.split(":")[0] + ":" + Integer.MAX_VALUE + ":0");
        l.put(Engine.LABEL_EXPIRES, "1"); // long past
        if (leased) {
            ContainerLease.label(l, java.time.Duration.ofMinutes(1), dev.sandbox4j.ResourceLimits.DEFAULTS);
        }
        return l;
    }

    @Test
    void leasedContainersStayWhileTheyRunWhateverTheirOwnerAndExpiry() {
        long now = java.time.Instant.now().getEpochSecond();
        assertThat(labels(true)).as("a janitor before leases must find no owner or expiry to judge")
                .doesNotContainKeys(Engine.LABEL_OWNER, Engine.LABEL_EXPIRES);
        assertThat(EngineJanitor.stale(labels(true), now)).as("the old rule leaves it").isFalse();
        assertThat(EngineJanitor.removable(labels(false), "running", now)).as("a plain one of a dead JVM").isTrue();
        assertThat(EngineJanitor.removable(labels(true), "running", now)).isFalse();
        assertThat(EngineJanitor.removable(labels(true), "paused", now)).isFalse();
        assertThat(EngineJanitor.removable(labels(true), "exited", now)).as("its lease ran out").isTrue();
        assertThat(EngineJanitor.removable(labels(true), "created", now)).as("never started, owner dead").isTrue();
        Map<String, String> young = labels(true);
        young.put(ContainerLease.LABEL_OPENER, Engine.OWNER);
        assertThat(EngineJanitor.removable(young, "created", now)).as("being opened by a live JVM").isFalse();
    }
}
