package dev.sandbox4j.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Regression tests for the local defects of the outside attack run (issue 18). */
class HardeningTest {

    /**
     * The agent's binaries are shared by this JVM's sandboxes (AgentFiles): no jail can change them (not through
     * /opt/sandbox4j, not as the host directory, which is r-xr-xr-x and this JVM's user's), and a jail without a
     * network policy has no relay.
     */
    @Test
    void sharedAgentBinaries_readOnlyToEveryJail_noRelayWithoutNetwork() throws Exception {
        try (Sandbox a = Jail.open(); Sandbox b = Jail.open()) {
            ExecResult r = a.shell().run(ExecRequest.argv("/bin/sh", "-c",
                    "ls /opt/sandbox4j; for f in /opt/sandbox4j /opt/sandbox4j/sbx-agent /opt/sandbox4j/sbx-reaper; do"
                            + " if [ -w $f ]; then echo writable $f; fi; done;"
                            + " (echo > /opt/sandbox4j/x) 2>/dev/null && echo created;"
                            + " chmod 777 /opt/sandbox4j/sbx-reaper 2>/dev/null && echo chmodded;"
                            + " rm -f /opt/sandbox4j/sbx-reaper 2>/dev/null; ls /opt/sandbox4j/sbx-reaper"));
            assertThat(r.stdout()).as(r.stderr()).isEqualTo("sbx-agent\nsbx-reaper\n/opt/sandbox4j/sbx-reaper\n");
            assertThat(b.shell().run(ExecRequest.argv("true")).exitCode()).isZero();
        }
        Path d = AgentFiles.dir(LocalOptions.defaults().tempDir(), false).getParent();
        assertThat(AgentFiles.dirs()).contains(d);
        for (Path p : java.util.List.of(d, d.resolve("base"), d.resolve("net"), d.resolve("base/sbx-agent"),
                d.resolve("net/sbx-relay"))) {
            assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(p,
                    java.nio.file.LinkOption.NOFOLLOW_LINKS))).as(p.toString()).isEqualTo("r-xr-xr-x");
            assertThat(Files.getAttribute(p, "unix:uid", java.nio.file.LinkOption.NOFOLLOW_LINKS))
                    .as(p.toString()).isEqualTo(Host.currentUid());
        }
    }

    /**
     * Issue 18 #3: sandboxed code nests a tree 3,000 levels deep (deeper than PATH_MAX can name). list and grep fail
     * with TOO_LARGE instead of StackOverflowError, and close() removes the workspace, promptly.
     */
    @Test
    void deepTreeFromInsideTheJail_walksFailTyped_closeRemovesTheWorkspace() {
        Sandbox s = Jail.open();
        Path workspace = Path.of(s.info().details().get("workspace"));
        try {
            ExecResult made = s.shell().run(ExecRequest.shell(
                    // 6 x 500 levels: a few processes, not 3,000 (a loaded build machine forks slowly)
                    "p=$(printf 'd/%.0s' $(seq 500)); n=0; for i in 1 2 3 4 5 6; do mkdir -p \"$p\" && cd -P \"$p\""
                            + " || break; n=$((n + 500)); done; echo needle > f; echo $n")
                    .withTimeout(Duration.ofMinutes(3)));
            assertThat(made.exitCode()).as(made.toString()).isZero();
            assertThat(made.stdout().trim()).as("levels made").isEqualTo("3000");
            assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
                for (org.assertj.core.api.ThrowableAssert.ThrowingCallable walk : java.util.List.<
                        org.assertj.core.api.ThrowableAssert.ThrowingCallable>of(
                        () -> s.files().list("", Integer.MAX_VALUE),
                        () -> s.files().grep("needle", ""),
                        () -> s.files().find("f", "", java.util.List.of()))) {
                    SandboxException e = catchThrowableOfType(walk, SandboxException.class);
                    assertThat(e).as("a typed error, not StackOverflowError").isNotNull();
                    assertThat(e.kind()).isEqualTo(ErrorKind.TOO_LARGE);
                }
            });
        } finally {
            long start = System.nanoTime();
            s.close();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("close").isLessThan(Duration.ofSeconds(30));
        }
        assertThat(workspace).as("the workspace of a closed sandbox").doesNotExist();
        assertThat(Leftovers.all()).doesNotContain(workspace);
    }

    /**
     * Issue 18 #3: leftovers are retried in the background, never on the thread of another sandbox's open or close.
     * A mount point makes a directory undeletable for a while; a file put back into it stays until the background
     * retry, and the directory goes once the mount is gone.
     */
    @Test
    void leftoversAreRetriedInTheBackground_notOnTheCallersThread() throws Exception {
        Assumptions.assumeTrue(Host.isRoot(), "needs root to mount a tmpfs");
        Path dir = Files.createTempDirectory("sandbox4j-leftover");
        Path mount = Files.createDirectory(dir.resolve("m"));
        assertThat(new ProcessBuilder("mount", "-t", "tmpfs", "tmpfs", mount.toString()).start().waitFor()).isZero();
        try {
            Leftovers.deleteOrRemember(dir);
            assertThat(Leftovers.all()).contains(dir);
            Path file = Files.writeString(dir.resolve("later.txt"), "x");
            long start = System.nanoTime();
            Leftovers.retry();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(500));
            assertThat(file).as("not retried on the caller's thread").exists();
        } finally {
            assertThat(new ProcessBuilder("umount", mount.toString()).start().waitFor()).isZero();
        }
        long deadline = System.nanoTime() + Duration.ofMillis(Leftovers.RETRY_MILLIS * 3).toNanos();
        while (Files.exists(dir) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(dir).as("deleted by the background retry").doesNotExist();
        assertThat(Leftovers.all()).doesNotContain(dir);
    }

    /**
     * Issue 18 #2, the real race: a background command swaps a FIFO and a regular file under one name as fast as it
     * can. Every readText returns promptly, with the file's content or PERMISSION_DENIED, never blocking.
     */
    @Test
    void fifoSwappedInAfterTheTypeCheck_neverBlocksARead() throws Exception {
        try (Sandbox s = Jail.open()) {
            s.files().write("f", "x\n");
            ExecHandle racer = s.shell().start(ExecRequest.shell(
                    "while :; do mkfifo f.tmp; mv -f f.tmp f; echo x > f.reg; mv -f f.reg f; done")
                    .withTimeout(Duration.ofMinutes(2)));
            java.util.concurrent.ExecutorService reader = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "fifo-race-reader");
                t.setDaemon(true); // a read blocked on a FIFO would never end
                return t;
            });
            int read = 0;
            int refused = 0;
            try {
                long end = System.nanoTime() + Duration.ofSeconds(8).toNanos();
                while (System.nanoTime() < end) {
                    java.util.concurrent.Future<String> f = reader.submit(() -> s.files().readText("f"));
                    try {
                        assertThat(f.get(5, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("x\n");
                        read++;
                    } catch (java.util.concurrent.TimeoutException e) {
                        throw new AssertionError("readText blocked for 5 s on a FIFO swapped in after the check ("
                                + read + " reads and " + refused + " refusals before)");
                    } catch (java.util.concurrent.ExecutionException e) {
                        assertThat(e.getCause()).isInstanceOf(SandboxException.class);
                        assertThat(((SandboxException) e.getCause()).kind()).as(e.getCause().toString())
                                .isIn(ErrorKind.PERMISSION_DENIED, ErrorKind.NOT_FOUND);
                        refused++;
                    }
                }
            } finally {
                reader.shutdownNow();
                racer.kill();
            }
            System.err.println("fifo race: " + read + " reads, " + refused + " refusals");
            assertThat(read).as("reads that found the regular file").isPositive();
            assertThat(refused).as("reads that found the FIFO").isPositive();
        }
    }
}
