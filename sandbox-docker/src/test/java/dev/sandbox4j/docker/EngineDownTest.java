package dev.sandbox4j.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** An engine that is not there: a reason from the provider, a retryable typed error from open, and no hang. */
class EngineDownTest {
    private final DockerSandboxProvider provider = new DockerSandboxProvider(DockerOptions.defaults()
            .withDockerHost("unix:///nonexistent/docker.sock")
            .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(2)));

    @Test
    @Timeout(30)
    void noEngine_unavailableReason_saysSo() {
        assertThat(provider.unavailableReason()).isPresent();
    }

    @Test
    @Timeout(30)
    void noEngine_open_backendUnavailableAndRetryable() {
        assertThatThrownBy(() -> provider.open(SandboxSpec.defaults()))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.BACKEND_UNAVAILABLE);
                    assertThat(e.retryable()).isTrue();
                });
    }
}
