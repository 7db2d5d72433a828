package dev.sandbox4j.local;

import static dev.sandbox4j.local.ReaperRun.alive;
import static dev.sandbox4j.local.ReaperRun.awaitPid;
import static dev.sandbox4j.local.ReaperRun.reaperArgv;
import static dev.sandbox4j.local.ReaperRun.seconds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sbx-reaper} run directly on the host (no jail): gate, exit status, stdin, exec failures, and that nothing a
 * command started outlives it, however it detached.
 */
@EnabledOnOs(OS.LINUX)
class ReaperTest {
    /** A setsid'd background job and a double-forked child that ignores TERM and HUP and cleared its environment. */
    private static final String DETACH = "export SBX_MARK=1\n"
            + "(setsid /bin/sh -c 'echo $$ > \"$0/setsid.pid\"; exec /bin/sleep 1000' \"$1\" &)\n"
            + "( (trap '' TERM HUP; exec /usr/bin/env -i /bin/sh -c 'echo $$ > \"$0/double.pid\"; "
            + "exec /bin/sleep 1000' \"$1\") & )\n"
            + "while [ ! -s \"$1/setsid.pid\" ] || [ ! -s \"$1/double.pid\" ]; do /bin/sleep 0.01; done\n"
            + "exit 5\n";

    @TempDir
    Path dir;
    Path reaper;
    /** Processes a failed test must not leave behind. */
    private final List<Long> started = new ArrayList<>();

    @BeforeEach
    void extract() throws Exception {
        reaper = ReaperRun.reaper(dir);
    }

    @AfterEach
    void killLeftovers() {
        for (long pid : started) {
            // only what this test started: a pid may have been reused by now
            String cmdline = ReaperRun.cmdline(pid);
            if (cmdline.contains(dir.toString()) || cmdline.equals("/bin/sleep 1000")) {
                ReaperRun.killQuietly(pid);
            }
        }
    }

    private long pid(Path file) throws Exception {
        long pid = awaitPid(file);
        started.add(pid);
        return pid;
    }

    private ReaperRun sh(String script, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("/bin/sh", "-c", script, "script"));
        cmd.addAll(List.of(args));
        ReaperRun run = ReaperRun.start(dir, reaperArgv(reaper, cmd.toArray(new String[0])));
        started.add(run.process.pid());
        return run;
    }

    @Test
    void exitCodesAndSignalsPassThrough() throws Exception {
        assertThat(sh("exit 0").gate().await(seconds(10))).isZero();
        assertThat(sh("exit 7").gate().await(seconds(10))).isEqualTo(7);
        assertThat(sh("exit 255").gate().await(seconds(10))).isEqualTo(255);
        assertThat(sh("kill -TERM $$").gate().await(seconds(10))).isEqualTo(128 + 15);
        assertThat(sh("kill -KILL $$").gate().await(seconds(10))).isEqualTo(128 + 9);
        assertThat(sh("kill -SEGV $$").gate().await(seconds(10))).isEqualTo(128 + 11);
    }

    @Test
    void eofBeforeTheGateLineRunsNothing() throws Exception {
        Path marker = dir.resolve("ran");
        assertThat(sh("touch \"$1\"", marker.toString()).closeStdin().await(seconds(10))).isEqualTo(125);
        assertThat(sh("touch \"$1\"", marker.toString()).write("no newline").closeStdin().await(seconds(10)))
                .isEqualTo(125);
        assertThat(marker).doesNotExist();
        // the same command does run once the gate line comes
        assertThat(sh("touch \"$1\"", marker.toString()).gate().await(seconds(10))).isZero();
        assertThat(marker).exists();
    }

    @Test
    void stdinAfterTheGateLineReachesTheCommandIntact() throws Exception {
        byte[] payload = new byte[70_000];
        ThreadLocalRandom.current().nextBytes(payload);
        payload[0] = '\n'; // a newline straight after the gate line belongs to the command
        ReaperRun run = ReaperRun.start(dir, reaperArgv(reaper, "cat"));
        run.write("the gate line\n").write(payload).closeStdin();
        assertThat(run.await(seconds(20))).isZero();
        assertThat(Files.readAllBytes(run.out)).isEqualTo(payload);
    }

    /** A shell's words and exit codes (issue 36), naming the program as given and nothing of the reaper. */
    @Test
    void execFailuresExitAndSpeakLikeAShell() throws Exception {
        ReaperRun missing = ReaperRun.start(dir, reaperArgv(reaper, "/nonexistent/sbx-cmd", "a"));
        assertThat(missing.gate().await(seconds(10))).isEqualTo(127);
        assertThat(missing.stderr()).isEqualTo("/nonexistent/sbx-cmd: no such file or directory\n");

        ReaperRun notOnPath = ReaperRun.start(dir, reaperArgv(reaper, "sbx-no-such-command"));
        assertThat(notOnPath.gate().await(seconds(10))).isEqualTo(127);
        assertThat(notOnPath.stderr()).isEqualTo("sbx-no-such-command: command not found\n");

        for (String option : List.of("--help", "--", "-c")) {
            ReaperRun asOption = ReaperRun.start(dir, reaperArgv(reaper, option, "id"));
            assertThat(asOption.gate().await(seconds(10))).as(option).isEqualTo(127);
            assertThat(asOption.stderr()).isEqualTo(option + ": command not found\n");
        }

        Path notExecutable = Files.writeString(dir.resolve("data.txt"), "x");
        ReaperRun denied = ReaperRun.start(dir, reaperArgv(reaper, notExecutable.toString()));
        assertThat(denied.gate().await(seconds(10))).isEqualTo(126);
        assertThat(denied.stderr()).isEqualTo(notExecutable + ": permission denied\n");

        Path directory = Files.createDirectories(dir.resolve("a-dir"));
        ReaperRun isDir = ReaperRun.start(dir, reaperArgv(reaper, directory.toString()));
        assertThat(isDir.gate().await(seconds(10))).isEqualTo(126);
        assertThat(isDir.stderr()).isEqualTo(directory + ": is a directory\n");

        ReaperRun underAFile = ReaperRun.start(dir, reaperArgv(reaper, notExecutable + "/x"));
        assertThat(underAFile.gate().await(seconds(10))).isEqualTo(126);
        assertThat(underAFile.stderr()).isEqualTo(notExecutable + "/x: not a directory\n");

        Path badInterpreter = Files.writeString(dir.resolve("bad.sh"), "#!/nonexistent/interpreter\n");
        Files.setPosixFilePermissions(badInterpreter, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        ReaperRun noInterpreter = ReaperRun.start(dir, reaperArgv(reaper, badInterpreter.toString()));
        assertThat(noInterpreter.gate().await(seconds(10))).isEqualTo(127);
        assertThat(noInterpreter.stderr()).isEqualTo(badInterpreter + ": cannot execute: required file not found\n");
    }

    @Test
    void theCommandStartsWithDefaultSignalDispositionsAndAnEmptyMask() throws Exception {
        // The reaper inherits ignored INT, QUIT, PIPE and USR2 and blocks its own signals; the command has neither.
        List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c", "trap '' INT QUIT PIPE USR2; exec \"$@\"", "wrap"));
        argv.addAll(reaperArgv(reaper, "grep", "-E", "^Sig(Blk|Ign):", "/proc/self/status"));
        ReaperRun run = ReaperRun.start(dir, argv);
        assertThat(run.gate().await(seconds(10))).isZero();
        assertThat(run.stdout()).isEqualTo("SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
    }

    @Test
    void badUsageRunsNothing() throws Exception {
        ReaperRun run = ReaperRun.start(dir, List.of(reaper.toString(), "true"));
        assertThat(run.await(seconds(10))).isEqualTo(125); // exits before reading stdin
        assertThat(run.stderr()).startsWith("sbx-reaper: usage:");
    }

    @Test
    void detachedLeftoversDieWithTheMainProcess() throws Exception {
        // Control: behind the shell gate the same leftovers survive the command, so the scenario is real.
        Path control = Files.createDirectory(dir.resolve("control"));
        List<String> gate = new ArrayList<>(ReaperRun.SHELL_GATE);
        gate.addAll(List.of("/bin/sh", "-c", DETACH, "script", control.toString()));
        ReaperRun viaGate = ReaperRun.start(dir, gate);
        assertThat(viaGate.gate().await(seconds(20))).isEqualTo(5);
        long s0 = pid(control.resolve("setsid.pid"));
        long d0 = pid(control.resolve("double.pid"));
        try {
            assertThat(alive(s0)).as("setsid leftover behind the shell gate").isTrue();
            assertThat(alive(d0)).as("double-forked leftover behind the shell gate").isTrue();
            assertThat(Long.parseLong(ReaperRun.status(d0, "SigIgn"), 16) & 0x4001L)
                    .as("ignores TERM and HUP").isEqualTo(0x4001L);
            assertThat(Files.readString(Paths.get("/proc/" + d0 + "/environ"))).as("cleared environment")
                    .doesNotContain("SBX_MARK").doesNotContain("PATH=");
        } finally {
            ReaperRun.killQuietly(s0);
            ReaperRun.killQuietly(d0);
        }

        Path d = Files.createDirectory(dir.resolve("reaped"));
        ReaperRun run = sh(DETACH, d.toString());
        assertThat(run.gate().await(seconds(20))).isEqualTo(5);
        long s1 = pid(d.resolve("setsid.pid"));
        long d1 = pid(d.resolve("double.pid"));
        assertThat(alive(s1)).as("setsid leftover").isFalse();
        assertThat(alive(d1)).as("double-forked leftover").isFalse();
    }

    @Test
    void leftoverWithAHostileCommIsFoundToo() throws Exception {
        // comm "x) S 1 1 (": a parser reading from the first ')' sees ppid 1 and misses it.
        Path hostile = Files.createSymbolicLink(dir.resolve("x) S 1 1 ("), Paths.get("/bin/sleep"));
        ReaperRun run = sh("(setsid /bin/sh -c 'echo $$ > \"$0/h.pid\"; exec \"$1\" 1000' \"$1\" \"$2\" &)\n"
                + "while [ ! -s \"$1/h.pid\" ]; do /bin/sleep 0.01; done\n", dir.toString(), hostile.toString());
        long start = System.nanoTime();
        assertThat(run.gate().await(seconds(20))).isZero();
        long pid = pid(dir.resolve("h.pid"));
        assertThat(alive(pid)).as("leftover named %s", hostile.getFileName()).isFalse();
        assertThat((System.nanoTime() - start) / 1_000_000).as("ms until the reaper exited").isLessThan(5_000);
    }

    @Test
    void usr1KillsATreeThatIgnoresTermAndReparented() throws Exception {
        ReaperRun run = sh("trap '' TERM\n"
                + "(setsid /bin/sh -c 'echo $$ > \"$0/a.pid\"; exec /bin/sleep 1000' \"$1\" &)\n"
                + "echo $$ > \"$1/main.pid\"\n"
                + "while :; do /bin/sleep 0.05; done\n", dir.toString());
        run.gate();
        long main = pid(dir.resolve("main.pid"));
        long a = pid(dir.resolve("a.pid"));
        assertThat(ReaperRun.status(a, "PPid")).as("re-parented to the reaper")
                .isEqualTo(Long.toString(run.process.pid()));

        run.signal("TERM"); // forwarded, ignored by all: everything keeps running
        Thread.sleep(300);
        assertThat(run.process.isAlive()).isTrue();
        assertThat(alive(main)).isTrue();
        assertThat(alive(a)).isTrue();

        run.signal("USR1");
        assertThat(run.await(seconds(10))).isEqualTo(137);
        assertThat(alive(main)).isFalse();
        assertThat(alive(a)).isFalse();
    }

    @Test
    void termIsForwardedAndACleanExitKeepsItsCode() throws Exception {
        ReaperRun run = sh("trap 'echo cleaned; exit 42' TERM\n"
                + "echo $$ > \"$1/main.pid\"\n"
                + "while :; do /bin/sleep 0.05; done\n", dir.toString());
        run.gate();
        pid(dir.resolve("main.pid"));
        run.signal("TERM");
        assertThat(run.await(seconds(10))).isEqualTo(42);
        assertThat(run.stdout()).isEqualTo("cleaned\n");
    }

    @Test
    void intAndHupGoToTheMainProcess() throws Exception {
        for (String[] c : new String[][] {{"INT", "43"}, {"HUP", "44"}}) {
            Path d = Files.createDirectory(dir.resolve(c[0]));
            ReaperRun run = sh("trap 'exit 43' INT; trap 'exit 44' HUP\n"
                    + "echo $$ > \"$1/main.pid\"\n"
                    + "while :; do /bin/sleep 0.05; done\n", d.toString());
            run.gate();
            pid(d.resolve("main.pid"));
            run.signal(c[0]);
            assertThat(run.await(seconds(10))).as(c[0]).isEqualTo(Integer.parseInt(c[1]));
        }
    }

    @Test
    void aSameUidCommandCannotInspectTheReaper() throws Exception {
        // root may read anything (CAP_SYS_PTRACE): run as an unused uid, the command the same uid as its reaper
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root to run as a dedicated uid");
        long uid = 3_000_000 + ThreadLocalRandom.current().nextInt(1_000_000);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        List<String> argv = new ArrayList<>(List.of("setpriv", "--reuid=" + uid, "--regid=" + uid,
                "--clear-groups", "--"));
        argv.addAll(reaperArgv(reaper, "/bin/sh", "-c", "if cat /proc/$PPID/environ > /dev/null 2>&1; then echo environ readable; else echo environ denied; fi; "
                + "if ls /proc/$PPID/fd > /dev/null 2>&1; then echo fds readable; else echo fds denied; fi; "
                + "if cat /proc/$$/environ > /dev/null; then echo own readable; fi"));
        ReaperRun run = ReaperRun.start(dir, argv);
        assertThat(run.gate().await(seconds(10))).as(run.stderr()).isZero();
        assertThat(run.stdout()).isEqualTo("environ denied\nfds denied\nown readable\n");
    }

    @Test
    void forkStormUnderAnNprocLimitIsCleanedUp() throws Exception {
        // RLIMIT_NPROC counts every process of the uid and does not bind root: run the storm as an unused uid.
        assumeTrue("root".equals(System.getProperty("user.name")),
                "needs root to run the storm as a dedicated uid under RLIMIT_NPROC");
        long uid = 3_000_000 + ThreadLocalRandom.current().nextInt(1_000_000);
        assertThat(ReaperRun.processesOf(uid)).isEmpty();
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path counts = Files.createDirectory(dir.resolve("counts"));
        Files.setPosixFilePermissions(counts, PosixFilePermissions.fromString("rwxrwxrwx"));
        List<String> argv = new ArrayList<>(List.of("setpriv", "--reuid=" + uid, "--regid=" + uid,
                "--clear-groups", "--", "prlimit", "--nproc=48:48", "--"));
        // Every storm process forks again and again (a failed fork is retried after 10 ms) and some exit at once,
        // so orphans keep being re-parented; the main process counts the uid's processes just before it ends.
        String storm = "while (1) { my $p = fork; if (!defined $p) { select(undef, undef, undef, 0.01); next }"
                + " exit 0 if $p && rand() < 0.2 }";
        argv.addAll(reaperArgv(reaper, "/bin/sh", "-c",
                "/bin/sleep 1.5 & s=$!\n"
                        + "/usr/bin/perl -e '" + storm + "' &\n"
                        + "wait $s\n"
                        + "n=0; for f in /proc/[0-9]*/status; do\n"
                        + "  while read -r k v rest; do [ \"$k\" = Uid: ] && { [ \"$v\" = " + uid
                        + " ] && n=$((n+1)); break; }; done < \"$f\" 2>/dev/null\n"
                        + "done\n"
                        + "echo $n > \"$1/at-exit\"\n"
                        + "exit 3\n", "script", counts.toString()));
        ReaperRun run = ReaperRun.start(dir, argv);
        try {
            assertThat(run.gate().await(seconds(40))).as(run.stderr()).isEqualTo(3);
            assertThat(ReaperRun.processesOf(uid)).as("processes of uid %d left", uid).isEmpty();
        } finally {
            ReaperRun.killAll(uid); // a failed run must not leave the storm burning the machine
        }
        int atExit = Integer.parseInt(Files.readString(counts.resolve("at-exit")).trim());
        assertThat(atExit).as("uid %d processes while the storm ran", uid).isGreaterThan(20);
    }
}
