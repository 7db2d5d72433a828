package dev.sandbox4j.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import org.junit.jupiter.api.Test;

/** A host without a usable bwrap: the provider says why and what to install, and opening fails typed. */
class UnavailableHostTest {
    private final LocalSandboxProvider provider =
            new LocalSandboxProvider(LocalOptions.defaults().withBwrap("/nonexistent/bin/bwrap"));

    @Test
    void missingBwrap_unavailableReason_saysWhatToInstall() {
        assertThat(provider.unavailableReason()).hasValueSatisfying(
                why -> assertThat(why).contains("apt-get install bubblewrap"));
    }

    @Test
    void missingBwrap_open_backendUnavailable() {
        assertThatThrownBy(() -> provider.open(SandboxSpec.defaults()))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.BACKEND_UNAVAILABLE);
                    assertThat(e.getMessage()).contains("bubblewrap");
                });
    }
}
