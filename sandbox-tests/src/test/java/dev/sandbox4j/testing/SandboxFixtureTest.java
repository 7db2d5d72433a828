package dev.sandbox4j.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.memory.MemorySandboxProvider;
import dev.sandbox4j.spi.SandboxProvider;
import org.junit.jupiter.api.Test;

/** {@link SandboxFixture#of}: the whole wiring of a backend whose provider needs nothing more. */
class SandboxFixtureTest {
    @Test
    void of_opensThroughTheProvider_andDeclaresItsFeatures() {
        SandboxProvider provider = new MemorySandboxProvider();
        SandboxFixture fixture = SandboxFixture.of(provider);
        assertThat(fixture.features()).isEqualTo(provider.features());
        assertThat(fixture.leaks()).isEmpty();
        try (Sandbox s = fixture.open(SandboxSpec.defaults())) {
            assertThat(s.info().backend()).isEqualTo(provider.name());
            s.files().write("a.txt", "x");
            assertThat(s.files().readText("a.txt")).isEqualTo("x");
        }
        try (Sandbox s = fixture.openWithContexts(SandboxSpec.defaults())) {
            assertThat(s.info().backend()).isEqualTo(provider.name());
        }
        assertThatThrownBy(() -> SandboxFixture.of(null)).isInstanceOf(NullPointerException.class);
    }
}
