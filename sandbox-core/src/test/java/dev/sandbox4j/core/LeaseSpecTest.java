package dev.sandbox4j.core;

import dev.sandbox4j.Feature;
import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.SandboxSpec;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A lease in the spec, and what an attach may set (docs/reattach.md), checked once here for every backend. */
class LeaseSpecTest {
    private static final SandboxSpec LEASED = SandboxSpec.builder().lease(Duration.ofMinutes(3)).build();

    @Test
    void aLeaseNeedsReattach() {
        assertThat(SandboxSpec.defaults().lease()).isZero();
        assertThat(LEASED.lease()).isEqualTo(Duration.ofMinutes(3));
        assertThat(LEASED.toString()).contains("lease=PT3M");
        assertThat(LEASED.toBuilder().build().lease()).isEqualTo(Duration.ofMinutes(3));
        assertThat(HostDirs.unsupported(LEASED, EnumSet.of(Feature.SHELL), "kubernetes")).contains("REATTACH");
        assertThat(HostDirs.unsupported(LEASED, EnumSet.of(Feature.REATTACH), "docker")).isNull();
        assertThat(HostDirs.unsupported(SandboxSpec.defaults(), EnumSet.of(Feature.SHELL), "kubernetes")).isNull();
        assertThatThrownBy(() -> SandboxSpec.builder().lease(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SandboxSpec.builder().lease(Duration.ofDays(2)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anAttachTakesTheHostsSettingsOnly() {
        assertThat(HostDirs.attachRefused(SandboxSpec.builder().env("A", "1").commandTimeout(Duration.ofSeconds(5))
                .lifetime(Duration.ofMinutes(1)).outputLimit(10).build())).isNull();
        String refused = HostDirs.attachRefused(SandboxSpec.builder().file("a", "b").network(NetworkPolicy.allowAll())
                .limits(ResourceLimits.DEFAULTS.withMaxProcesses(7)).lease(Duration.ofMinutes(1)).build());
        assertThat(refused).contains("files", "network", "limits", "lease");
    }
}
