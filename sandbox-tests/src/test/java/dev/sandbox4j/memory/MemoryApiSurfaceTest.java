package dev.sandbox4j.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.testing.ApiSurface;
import java.util.List;
import org.junit.jupiter.api.Test;

class MemoryApiSurfaceTest {
    @Test
    void publicSignatures_exposeNoJimfsGuavaOrJackson() {
        assertThat(ApiSurface.leaks(MemorySandbox.class,
                List.of("com.google.", "com.fasterxml.", "com.github.dockerjava.")))
                .isEmpty();
    }
}
