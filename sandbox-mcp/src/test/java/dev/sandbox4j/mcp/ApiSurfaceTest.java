package dev.sandbox4j.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.testing.ApiSurface;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What users compile against stays ours and the JDK's: no docker-java, Jackson, jimfs or Guava type in sight. */
class ApiSurfaceTest {
    @Test
    void publicSignatures_exposeNoThirdPartyTypes() {
        assertThat(ApiSurface.leaks(SandboxMcpServer.class, List.of("com.github.dockerjava.", "com.fasterxml.", "com.google.",
                "org.apache.", "io.modelcontextprotocol.", "reactor."))).isEmpty();
    }
}
