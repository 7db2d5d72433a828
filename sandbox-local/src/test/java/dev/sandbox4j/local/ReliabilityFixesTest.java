package dev.sandbox4j.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Regression tests for the reliability suite's local defects. */
class ReliabilityFixesTest {
    /** L-AGENT-DIES: many concurrent commands wait for a slot instead of killing the agent. */
    @Test
    void threeHundredConcurrentCommandsSurvive() throws Exception {
        int n = Integer.getInteger("sandbox4j.test.concurrent", 300);
        try (Sandbox s = Jail.open()) {
            ExecutorService pool = Executors.newFixedThreadPool(n);
            try {
                List<Future<ExecResult>> fs = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    String cmd = "echo " + i;
                    fs.add(pool.submit(() -> s.shell().run(cmd)));
                }
                for (int i = 0; i < n; i++) {
                    ExecResult r = fs.get(i).get();
                    assertThat(r.status()).as(r.toString()).isEqualTo(ExecStatus.COMPLETED);
                    assertThat(r.stdout()).isEqualTo(i + "\n");
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(s.isOpen()).isTrue();
            assertThat(s.shell().run("echo ok").stdout()).isEqualTo("ok\n");
        }
    }

    /**
     * L-FAILED-OPEN-LEAK: an open that fails after its directories and cgroups exist (here the jail itself does not
     * start: a bwrap wrapper that passes the host probe but refuses {@code --args}) leaves none of them behind.
     */
    @Test
    void failedOpenLeavesNothing() throws Exception {
        Jail.assumeAvailable();
        Path dir = Files.createTempDirectory("sandbox4j-failed-open");
        try {
            Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
            Path bwrap = dir.resolve("bwrap");
            Files.writeString(bwrap, "#!/bin/sh\n"
                    + "case \"$1\" in --args) echo 'this bwrap refuses to start jails' >&2; exit 1;; esac\n"
                    + "exec " + Host.which("bwrap") + " \"$@\"\n");
            Files.setPosixFilePermissions(bwrap, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
            Path tmp = Files.createDirectory(dir.resolve("tmp"));
            LocalSandboxProvider provider = new LocalSandboxProvider(LocalOptions.defaults()
                    .withBwrap(bwrap.toString()).withTempDir(tmp));
            assertThat(provider.unavailableReason()).isEmpty();
            List<String> before = Jail.leaks();
            for (int i = 0; i < 3; i++) {
                // best effort, so that a host that cannot hold the default limits still gets to start the jail
                assertThatThrownBy(() -> provider.open(dev.sandbox4j.SandboxSpec.builder().bestEffortLimits(true)
                        .build()))
                        .isInstanceOfSatisfying(SandboxException.class, e -> {
                            assertThat(e.kind()).isEqualTo(ErrorKind.BACKEND_UNAVAILABLE);
                            assertThat(e.getMessage()).contains("did not start");
                        });
                try (var s = Files.list(tmp)) {
                    // the agent's binaries stay: written once per JVM and temp dir (AgentFiles), not per sandbox
                    assertThat(s.filter(p -> !AgentFiles.dirs().contains(p)).map(p -> p.getFileName().toString()))
                            .as("temp dirs after failed open " + i).isEmpty();
                }
                // nothing new (a leftover of an earlier test may go meanwhile: its retry runs in the background)
                assertThat(Jail.leaks()).as("cgroups and processes after failed open " + i).isSubsetOf(before);
            }
        } finally {
            Leftovers.deleteTree(dir);
        }
    }

    @Test
    void permitCount() {
        assertThat(dev.sandbox4j.core.AgentShell.commandPermits(256)).isEqualTo(64);
        assertThat(dev.sandbox4j.core.AgentShell.commandPermits(10)).isEqualTo(8);
        assertThat(dev.sandbox4j.core.AgentShell.commandPermits(100)).isEqualTo(25);
        assertThat(dev.sandbox4j.core.AgentShell.commandPermits(0)).isEqualTo(64);
    }

    /** L-NOFILE: never above the JVM's hard limit. */
    @Test
    void nofileLimitIsAtMostTheHardLimit() {
        long n = Host.nofileLimit();
        assertThat(n).isBetween(1L, 1024L);
    }

    /** L-ORPHAN-CGROUPS: a dead owner's cgroups and temp dirs are reaped, without following links. */
    @Test
    void deadOwnersLeftoversAreReaped() throws Exception {
        long dead = 4_999_999L; // above any pid_max: never a live process
        Path tmp = Files.createTempDirectory("janitor-test");
        Path outside = Files.writeString(tmp.resolve("outside.txt"), "keep");
        Path ws = tmp.resolve(BwrapHost.PREFIX + dead + "-ws-123");
        Files.createDirectories(ws.resolve("sub"));
        Files.writeString(ws.resolve("sub/f"), "x");
        Files.createSymbolicLink(ws.resolve("link"), outside);
        Files.createSymbolicLink(ws.resolve("dirlink"), tmp);
        Path ctl = tmp.resolve(BwrapHost.PREFIX + dead + "-ctl-456");
        Files.createDirectories(ctl);
        // a dead JVM's agent binaries (AgentFiles), read-only as written
        Path bin = tmp.resolve(BwrapHost.PREFIX + dead + "-bin-789");
        Files.createDirectories(bin.resolve("base"));
        Files.writeString(bin.resolve("base/sbx-agent"), "x");
        for (Path p : List.of(bin.resolve("base/sbx-agent"), bin.resolve("base"), bin)) {
            Files.setPosixFilePermissions(p, java.nio.file.attribute.PosixFilePermissions.fromString("r-xr-xr-x"));
        }
        Path live = tmp.resolve(BwrapHost.PREFIX + ProcessHandle.current().pid() + "-ws-789");
        Files.createDirectories(live);
        Path cg = null;
        CgroupSetting setting = CgroupSetting.get(LocalOptions.defaults());
        if (setting.kind == CgroupSetting.Kind.V1 && CgroupsV1.usable("freezer")) {
            cg = CgroupsV1.dir("freezer", "sbx-" + dead + "-abcdef");
        } else if (setting.kind == CgroupSetting.Kind.V2 && setting.parent != null) {
            // (in transient systemd scopes there is no parent of ours: systemd collects a dead JVM's empty scopes)
            cg = setting.parent.resolve("sbx-" + dead + "-abcdef");
        }
        if (cg != null) {
            Files.createDirectories(cg.resolve("c1"));
        }
        Janitor.reap(tmp);
        assertThat(ws).doesNotExist();
        assertThat(ctl).doesNotExist();
        assertThat(bin).doesNotExist();
        assertThat(live).exists();
        assertThat(outside).hasContent("keep");
        if (cg != null) {
            assertThat(cg).doesNotExist();
        }
        Leftovers.deleteTree(tmp);
    }

    /** L-DEAD-JAIL-OPEN: when the jail dies, the sandbox closes itself. */
    @Test
    void deadJailClosesTheSandbox() throws Exception {
        try (Sandbox s = Jail.open()) {
            ExecHandle h = s.shell().start(dev.sandbox4j.ExecRequest.shell("sleep 30"), null);
            Thread.sleep(200);
            ProcessHandle.current().children().filter(p -> p.info().command().orElse("").contains("bwrap"))
                    .forEach(ProcessHandle::destroyForcibly);
            ExecResult r = h.await(Duration.ofSeconds(10)).orElseThrow();
            assertThat(r.status()).isEqualTo(ExecStatus.KILLED);
            assertThat(s.isOpen()).isFalse();
            assertThatThrownBy(() -> s.shell().run("true")).isInstanceOf(SandboxException.class)
                    .satisfies(e -> assertThat(((SandboxException) e).kind()).isEqualTo(ErrorKind.CLOSED));
            assertThatThrownBy(() -> s.files().readText("x")).isInstanceOf(SandboxException.class)
                    .satisfies(e -> assertThat(((SandboxException) e).kind()).isEqualTo(ErrorKind.CLOSED));
        }
    }

    /**
     * What sandboxed code made unreadable or unwritable (a directory 000, one 555 holding a file) is still deleted at
     * close, as root and as any other user: a JVM that is not root must chmod a directory it cannot open by path
     * (it took itself for root and never did, so such a workspace stayed on disk).
     */
    @Test
    void closeDeletesDirectoriesTheSandboxLockedUp() {
        Path workspace;
        try (Sandbox s = Jail.open(dev.sandbox4j.SandboxSpec.builder()
                .limits(dev.sandbox4j.ResourceLimits.DEFAULTS.withoutWorkspaceQuota()).build())) {
            ExecResult r = s.shell().run("mkdir -p a/b c/d/e && touch a/b/f c/d/e/g && chmod 555 a/b && chmod 000 c/d "
                    + "&& chmod 100 c");
            assertThat(r.exitCode()).as(r.toString()).isZero();
            workspace = Path.of(s.info().details().get("workspace"));
            assertThat(workspace.resolve("a/b/f")).exists();
        }
        assertThat(workspace).as("the workspace of a closed sandbox").doesNotExist();
    }
}
