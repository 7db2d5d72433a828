package dev.sandbox4j.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileRules;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.SandboxException;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link GuardedFileSystem} over a host workspace ({@link NioWorkspace}): that it decides every call itself, and the
 * link cases the kit's contract cannot plant on every backend (a loop, a link out of the workspace).
 */
class GuardedFileSystemTest {
    @TempDir
    Path tmp;
    FileSystem raw;

    @BeforeEach
    void setUp() throws IOException {
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        raw = new NioWorkspace(ws, Files.createDirectories(tmp.resolve("staging")), NioWorkspace.Options.defaults());
        raw.write("SOUL.md", "soul\n");
        Files.createSymbolicLink(ws.resolve("loop-a"), Path.of("loop-b"));
        Files.createSymbolicLink(ws.resolve("loop-b"), Path.of("loop-a"));
        Files.createSymbolicLink(ws.resolve("out"), tmp);
        Files.createSymbolicLink(ws.resolve("up"), Path.of("../ws"));
        Files.createDirectories(ws.resolve("sub"));
        Files.createSymbolicLink(ws.resolve("sub/back"), Path.of(".."));
    }

    /** A FileSystem method added later and forwarded unchecked would bypass the rules: each is decided here. */
    @Test
    void everyFileSystemMethod_isOverridden() {
        for (Method m : FileSystem.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            assertThat(Arrays.stream(GuardedFileSystem.class.getDeclaredMethods())
                    .anyMatch(g -> g.getName().equals(m.getName())
                            && Arrays.equals(g.getParameterTypes(), m.getParameterTypes())))
                    .as(m.toString()).isTrue();
        }
    }

    @Test
    void noRules_isTheFileSystemItself_andRulesMerge() {
        assertThat(GuardedFileSystem.of(raw, FileRules.NONE)).isSameAs(raw);
        FileSystem once = GuardedFileSystem.of(raw, FileRules.protect("a"));
        FileSystem twice = GuardedFileSystem.of(once, FileRules.protect("b").withRefuseSymlinks(true));
        assertThat(((GuardedFileSystem) twice).rules()).isEqualTo(new FileRules(List.of("a", "b"), true));
    }

    @Test
    void linkLoops_linksOutOfTheWorkspace_andLinksBackIntoIt_areDecided() {
        FileSystem fs = GuardedFileSystem.of(raw, FileRules.protect("SOUL.md"));
        assertThat(kind(() -> fs.write("loop-a/x", "x"))).isEqualTo(ErrorKind.PERMISSION_DENIED);
        assertThat(kind(() -> fs.write("out/x", "x"))).isEqualTo(ErrorKind.PERMISSION_DENIED);
        assertThat(Files.exists(tmp.resolve("x"))).isFalse();
        assertThat(kind(() -> fs.write("up/SOUL.md", "x"))).as("a link whose .. leaves the workspace first")
                .isEqualTo(ErrorKind.PERMISSION_DENIED);
        SandboxException back = catchThrowableOfType(() -> fs.write("sub/back/SOUL.md", "x"), SandboxException.class);
        assertThat(back.kind()).isEqualTo(ErrorKind.PERMISSION_DENIED);
        assertThat(back.getMessage()).as("a link back to the root").contains("leads to SOUL.md", "protected");
        // (the backend itself follows no link on the way: the guard's answer is the first, not the only one)
        assertThat(fs.readText("SOUL.md")).isEqualTo("soul\n");
        assertThat(kind(() -> GuardedFileSystem.of(raw, FileRules.protect("{a,b}".repeat(11)))))
                .isEqualTo(ErrorKind.INVALID_ARGUMENT);
    }

    private static ErrorKind kind(Runnable r) {
        SandboxException e = catchThrowableOfType(r::run, SandboxException.class);
        return e == null ? null : e.kind();
    }
}
