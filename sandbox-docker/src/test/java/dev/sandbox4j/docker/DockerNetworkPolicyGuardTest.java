package dev.sandbox4j.docker;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import org.junit.jupiter.api.Test;

/** Until the egress proxy is wired in, a domain allow-list must be refused, not widened to the open bridge. */
class DockerNetworkPolicyGuardTest {
    @Test
    void open_domainAllowList_failsUnsupportedBeforeTouchingTheEngine() {
        SandboxSpec spec = SandboxSpec.builder().network(NetworkPolicy.allowDomains("pypi.org")).build();
        assertThatThrownBy(() -> new DockerSandboxProvider().open(spec))
                .isInstanceOfSatisfying(SandboxException.class,
                        e -> org.assertj.core.api.Assertions.assertThat(e.kind()).isEqualTo(ErrorKind.UNSUPPORTED))
                .hasMessageContaining("domains [pypi.org]");
    }
}
