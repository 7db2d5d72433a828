package dev.sandbox4j.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.core.seccomp.SeccompPolicy;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The jail's filter is sandbox-core's allow-list for this JVM's architecture (the policy itself, its BPF program and
 * its agreement with the containers' profile are tested in sandbox-core: PolicyTest, SeccompAgreementTest).
 */
class SeccompTest {
    @Test
    void architecturesAreSelectedByOsArchAndOthersRefusedByName() {
        for (String arch : new String[] {"amd64", "x86_64", "aarch64", "arm64"}) {
            assertThat(Seccomp.supports(arch)).as(arch).isTrue();
        }
        for (String other : new String[] {"riscv64", "s390x", "ppc64le", "x86", "i386", "arm", "", null}) {
            assertThat(Seccomp.supports(other)).as(other).isFalse();
        }
        assertThatThrownBy(() -> Seccomp.program("riscv64", Set.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'riscv64'").hasMessageContaining("x86_64").hasMessageContaining("aarch64");
        assertThat(Seccomp.program("x86_64", Set.of())).isEqualTo(Seccomp.program("amd64", Set.of()));
        assertThat(Seccomp.program("arm64", Set.of())).isEqualTo(Seccomp.program("aarch64", Set.of()))
                .isNotEqualTo(Seccomp.program("amd64", Set.of()));
        assertThat(Seccomp.available()).isEqualTo(Seccomp.supports(System.getProperty("os.arch")));
    }

    @Test
    void theJailRunsTheCorePolicyWithTheSpecsSets() {
        for (Set<String> sets : java.util.List.of(Set.<String>of(), Set.of("debug"), Set.of("io_uring", "debug"))) {
            assertThat(Seccomp.program("amd64", sets)).isEqualTo(SeccompPolicy.of(sets).bpf("x86_64"));
        }
        assertThat(Seccomp.program("amd64", Set.of("debug"))).isNotEqualTo(Seccomp.program("amd64", Set.of()));
        assertThat(Seccomp.describe(Set.of("io_uring"))).startsWith("allow-list ").endsWith(" +io_uring");
    }
}
