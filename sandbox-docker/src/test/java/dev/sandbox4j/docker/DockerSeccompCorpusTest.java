package dev.sandbox4j.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.core.seccomp.SeccompPolicy;
import dev.sandbox4j.testing.Required;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 33's workload corpus in a Docker container under the generated profile: gcc and make (pthreads), git
 * init/commit/clone/gc of a local repository, a JVM, Python (ssl, multiprocessing, sqlite3, asyncio, threads,
 * subprocess), Node (child_process, worker_threads, fs.watch, and with libuv's io_uring forced on), bash job control.
 * It runs in the corpus image ({@code scripts/build-test-image.sh --corpus}: the runtime image plus gcc, make, git, a
 * headless JRE and strace). Each workload must succeed under the default profile; and the same workload runs under
 * strace inside a container whose profile adds the {@code debug} set (ptrace), which lists every syscall it makes
 * there: each must be allowed by the policy or a reviewed fallback, else the test fails naming the call.
 */
class DockerSeccompCorpusTest {
    /** The corpus image: env {@value #ENV}, else the runtime image's tag with {@code -corpus}. */
    static final String ENV = "SANDBOX4J_DOCKER_CORPUS_IMAGE";
    static final String IMAGE = System.getenv().getOrDefault(ENV, DockerOptions.DEFAULT_IMAGE + "-corpus");

    /** Refused calls the corpus makes and survives, each with why that is fine (docs/security.md). */
    static final Map<String, String> REVIEWED_FALLBACKS = Map.of(
            "clone3", "glibc >= 2.34 tries clone3 for threads and posix_spawn, falls back to clone on ENOSYS",
            "io_uring_setup", "libuv (UV_USE_IO_URING=1) probes it and falls back to epoll/threads on ENOSYS");

    static final String PY = String.join("\n",
            "import ssl, multiprocessing, sqlite3, asyncio, subprocess, threading, hashlib",
            "ctx = ssl.create_default_context()",
            "def sq(x): return x * x",
            "async def main():",
            "    p = await asyncio.create_subprocess_exec('true'); await p.wait(); return 'async'",
            "if __name__ == '__main__':",
            "    with multiprocessing.Pool(2) as pool: r = pool.map(sq, range(10))",
            "    db = sqlite3.connect('t.db'); db.execute('create table if not exists t(x)'); db.commit()",
            "    t = threading.Thread(target=lambda: None); t.start(); t.join()",
            "    print('py ok', sum(r), asyncio.run(main()), subprocess.run(['echo'], capture_output=True).returncode)");
    static final String NODE = String.join("\n",
            "const cp = require('child_process'), { Worker } = require('worker_threads'), fs = require('fs');",
            "fs.writeFileSync('n.txt', 'hello');",
            "const w = new Worker('require(\"worker_threads\").parentPort.postMessage(6*7)', { eval: true });",
            "w.on('message', m => {",
            "  const out = cp.execFileSync('sh', ['-c', 'echo child']).toString().trim();",
            "  const watcher = fs.watch('.', () => {});",
            "  fs.readFile('n.txt', 'utf8', (e, d) => fs.promises.readFile('n.txt', 'utf8').then(d2 => {",
            "    watcher.close(); console.log('node ok', m, out, d, d2); }));",
            "});");
    static final String JAVA = "public class H { public static void main(String[] a) throws Exception {"
            + " Thread t = new Thread(() -> {}); t.start(); t.join();"
            + " java.nio.file.Files.writeString(java.nio.file.Path.of(\"j.txt\"), \"x\");"
            + " System.out.println(\"java ok \" + Runtime.getRuntime().availableProcessors() / Runtime.getRuntime()"
            + ".availableProcessors()); } }";

    record Workload(String name, String script, String expect) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Workload> corpus() {
        return Stream.of(
                new Workload("python", "python3 py.py", "py ok 285 async 0"),
                new Workload("node", "node node.js", "node ok 42 child hello hello"),
                new Workload("node-io_uring-fallback", "UV_USE_IO_URING=1 node node.js", "node ok 42 child hello"),
                new Workload("git", "git config --global user.email a@b && git config --global user.name a"
                        + " && rm -rf r c && git init -q r && cd r && for i in 1 2 3; do echo $i > f$i; git add f$i;"
                        + " git commit -qm c$i; done && cd .. && git clone -q r c && cd c && git gc -q"
                        + " && echo git commits $(git log --oneline | wc -l)", "git commits 3"),
                new Workload("gcc-make", "mkdir -p cc && cd cc && printf '#include <stdio.h>\\n#include <pthread.h>\\n"
                        + "static void *f(void *a){return a;}\\nint main(void){pthread_t t;pthread_create(&t,0,f,0);"
                        + "pthread_join(t,0);puts(\"cc ok\");return 0;}\\n' > m.c && printf 'm: m.c\\n\\tgcc -O1"
                        + " -pthread -o m m.c\\n' > Makefile && make -s && ./m", "cc ok"),
                new Workload("jvm", "java -Xmx64m -XX:+UseSerialGC -cp jvm H", "java ok 1"),
                new Workload("bash-job-control", "bash -c 'set -m; sleep 0.2 & sleep 0.1 & wait %1; jobs -l"
                        + " >/dev/null; kill -0 $$ && echo bash ok; (exit 3) || echo sub $?'", "bash ok\nsub 3"));
    }

    private static DockerSandboxProvider provider;
    private static Sandbox plain;
    private static Sandbox traced;

    @BeforeAll
    static void open() {
        DockerTestSupport.requireDocker();
        provider = new DockerSandboxProvider(DockerOptions.defaults().withImage(IMAGE));
        Required.orSkip("docker", provider.unavailableReason().map(r -> "the corpus image " + IMAGE
                + " (scripts/build-test-image.sh --corpus): " + r));
        SandboxSpec.Builder spec = SandboxSpec.builder().commandTimeout(Duration.ofMinutes(3))
                .file("py.py", PY).file("node.js", NODE).file("jvm/H.class", compile("H", JAVA));
        plain = provider.open(spec.build());
        traced = provider.open(spec.syscallSet("debug").build());
    }

    @AfterAll
    static void close() {
        for (Sandbox s : new Sandbox[] {plain, traced}) {
            if (s != null) {
                s.close();
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void runsUnderTheDefaultProfile(Workload w) {
        assertThat(plain.info().details().get("seccomp")).isEqualTo("allow-list (sandbox4j profile)");
        ExecResult r = plain.shell().run(w.script());
        assertThat(r.exitCode() == 0 && r.stdout().contains(w.expect()))
                .as("%s in the container: exit %d, stdout %s, stderr %s, detail %s", w.name(), r.exitCode(),
                        r.stdout(), r.stderr(), r.detail())
                .isTrue();
    }

    /** The measurement inside the container: strace lists every syscall each workload makes there. */
    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void everySyscallTheCorpusMakesInTheContainerIsAllowedOrAReviewedFallback() {
        assertThat(traced.info().details().get("seccomp")).isEqualTo("allow-list +debug (sandbox4j profile)");
        SeccompPolicy policy = SeccompPolicy.of(Set.of());
        Map<String, String> refused = new TreeMap<>();
        Set<String> used = new TreeSet<>();
        for (Workload w : corpus().toList()) {
            // The trace goes outside the workspace: node's fs.watch('.') would read each line strace writes as an
            // event, which strace writes down as another line, without end. The names are extracted in the
            // container (the whole trace would pass the result's output cap). The bound is for a workload that hangs.
            ExecResult r = traced.shell().run("rm -f /tmp/trace; timeout -s KILL 40 strace -f -qq -o /tmp/trace sh -c '"
                    + w.script().replace("'", "'\\''") + "' >/dev/null 2>&1; sed -nE 's/^[0-9]+ +(<[.][.][.] )?"
                    + "([a-z_0-9]+)[( ].*/\\2/p' /tmp/trace | sort -u");
            assertThat(r.exitCode()).as("strace of %s: %s", w.name(), r.stderr()).isZero();
            Set<String> calls = calls(r.stdout());
            assertThat(calls).as("strace output of %s", w.name()).contains("execve");
            used.addAll(calls);
            for (String call : calls) {
                String answer = policy.answer(call);
                if (!answer.equals("allow") && !answer.equals("arguments") && !REVIEWED_FALLBACKS.containsKey(call)
                        && !call.equals("ptrace")) { // strace's own
                    refused.merge(call, w.name() + " (" + answer + ")", (a, b) -> a + ", " + b);
                }
            }
        }
        System.out.println("[docker seccomp corpus] " + used.size() + " syscalls used: " + used);
        assertThat(refused).as("syscalls the corpus makes in the container that the policy refuses (add them to "
                + "Policy.ALLOWED after review, or to REVIEWED_FALLBACKS with why)").isEmpty();
        assertThat(used).contains("read", "clone", "execve", "wait4").hasSizeGreaterThan(80);
    }

    private static final Pattern NAME = Pattern.compile("[a-z_0-9]+");

    /** The names, one a line, as the container's sed printed them. */
    static Set<String> calls(String names) {
        Set<String> calls = new TreeSet<>();
        for (String l : names.split("\n")) {
            if (NAME.matcher(l).matches()) {
                calls.add(l);
            }
        }
        return calls;
    }

    /** Compiles one class for Java 17 (the image's JRE has no compiler, so no source launcher). */
    static byte[] compile(String name, String source) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        JavaFileObject src = new SimpleJavaFileObject(URI.create("string:///" + name + ".java"),
                JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignore) {
                return source;
            }
        };
        var files = new javax.tools.ForwardingJavaFileManager<>(javac.getStandardFileManager(null, null,
                StandardCharsets.UTF_8)) {
            @Override
            public JavaFileObject getJavaFileForOutput(Location l, String cls, JavaFileObject.Kind k,
                                                       javax.tools.FileObject sibling) {
                return new SimpleJavaFileObject(URI.create("mem:///" + cls + ".class"), k) {
                    @Override
                    public java.io.OutputStream openOutputStream() {
                        return out;
                    }
                };
            }
        };
        boolean ok = javac.getTask(null, files, null, List.of("--release", "17"), null, List.of(src)).call();
        if (!ok) {
            throw new UncheckedIOException(new IOException("javac failed for " + name));
        }
        return out.toByteArray();
    }
}
