package dev.sandbox4j.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Workspace.Change;
import dev.sandbox4j.WorkspaceSource;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/**
 * Issue 35's attacks on the local backend: a repository that tries to reach out of itself or to run something, and
 * a host directory changed under a running sandbox. Run for the overlay and the copy; as root the tree belongs to an
 * unprivileged uid (the overlay then is a real overlayfs; a root-owned tree would fall back to the copy).
 */
class WorkspaceAttackTest {
    static final int OWNER = 54321;
    static final String SECRET = "TOP-SECRET-" + System.nanoTime();

    Path base;
    Path repo;
    Path secret;

    @BeforeEach
    void tree() throws Exception {
        Jail.assumeAvailable();
        base = Files.createTempDirectory("sandbox4j-attack-");
        sh(base, "chmod 755 . && mkdir -p secret repo/src repo/.git/hooks && echo " + SECRET + " > secret/key"
                + " && chmod 600 secret/key && echo hello > repo/src/a.txt"
                + " && ln -s " + base + "/secret/key repo/abs && ln -s ../secret/key repo/rel"
                + " && ln -s c2 repo/c1 && ln -s src/../../secret/key repo/c2"
                + " && ln secret/key repo/hard"
                + " && mkfifo repo/fifo" + (Host.isRoot() ? " && mknod repo/null c 1 3 && chmod 666 repo/null" : "")
                + " && printf '#!/bin/sh\\ntouch " + base + "/PWNED\\n' > repo/.git/hooks/post-checkout"
                + " && chmod 755 repo/.git/hooks/post-checkout"
                + " && touch \"repo/bad$(printf '\\377\\376')name\""
                + (Host.isRoot() ? " && chown -R " + OWNER + ":" + OWNER + " repo" : ""));
        repo = base.resolve("repo");
        secret = base.resolve("secret/key");
        Thread.sleep(120); // older than the apply-back's ctime fence margin
    }

    @AfterEach
    void clean() throws Exception {
        if (base != null) {
            sh(Path.of("/"), "rm -rf '" + base + "'");
        }
        assertThat(Jail.leaks()).isEmpty();
    }

    static String sh(Path dir, String script) throws Exception {
        Process p = new ProcessBuilder("sh", "-c", script).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(script + ": " + out).isZero();
        return out;
    }

    private Sandbox open(WorkspaceSource.Kind kind) {
        // no workspace quota: not root, the local backend refuses a source with one (its tmpfs covers /workspace)
        return Jail.open(SandboxSpec.builder().limits(dev.sandbox4j.ResourceLimits.DEFAULTS.withoutWorkspaceQuota())
                .workspace(kind == WorkspaceSource.Kind.OVERLAY
                ? WorkspaceSource.overlayOf(repo) : WorkspaceSource.copyOf(repo)).build());
    }

    private static ErrorKind kindOf(Runnable r) {
        SandboxException e = catchThrowableOfType(r::run, SandboxException.class);
        return e == null ? null : e.kind();
    }

    @ParameterizedTest
    @EnumSource(value = WorkspaceSource.Kind.class, names = {"OVERLAY", "COPY"})
    void linksOut_neverReachOutside_fromCommandsOrTheFileApi(WorkspaceSource.Kind kind) throws Exception {
        try (Sandbox s = open(kind)) {
            if (kind == WorkspaceSource.Kind.OVERLAY && Host.isRoot()) {
                assertThat(s.info().details().get("workspace source")).startsWith("overlay").contains("overlayfs");
            }
            ExecResult r = s.shell().run("cat abs rel c1 2>&1; readlink abs rel c1 c2");
            assertThat(r.stdout()).doesNotContain(SECRET).contains(base + "/secret/key", "../secret/key");
            for (String link : List.of("abs", "rel", "c1", "c2")) {
                SandboxException e = catchThrowableOfType(() -> s.files().readText(link), SandboxException.class);
                assertThat(e).as(link).isNotNull();
                assertThat(e.getMessage()).doesNotContain(SECRET);
            }
            assertThat(s.workspace().diff()).doesNotContain(SECRET);
        }
    }

    @Test
    void hardLinkToAFileOutside_writesInTheOverlayNeverReachIt() throws Exception {
        try (Sandbox s = open(WorkspaceSource.Kind.OVERLAY)) {
            ExecResult r = s.shell().run("echo overwritten > hard; echo $?");
            // the jail's user may not even open it (0600, the host's root); either way the outside file keeps its bytes
            assertThat(Files.readString(secret).trim()).isEqualTo(SECRET);
            if (r.stdout().trim().endsWith("0")) {
                assertThat(s.workspace().changes()).extracting(Change::path).contains("hard");
            }
        }
        assertThat(Files.readString(secret).trim()).isEqualTo(SECRET);
    }

    @ParameterizedTest
    @EnumSource(value = WorkspaceSource.Kind.class, names = {"OVERLAY", "COPY"})
    void fifoAndDevice_neitherBlockNorOpen_hooksNeverRun(WorkspaceSource.Kind kind) throws Exception {
        try (Sandbox s = open(kind)) {
            long t0 = System.nanoTime();
            assertThat(kindOf(() -> s.files().readText("fifo"))).isIn(ErrorKind.PERMISSION_DENIED,
                    ErrorKind.NOT_FOUND);
            assertThat(System.nanoTime() - t0).isLessThan(5_000_000_000L);
            ExecResult r = s.shell().run("head -c1 null; echo rc=$?");
            assertThat(r.stdout()).contains("rc=").doesNotContain("rc=0");
            assertThat(s.workspace().changes()).as("nothing changed: the skipped special files are no deletions")
                    .isEmpty();
            s.workspace().diff();
            s.workspace().applyTo(repo);
            assertThat(repo.resolve("fifo")).exists();
            if (kind == WorkspaceSource.Kind.COPY) {
                assertThat(s.info().details().get("workspace source")).contains((Host.isRoot() ? 2 : 1) + " FIFOs/devices/sockets skipped");
            }
        }
        assertThat(base.resolve("PWNED")).doesNotExist();
    }

    @ParameterizedTest
    @EnumSource(value = WorkspaceSource.Kind.class, names = {"OVERLAY", "COPY"})
    void nonUtf8Name_editedInside_appliedBackToTheSameBytes(WorkspaceSource.Kind kind) throws Exception {
        Path target = base.resolve("target");
        sh(base, "cp -a repo target");
        Thread.sleep(120);
        try (Sandbox s = open(kind)) {
            ExecResult r = s.shell().run("printf changed > \"bad$(printf '\\377\\376')name\"");
            assertThat(r.exitCode()).as(r.stderr()).isZero();
            assertThat(s.workspace().changes()).hasSize(1);
            s.workspace().applyTo(target);
        }
        assertThat(sh(target, "cat \"bad$(printf '\\377\\376')name\"")).isEqualTo("changed");
        assertThat(sh(repo, "cat \"bad$(printf '\\377\\376')name\"")).isEmpty();
    }

    @Test
    void parentRenamedAndLinkSwappedIn_sandboxStillSeesItsTree_changeSetRefuses() throws Exception {
        Path parent = Files.createDirectory(base.resolve("p"));
        sh(base, "mv repo p/repo");
        repo = parent.resolve("repo");
        try (Sandbox s = open(WorkspaceSource.Kind.OVERLAY)) {
            s.files().write("new.txt", "x\n");
            sh(base, "mv p moved && mkdir -p decoy/repo && echo " + SECRET + " > decoy/repo/src && ln -s decoy p");
            ExecResult r = s.shell().run("cat src/a.txt; ls");
            assertThat(r.stdout()).startsWith("hello\n").doesNotContain(SECRET);
            assertThat(s.files().readText("src/a.txt")).isEqualTo("hello\n");
            if (s.info().details().get("workspace source").contains("overlayfs")) {
                assertThat(kindOf(() -> s.workspace().changes())).isEqualTo(ErrorKind.CONFLICT);
            }
        } finally {
            repo = base.resolve("moved/repo");
        }
    }

    @Test
    void manyFiles_10000_overlayOpensAndListsTheEditedHundred() throws Exception {
        sh(repo, "mkdir many && cd many && for d in $(seq 0 99); do mkdir d$d; for f in $(seq 0 99); do "
                + "echo $d-$f > d$d/f$f; done; done" + (Host.isRoot() ? " && chown -R " + OWNER + ":" + OWNER + " ." : ""));
        Thread.sleep(120);
        try (Sandbox s = open(WorkspaceSource.Kind.OVERLAY)) {
            ExecResult r = s.shell().run("for d in $(seq 0 99); do echo x >> many/d$d/f7; done; "
                    + "find many -type f | wc -l");
            assertThat(r.stdout().trim()).isEqualTo("10000");
            List<Change> changes = s.workspace().changes();
            assertThat(changes).hasSize(100).allMatch(c -> c.kind() == Change.Kind.MODIFIED);
        }
        try (Stream<Path> st = Files.walk(repo.resolve("many"))) {
            assertThat(st.filter(Files::isRegularFile).count()).isEqualTo(10_000);
        }
        assertThat(Files.readString(repo.resolve("many/d3/f7"))).isEqualTo("3-7\n");
    }
}
