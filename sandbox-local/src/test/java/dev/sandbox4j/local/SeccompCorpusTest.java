package dev.sandbox4j.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.core.seccomp.SeccompPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 33's workload corpus under the jail's allow-list, with the host's tools (bwrap binds /usr): Python (ssl,
 * multiprocessing, sqlite3, asyncio; a C extension pip-installed from a local sdist), Node (child_process,
 * worker_threads, fs.watch; npm install of a local package whose install script builds a native addon with gcc),
 * git clone/commit/gc, gcc and make, a JVM, bash job control, and Chromium headless where it is installed (required
 * when {@code SANDBOX4J_REQUIRE} names {@code chromium}, as CI does). Each must succeed in the jail; and strace on the
 * host lists every syscall each makes, which must be allowed or a reviewed fallback, else the test names it.
 */
class SeccompCorpusTest {
    static final String DIR = "corpus/";
    static final List<String> FILES = List.of("py.py", "node.js", "arch.c", "addon/addon.c", "addon/package.json",
            "addon/index.js", "cext/setup.py", "cext/src/cext.c");

    /** Refused calls the corpus makes and survives, each with why that is fine (measured, docs/security.md). */
    static final Map<String, String> REVIEWED_FALLBACKS = Map.of(
            "clone3", "glibc >= 2.34 tries clone3 for threads and posix_spawn, falls back to clone on ENOSYS",
            "io_uring_setup", "libuv (UV_USE_IO_URING=1) probes it and falls back to epoll/threads on ENOSYS",
            "io_uring_enter", "made only after io_uring_setup succeeded (on the host, not in the jail)",
            "io_uring_register", "made only after io_uring_setup succeeded (on the host, not in the jail)");

    record Workload(String name, String script, String expect) {
        @Override
        public String toString() {
            return name;
        }
    }

    static final String ENV = "export HOME=/workspace/home PATH=/usr/local/bin:/usr/bin:/bin; mkdir -p \"$HOME\"; ";

    static Stream<Workload> corpus() {
        return Stream.of(
                new Workload("python", "python3 py.py", "py ok 285 async True b'sub\\n'"),
                new Workload("pip-sdist-c-extension", "cd cext && python3 setup.py -q sdist -d ../dist >/dev/null 2>&1"
                        + " && cd .. && python3 -m pip install -q --no-index --no-build-isolation"
                        + " --no-warn-script-location --target site dist/cext-1.0.tar.gz 2>&1 | grep -iv warning;"
                        + " PYTHONPATH=site python3 -c 'import cext; print(\"cext\", cext.answer())'", "cext 42"),
                new Workload("node", "node node.js", "node ok 42 child hello hello"),
                new Workload("node-io_uring-fallback", "UV_USE_IO_URING=1 node node.js", "node ok 42 child hello"),
                new Workload("npm-native-addon", "mkdir -p app && cd app && echo '{\"name\":\"app\",\"version\":"
                        + "\"1.0.0\"}' > package.json && npm install --offline --no-audit --no-fund --loglevel=error"
                        + " ../addon >/dev/null && node -e 'console.log(\"addon\", require(\"addon\").answer())'",
                        "addon 42"),
                new Workload("git", "git config --global user.email a@b && git config --global user.name a"
                        + " && rm -rf r c && git init -q r && cd r && for i in 1 2 3; do echo $i > f$i; git add f$i;"
                        + " git commit -qm c$i; done && cd .. && git clone -q r c && cd c && git gc -q"
                        + " && echo git commits $(git log --oneline | wc -l)", "git commits 3"),
                new Workload("gcc-make", "mkdir -p cc && cd cc && printf '#include <stdio.h>\\n#include <pthread.h>\\n"
                        + "static void *f(void *a){return a;}\\nint main(void){pthread_t t;pthread_create(&t,0,f,0);"
                        + "pthread_join(t,0);puts(\"cc ok\");return 0;}\\n' > m.c && printf 'm: m.c\\n\\tgcc -O1"
                        + " -pthread -o m m.c\\n' > Makefile && make -s && ./m", "cc ok"),
                new Workload("jvm", "printf 'public class H { public static void main(String[] a) throws Exception {"
                        + " Thread t = new Thread(() -> {}); t.start(); t.join(); System.out.println(\"java ok\"); }"
                        + " }\\n' > H.java && for j in /usr/lib/jvm/*/; do f=$j/conf/security/java.security;"
                        // the jail binds /usr, not /etc/java-*: Debian's JDKs link their java.security there
                        + " if [ -f $f ] && [ ! -L $f ]; then J=$j; break; fi; done; ${J:-/usr/}bin/java -Xmx64m"
                        + " -XX:+UseSerialGC H.java", "java ok"),
                new Workload("bash-job-control", "bash -c 'set -m; sleep 0.2 & sleep 0.1 & wait %1; jobs -l >/dev/null;"
                        + " kill -0 $$ && echo bash ok; (exit 3) || echo sub $?'", "bash ok\nsub 3"));
    }

    private static Sandbox sandbox;

    @BeforeAll
    static void open() {
        Jail.assumeAvailable();
        SandboxSpec.Builder spec = SandboxSpec.builder().commandTimeout(Duration.ofMinutes(3));
        for (String f : FILES) {
            spec.file(f, resource(f));
        }
        sandbox = Jail.open(spec.build());
    }

    @AfterAll
    static void close() {
        if (sandbox != null) {
            sandbox.close();
        }
    }

    static byte[] resource(String f) {
        try (InputStream in = SeccompCorpusTest.class.getResourceAsStream(DIR + f)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void runsInTheJail(Workload w) {
        ExecResult r = sandbox.shell().run((ENV + w.script()));
        assertThat(r.exitCode() == 0 && r.stdout().contains(w.expect()))
                .as("%s in the jail: exit %d, stdout %s, stderr %s, detail %s", w.name(), r.exitCode(), r.stdout(),
                        r.stderr(), r.detail())
                .isTrue();
    }

    /**
     * The measurement: every syscall each workload makes on the host, by strace, against the policy. Tagged: it
     * measures programs, not the jail, so CI runs it once (not again as a non-root user).
     */
    @Test
    @Tag("once")
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void everySyscallTheCorpusMakesIsAllowedOrAReviewedFallback(@TempDir Path dir) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/strace")), "no strace here to measure with");
        for (String f : FILES) {
            Path p = dir.resolve(f);
            Files.createDirectories(p.getParent());
            Files.write(p, resource(f));
        }
        Map<String, String> refused = new TreeMap<>();
        Set<String> used = new TreeSet<>();
        for (Workload w : corpus().toList()) {
            used.addAll(refusedCalls(dir, w, refused));
        }
        System.out.println("[seccomp corpus] " + used.size() + " syscalls used: " + used);
        assertThat(refused).as("syscalls the corpus makes that the policy refuses (add them to Policy.ALLOWED after "
                + "review, or to REVIEWED_FALLBACKS with why)").isEmpty();
        assertThat(used).contains("read", "clone", "execve", "wait4").hasSizeGreaterThan(80);
    }

    /** Straces {@code w} on the host; adds each call the policy refuses (and is not reviewed) to {@code refused}. */
    private static Set<String> refusedCalls(Path dir, Workload w, Map<String, String> refused)
            throws IOException, InterruptedException {
        SeccompPolicy policy = SeccompPolicy.of(Set.of());
        Set<String> calls = strace(dir, w);
        for (String call : calls) {
            String answer = policy.answer(call);
            if (!answer.equals("allow") && !answer.equals("arguments") && !REVIEWED_FALLBACKS.containsKey(call)) {
                refused.merge(call, w.name() + " (" + answer + ")", (a, b) -> a + ", " + b);
            }
        }
        return calls;
    }

    // ----------------------------------------------------------------- Chromium headless (issue 33, the browser)

    /** Debian's binary itself: its /usr/bin/chromium wrapper sources /etc/chromium.d, which the jail does not bind. */
    static final String CHROMIUM = "/usr/lib/chromium/chromium";
    static final String PAGE = "<html><body><p id=\"x\">static</p><script>document.getElementById(\"x\")"
            + ".textContent = \"chromium ran js \" + (6 * 7)</script></body></html>";
    /**
     * Chromium in the jail: {@code --no-sandbox} (its own sandbox wants {@code CLONE_NEWUSER}, which the policy
     * refuses, and the jail is the sandbox), no GPU, a throwaway profile in the workspace, the DOM after the page's
     * script ran. Its stderr (D-Bus is absent in the jail; it says so and goes on) is not part of the check.
     */
    static final Workload CHROMIUM_WORKLOAD = new Workload("chromium-headless", "printf '%s' '" + PAGE + "' > page.html"
            + " && timeout -s KILL 120 " + CHROMIUM + " --headless --no-sandbox --disable-gpu --no-first-run"
            + " --user-data-dir=\"$PWD/chromium-profile\" --dump-dom \"file://$PWD/page.html\" 2>chromium.err",
            "<p id=\"x\">chromium ran js 42</p>");

    static Optional<String> chromiumUnavailable() {
        return Files.isExecutable(Path.of(CHROMIUM)) ? Optional.empty()
                : Optional.of(CHROMIUM + " is not installed (apt-get install chromium; .ci/run installs it)");
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void chromiumHeadlessDumpsTheDomInTheJailAndMakesNoRefusedCall(@TempDir Path dir) throws Exception {
        dev.sandbox4j.testing.Required.orSkip("chromium", chromiumUnavailable());
        Workload w = CHROMIUM_WORKLOAD;
        ExecResult r = sandbox.shell().run(ENV + w.script());
        ExecResult err = sandbox.shell().run("tail -c 3000 chromium.err");
        assertThat(r.exitCode() == 0 && r.stdout().contains(w.expect()))
                .as("%s in the jail: exit %d, stdout %s, stderr %s, detail %s, chromium.err %s", w.name(),
                        r.exitCode(), r.stdout(), r.stderr(), r.detail(), err.stdout())
                .isTrue();
        Map<String, String> refused = new TreeMap<>();
        Set<String> used = refusedCalls(dir, w, refused);
        System.out.println("[seccomp corpus] chromium: " + used.size() + " syscalls used: " + used);
        assertThat(refused).as("syscalls Chromium makes that the policy refuses (docs/security.md: allow after "
                + "review, or REVIEWED_FALLBACKS with why)").isEmpty();
        assertThat(used).contains("execve", "clone");
    }

    private static final Pattern CALL = Pattern.compile("^\\d+\\s+(?:<\\.\\.\\. )?([a-z_0-9]+)[( ]");

    private static Set<String> strace(Path dir, Workload w) throws IOException, InterruptedException {
        // Not in the workload's directory: node's fs.watch('.') would see every line strace writes, and each event it
        // reads is another line (a feedback loop that never ends).
        Path trace = Files.createTempFile("sandbox4j-strace", ".txt");
        String script = ENV.replace("/workspace/home", dir.resolve("home").toString()) + w.script();
        Process p = new ProcessBuilder("/usr/bin/strace", "-f", "-qq", "-o", trace.toString(), "sh", "-c", script)
                .directory(dir.toFile()).redirectErrorStream(true).start();
        p.getOutputStream().close();
        Thread drain = new Thread(() -> {
            try {
                p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
            } catch (IOException e) {
                // the process is gone
            }
        });
        drain.start();
        // a bound for a workload that hangs: what it called so far still counts
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly().waitFor();
        }
        drain.join(10_000);
        Set<String> calls = new TreeSet<>();
        try (Stream<String> lines = Files.lines(trace, StandardCharsets.ISO_8859_1)) {
            lines.forEach(l -> {
                Matcher m = CALL.matcher(l);
                if (m.find()) {
                    calls.add(m.group(1));
                }
            });
        }
        Files.delete(trace);
        return calls;
    }

    // ----------------------------------------------------------------- what the policy answers, seen from inside

    private static final String SYSCALL_PY = String.join("\n",
            "import ctypes, sys",
            "libc = ctypes.CDLL(None, use_errno=True)",
            "libc.syscall.restype = ctypes.c_long",
            "for arg in sys.argv[1:]:",
            "    name, nr = arg.split('=')",
            "    args = [ctypes.c_long(-1)] * 6",
            "    r = libc.syscall(ctypes.c_long(int(nr)), *args)",
            "    print(name, r, ctypes.get_errno() if r < 0 else 0)");

    @Test
    void everyExplicitDenialAndNumbersPastTheTableAnswerTheirErrno() {
        String arch = System.getProperty("os.arch");
        List<String> calls = new ArrayList<>();
        StringBuilder expected = new StringBuilder();
        SeccompPolicy.explicitDenials().forEach((name, errno) -> {
            int nr = SeccompPolicy.number(arch, name);
            if (nr >= 0) {
                calls.add(name + "=" + nr);
                expected.append(name).append(" -1 ").append(errno).append('\n');
            }
        });
        for (int nr : new int[] {470, 1000, 4095}) {
            calls.add("nr" + nr + "=" + nr);
            expected.append("nr").append(nr).append(" -1 38\n");
        }
        ExecResult r = sandbox.shell().run(("python3 - " + String.join(" ", calls) + " <<'EOF'\n"
                + SYSCALL_PY + "\nEOF"));
        assertThat(r.stdout()).as(r.stderr()).isEqualTo(expected.toString());
        assertThat(calls.size()).isGreaterThan(60);
    }

    @Test
    void clone3IsEnosysAndThreadsForksAndSpawnsFallBack() {
        ExecResult r = sandbox.shell().run(("python3 - <<'EOF'\n"
                + "import ctypes, os, threading, subprocess\n"
                + "libc = ctypes.CDLL(None, use_errno=True)\n"
                + "print('clone3', libc.syscall(435, None, 88), ctypes.get_errno())\n"
                + "t = threading.Thread(target=lambda: print('thread ran')); t.start(); t.join()\n"
                + "pid = os.fork()\n"
                + "if pid == 0: os._exit(5)\n"
                + "print('fork', os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))\n"
                + "print(subprocess.run(['echo', 'spawned'], capture_output=True, text=True).stdout.strip())\n"
                + "EOF"));
        assertThat(r.stdout()).as(r.stderr()).isEqualTo("clone3 -1 38\nthread ran\nfork 5\nspawned\n");
    }

    @Test
    void x32AndI386CallsAreKilledAndTheResultSaysWhy() {
        assumeTrue("x86_64".equals(dev.sandbox4j.core.AgentBinary.canonicalArch(System.getProperty("os.arch"))),
                "x32 and int 0x80 are x86_64's");
        ExecResult build = sandbox.shell().run(("gcc -O1 -o arch arch.c && echo built"));
        assertThat(build.stdout()).as(build.stderr()).contains("built");
        for (String abi : new String[] {"x32", "i386"}) {
            ExecResult r = sandbox.shell().run(("exec ./arch " + abi));
            assertThat(r.stdout()).as(abi).doesNotContain("survived");
            assertThat(r.exitCode()).as(abi).isEqualTo(128 + 31);
            assertThat(r.detail()).as(abi).contains("SIGSYS").contains("x32").contains("architecture");
        }
        assertThat(sandbox.shell().run(("./arch")).stdout()).isEqualTo("survived -2\n");
    }

    @Test
    void optInSetsAreReportedAndAllowWhatTheyName() {
        assertThat(sandbox.info().details().get("seccomp")).startsWith("allow-list ").doesNotContain("+");
        String py = "python3 -c 'import ctypes; l = ctypes.CDLL(None, use_errno=True);"
                + " r = l.syscall(425, 1, None); print(\"io_uring\", r, ctypes.get_errno())'";
        try (Sandbox s = Jail.open(SandboxSpec.builder().syscallSet("io_uring").syscallSet("debug").build())) {
            assertThat(s.info().details().get("seccomp")).endsWith(" +debug +io_uring");
            // the kernel itself now answers: EFAULT for the null params pointer
            assertThat(s.shell().run((py)).stdout()).isEqualTo("io_uring -1 14\n");
            ExecResult trace = s.shell().run(("python3 -c 'import ctypes, os, time;"
                    + " l = ctypes.CDLL(None, use_errno=True); pid = os.fork();\nif pid == 0: time.sleep(5); os._exit(0)\n"
                    + "r = l.ptrace(16, pid, 0, 0); print(\"attach\", r, ctypes.get_errno() if r else 0); os.kill(pid, 9)'"));
            assertThat(trace.stdout()).as(trace.stderr()).isEqualTo("attach 0 0\n");
        }
        assertThat(sandbox.shell().run((py)).stdout()).isEqualTo("io_uring -1 38\n");
    }
}
