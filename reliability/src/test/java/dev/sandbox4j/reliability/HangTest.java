package dev.sandbox4j.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 18's hang cases, each call timed: a catastrophic regex, a FIFO swapped in under reads, a tree thousands of
 * levels deep. Every call ends in a result or a typed error within a bound; none hangs.
 */
class HangTest {
    @ParameterizedTest
    @ValueSource(strings = {"local", "docker"})
    void hostileContentNeverHangsACall(String backend) throws Exception {
        Rel.requireBackend(backend);
        try (Sandbox s = Rel.open(backend)) {
            FileSystem fs = s.files();
            fs.write("r.txt", "a".repeat(50_000) + "!");
            long t0 = System.nanoTime();
            String regex = kind(() -> fs.grep("(a+)+$", ""));
            long regexMs = (System.nanoTime() - t0) / 1_000_000;

            fs.write("chain.sh", "i=0; while [ $i -lt 600 ]; do mkdir d && cd d || break; i=$((i+1)); done\n");
            s.shell().run("sh chain.sh");
            t0 = System.nanoTime();
            String deep = kind(() -> fs.list("", Integer.MAX_VALUE));
            long deepMs = (System.nanoTime() - t0) / 1_000_000;

            // a FIFO and a regular file swapped in and out under the name read
            ExecHandle swap = s.shell().start(ExecRequest.shell("python3 -c \"import os\nwhile True:\n"
                    + "    try: os.mkfifo('f.tmp')\n    except FileExistsError: pass\n    os.replace('f.tmp', 'f')\n"
                    + "    open('f.reg', 'w').write('x')\n    os.replace('f.reg', 'f')\""));
            List<Long> reads = new ArrayList<>();
            int refused = 0;
            java.util.Map<String, Integer> kinds = new java.util.TreeMap<>();
            try {
                for (int i = 0; i < 200 && !fs.exists("f"); i++) {
                    Thread.sleep(25); // the loop has started
                }
                for (int i = 0; i < 300; i++) {
                    long r0 = System.nanoTime();
                    String k = kind(() -> fs.readText("f"));
                    reads.add(System.nanoTime() - r0);
                    kinds.merge(k, 1, Integer::sum);
                    if (!k.equals("ok")) {
                        refused++;
                        assertThat(k).isIn("PERMISSION_DENIED", "NOT_FOUND");
                    }
                }
            } finally {
                swap.kill();
            }
            Rel.report("hangs " + backend + ": catastrophic regex -> " + regex + " in " + regexMs + " ms; list of a "
                    + "600-level tree -> " + deep + " in " + deepMs + " ms; 300 reads under a FIFO swap loop: "
                    + Rel.percentiles(reads) + ", outcomes " + kinds);
            assertThat(regex).isEqualTo(ErrorKind.INVALID_ARGUMENT.name());
            assertThat(regexMs).as("regex call (ms)").isLessThan(15_000);
            assertThat(deep).isEqualTo(ErrorKind.TOO_LARGE.name());
            assertThat(Rel.max(reads)).as("slowest read under the swap loop (ns)").isLessThan(5_000_000_000L);
        }
    }

    private static String kind(Runnable call) {
        try {
            call.run();
            return "ok";
        } catch (SandboxException e) {
            return e.kind().name();
        }
    }
}
