package dev.sandbox4j.docker;

import dev.sandbox4j.Sandbox;
import java.util.Arrays;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Hand measurement of the file API's round trips through Docker (docs/benchmarks.md, "Docker file operations"):
 * median and p90 of a 16-byte write, a 16-byte read, a stat, exists, list, 1 MiB and 64 MiB writes and reads, each
 * timed alone after a warm-up. Run only when asked ({@code -Dsandbox4j.measure=true}): timings on a shared machine are figures, not assertions.
 */
class DockerFileOpsMeasure {
    private static final int WARMUP = 30;
    private static final int N = 200;

    @Test
    @org.junit.jupiter.api.Timeout(1800)
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
            byte[] big = new byte[64 << 20];
            new java.util.Random(1).nextBytes(big);
            report("write 64 MiB", time(() -> s.files().write("big.bin", big), 3, 15));
            report("readTo 64 MiB", time(() -> s.files().readTo("big.bin", java.io.OutputStream.nullOutputStream()),
                    3, 15));
        }
    }

    /** Grep over 1,000 files of 1 KiB in 10 directories, and over one 16 MiB file: 20 timed calls after 3. */
    @Test
    @org.junit.jupiter.api.Timeout(1800)
    void grep() {
        Assumptions.assumeTrue(Boolean.getBoolean("sandbox4j.measure"), "set -Dsandbox4j.measure=true");
        try (Sandbox s = DockerTestSupport.open()) {
            String line = "just some text of a line that does not match\n";
            s.shell().run("mkdir -p tree && cd tree && for d in 0 1 2 3 4 5 6 7 8 9; do mkdir $d; for f in $(seq 1 100);"
                    + " do printf '" + line.replace("\n", "\\n").repeat(20) + "' > $d/$f.txt; done; done"
                    + " && echo needle >> 5/50.txt");
            s.files().write("big.txt", (line.repeat((16 << 20) / line.length()) + "needle\n").getBytes());
            report("grep tree 1000 files", time(() -> check(s.files().grep("needle", "tree").matches().size()), 3, 20));
            report("grep one 16 MiB file", time(() -> check(s.files().grep("needle", "big.txt").matches().size()), 3,
                    20));
        }
    }

    private static void check(int matches) {
        if (matches != 1) {
            throw new IllegalStateException(matches + " matches");
        }
    }

    private static long[] time(Runnable op) {
        return time(op, WARMUP, N);
    }

    private static long[] time(Runnable op, int warmup, int n) {
        for (int i = 0; i < warmup; i++) {
            op.run();
        }
        long[] t = new long[n];
        for (int i = 0; i < n; i++) {
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
