package dev.sandbox4j.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Mount;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Workspace.Change;
import dev.sandbox4j.WorkspaceSource;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 35's attacks on Docker: a repository that tries to reach out of itself (links, a hard link, special files,
 * a set-user-id file, hooks), a sandbox that shapes its workspace against the change set's download (a directory
 * swapped for a link to /, a FIFO), names the JVM cannot carry, and bind mounts asked of an engine elsewhere.
 */
class DockerWorkspaceAttackTest {
    static final String SECRET = "TOP-SECRET-" + System.nanoTime();

    Path base;
    Path repo;

    @BeforeEach
    void tree() throws Exception {
        DockerTestSupport.requireDocker();
        base = Files.createTempDirectory("sandbox4j-docker-attack-");
        sh(base, "chmod 755 . && mkdir -p secret repo/src repo/.git/hooks && echo " + SECRET + " > secret/key"
                + " && chmod 600 secret/key && echo hello > repo/src/a.txt"
                + " && ln -s " + base + "/secret/key repo/abs && ln -s ../secret/key repo/rel"
                + " && ln secret/key repo/hard && mkfifo repo/fifo && mknod repo/null c 1 3"
                + " && echo s > repo/suid && chmod 4755 repo/suid"
                + " && printf '#!/bin/sh\\ntouch " + base + "/PWNED\\n' > repo/.git/hooks/post-checkout"
                + " && chmod 755 repo/.git/hooks/post-checkout");
        repo = base.resolve("repo");
        Thread.sleep(120); // older than the apply-back's ctime fence margin
    }

    @AfterEach
    void clean() throws Exception {
        if (base != null) {
            sh(Path.of("/"), "rm -rf '" + base + "'");
        }
    }

    static String sh(Path dir, String script) throws Exception {
        Process p = new ProcessBuilder("sh", "-c", script).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(script + ": " + out).isZero();
        return out;
    }

    private static SandboxSpec.Builder spec() {
        return SandboxSpec.builder().limits(ResourceLimits.DEFAULTS.withoutWorkspaceQuota());
    }

    private static ErrorKind kindOf(Runnable r) {
        SandboxException e = catchThrowableOfType(r::run, SandboxException.class);
        return e == null ? null : e.kind();
    }

    @Test
    void aHostileRepository_isCopiedWithoutReachingOut() throws Exception {
        try (Sandbox s = DockerTestSupport.open(spec().workspace(WorkspaceSource.copyOf(repo)).build())) {
            assertThat(s.info().details().get("workspace source")).startsWith("copy " + repo.toRealPath())
                    .contains("2 FIFOs/devices/sockets skipped");
            ExecResult r = s.shell().run("cat abs rel 2>&1; readlink abs rel; ls -l suid; test -e fifo || echo nofifo;"
                    + " test -e null || echo nonull; cat hard");
            // the links are links, read inside the container, where nothing is at their targets; the hard link is the
            // repository's own content (a copy: writing it cannot reach the host file)
            assertThat(r.stdout()).contains(base + "/secret/key", "../secret/key", "nofifo", "nonull", SECRET)
                    .containsPattern("-rwxr-xr-x .* suid");
            assertThat(s.shell().run("echo overwritten > hard && cat hard").stdout()).isEqualTo("overwritten\n");
            assertThat(Files.readString(base.resolve("secret/key")).trim()).isEqualTo(SECRET);
            assertThat(s.workspace().changes()).extracting(Change::path).containsExactly("hard");
        }
        assertThat(base.resolve("PWNED")).doesNotExist();
    }

    @Test
    void theSandboxShapesItsWorkspace_theChangeSetNeverFollowsIt() throws Exception {
        try (Sandbox s = DockerTestSupport.open(spec().workspace(WorkspaceSource.copyOf(repo)).build())) {
            ExecResult r = s.shell().run("rm -rf src && ln -s / src && mkfifo pipe && ln -s /etc/shadow shadow"
                    + " && mkdir deep && ln -s " + base + "/secret deep/out");
            assertThat(r.exitCode()).as(r.stderr()).isZero();
            assertThat(s.workspace().changes()).extracting(Change::path)
                    .contains("src", "shadow", "deep/out").doesNotContain("pipe", "suid");
            assertThat(s.workspace().diff()).doesNotContain(SECRET);
            s.workspace().applyTo(repo);
        }
        assertThat(Files.isSymbolicLink(repo.resolve("src"))).as("a link written, not followed").isTrue();
        assertThat(Files.readSymbolicLink(repo.resolve("src"))).isEqualTo(Path.of("/"));
        assertThat(Files.readSymbolicLink(repo.resolve("deep/out"))).isEqualTo(base.resolve("secret"));
        assertThat(Files.exists(repo.resolve("pipe"), LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(Files.readString(base.resolve("secret/key")).trim()).isEqualTo(SECRET);
        assertThat(sh(repo, "stat -c %a suid").trim()).as("the host's set-user-id file untouched").isEqualTo("4755");
    }

    @Test
    void aNameTheJvmCannotCarry_isRefusedAtOpen_notRenamed() throws Exception {
        sh(repo, "touch \"bad$(printf '\\377\\376')name\"");
        assertThat(kindOf(() -> DockerTestSupport.open(spec().workspace(WorkspaceSource.copyOf(repo)).build())
                .close())).isEqualTo(ErrorKind.INVALID_PATH);
    }

    @Test
    void bindMountsOnAnEngineElsewhere_areRefusedBeforeAnythingIsMade() {
        DockerSandboxProvider remote = new DockerSandboxProvider(DockerOptions.defaults()
                .withDockerHost("tcp://192.0.2.1:2375"));
        SandboxException e = catchThrowableOfType(() -> remote.open(spec().mount(Mount.readOnly(repo, "/data"))
                .build()), SandboxException.class);
        assertThat(e.kind()).isEqualTo(ErrorKind.UNSUPPORTED);
        assertThat(e.getMessage()).contains("tcp://192.0.2.1:2375", "copyOf");
        assertThat(kindOf(() -> remote.open(spec().workspace(WorkspaceSource.bindReadWrite(repo)).build())))
                .isEqualTo(ErrorKind.UNSUPPORTED);
    }
}
