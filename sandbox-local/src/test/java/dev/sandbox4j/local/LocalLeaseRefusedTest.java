package dev.sandbox4j.local;

import dev.sandbox4j.AttachCredential;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Feature;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The local backend has no REATTACH: its jail is the JVM's child and dies with it; a lease or an attach is refused. */
class LocalLeaseRefusedTest {
    private final LocalSandboxProvider provider = new LocalSandboxProvider();

    @Test
    void leaseAndAttach_areRefusedSayingWhy() {
        assertThat(provider.features()).doesNotContain(Feature.REATTACH);
        assertThatThrownBy(() -> provider.open(SandboxSpec.builder().lease(Duration.ofMinutes(1)).build()))
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind())
                        .isEqualTo(ErrorKind.UNSUPPORTED)).hasMessageContaining("dies with it");
        assertThatThrownBy(() -> provider.attach("sbx-0123456789ab", AttachCredential.generate(),
                SandboxSpec.defaults())).isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind())
                .isEqualTo(ErrorKind.UNSUPPORTED)).hasMessageContaining("dies with it");
    }
}
