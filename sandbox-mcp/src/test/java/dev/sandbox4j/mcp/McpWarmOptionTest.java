package dev.sandbox4j.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.Sandbox;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** {@code --warm N}: the server's opener hands out unused sandboxes of a warm pool, closed with the server. */
class McpWarmOptionTest {
    @Test
    void warmOptionGivesAPooledOpener_closedWithTheServer() {
        McpClientProcessTest.requireOrSkip("local");
        SandboxMcpServer.Options none = SandboxMcpServer.Options.parse(new String[] {"--backend", "memory"});
        assertThat(none.warm).isZero();
        SandboxMcpServer.Options o = SandboxMcpServer.Options.parse(new String[] {"--backend", "local", "--warm",
            "1"});
        Supplier<Sandbox> opener = o.opener();
        Sandbox kept;
        try {
            String first;
            try (Sandbox a = opener.get()) {
                first = a.id();
                a.files().write("a.txt", "a");
            }
            kept = o.opener().get();
            assertThat(kept.id()).isNotEqualTo(first);
            assertThat(kept.files().list("")).as("never handed out used").isEmpty();
        } finally {
            o.closeWarm();
        }
        assertThat(kept.isOpen()).as("closing the server's warm pool closed what it lent").isFalse();
    }
}
