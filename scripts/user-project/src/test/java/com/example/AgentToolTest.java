package com.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.common.base.Strings;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Sandboxes;
import java.util.Collections;
import org.junit.jupiter.api.Test;

/** What a user's test does: the in-memory backend next to their own Guava and JUnit 5. */
class AgentToolTest {
    @Test
    void theInMemoryBackendWorksBesideTheUsersOwnLibraries() throws Exception {
        try (Sandbox sandbox = Sandboxes.open("memory", SandboxSpec.defaults())) {
            sandbox.files().write("notes.txt", Strings.repeat("ab", 3));
            assertEquals("ababab", sandbox.files().readText("notes.txt"));
            assertEquals("hello\n", sandbox.shell().run("echo hello").stdout());
        }
        // one Guava on the class path, the user's: the backend's copy is relocated
        ClassLoader cl = AgentToolTest.class.getClassLoader();
        assertEquals(1, Collections.list(cl.getResources("com/google/common/base/Strings.class")).size());
        assertThrows(ClassNotFoundException.class, () -> Class.forName("com.google.common.jimfs.Jimfs"));
        // no sandbox-core: its helpers are shaded into sandbox-memory, its native agent binaries stay out
        assertThrows(ClassNotFoundException.class, () -> Class.forName("dev.sandbox4j.core.NioWorkspace"));
        assertEquals(0, Collections.list(cl.getResources("dev/sandbox4j/core/native")).size());
        // and no test library of sandbox4j's: AssertJ is not here
        assertThrows(ClassNotFoundException.class, () -> Class.forName("org.assertj.core.api.Assertions"));
    }
}
