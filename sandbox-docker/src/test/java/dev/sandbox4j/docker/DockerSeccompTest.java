package dev.sandbox4j.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.core.seccomp.SeccompPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 33 on Docker: the container runs sandbox-core's allow-list (the same policy as the jail, generated as the
 * engine's JSON profile), the image's workloads run under it (Python with ssl, multiprocessing, sqlite3, asyncio;
 * Node with child_process, worker_threads, fs.watch, and with libuv's io_uring forced on; bash job control), and
 * what it refuses answers with the documented errno or kills. The runtime image has no compiler, git or JVM: the
 * whole corpus runs in the corpus image (DockerSeccompCorpusTest) and on the local backend (SeccompCorpusTest).
 * PodmanSeccompTest runs these tests against rootless Podman through the hooks below.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DockerSeccompTest {
    private static final String PY = String.join("\n",
            "import ssl, multiprocessing, sqlite3, asyncio, subprocess, threading",
            "ctx = ssl.create_default_context()",
            "def sq(x): return x * x",
            "async def main():",
            "    p = await asyncio.create_subprocess_exec('true'); await p.wait(); return 'async'",
            "if __name__ == '__main__':",
            "    with multiprocessing.Pool(2) as pool: r = pool.map(sq, range(10))",
            "    db = sqlite3.connect('t.db'); db.execute('create table t(x)'); db.commit()",
            "    t = threading.Thread(target=lambda: None); t.start(); t.join()",
            "    print('py ok', sum(r), asyncio.run(main()), subprocess.run(['echo'], capture_output=True).returncode)");
    private static final String NODE = String.join("\n",
            "const cp = require('child_process'), { Worker } = require('worker_threads'), fs = require('fs');",
            "fs.writeFileSync('n.txt', 'hello');",
            "const w = new Worker('require(\"worker_threads\").parentPort.postMessage(6*7)', { eval: true });",
            "w.on('message', m => {",
            "  const out = cp.execFileSync('sh', ['-c', 'echo child']).toString().trim();",
            "  const watcher = fs.watch('.', () => {});",
            "  fs.readFile('n.txt', 'utf8', (e, d) => fs.promises.readFile('n.txt', 'utf8').then(d2 => {",
            "    watcher.close(); console.log('node ok', m, out, d, d2); }));",
            "});");

    private Sandbox s;

    /** Opens a sandbox on the engine under test. */
    Sandbox openSandbox(SandboxSpec spec) {
        return DockerTestSupport.open(spec);
    }

    /** The options of the engine under test. */
    DockerOptions options() {
        return DockerOptions.defaults();
    }

    @BeforeAll
    void open() {
        s = openSandbox(SandboxSpec.builder().commandTimeout(Duration.ofMinutes(2))
                .file("py.py", PY).file("node.js", NODE).build());
    }

    @AfterAll
    void close() {
        if (s != null) {
            s.close();
        }
    }

    @Test
    void theKernelFiltersTheContainersProcesses() {
        // 2 = SECCOMP_MODE_FILTER: the engine installed a filter (the tests below say it is ours)
        ExecResult r = s.shell().run("grep -E '^(Seccomp|NoNewPrivs):' /proc/self/status");
        assertThat(r.stdout()).as(r.stderr()).contains("NoNewPrivs:\t1").contains("Seccomp:\t2");
    }

    @Test
    void theImagesWorkloadsRunUnderThePolicy() {
        assertThat(s.info().details().get("seccomp")).isEqualTo("allow-list (sandbox4j profile)");
        ExecResult py = s.shell().run("python3 py.py");
        assertThat(py.stdout()).as(py.stderr()).isEqualTo("py ok 285 async 0\n");
        ExecResult node = s.shell().run("node node.js && UV_USE_IO_URING=1 node node.js");
        assertThat(node.stdout()).as(node.stderr()).isEqualTo("node ok 42 child hello hello\n".repeat(2));
        ExecResult bash = s.shell().run("bash -c 'set -m; sleep 0.2 & sleep 0.1 & wait %1; kill -0 $$ && echo bash"
                + " ok; (exit 3) || echo sub $?'");
        assertThat(bash.stdout()).as(bash.stderr()).isEqualTo("bash ok\nsub 3\n");
    }

    @Test
    void everyExplicitDenialClone3AndNumbersPastTheTableAnswerTheirErrno() {
        List<String> calls = new ArrayList<>();
        StringBuilder expected = new StringBuilder();
        SeccompPolicy.explicitDenials().forEach((name, errno) -> {
            int nr = SeccompPolicy.number("x86_64", name);
            // libseccomp 2.5.4 (Debian 12's runc) stops at 450: runc answers later numbers with its ENOSYS stub
            if (nr >= 0 && nr <= 450) {
                calls.add(name + "=" + nr);
                expected.append(name).append(" -1 ").append(errno).append('\n');
            }
        });
        for (int nr : new int[] {470, 1000}) {
            calls.add("nr" + nr + "=" + nr);
            expected.append("nr").append(nr).append(" -1 38\n");
        }
        calls.add("memfd_secret=447"); // named by no list: ENOSYS by name, even where defaultErrnoRet is ignored
        expected.append("memfd_secret -1 38\n");
        assumeTrue(arch().equals("x86_64"), "the numbers above are x86_64's");
        ExecResult r = s.shell().run("python3 - " + String.join(" ", calls) + " <<'EOF'\n"
                + "import ctypes, sys\nlibc = ctypes.CDLL(None, use_errno=True)\nlibc.syscall.restype = ctypes.c_long\n"
                + "for arg in sys.argv[1:]:\n    name, nr = arg.split('=')\n"
                + "    r = libc.syscall(ctypes.c_long(int(nr)), *[ctypes.c_long(-1)] * 6)\n"
                + "    print(name, r, ctypes.get_errno() if r < 0 else 0)\nEOF");
        assertThat(r.stdout()).as(r.stderr()).isEqualTo(expected.toString());
        ExecResult fork = s.shell().run("python3 -c 'import os, threading; t = threading.Thread(target=print,"
                + " args=(\"thread\",)); t.start(); t.join(); pid = os.fork()\nif pid == 0: os._exit(4)\n"
                + "print(\"fork\", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))'");
        assertThat(fork.stdout()).as(fork.stderr()).isEqualTo("thread\nfork 4\n");
    }

    @Test
    void x32AndI386CallsAreKilledAndTheResultSaysWhy(@TempDir Path dir) throws Exception {
        assumeTrue(arch().equals("x86_64") && Files.isExecutable(Path.of("/usr/bin/gcc")), "needs x86_64 and gcc");
        Path src = dir.resolve("arch.c");
        Files.write(src, DockerSeccompTest.class.getResourceAsStream("arch.c").readAllBytes());
        Process cc = new ProcessBuilder("/usr/bin/gcc", "-O1", "-static", "-o", dir.resolve("arch").toString(),
                src.toString()).inheritIO().start();
        assertThat(cc.waitFor(60, TimeUnit.SECONDS) && cc.exitValue() == 0).as("static build").isTrue();
        s.files().write("arch", Files.readAllBytes(dir.resolve("arch")));
        assertThat(s.shell().run("chmod +x arch && ./arch").stdout()).isEqualTo("survived -2\n");
        for (String abi : new String[] {"x32", "i386"}) {
            ExecResult r = s.shell().run("exec ./arch " + abi);
            assertThat(r.stdout()).as(abi).doesNotContain("survived");
            assertThat(r.exitCode()).as(abi).isEqualTo(128 + 31);
            assertThat(r.detail()).as(abi).contains("SIGSYS").contains("x32");
        }
    }

    @Test
    void optInSetsAreReportedAndAllowWhatTheyName() {
        String py = "python3 -c 'import ctypes; l = ctypes.CDLL(None, use_errno=True);"
                + " r = l.syscall(425, 1, None); print(\"io_uring\", r, ctypes.get_errno())'";
        assertThat(s.shell().run(py).stdout()).isEqualTo("io_uring -1 38\n");
        try (Sandbox o = openSandbox(SandboxSpec.builder().syscallSet("io_uring").syscallSet("debug")
                .build())) {
            assertThat(o.info().details().get("seccomp")).isEqualTo("allow-list +debug +io_uring (sandbox4j profile)");
            assertThat(o.shell().run(py).stdout()).isEqualTo("io_uring -1 14\n"); // the kernel's EFAULT
            ExecResult trace = o.shell().run("python3 -c 'import ctypes, os, time;"
                    + " l = ctypes.CDLL(None, use_errno=True); pid = os.fork();\nif pid == 0: time.sleep(5); os._exit(0)\n"
                    + "r = l.ptrace(16, pid, 0, 0); print(\"attach\", r, ctypes.get_errno() if r else 0);"
                    + " os.kill(pid, 9)'");
            assertThat(trace.stdout()).as(trace.stderr()).isEqualTo("attach 0 0\n");
        }
    }

    @Test
    void setsCannotBeAddedToACustomProfileAndNothingIsMade() {
        DockerOptions custom = options().withSeccompProfile("{\"defaultAction\": \"SCMP_ACT_ALLOW\"}");
        List<String> before = DockerTestSupport.ownedResources(custom);
        assertThatThrownBy(() -> new DockerSandboxProvider(custom).open(SandboxSpec.builder().syscallSet("debug")
                .build())).isInstanceOfSatisfying(SandboxException.class,
                        e -> assertThat(e.kind()).isEqualTo(ErrorKind.UNSUPPORTED))
                .hasMessageContaining("[debug]").hasMessageContaining("withSeccompProfile");
        assertThat(DockerTestSupport.ownedResources(custom)).isEqualTo(before);
    }

    private static String arch() {
        return String.valueOf(dev.sandbox4j.core.AgentBinary.canonicalArch(System.getProperty("os.arch")));
    }
}
