package dev.sandbox4j.docker;

import dev.sandbox4j.CodeResult;
import dev.sandbox4j.Edit;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.GrepMatch;
import dev.sandbox4j.Language;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Regression tests for the defects of the outside attack run (issue 18) on the Docker backend: a hijacked PATH and
 * environment, a working directory through a link, a fork bomb outliving its command, leaked descriptors, slow or
 * blocking reads of special files, a catastrophic grep pattern and edits of text that is not UTF-8.
 */
class DockerIssue18Test {

    private static SandboxException error(Runnable r) {
        try {
            r.run();
        } catch (SandboxException e) {
            return e;
        }
        throw new AssertionError("expected a SandboxException");
    }

    // ------------------------------------------------------------------ 18.6: PATH and environment hijack

    /** The tools the SDK's own scripts use, planted as impostors that leave a trace and print nothing useful. */
    private static final List<String> TOOLS = List.of("ls", "find", "grep", "cat", "stat", "head", "tail", "mv", "rm",
            "cp", "mkdir", "rmdir", "chmod", "sed", "printf", "test", "[", "dd", "sleep", "kill", "mkfifo", "mktemp",
            "python3", "node", "bash", "sh", "env", "tar", "realpath", "readlink", "pwd", "true");

    @Test
    void sdkHelpersIgnoreTheSandboxsPathAndEnvironment() {
        SandboxSpec spec = SandboxSpec.builder().commandTimeout(Duration.ofSeconds(20))
                .env(Map.of("PATH", "/workspace/bin:/usr/bin:/bin", "BASH_ENV", "/workspace/evil.sh",
                        "ENV", "/workspace/evil.sh", "LD_PRELOAD", "/workspace/evil.so", "LC_ALL", "tr_TR.UTF-8",
                        "POSIXLY_CORRECT", "1"))
                .build();
        try (Sandbox s = DockerTestSupport.open(spec)) {
            FileSystem fs = s.files();
            StringBuilder plant = new StringBuilder("/bin/mkdir -p bin && cd bin && for t in");
            for (String t : TOOLS) {
                plant.append(" '").append(t).append("'");
            }
            plant.append("; do printf '#!/bin/sh\\necho hijacked >> /tmp/hijacked\\nexit 0\\n' > \"$t\"; "
                    + "/bin/chmod +x \"$t\"; done; printf 'echo hijacked >> /tmp/hijacked\\n"
                    + "kill() { :; }; read() { :; }; cd() { :; }\\n' > ../evil.sh; /bin/cp ../evil.sh ../.profile");
            ExecResult planted = s.shell().run(ExecRequest.argv("/bin/sh", "-c", plant.toString()));
            assertThat(planted.exitCode()).as(planted.stderr()).isZero();
            // The user's own commands do see the spec's environment (that is the user's choice).
            assertThat(s.shell().run(ExecRequest.argv("/bin/sh", "-c", "printf %s \"$PATH\"")).stdout())
                    .isEqualTo("/workspace/bin:/usr/bin:/bin");

            fs.write("d/a.txt", "hello\nworld\n");
            fs.write("d/b.txt", "hello again\n");
            assertThat(fs.readText("d/a.txt")).isEqualTo("hello\nworld\n");
            assertThat(fs.readText("d/a.txt", 2, 2)).isEqualTo("world\n");
            assertThat(fs.readBytes("d/a.txt", 1, 3)).containsExactly('e', 'l', 'l');
            assertThat(fs.list("d").stream().map(FileInfo::path)).containsExactly("d/a.txt", "d/b.txt");
            assertThat(fs.list(".").stream().map(FileInfo::path)).contains("d", "bin", "evil.sh");
            assertThat(fs.stat("d/a.txt").size()).isEqualTo(12);
            assertThat(fs.exists("d/a.txt")).isTrue();
            assertThat(fs.find("**/*.txt", "", List.of())).containsExactly("d/a.txt", "d/b.txt");
            assertThat(fs.grep("hello", "d").matches()).extracting(GrepMatch::path).containsExactly("d/a.txt", "d/b.txt");
            fs.append("d/a.txt", "more\n");
            fs.replace("d/a.txt", "world", "there");
            assertThat(fs.readText("d/a.txt")).isEqualTo("hello\nthere\nmore\n");
            fs.mkdirs("e/f");
            fs.copy("d/a.txt", "e/f/c.txt");
            fs.move("e/f/c.txt", "e/g.txt");
            fs.delete("e/f");
            fs.delete("d/b.txt");
            assertThat(fs.find("**/*.txt", "", List.of())).containsExactly("d/a.txt", "e/g.txt");
            // The SDK's wrapper and killer, and code runs, use their own tools.
            assertThat(s.shell().run(ExecRequest.argv("/bin/cat").withStdin("in\n").withCwd("d")).stdout())
                    .isEqualTo("in\n");
            ExecResult timedOut = s.shell().run(ExecRequest.argv("/bin/sleep", "30").withTimeout(Duration.ofMillis(500)));
            assertThat(timedOut.status()).isEqualTo(ExecStatus.TIMEOUT);
            if (s.code().languages().contains(Language.PYTHON)) {
                CodeResult c = s.code().run(Language.PYTHON, "print(6*7)");
                assertThat(c.stdout()).isEqualTo("42\n");
            }
            try (ExecHandle h = s.shell().start(ExecRequest.argv("/bin/cat"), null)) {
                h.writeStdin("bg\n".getBytes());
                h.closeStdin();
                assertThat(h.await(Duration.ofSeconds(20)).orElseThrow().stdout()).isEqualTo("bg\n");
            }
            ExecResult trace = s.shell().run(ExecRequest.argv("/bin/sh", "-c",
                    "/bin/cat /tmp/hijacked 2>/dev/null; /bin/ls -A /workspace | /bin/grep -c sandbox4j"));
            assertThat(trace.stdout()).as("no impostor ran, nothing left behind").isEqualTo("0\n");
        }
    }

    // ------------------------------------------------------------------ 18.7: working directory through a link

    @Test
    void workingDirectoryThroughALinkIsRefusedInvalidPath() {
        try (Sandbox s = DockerTestSupport.open()) {
            assertThat(s.shell().run("ln -s / r && ln -s /tmp t && mkdir -p sub/in && ln -s sub l && ln -s sub/in/../.. up")
                    .exitCode()).isZero();
            for (String cwd : List.of("r", "r/etc", "t", "up", "l", "l/in")) {
                SandboxException e = error(() -> s.shell().run(ExecRequest.shell("pwd; touch escaped").withCwd(cwd)));
                assertThat(e.kind()).as(cwd + ": " + e.getMessage()).isEqualTo(ErrorKind.INVALID_PATH);
                SandboxException bg = error(() -> s.shell().start(ExecRequest.shell("pwd; touch escaped").withCwd(cwd),
                        null));
                assertThat(bg.kind()).as("start in " + cwd).isEqualTo(ErrorKind.INVALID_PATH);
            }
            assertThat(s.shell().run("ls / /tmp sub | grep -c escaped").stdout()).as("nothing ran").isEqualTo("0\n");
            assertThat(s.shell().run(ExecRequest.shell("pwd").withCwd("sub/in")).stdout()).isEqualTo("/workspace/sub/in\n");
        }
    }

    // ------------------------------------------------------------------ 18.8: a fork bomb outliving its command

    @Test
    void forkBombIsGoneWhenItsCommandReturns() throws Exception {
        try (Sandbox s = DockerTestSupport.open(SandboxSpec.builder()
                .limits(ResourceLimits.DEFAULTS.withMaxProcesses(64)).build())) {
            // Once the bomb holds every pid, the outer shell must not need a fork: it waits with the builtin `read`
            // on a FIFO nobody writes and prints with the builtin `echo`. (A forked `sleep` raced the bomb for freed
            // pids: dash gave up at once, bash after ~15 s of retries; both lost on a busy machine.)
            ExecResult r = s.shell().run(ExecRequest.argv("bash", "-c", "mkfifo /tmp/idle && exec 3<>/tmp/idle; "
                    + "bash -c 'b(){ b|b& }; b'; read -t 3 -u 3; echo done").withTimeout(Duration.ofSeconds(30)));
            assertThat(r.status()).isEqualTo(ExecStatus.COMPLETED);
            assertThat(r.stdout()).as("exit %d, stderr %s", r.exitCode(), r.stderr()).isEqualTo("done\n");
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            String left = "?";
            while (System.nanoTime() < deadline) {
                try {
                    ExecResult probe = s.shell().run(ExecRequest.shell(
                            "grep -l 'b()[{]' /proc/[0-9]*/cmdline 2>/dev/null | wc -l").withTimeout(Duration.ofSeconds(5)));
                    if (probe.exitCode() == 0) {
                        left = probe.stdout().strip();
                        if (left.equals("0")) {
                            break;
                        }
                    }
                } catch (SandboxException e) {
                    left = e.getMessage();
                }
                Thread.sleep(200);
            }
            assertThat(left).as("bomb processes left a moment after the command returned").isEqualTo("0");
            ExecResult t = s.shell().run(ExecRequest.shell("true").withTimeout(Duration.ofSeconds(5)));
            assertThat(t.exitCode()).isZero();
            // Background processes of a foreground command end with it, too.
            s.shell().run("sleep 300 >/dev/null 2>&1 & (setsid sleep 301 >/dev/null 2>&1 &); echo started");
            assertThat(s.shell().run("ps -eo args | grep -c '^sleep 30[01]$'").stdout()).isEqualTo("0\n");
        }
    }

    @Test
    void backgroundCommandsKeepRunningWhileForegroundCommandsEnd() throws InterruptedException {
        try (Sandbox s = DockerTestSupport.open()) {
            try (ExecHandle h = s.shell().start(ExecRequest.shell("sleep 302 & sleep 303"), null)) {
                // both sleeps running first (the handle is back once the shell is spawned, not its children)
                String count = "ps -eo args | grep -c '^sleep 30[23]$'";
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (!s.shell().run(count).stdout().equals("2\n") && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                assertThat(s.shell().run(count).stdout()).as("the background command's sleeps started")
                        .isEqualTo("2\n");
                for (int i = 0; i < 3; i++) {
                    s.shell().run("true");
                }
                assertThat(s.shell().run(count).stdout()).as("still running after three foreground commands ended")
                        .isEqualTo("2\n");
                assertThat(h.isAlive()).isTrue();
                h.kill();
            }
        }
    }

    // ------------------------------------------------------------------ 18.11: file descriptors

    private static long openFds() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    private static void cycle(int i) {
        try (Sandbox s = DockerTestSupport.open()) {
            s.shell().run("echo " + i);
            s.files().write("f.txt", "x" + i);
            s.files().readText("f.txt");
            s.files().grep("x", "");
            s.shell().run(ExecRequest.shell("sleep 5").withTimeout(Duration.ofMillis(200)));
        }
    }

    /**
     * The baseline is taken after one cycle: the first use opens descriptors that stay for the JVM's life and belong
     * to the JDK (/dev/random and /dev/urandom for UUIDs, the NIO pre-close socketpair) plus the jars of newly loaded
     * classes; what must not happen is growth with the number of cycles.
     */
    @Test
    void openCloseCyclesLeaveNoDescriptorBehind() throws Exception {
        DockerTestSupport.requireDocker();
        cycle(-1);
        Thread.sleep(1000);
        long baseline = openFds();
        for (int i = 0; i < 12; i++) {
            cycle(i);
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                int n = i;
                fs.add(pool.submit(() -> cycle(100 + n)));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        long now = openFds();
        while (now > baseline && System.nanoTime() < deadline) {
            Thread.sleep(250);
            now = openFds();
        }
        assertThat(now).as("open descriptors after 20 open/close cycles (baseline %d)", baseline)
                .isLessThanOrEqualTo(baseline);
    }

    // ------------------------------------------------------------------ 18.12: special files

    @Test
    void specialFilesAreRefusedAtOnce_andAFifoSwappedInNeverBlocksARead() throws Exception {
        try (Sandbox s = DockerTestSupport.open()) {
            FileSystem fs = s.files();
            assertThat(s.shell().run("python3 -c \"import socket; socket.socket(socket.AF_UNIX).bind('s.sock')\";"
                    + " mkfifo p.fifo").exitCode()).isZero();
            ExecHandle server = s.shell().start(ExecRequest.argv("python3", "-c", "import socket, time;"
                    + " s = socket.socket(socket.AF_UNIX); s.bind('live.sock'); s.listen(); print('up', flush=True);"
                    + " time.sleep(60)"), null);
            for (int i = 0; i < 50 && !fs.exists("live.sock"); i++) {
                Thread.sleep(100);
            }
            for (String special : List.of("s.sock", "live.sock", "p.fifo")) {
                for (int i = 0; i < 3; i++) {
                    long t0 = System.nanoTime();
                    SandboxException e = error(() -> fs.readText(special));
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    assertThat(e.kind()).as(special).isEqualTo(ErrorKind.PERMISSION_DENIED);
                    assertThat(ms).as("refusing %s took (ms)", special).isLessThan(1000);
                }
            }
            server.kill();
            // A FIFO and a regular file swapped at the same name as fast as the kernel allows. Before the fix, about one
            // read in 200 passed the type check on the file and then opened the FIFO, blocking for the internal 60 s.
            try (ExecHandle loop = s.shell().start(ExecRequest.argv("python3", "-c", "import os\nwhile True:\n"
                    + "  os.mkfifo('f.tmp')\n  os.rename('f.tmp', 'f')\n  open('f.reg', 'w').write('x\\n')\n"
                    + "  os.rename('f.reg', 'f')\n"), null)) {
                for (int i = 0; i < 50 && !fs.exists("f"); i++) {
                    Thread.sleep(100);
                }
                ExecutorService pool = Executors.newFixedThreadPool(4);
                try {
                    List<Future<long[]>> reads = new ArrayList<>();
                    for (int i = 0; i < 300; i++) {
                        reads.add(pool.submit(() -> {
                            long t0 = System.nanoTime();
                            long content = 0;
                            try {
                                assertThat(fs.readText("f")).isEqualTo("x\n");
                                content = 1;
                            } catch (SandboxException e) {
                                assertThat(e.kind()).as(e.getMessage()).isEqualTo(ErrorKind.PERMISSION_DENIED);
                            }
                            return new long[] {content, (System.nanoTime() - t0) / 1_000_000};
                        }));
                    }
                    long worst = 0;
                    for (Future<long[]> f : reads) {
                        worst = Math.max(worst, f.get()[1]);
                    }
                    assertThat(worst).as("the slowest of 300 racing reads (ms)").isLessThan(2500);
                } finally {
                    pool.shutdownNow();
                }
                loop.kill();
            }
        }
    }

    /**
     * The read's open as it runs after the type checks passed, on what a swap can put there by then: a FIFO (writable
     * or not) or a socket must be refused at once, never waited on; a read-only regular file must still open.
     */
    @Test
    void theReadOpenNeverBlocksOnWhatASwapPutsThereAfterTheChecks() {
        try (Sandbox s = DockerTestSupport.open()) {
            assertThat(s.shell().run("mkfifo rw.fifo ro.fifo && chmod 400 ro.fifo && echo xy > ro.txt && chmod 400 ro.txt"
                    + " && python3 -c \"import socket; socket.socket(socket.AF_UNIX).bind('s.sock')\"").exitCode()).isZero();
            for (String name : List.of("rw.fifo", "ro.fifo", "s.sock", "ro.txt")) {
                long t0 = System.nanoTime();
                Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> s.files().readBytes(name));
                long ms = (System.nanoTime() - t0) / 1_000_000;
                assertThat(ms).as("opening %s took (ms)", name).isLessThan(1500);
                if (name.equals("ro.txt")) {
                    assertThat(t).isNull();
                } else {
                    assertThat(t).isInstanceOf(SandboxException.class);
                    SandboxException e = (SandboxException) t;
                    assertThat(e.kind()).as(name + ": " + e.getMessage()).isEqualTo(ErrorKind.PERMISSION_DENIED);
                }
            }
            assertThat(s.files().readText("ro.txt")).isEqualTo("xy\n");
            SandboxException e = error(() -> s.files().append("ro.txt", "z"));
            assertThat(e.kind()).as(e.getMessage()).isEqualTo(ErrorKind.PERMISSION_DENIED);
            assertThat(s.files().readText("ro.txt")).isEqualTo("xy\n");
            s.files().append("new.txt", "a");
            s.files().append("new.txt", "b");
            assertThat(s.files().readText("new.txt")).isEqualTo("ab");
        }
    }

    // ------------------------------------------------------------------ kit contracts 1 and 4

    @Test
    void grepCatastrophicPatternFailsPatternTooExpensiveQuickly() {
        try (Sandbox s = DockerTestSupport.open()) {
            FileSystem fs = s.files();
            fs.write("a.txt", "harmless\n");
            fs.write("r.txt", "ok\n" + "a".repeat(50_000) + "!");
            for (String path : List.of("", "r.txt")) {
                long t0 = System.nanoTime();
                SandboxException e = error(() -> fs.grep("(a+)+$", path));
                long ms = (System.nanoTime() - t0) / 1_000_000;
                assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT);
                assertThat(e.getMessage()).startsWith("pattern too expensive").contains("r.txt").contains("line 2");
                // without the step budget this pattern backtracks for hours; 20 s leaves room for a loaded CI machine
                assertThat(ms).as("grep took (ms)").isLessThan(20_000);
            }
            assertThat(fs.grep("a+!$", "").matches()).extracting(GrepMatch::path, GrepMatch::lineNumber)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("r.txt", 2));
        }
    }

    @Test
    void grepIsLinearInTheNumberOfLines() {
        try (Sandbox s = DockerTestSupport.open()) {
            FileSystem fs = s.files();
            fs.write("blank.txt", "\n".repeat(60_000) + "needle\n" + "\r\n".repeat(20_000) + "\n");
            long t0 = System.nanoTime();
            List<GrepMatch> m = fs.grep("needle", "").matches();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertThat(m).containsExactly(new GrepMatch("blank.txt", 60_001, "needle"));
            // quadratic in the lines would be minutes; 15 s leaves room for a loaded CI machine
            assertThat(ms).as("grep of 100k mostly blank lines took (ms)").isLessThan(15_000);
            fs.write("crlf.txt", "a\r\nb\r\n\r\nb");
            assertThat(fs.grep("^b$", "crlf.txt").matches()).extracting(GrepMatch::lineNumber).containsExactly(2, 4);
            assertThat(fs.grep("^$", "crlf.txt").matches()).extracting(GrepMatch::lineNumber).containsExactly(3);
        }
    }

    @Test
    void replaceAndEditOfNonUtf8FailInvalidArgumentAndKeepEveryByte() {
        try (Sandbox s = DockerTestSupport.open()) {
            FileSystem fs = s.files();
            byte[] bytes = {0x41, (byte) 0xff, 0x42};
            byte[] late = {0x41, 0x0a, 0x42, (byte) 0xc3, 0x28, 0x0a};
            fs.write("bin.dat", bytes);
            fs.write("late.txt", late);
            List<Runnable> calls = List.of(
                    () -> fs.replace("bin.dat", "A", "C"),
                    () -> fs.edit("bin.dat", List.of(new Edit("A", "C"))),
                    () -> fs.previewEdit("bin.dat", List.of(new Edit("A", "C"))));
            for (Runnable call : calls) {
                SandboxException e = error(call);
                assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT);
                assertThat(e.getMessage()).startsWith("not UTF-8 text").contains("bin.dat").contains("offset 1");
                assertThat(fs.readBytes("bin.dat")).containsExactly(bytes);
            }
            SandboxException e = error(() -> fs.replace("late.txt", "B", "C"));
            assertThat(e.getMessage()).startsWith("not UTF-8 text").contains("late.txt").contains("offset 3");
            assertThat(fs.readBytes("late.txt")).containsExactly(late);
        }
    }
}
