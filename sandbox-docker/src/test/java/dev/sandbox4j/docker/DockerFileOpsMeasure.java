package dev.sandbox4j.docker;

import dev.sandbox4j.Sandbox;
import java.util.Arrays;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Hand measurement of the file API's round trips through Docker (docs/benchmarks.md, "Docker file operations"):
 * median and p90 of a 16-byte write, a 16-byte read, a stat and a 1 MiB write, each timed alone after a warm-up. Run
 * only when asked ({@code -Dsandbox4j.measure=true}): timings on a shared machine are figures, not assertions.
 */
class DockerFileOpsMeasure {
    private static final int WARMUP = 100;
    private static final int N = 400;

    @Test
    void smallWriteReadStat() {
        Assumptions.assumeTrue(Boolean.getBoolean("sandbox4j.measure"), "set -Dsandbox4j.measure=true");
        try (Sandbox s = DockerTestSupport.open()) {
            byte[] small = "0123456789abcdef".getBytes();
            byte[] mib = new byte[1 << 20];
            s.files().write("f.txt", small);
            report("write 16 B", time(() -> s.files().write("f.txt", small)));
            report("read 16 B", time(() -> s.files().readBytes("f.txt")));
            report("stat", time(() -> s.files().stat("f.txt")));
            report("exists", time(() -> s.files().exists("f.txt")));
            report("list (10 entries)", time(() -> s.files().list("")));
            for (int i = 0; i < 9; i++) {
                s.files().write("d" + i + ".txt", small);
            }
            report("list (10 entries)", time(() -> s.files().list("")));
            report("write 1 MiB", time(() -> s.files().write("m.bin", mib)));
            report("read 1 MiB", time(() -> s.files().readBytes("m.bin")));
        }
    }

    private static long[] time(Runnable op) {
        for (int i = 0; i < WARMUP; i++) {
            op.run();
        }
        long[] t = new long[N];
        for (int i = 0; i < N; i++) {
            long start = System.nanoTime();
            op.run();
            t[i] = System.nanoTime() - start;
        }
        Arrays.sort(t);
        return t;
    }

    private static void report(String what, long[] t) {
        System.out.printf("MEASURE %-20s median %.2f ms  p90 %.2f ms  (n=%d)%n", what, t[t.length / 2] / 1e6,
                t[t.length * 9 / 10] / 1e6, t.length);
    }
}
