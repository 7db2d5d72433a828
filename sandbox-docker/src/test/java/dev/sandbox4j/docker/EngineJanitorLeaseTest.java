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
            l.put(ContainerLease.LABEL_LEASE, "60000");
        }
        return l;
    }

    @Test
    void leasedContainersStayWhileTheyRunWhateverTheirOwnerAndExpiry() {
        long now = java.time.Instant.now().getEpochSecond();
        assertThat(EngineJanitor.removable(labels(false), "running", now)).as("a plain one of a dead JVM").isTrue();
        assertThat(EngineJanitor.removable(labels(true), "running", now)).isFalse();
        assertThat(EngineJanitor.removable(labels(true), "paused", now)).isFalse();
        assertThat(EngineJanitor.removable(labels(true), "exited", now)).as("its lease ran out").isTrue();
        assertThat(EngineJanitor.removable(labels(true), "created", now)).as("never started, owner dead").isTrue();
        Map<String, String> young = labels(true);
        young.put(Engine.LABEL_OWNER, Engine.OWNER);
        young.put(Engine.LABEL_EXPIRES, Long.toString(now + 3600));
        assertThat(EngineJanitor.removable(young, "created", now)).as("being opened by a live JVM").isFalse();
    }
}
