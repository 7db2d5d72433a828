package dev.sandbox4j.docker;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Attacks from inside the sandbox and through the API, by category. One shared sandbox for the cheap ones; the
 * destructive ones open their own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DockerAttackTest {
    private Sandbox s;

    @BeforeAll
    void open() {
        s = openSandbox(SandboxSpec.builder().commandTimeout(Duration.ofSeconds(20)).build());
    }

    @AfterAll
    void close() {
        if (s != null) {
            s.close();
        }
    }

    /** Opens a sandbox on the engine under test (overridden by the Podman run). */
    Sandbox openSandbox(SandboxSpec spec) {
        return DockerTestSupport.open(spec);
    }

    /** The sandbox4j containers and volumes this JVM owns on the engine under test. */
    java.util.List<String> owned() {
        return DockerTestSupport.ownedResources();
    }

    /** How to reach the engine under test. */
    DockerOptions engineOptions() {
        return DockerOptions.defaults();
    }

    /** The line the shared sandbox's {@code pids.max} gives (its spec asks for the default 256), or "" for none. */
    String expectedPidsMax() {
        return "256\n";
    }

    private ExecResult sh(String cmd) {
        return s.shell().run(cmd);
    }

    private static SandboxException error(Runnable r) {
        AtomicReference<SandboxException> e = new AtomicReference<>();
        try {
            r.run();
        } catch (SandboxException ex) {
            e.set(ex);
        }
        assertThat(e.get()).as("expected a SandboxException").isNotNull();
        return e.get();
    }

    // ------------------------------------------------------------------ posture (fails on drift)

    @Test
    void posture_insideTheContainer() {
        ExecResult r = sh("id -u; id -g; grep -E '^(CapEff|CapBnd|NoNewPrivs|Seccomp):' /proc/self/status;"
                + " cat /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids.max;"
                + " touch /usr/x 2>&1 | grep -o 'Read-only file system'; ls /sys/class/net");
        assertThat(r.stdout()).isEqualTo("10001\n10001\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\n"
                + "NoNewPrivs:\t1\nSeccomp:\t2\n" + expectedPidsMax() + "Read-only file system\nlo\n");
    }

    // ------------------------------------------------------------------ fs-escape

    @Test
    void fsEscape_symlinkToEtcPasswdIsNotFollowed() {
        sh("ln -sf /etc/passwd leak; mkdir -p d; ln -sfn /etc dirlink");
        assertThat(error(() -> s.files().readText("leak")).kind())
                .isIn(ErrorKind.PERMISSION_DENIED, ErrorKind.INVALID_PATH);
        assertThat(error(() -> s.files().readText("dirlink/passwd")).kind())
                .isIn(ErrorKind.PERMISSION_DENIED, ErrorKind.INVALID_PATH);
        assertThat(error(() -> s.files().write("dirlink/evil", "x")).kind())
                .isIn(ErrorKind.PERMISSION_DENIED, ErrorKind.INVALID_PATH);
        assertThat(error(() -> s.files().grep("root", "dirlink")).kind())
                .isIn(ErrorKind.PERMISSION_DENIED, ErrorKind.INVALID_PATH);
        assertThat(s.files().stat("leak").linkTarget()).isEqualTo("/etc/passwd");
    }

    @Test
    void fsEscape_dotDotAndAbsolutePathsRejected() {
        for (String p : List.of("../etc/passwd", "/etc/passwd", "a/../../x", "/workspace/../etc/shadow", "x\0y")) {
            assertThat(error(() -> s.files().readText(p)).kind()).as(p).isEqualTo(ErrorKind.INVALID_PATH);
        }
        assertThat(error(() -> s.shell().run(ExecRequest.shell("pwd").withCwd("../../etc"))).kind())
                .isEqualTo(ErrorKind.INVALID_PATH);
    }

    @Test
    void fsEscape_setuidBinaryPlantedInWorkspaceGivesNoPrivilege() {
        ExecResult r = sh("cp /bin/cat ./suid && chmod 4755 ./suid; ls -ln suid; ./suid /etc/shadow; echo rc=$?; id -u");
        // Owned by the sandbox uid, so the setuid bit can only ever yield that uid; and no_new_privs ignores it.
        assertThat(r.stdout()).contains(" 10001 10001 ").contains("rc=1").endsWith("10001\n");
        assertThat(r.stderr()).contains("Permission denied");
    }

    @Test
    void fsEscape_procAndHostPathsInvisible() {
        ExecResult r = sh("cat /proc/1/root/etc/hostname 2>&1; ls /var/run/docker.sock 2>&1; mount -t tmpfs x /mnt 2>&1;"
                + " echo done");
        assertThat(r.stdout()).doesNotContain("docker.sock\n").contains("done");
        assertThat(sh("test -S /var/run/docker.sock && echo SOCKET || echo none").stdout()).isEqualTo("none\n");
    }

    // ------------------------------------------------------------------ proc-escape

    @Test
    void procEscape_kernelSurfaceBlockedBySeccomp() {
        String py = String.join("\n",
                "import ctypes, socket, errno",
                "libc = ctypes.CDLL(None, use_errno=True)",
                "r = libc.syscall(425, 8, ctypes.create_string_buffer(120))",
                "print('io_uring', r, ctypes.get_errno())",
                "for fam, name in ((40, 'vsock'), (38, 'alg'), (17, 'packet')):",
                "    try:",
                "        socket.socket(fam, socket.SOCK_STREAM if fam != 38 else 5); print(name, 'OPEN')",
                "    except OSError as e: print(name, 'blocked', e.errno)",
                "print('unshare', libc.unshare(0x10000000), ctypes.get_errno())",
                "print('keyctl', libc.syscall(250, 0, 0, 0, 0, 0), ctypes.get_errno())",
                "print('ptrace', libc.ptrace(0, 0, 0, 0), ctypes.get_errno())");
        var r = s.code().run("python", py);
        // io_uring: ENOSYS (38), so libuv and Tokio fall back to epoll; the rest are explicit denials (EPERM)
        assertThat(r.stdout()).contains("io_uring -1 38\n").contains("vsock blocked").contains("alg blocked")
                .contains("packet blocked").contains("unshare -1 1\n").contains("keyctl -1 1\n")
                .contains("ptrace -1 1\n").doesNotContain("OPEN");
    }

    @Test
    void procEscape_noRootNoCapsNoMknod() {
        ExecResult r = sh("mknod /tmp/sda b 8 0 2>&1; echo rc=$?; unshare -Ur true 2>&1; echo rc=$?;"
                + " chroot / true 2>&1; echo rc=$?");
        assertThat(r.stdout()).contains("rc=1").doesNotContain("rc=0");
    }

    @Test
    void procEscape_kill9MinusOneKeepsSandboxAlive() {
        ExecResult r = sh("sleep 300 & kill -9 -1; echo survived-by-design");
        assertThat(r.status()).isIn(ExecStatus.COMPLETED, ExecStatus.KILLED);
        assertThat(sh("echo alive").stdout()).isEqualTo("alive\n");
        assertThat(sh("ps -eo args | grep -c '[s]leep 300'").stdout().trim()).isEqualTo("0");
    }

    // ------------------------------------------------------------------ network

    @Test
    void network_noInterfacesButLoopback() {
        assertThat(sh("cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '").stdout()).isEqualTo("lo\n");
    }

    @Test
    void network_egressAttemptsFail() {
        var r = s.code().run("python", String.join("\n",
                "import socket",
                "for host, port in (('1.1.1.1', 53), ('169.254.169.254', 80), ('172.17.0.1', 2375)):",
                "    try:",
                "        socket.create_connection((host, port), timeout=2); print(host, 'CONNECTED')",
                "    except OSError as e: print(host, 'blocked')"));
        assertThat(r.stdout()).doesNotContain("CONNECTED").contains("1.1.1.1 blocked");
    }

    @Test
    void network_dnsAndUdpFail() {
        var r = s.code().run("python", String.join("\n",
                "import socket",
                "try: socket.getaddrinfo('example.com', 80); print('RESOLVED')",
                "except OSError: print('no dns')",
                "u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)",
                "try: u.sendto(b'x', ('8.8.8.8', 53)); print('SENT')",
                "except OSError: print('no udp')"));
        assertThat(r.stdout()).isEqualTo("no dns\nno udp\n");
    }

    @Test
    void network_loopbackServerReachableByNextCommand() {
        try (ExecHandle h = s.shell().start(ExecRequest.argv("python3", "-m", "http.server", "18080", "--bind",
                "127.0.0.1"))) {
            ExecResult r = sh("for i in $(seq 50); do python3 -c \"import urllib.request as u;"
                    + " print(u.urlopen('http://127.0.0.1:18080/').status)\" 2>/dev/null && break; sleep 0.2; done");
            assertThat(r.stdout()).contains("200");
            h.kill();
        }
    }

    // ------------------------------------------------------------------ resource-dos

    @Test
    void resourceDos_forkBombIsContained() {
        try (Sandbox b = openSandbox(SandboxSpec.builder()
                .limits(ResourceLimits.DEFAULTS.withMaxProcesses(64)).build())) {
            ExecResult r = b.shell().run(ExecRequest.shell("bomb() { bomb | bomb & }; bomb; sleep 3; echo done")
                    .withTimeout(Duration.ofSeconds(8)));
            assertThat(r.status()).isIn(ExecStatus.COMPLETED, ExecStatus.TIMEOUT);
            // The bomb's processes carry no marker once they outlive the command? They do; kill them all.
            b.shell().run(ExecRequest.shell("kill -9 -1").withTimeout(Duration.ofSeconds(10)));
            ExecResult after = b.shell().run(ExecRequest.shell("echo alive").withTimeout(Duration.ofSeconds(20)));
            assertThat(after.stdout()).isEqualTo("alive\n");
        }
    }

    @Test
    void resourceDos_memoryBombIsKilledWithOomDetail() {
        try (Sandbox b = openSandbox(SandboxSpec.builder()
                .limits(ResourceLimits.DEFAULTS.withMemoryBytes(128 * ResourceLimits.MIB)
                        .withWorkspaceQuota(32 * ResourceLimits.MIB, 4096)).build())) {
            ExecResult r = b.shell().run("python3 -c \"x = bytearray(1 << 30); print(len(x))\"");
            assertThat(r.status()).isEqualTo(ExecStatus.KILLED);
            assertThat(r.exitCode()).isEqualTo(137);
            assertThat(r.detail()).contains("memory limit exceeded (134217728 bytes)");
            assertThat(b.shell().run("echo alive").stdout()).isEqualTo("alive\n");
        }
    }

    @Test
    void resourceDos_outputFloodIsCappedHeadAndTail() {
        ExecResult r = s.shell().run(ExecRequest.shell("head -c 50000000 /dev/zero | tr '\\0' a; echo; echo END")
                .withOutputLimit(1000));
        assertThat(r.stdout()).startsWith("aaaa").endsWith("END\n").hasSizeLessThan(2200);
        assertThat(r.stdoutTruncation().totalBytes()).isEqualTo(50_000_005L);
    }

    @Test
    void resourceDos_tmpAndFileSizeLimited() {
        ExecResult r = sh("head -c 300000000 /dev/zero > /tmp/big 2>&1; echo rc=$?; rm -f /tmp/big");
        assertThat(r.stdout()).contains("rc=1");
        assertThat(s.info().limits().tmpBytes()).isEqualTo(256 * ResourceLimits.MIB);
    }

    // ------------------------------------------------------------------ process-lifetime

    @Test
    void lifetime_timeoutKillsSetsidAndDoubleForkedChildren() {
        long t0 = System.nanoTime();
        ExecResult r = s.shell().run(ExecRequest.shell(
                        "echo go; setsid sleep 301 & (sleep 302 &) ; nohup sleep 303 >/dev/null 2>&1 & sleep 304")
                .withTimeout(Duration.ofSeconds(2)));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(r.status()).isEqualTo(ExecStatus.TIMEOUT);
        assertThat(r.stdout()).isEqualTo("go\n");
        assertThat(ms).isLessThan(4000);
        assertThat(sh("ps -eo args | grep -c '[s]leep 30'").stdout().trim()).isEqualTo("0");
    }

    @Test
    void lifetime_execOutlivingItsClientIsKilledOnTimeout() {
        // The exec's own process ignores SIGTERM/SIGHUP and closes its output: killing the client alone would leave it.
        ExecResult r = s.shell().run(ExecRequest.shell("trap '' TERM HUP INT; exec >/dev/null 2>&1; sleep 305")
                .withTimeout(Duration.ofSeconds(1)));
        assertThat(r.status()).isEqualTo(ExecStatus.TIMEOUT);
        assertThat(sh("ps -eo args | grep -c '[s]leep 305'").stdout().trim()).isEqualTo("0");
    }

    @Test
    void lifetime_envClearingStrayIsSweptOnTimeout() {
        ExecResult r = s.shell().run(ExecRequest.shell("env -i setsid sleep 306 & sleep 30")
                .withTimeout(Duration.ofSeconds(1)));
        assertThat(r.status()).isEqualTo(ExecStatus.TIMEOUT);
        assertThat(sh("ps -eo args | grep -c '[s]leep 306'").stdout().trim()).isEqualTo("0");
    }

    @Test
    void lifetime_interruptKillsCommand() throws Exception {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Boolean> flag = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                s.shell().run("sleep 307");
            } catch (Throwable e) {
                thrown.set(e);
                flag.set(Thread.currentThread().isInterrupted());
            }
        });
        t.start();
        Thread.sleep(700);
        t.interrupt();
        t.join(5000);
        assertThat(thrown.get()).isInstanceOf(SandboxException.class);
        assertThat(((SandboxException) thrown.get()).kind()).isEqualTo(ErrorKind.INTERRUPTED);
        assertThat(flag.get()).isTrue();
        assertThat(sh("ps -eo args | grep -c '[s]leep 307'").stdout().trim()).isEqualTo("0");
    }

    @Test
    void lifetime_backgroundCommandStdinAndKill() {
        StringBuilder seen = new StringBuilder();
        java.util.function.Consumer<String> append = text -> {
            synchronized (seen) {
                seen.append(text);
            }
        };
        ExecHandle h = s.shell().start(ExecRequest.argv("cat"), dev.sandbox4j.OutputListener.of(append, append));
        h.writeStdin("hello\n");
        h.writeStdin("world\n");
        h.closeStdin();
        ExecResult r = h.await(Duration.ofSeconds(10)).orElseThrow();
        assertThat(r.stdout()).isEqualTo("hello\nworld\n");
        synchronized (seen) {
            assertThat(seen.toString()).isEqualTo("hello\nworld\n");
        }
        ExecHandle k = s.shell().start(ExecRequest.shell("setsid sleep 308 & sleep 309"));
        ExecResult kr = k.kill();
        assertThat(kr.status()).isEqualTo(ExecStatus.KILLED);
        assertThat(k.isAlive()).isFalse();
        assertThat(sh("ps -eo args | grep -c '[s]leep 30[89]'").stdout().trim()).isEqualTo("0");
    }

    /**
     * The command's exec starts asynchronously: stdin written right after {@code start()} must reach it (the FIFO
     * is made before start() returns; a CI run under load once got CLOSED here when the wrapper still made it).
     * Busy loops in the sandbox slow the exec's start, as load does.
     */
    @Test
    void lifetime_writeStdinRightAfterStart_alwaysArrives() {
        ExecHandle burn = s.shell().start(ExecRequest.shell("for i in 1 2 3 4; do (while :; do :; done) & done; wait"));
        try {
            for (int i = 0; i < 20; i++) {
                ExecHandle h = s.shell().start(ExecRequest.argv("cat"));
                h.writeStdin("line " + i + "\n");
                h.closeStdin();
                ExecResult r = h.await(Duration.ofSeconds(20)).orElseThrow();
                assertThat(r.stdout()).as("round " + i).isEqualTo("line " + i + "\n");
            }
        } finally {
            burn.kill();
        }
    }

    // ------------------------------------------------------------------ env-injection

    @Test
    void envInjection_valuesAreDataNotCode() {
        ExecResult r = s.shell().run(ExecRequest.argv("printenv", "EVIL").withEnv("EVIL", "$(touch pwned); `id`\nX=1"));
        assertThat(r.stdout()).isEqualTo("$(touch pwned); `id`\nX=1\n");
        assertThat(s.files().exists("pwned")).isFalse();
    }

    @Test
    void envInjection_badNamesRejected() {
        assertThatThrownBy(() -> ExecRequest.shell("true").withEnv("A=B", "x"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ExecRequest.shell("true").withEnv("LD_PRELOAD\0", "x"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(s.shell().run(ExecRequest.shell("echo $HOME:$PATH")).stdout())
                .isEqualTo("/workspace:/usr/local/bin:/usr/bin:/bin\n");
    }

    // ------------------------------------------------------------------ input-validation

    @Test
    void inputValidation_argvIsNotReparsedByAShell() {
        ExecResult r = s.shell().run(ExecRequest.argv("echo", "; touch pwned2", "$(id)", "`id`"));
        assertThat(r.stdout()).isEqualTo("; touch pwned2 $(id) `id`\n");
        assertThat(s.files().exists("pwned2")).isFalse();
    }

    @Test
    void inputValidation_weirdFileNamesRoundTrip() {
        for (String name : List.of("-rf", "--help", "a b", "semi;colon", "$(id)", "new\nline", "ünï")) {
            s.files().write("weird/" + name, name);
            assertThat(s.files().readText("weird/" + name)).isEqualTo(name);
        }
        assertThat(s.files().list("weird")).hasSize(7);
        s.files().deleteRecursively("weird");
    }

    @Test
    void inputValidation_largeUploadAndStdin() {
        byte[] big = new byte[3 << 20];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31);
        }
        s.files().write("big.bin", big);
        assertThat(s.files().readBytes("big.bin")).isEqualTo(big);
        assertThat(s.files().readBytes("big.bin", 1_000_000, 5)).containsExactly(
                java.util.Arrays.copyOfRange(big, 1_000_000, 1_000_005));
        ExecResult r = s.shell().run(ExecRequest.argv("wc", "-c").withStdin(big));
        assertThat(r.stdout().trim()).isEqualTo(Integer.toString(big.length));
        s.files().delete("big.bin");
    }

    // ------------------------------------------------------------------ output-handling

    @Test
    void output_binaryAndInvalidUtf8AreReplacedNotFatal() {
        ExecResult r = sh("printf '\\377\\376ok\\n'; printf '\\000\\001' >&2");
        assertThat(r.stdout()).endsWith("ok\n").contains("\uFFFD");
        assertThat(r.stderr()).hasSize(2);
    }

    @Test
    void output_stdoutAndStderrSeparated() {
        ExecResult r = sh("for i in 1 2 3; do echo out$i; echo err$i >&2; done");
        assertThat(r.stdout()).isEqualTo("out1\nout2\nout3\n");
        assertThat(r.stderr()).isEqualTo("err1\nerr2\nerr3\n");
    }

    @Test
    void output_terminalEscapesPassThroughAsData() {
        ExecResult r = sh("printf '\\033]0;title\\007\\033[2Jx'");
        assertThat(r.stdout()).isEqualTo("\033]0;title\007\033[2Jx");
        assertThat(sh("tty; echo rc=$?").stdout()).contains("not a tty");
    }

    // ------------------------------------------------------------------ concurrency

    @Test
    void concurrency_parallelCommandsKeepTheirOwnOutput() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<ExecResult>> fs = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                int n = i;
                fs.add(pool.submit(() -> s.shell().run("for k in 1 2 3; do echo " + n + "; done")));
            }
            for (int i = 0; i < 16; i++) {
                assertThat(fs.get(i).get().stdout()).isEqualTo((i + "\n").repeat(3));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void concurrency_timeoutOfOneCommandSparesTheOthers() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<ExecResult> slow = pool.submit(() -> s.shell().run(ExecRequest.shell("sleep 4; echo finished")
                    .withTimeout(Duration.ofSeconds(15))));
            Thread.sleep(500);
            ExecResult t = s.shell().run(ExecRequest.shell("sleep 60").withTimeout(Duration.ofSeconds(1)));
            assertThat(t.status()).isEqualTo(ExecStatus.TIMEOUT);
            assertThat(slow.get().stdout()).isEqualTo("finished\n");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void concurrency_parallelWritesAreAtomic() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                String body = Integer.toString(i).repeat(100_000);
                fs.add(pool.submit(() -> s.files().write("race.txt", body)));
            }
            for (Future<?> f : fs) {
                f.get();
            }
            String text = s.files().readText("race.txt");
            assertThat(text).hasSize(100_000);
            assertThat(text.chars().distinct().count()).isEqualTo(1);
            assertThat(s.files().list("").stream().map(f -> f.path()).filter(p -> p.contains("sandbox4j"))).isEmpty();
        } finally {
            pool.shutdownNow();
        }
    }

    // ------------------------------------------------------------------ lifecycle / leaks

    @Test
    void lifecycle_closeRemovesContainerAndVolumesAndEngineLossIsTyped() {
        Sandbox b = openSandbox(SandboxSpec.defaults());
        String id = b.id();
        b.close();
        assertThat(owned()).noneMatch(r -> r.contains(id));
        assertThat(error(() -> b.shell().run("true")).kind()).isEqualTo(ErrorKind.CLOSED);
    }

    @Test
    void lifecycle_containerRemovedBehindOurBackIsBackendUnavailable() {
        Sandbox b = openSandbox(SandboxSpec.defaults());
        try (Engine e = Engine.connect(engineOptions(), Duration.ofSeconds(10))) {
            e.removeContainerQuietly((ContainerHost.of(b)).containerId);
            SandboxException ex = error(() -> b.shell().run("true"));
            assertThat(ex.kind()).isEqualTo(ErrorKind.BACKEND_UNAVAILABLE);
        } finally {
            b.close();
        }
    }

    @Test
    void lifecycle_unreachableEngineIsReportedQuickly() {
        DockerSandboxProvider p = new DockerSandboxProvider(DockerOptions.defaults()
                .withDockerHost("tcp://127.0.0.1:1"));
        long t0 = System.nanoTime();
        assertThat(p.unavailableReason()).hasValueSatisfying(r -> assertThat(r).contains("DOCKER_HOST"));
        SandboxException e = error(() -> p.open(SandboxSpec.defaults()));
        assertThat(e.kind()).isEqualTo(ErrorKind.BACKEND_UNAVAILABLE);
        assertThat(e.retryable()).isTrue();
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(15_000);
    }

    @Test
    void network_allowAllGoesThroughTheProxyOnly() {
        try (Sandbox b = openSandbox(SandboxSpec.builder().network(NetworkPolicy.ALLOW_ALL).build())) {
            // no bridge: the container has loopback only, its way out is the relay to the host's proxy
            assertThat(b.info().details().get("network")).isEqualTo("none");
            assertThat(b.info().details().get("networkPolicy")).contains("egress proxy");
            assertThat(b.info().features()).doesNotContain(dev.sandbox4j.Feature.NETWORK_ISOLATION);
            // the metadata address is refused by the proxy's deny-list, at once
            ExecResult r = b.shell().run(ExecRequest.argv("python3", "-c", "import urllib.request, urllib.error\n"
                    + "try:\n    urllib.request.urlopen('http://169.254.169.254/', timeout=10)\n    print('reached')\n"
                    + "except urllib.error.HTTPError as e:\n    print(e.code)\n"));
            assertThat(r.stdout()).isEqualTo("403\n");
        }
    }
}
