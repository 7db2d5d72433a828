package dev.sandbox4j.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Attacks on the local jail, by category; each asserts the safe outcome. */
class LocalSecurityTest {
    static ExecResult sh(Sandbox s, String cmd) {
        return s.shell().run(cmd);
    }

    static ExecResult sh(Sandbox s, String cmd, int seconds) {
        return s.shell().run(ExecRequest.shell(cmd).withTimeout(Duration.ofSeconds(seconds)));
    }

    /** One sandbox shared by the read-only attack tests of a nested class. */
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    abstract static class Shared {
        Sandbox s;

        @BeforeAll
        void openSandbox() {
            s = Jail.open();
        }

        @AfterAll
        void closeSandbox() {
            if (s != null) {
                s.close();
            }
        }
    }

    @Nested
    class FsEscape extends Shared {
        /** A sandbox process cannot take a lease that would make the host's open of a workspace file wait. */
        @Test
        void fileLeaseIsRefused() {
            s.files().write("leased.txt", "x");
            ExecResult r = sh(s, "python3 -c \"import fcntl, os\nfd = os.open('leased.txt', os.O_RDONLY)\ntry:\n"
                    + "    fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK); print('leased')\nexcept OSError as e:\n"
                    + "    print('refused', e.errno)\"", 10);
            assertThat(r.stdout()).isEqualTo("refused 1\n");
            assertThat(s.files().readText("leased.txt")).isEqualTo("x");
        }

        /** Issue 18.7: a working directory that leaves the workspace through a link is refused, nothing runs. */
        @Test
        void cwdThroughLinkOutOfWorkspaceIsInvalidPath() {
            sh(s, "ln -sfn / rootlink; mkdir -p real/sub; ln -sfn real inlink");
            for (String cwd : List.of("rootlink", "rootlink/tmp", "inlink", "inlink/sub")) {
                assertThatThrownBy(() -> s.shell().run(ExecRequest.shell("touch /tmp/ran-" + cwd.replace('/', '_'))
                        .withCwd(cwd))).as(cwd).isInstanceOf(SandboxException.class)
                        .satisfies(e -> assertThat(((SandboxException) e).kind()).isEqualTo(ErrorKind.INVALID_PATH));
            }
            assertThat(sh(s, "ls /tmp | grep -c ran- || true").stdout().trim()).isEqualTo("0");
            assertThat(s.shell().run(ExecRequest.shell("pwd").withCwd("real/sub")).stdout())
                    .isEqualTo("/workspace/real/sub\n");
        }

        /** Issue 18.5: a snippet reaches its interpreter where no sandbox process can rewrite it. */
        @Test
        void codeSnippetCannotBeRewrittenBySandboxProcesses() throws Exception {
            ExecHandle loop = s.shell().start(ExecRequest.shell("while :; do for f in /workspace/*.py /tmp/*.py "
                    + "/tmp/.*.py /workspace/*.js /tmp/*.js /tmp/.*.js /tmp/.*.sh /tmp/*.sh; do [ -f \"$f\" ] && "
                    + "printf 'print(\"pwned\")\\n' > \"$f\" 2>/dev/null; done; done"), null);
            try {
                for (int i = 0; i < 15; i++) {
                    assertThat(s.code().run(dev.sandbox4j.Language.PYTHON, "print('ok')").stdout())
                            .isEqualTo("ok\n");
                    assertThat(s.code().run(dev.sandbox4j.Language.JAVASCRIPT, "console.log('ok')")
                            .stdout()).isEqualTo("ok\n");
                    assertThat(s.code().run(dev.sandbox4j.Language.BASH, "echo ok").stdout())
                            .isEqualTo("ok\n");
                }
            } finally {
                loop.kill();
            }
        }

        @Test
        void symlinkToShadowIsNotFollowedByFiles() {
            sh(s, "ln -s /etc/shadow shadow; ln -s /etc shadowdir");
            assertThatThrownBy(() -> s.files().readText("shadow")).isInstanceOf(SandboxException.class);
            assertThatThrownBy(() -> s.files().readText("shadowdir/shadow")).isInstanceOf(SandboxException.class);
            assertThatThrownBy(() -> s.files().write("shadowdir/evil", "x")).isInstanceOf(SandboxException.class);
            assertThat(Files.exists(Path.of("/etc/evil"))).isFalse();
        }

        @Test
        void procSelfEnvironSymlinkLeaksNothing() {
            sh(s, "ln -s /proc/self/environ env.txt; ln -s /dev/zero zero; mkfifo fifo");
            assertThatThrownBy(() -> s.files().readText("env.txt")).isInstanceOf(SandboxException.class);
            assertThatThrownBy(() -> s.files().readBytes("zero")).isInstanceOf(SandboxException.class);
            assertThatThrownBy(() -> s.files().readText("fifo")).isInstanceOf(SandboxException.class);
        }

        @Test
        void hostSecretsAreNotMountedAndRootIsReadOnly() {
            ExecResult r = sh(s, "cat /etc/shadow; ls /root /home /var/run/docker.sock; echo x > /usr/evil;"
                    + " echo x > /etc/evil; touch /evil; echo done");
            assertThat(r.stdout()).isEqualTo("done\n");
            assertThat(r.stderr()).doesNotContain("root:");
            assertThat(Files.exists(Path.of("/usr/evil"))).isFalse();
        }

        @Test
        void remountAndMountFail() {
            ExecResult r = sh(s, "mount -o remount,rw /usr && echo REMOUNTED; mount -t tmpfs none /tmp/x 2>&1;"
                    + " mount --bind /workspace /usr && echo BOUND; echo end");
            assertThat(r.stdout()).doesNotContain("REMOUNTED", "BOUND").contains("end");
        }
    }

    @Nested
    class ProcEscape extends Shared {
        @Test
        void cannotSignalHostProcesses() {
            long me = ProcessHandle.current().pid();
            ExecResult r = sh(s, "kill -0 " + me + " && echo ALIVE; kill -0 1 && echo INIT; echo end");
            assertThat(r.stdout()).doesNotContain("ALIVE").contains("end");
        }

        @Test
        void cannotSeeHostProcesses() {
            ExecResult r = sh(s, "for p in /proc/[0-9]*; do cat $p/cmdline 2>/dev/null | tr '\\0' ' '; echo; done");
            assertThat(r.stdout()).doesNotContain("surefire", "maven", "org.apache");
            assertThat(r.stdout().lines().filter(l -> !l.isBlank()).count()).isLessThan(10);
        }

        @Test
        void ptraceAndNestedNamespacesFail() {
            ExecResult r = sh(s, "unshare -r true && echo USERNS; unshare -m true && echo MNTNS;"
                    + " python3 -c 'import ctypes; l=ctypes.CDLL(None); print(\"ptrace\", l.ptrace(16, 1, 0, 0))';"
                    + " echo end");
            assertThat(r.stdout()).doesNotContain("USERNS", "MNTNS").contains("ptrace -1", "end");
        }

        @Test
        void hostnameChangeStaysInsideOrFails() {
            String before = hostName();
            sh(s, "hostname evil; python3 -c 'import socket; socket.sethostname(\"evil\")'");
            assertThat(hostName()).isEqualTo(before);
        }

        private String hostName() {
            try {
                return Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    @Nested
    class Network extends Shared {
        @Test
        void onlyLoopbackInterface() {
            ExecResult r = sh(s, "python3 -c 'import socket; print(sorted(n for i, n in socket.if_nameindex()))'");
            assertThat(r.stdout().trim()).isEqualTo("['lo']");
        }

        @Test
        void hostLoopbackServerIsUnreachable() throws Exception {
            try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
                ExecResult r = sh(s, "python3 -c 'import socket; s=socket.socket(); s.settimeout(2); "
                        + "s.connect((\"127.0.0.1\", " + server.getLocalPort() + ")); print(\"CONNECTED\")'", 20);
                assertThat(r.stdout()).doesNotContain("CONNECTED");
                assertThat(r.exitCode()).isNotZero();
            }
        }

        @Test
        void dnsAndOutboundFail() {
            ExecResult r = sh(s, "python3 -c 'import socket; print(socket.getaddrinfo(\"example.com\", 80))' "
                    + "|| echo NODNS; python3 -c 'import socket; socket.create_connection((\"1.1.1.1\", 53), 2); "
                    + "print(\"OUT\")' || echo NOOUT", 30);
            assertThat(r.stdout().lines()).contains("NODNS", "NOOUT").doesNotContain("OUT");
        }

        @Test
        void serverInJailIsReachableByTheNextCommand() {
            ExecHandle h = s.shell().start(ExecRequest.shell(
                    "python3 -m http.server 8765 --bind 127.0.0.1 --directory /tmp"));
            try {
                sh(s, "echo hi > /tmp/hello.txt");
                ExecResult r = sh(s, "for i in $(seq 50); do python3 -c 'import urllib.request; print(urllib."
                        + "request.urlopen(\"http://127.0.0.1:8765/hello.txt\").read().decode())' 2>/dev/null "
                        + "&& break; sleep 0.2; done", 30);
                assertThat(r.stdout()).contains("hi");
            } finally {
                h.kill();
            }
        }
    }

    @Nested
    class ResourceDos {
        @Test
        void forkBombEndsAndSandboxKeepsWorking() {
            try (Sandbox s = Jail.open(SandboxSpec.builder()
                    .limits(ResourceLimits.DEFAULTS.withMaxProcesses(64)).build())) {
                // after the bomb starts, the main shell forks nothing (bash builtins only): it must get to the end
                ExecResult r = sh(s, "exec bash -c 'bomb() { bomb | bomb & }; bomb; end=$((SECONDS + 3)); "
                        + "while [ $SECONDS -lt $end ]; do :; done; echo survived' 2>/dev/null", 8);
                // the limit makes fork fail inside (EAGAIN); the command itself goes on to its end
                assertThat(r.status()).isEqualTo(ExecStatus.COMPLETED);
                assertThat(r.stdout()).contains("survived");
                if (!Jail.limitsHere().rlimitProcesses()) {
                    // a pids cgroup counts the refused forks; RLIMIT_NPROC refuses them without a count
                    assertThat(r.detail()).contains("process limit reached");
                }
                // and what the bomb left ended with its command
                assertThat(sh(s, "echo alive").stdout()).isEqualTo("alive\n");
                // the bomb's processes are all bash (the command's sh exec'd it); counting sh instead would race a
                // pipeline's child that has forked but not exec'd grep yet
                assertThat(sh(s, "ps -eo comm= | grep -c '^bash$' || true").stdout().trim()).isEqualTo("0");
            }
        }

        /** Issue 18.9: at the limit a program sees its own error (EAGAIN) and reports it; nothing kills it. */
        @Test
        void processLimitFailsForkInsideAndTheProgramHandlesIt() {
            try (Sandbox s = Jail.open(SandboxSpec.builder()
                    .limits(ResourceLimits.DEFAULTS.withMaxProcesses(32)).build())) {
                ExecResult r = sh(s, "python3 -c '\nimport threading, time\nn = 0\ntry:\n"
                        + "    for i in range(200):\n        threading.Thread(target=time.sleep, args=(2,), daemon=True)"
                        + ".start(); n += 1\nexcept RuntimeError as e:\n    print(\"refused after\", n, e)\n'", 30);
                assertThat(r.status()).isEqualTo(ExecStatus.COMPLETED);
                assertThat(r.exitCode()).isZero();
                assertThat(r.stdout()).contains("refused after").contains("can't start new thread");
            }
        }

        @Test
        void tmpFillIsBounded() {
            try (Sandbox s = Jail.open(SandboxSpec.builder()
                    .limits(ResourceLimits.DEFAULTS.withTmpBytes(16 * ResourceLimits.MIB)).build())) {
                ExecResult r = sh(s, "head -c 67108864 /dev/zero > /tmp/fill; echo rc=$?; du -k /tmp/fill", 30);
                assertThat(r.stdout()).doesNotContain("rc=0");
                assertThat(r.stderr()).contains("No space left");
                assertThat(sh(s, "rm /tmp/fill; echo ok").stdout()).isEqualTo("ok\n");
            }
        }

        @Test
        void maxFileSizeIsEnforced() {
            try (Sandbox s = Jail.open(SandboxSpec.builder()
                    .limits(ResourceLimits.DEFAULTS.withMaxFileBytes(ResourceLimits.MIB)).build())) {
                ExecResult r = sh(s, "head -c 4194304 /dev/zero > big; stat -c %s big", 30);
                assertThat(r.stdout().trim()).isEqualTo("1048576");
            }
        }
    }

    @Nested
    class ProcessLifetime {
        @Test
        void setsidNohupAndDoubleForkDieOnTimeout() {
            try (Sandbox s = Jail.open()) {
                long t0 = System.nanoTime();
                ExecResult r = sh(s, "setsid sleep 1001 & nohup sleep 1002 >/dev/null 2>&1 & "
                        + "(sh -c 'trap \"\" TERM HUP; sleep 1003' &) ; echo started; sleep 100", 2);
                long ms = (System.nanoTime() - t0) / 1_000_000;
                assertThat(r.status()).isEqualTo(ExecStatus.TIMEOUT);
                assertThat(r.stdout()).contains("started");
                assertThat(ms).isLessThan(4000);
                ExecResult ps = sh(s, "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done");
                assertThat(ps.stdout()).doesNotContain("sleep 100");
            }
        }

        @Test
        void backgroundProcessesDieWithClose() throws Exception {
            Sandbox s = Jail.open();
            String uid = s.info().details().get("uid");
            // the jail's uid is its own when the JVM is root; otherwise it is the JVM's, and the jail is told
            // apart by what runs in it
            boolean ownUid = Host.isRoot();
            ExecHandle h = s.shell().start(ExecRequest.shell("setsid sleep 1004 >/dev/null 2>&1 & sleep 1003"));
            assertThat(ownUid ? processesOfUid(uid) : Jail.leaks()).isNotEmpty();
            s.close();
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (!(ownUid ? processesOfUid(uid) : Jail.leaks()).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(ownUid ? processesOfUid(uid) : Jail.leaks()).isEmpty();
            assertThat(h.isAlive()).isFalse();
            assertThat(hostProcessesRunning("sleep 100[34]")).isEmpty();
            assertThatThrownBy(() -> s.shell()).isInstanceOf(SandboxException.class)
                    .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.CLOSED);
        }

        @Test
        void killOfABackgroundHandleKillsItsTree() {
            try (Sandbox s = Jail.open()) {
                ExecHandle h = s.shell().start(ExecRequest.shell("(setsid sleep 1005 &); sleep 1006"));
                assertThat(h.isAlive()).isTrue();
                ExecResult r = h.kill();
                assertThat(r.status()).isEqualTo(ExecStatus.KILLED);
                assertThat(sh(s, "cat /proc/[0-9]*/cmdline | tr '\\0' ' '").stdout()).doesNotContain("sleep 100");
            }
        }

        @Test
        void interruptKillsTheCommand() throws Exception {
            try (Sandbox s = Jail.open()) {
                Thread caller = Thread.currentThread();
                Thread interrupter = new Thread(() -> {
                    try {
                        Thread.sleep(500);
                    } catch (InterruptedException ignored) {
                        return;
                    }
                    caller.interrupt();
                });
                interrupter.start();
                assertThatThrownBy(() -> sh(s, "sleep 1007"))
                        .isInstanceOf(SandboxException.class)
                        .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.INTERRUPTED);
                assertThat(Thread.interrupted()).isTrue();
                assertThat(sh(s, "cat /proc/[0-9]*/cmdline | tr '\\0' ' '").stdout()).doesNotContain("sleep 1007");
            }
        }

        /** Host processes whose command line matches the regex. */
        static List<String> hostProcessesRunning(String regex) throws IOException {
            List<String> list = new ArrayList<>();
            java.util.regex.Pattern pattern = java.util.regex.Pattern.compile(regex);
            try (Stream<Path> st = Files.list(Path.of("/proc"))) {
                for (Path p : st.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                    try {
                        String cmd = Files.readString(p.resolve("cmdline")).replace('\0', ' ');
                        if (pattern.matcher(cmd).find()) {
                            list.add(p.getFileName() + ": " + cmd);
                        }
                    } catch (IOException ignored) {
                        // exited
                    }
                }
            }
            return list;
        }

        static List<Long> processesOfUid(String uid) throws IOException {
            List<Long> list = new ArrayList<>();
            try (Stream<Path> st = Files.list(Path.of("/proc"))) {
                for (Path p : st.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                    try {
                        for (String line : Files.readAllLines(p.resolve("status"))) {
                            if (line.startsWith("Uid:") && line.split("\\s+")[1].equals(uid)) {
                                list.add(Long.parseLong(p.getFileName().toString()));
                            }
                        }
                    } catch (IOException ignored) {
                        // exited
                    }
                }
            }
            return list;
        }
    }

    @Nested
    class EnvInjection extends Shared {
        @Test
        void ldPreloadAffectsOnlyTheJail() {
            ExecResult r = s.shell().run(ExecRequest.shell("echo \"pre=$LD_PRELOAD\"")
                    .withEnv("LD_PRELOAD", "/workspace/evil.so"));
            assertThat(r.stdout()).contains("pre=/workspace/evil.so");
            assertThat(sh(s, "echo still-fine").stdout()).isEqualTo("still-fine\n");
        }

        @Test
        void secretsAreNotVisibleInHostPs() throws Exception {
            String secret = "s3cr3t-" + System.nanoTime();
            try (Sandbox x = Jail.open(SandboxSpec.builder().env("API_TOKEN", secret).build())) {
                ExecHandle h = x.shell().start(ExecRequest.shell("sleep 30").withEnv("OTHER", secret + "x"));
                assertThat(sh(x, "echo $API_TOKEN").stdout().trim()).isEqualTo(secret);
                try (Stream<Path> st = Files.list(Path.of("/proc"))) {
                    for (Path p : st.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                        try {
                            assertThat(Files.readString(p.resolve("cmdline"))).doesNotContain(secret);
                        } catch (IOException ignored) {
                            // exited
                        }
                    }
                }
                assertThat(sh(x, "cat /proc/1/cmdline /proc/2/cmdline | tr '\\0' ' '").stdout())
                        .doesNotContain(secret);
                h.kill();
            }
        }

        @Test
        void specEnvNeverReachesTheLauncherOrAgentProcesses() throws Exception {
            String marker = "launcher-marker-" + System.nanoTime();
            try (Sandbox x = Jail.open(SandboxSpec.builder().env("LD_AUDIT", "/workspace/" + marker).build())) {
                ExecHandle h = x.shell().start(ExecRequest.shell("sleep 30"));
                assertThat(sh(x, "echo $LD_AUDIT").stdout()).contains(marker);
                int launchers = 0;
                try (Stream<Path> st = Files.list(Path.of("/proc"))) {
                    for (Path p : st.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                        try {
                            String cmd = Files.readString(p.resolve("cmdline")).replace('\0', ' ');
                            if (cmd.startsWith("bwrap ") || cmd.contains("/bwrap ")
                                    || cmd.startsWith("/opt/sandbox4j/sbx-agent")) {
                                launchers++;
                                assertThat(Files.readString(p.resolve("environ"))).as("environ of " + cmd)
                                        .doesNotContain(marker);
                            }
                        } catch (IOException ignored) {
                            // exited
                        }
                    }
                }
                assertThat(launchers).as("bwrap and agent processes found").isGreaterThan(0);
                h.kill();
            }
        }

        @Test
        void hostEnvironmentDoesNotLeakIn() {
            ExecResult r = sh(s, "env");
            assertThat(r.stdout()).doesNotContain("MAVEN", "JAVA_HOME=", "HOME=/root").contains("HOME=/workspace",
                    "USER=sandbox");
        }
    }

    @Nested
    class InputValidation extends Shared {
        @Test
        void traversalAndAbsolutePathsAreRejected() {
            for (String p : List.of("../etc/passwd", "/etc/passwd", "a/../../x", "/workspace/../etc/passwd")) {
                assertThatThrownBy(() -> s.files().readText(p)).isInstanceOf(SandboxException.class)
                        .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.INVALID_PATH);
            }
        }

        @Test
        void nulAndHugeNamesAreRejected() {
            assertThatThrownBy(() -> s.files().write("a\0b", "x")).isInstanceOf(SandboxException.class);
            assertThatThrownBy(() -> s.files().write("x".repeat(300), "x")).isInstanceOf(SandboxException.class);
            assertThatThrownBy(() -> s.files().write("a/".repeat(2100) + "b", "x"))
                    .isInstanceOf(SandboxException.class);
            assertThatThrownBy(() -> s.shell().run(ExecRequest.argv("echo", "a\0b")))
                    .isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void badWorkingDirectories() {
            assertThatThrownBy(() -> s.shell().run(ExecRequest.shell("pwd").withCwd("../..")))
                    .isInstanceOf(SandboxException.class);
            assertThatThrownBy(() -> s.shell().run(ExecRequest.shell("pwd").withCwd("does/not/exist")))
                    .isInstanceOf(SandboxException.class);
            assertThatThrownBy(() -> s.shell().run(ExecRequest.shell("pwd").withCwd("/tmp")))
                    .isInstanceOf(SandboxException.class);
            sh(s, "mkdir -p real; ln -s /etc linkdir");
            assertThat(s.shell().run(ExecRequest.shell("pwd").withCwd("real")).stdout())
                    .isEqualTo("/workspace/real\n");
        }

        @Test
        void hugeArgumentsAndCodeGoThroughStdin() {
            String code = "x = 1\n".repeat(200_000) + "print('big', x)\n";
            assertThat(s.code().run("python", code).stdout()).isEqualTo("big 1\n");
        }
    }

    @Nested
    class OutputHandling extends Shared {
        @Test
        void gigabyteOfOutputStaysAtCap() {
            ExecResult r = s.shell().run(ExecRequest.shell("head -c 1000000000 /dev/zero | tr '\\0' a")
                    .withOutputLimit(1000).withTimeout(Duration.ofSeconds(120)));
            assertThat(r.status()).isEqualTo(ExecStatus.COMPLETED);
            assertThat(r.stdout().length()).isLessThan(2100);
            assertThat(r.stdoutTruncation().totalBytes()).isEqualTo(1_000_000_000L);
        }

        @Test
        void yesUntilTimeoutIsBounded() {
            long t0 = System.nanoTime();
            ExecResult r = s.shell().run(ExecRequest.shell("yes").withTimeout(Duration.ofSeconds(3)));
            assertThat(r.status()).isEqualTo(ExecStatus.TIMEOUT);
            assertThat(r.stdout().length()).isLessThan(2 * 15_000 + 200);
            assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(5000);
        }

        @Test
        void randomBinaryFloodIsCappedAndCounted() {
            ExecResult r = s.shell().run(ExecRequest.shell("head -c 5000000 /dev/urandom").withOutputLimit(100));
            assertThat(r.stdoutTruncation().totalBytes()).isEqualTo(5_000_000L);
            assertThat(r.stdoutTruncation().truncated()).isTrue();
            assertThat(r.stdout().length()).isLessThan(2 * 100 * 2 + 100);
        }

        @Test
        void binaryAndSplitStreams() {
            ExecResult r = sh(s, "printf '\\377\\376 bad'; echo out; echo err >&2");
            assertThat(r.stdout()).endsWith(" badout\n");
            assertThat(r.stderr()).isEqualTo("err\n");
        }
    }

    @Nested
    class Concurrency {
        @Test
        void parallelCommandsInOneSandbox() throws Exception {
            try (Sandbox s = Jail.open()) {
                ExecutorService pool = Executors.newFixedThreadPool(8);
                List<Future<String>> fs = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                    int n = i;
                    fs.add(pool.submit(() -> sh(s, "echo " + n + "; echo e" + n + " >&2").stdout()));
                }
                for (int i = 0; i < 40; i++) {
                    assertThat(fs.get(i).get()).isEqualTo(i + "\n");
                }
                pool.shutdown();
            }
        }

        @Test
        void parallelSandboxes() throws Exception {
            Jail.assumeAvailable();
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<String>> fs = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                int n = i;
                fs.add(pool.submit(() -> {
                    try (Sandbox s = Jail.open()) {
                        sh(s, "echo " + n + " > /tmp/n");
                        return sh(s, "cat /tmp/n").stdout();
                    }
                }));
            }
            for (int i = 0; i < 16; i++) {
                assertThat(fs.get(i).get()).isEqualTo(i + "\n");
            }
            pool.shutdown();
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (!Jail.leaks().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(Jail.leaks()).isEmpty();
        }

        @Test
        void sixtyFourSandboxesOpenUseAndCloseAtOnce() throws Exception {
            Jail.assumeAvailable();
            int n = 64;
            ExecutorService pool = Executors.newFixedThreadPool(n);
            java.util.concurrent.CyclicBarrier allOpen = new java.util.concurrent.CyclicBarrier(n);
            List<Future<String>> fs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int id = i;
                fs.add(pool.submit(() -> {
                    try (Sandbox s = Jail.open()) {
                        allOpen.await(180, java.util.concurrent.TimeUnit.SECONDS);
                        return sh(s, "echo " + id).stdout();
                    }
                }));
            }
            for (int i = 0; i < n; i++) {
                assertThat(fs.get(i).get(240, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(i + "\n");
            }
            pool.shutdown();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!Jail.leaks().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(Jail.leaks()).isEmpty();
        }

        @Test
        void closeWhileCommandsRun() throws Exception {
            Sandbox s = Jail.open();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                fs.add(pool.submit(() -> {
                    try {
                        return sh(s, "sleep 30", 60);
                    } catch (SandboxException e) {
                        return e;
                    }
                }));
            }
            Thread.sleep(500);
            s.close();
            for (Future<?> f : fs) {
                Object o = f.get(10, java.util.concurrent.TimeUnit.SECONDS);
                if (o instanceof ExecResult r) {
                    assertThat(r.status()).isEqualTo(ExecStatus.KILLED);
                }
            }
            pool.shutdown();
        }
    }
}
