package dev.sandbox4j.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.WorkspaceSource;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkspaceAttackTest {
    @TempDir
    Path tmp;

    @Test
    void debug() throws Exception {
        Jail.assumeAvailable();
        Path repo = Files.createDirectory(tmp.resolve("repo"));
        Files.writeString(repo.resolve("a.txt"), "a\n");
        Files.createDirectories(repo.resolve("src/main"));
        try (Sandbox s = Jail.open(SandboxSpec.builder().workspace(WorkspaceSource.overlayOf(repo)).build())) {
            System.out.println(s.info().details());
            ExecResult r = s.shell().run("id; ls -la; ls -la src; touch src/main/x; echo rc=$?");
            System.out.println(r.stdout() + r.stderr());
        }
        System.out.println(Jail.leaks());
    }
}
