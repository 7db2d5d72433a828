package dev.sandbox4j.local;

import dev.sandbox4j.Sandbox;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Prints timings (not assertions): round trip of `true` in an open sandbox, raw ProcessBuilder, open+run+close. */
class BenchmarkTest {
    @Test
    void timings() throws Exception {
        Jail.assumeAvailable();
        int n = 100;
        long[] rt = new long[n];
        try (Sandbox s = Jail.open()) {
            for (int i = 0; i < 10; i++) {
                s.shell().run("true");
            }
            for (int i = 0; i < n; i++) {
                long t = System.nanoTime();
                s.shell().run("true");
                rt[i] = System.nanoTime() - t;
            }
        }
        long[] raw = new long[n];
        for (int i = 0; i < n; i++) {
            long t = System.nanoTime();
            new ProcessBuilder("/bin/true").start().waitFor();
            raw[i] = System.nanoTime() - t;
        }
        int m = 20;
        long[] open = new long[m];
        for (int i = 0; i < m; i++) {
            long t = System.nanoTime();
            try (Sandbox s = Jail.open()) {
                s.shell().run("true");
            }
            open[i] = System.nanoTime() - t;
        }
        System.out.printf("BENCH run(true) in open sandbox: p50 %.1f ms p95 %.1f ms%n", p(rt, 50), p(rt, 95));
        System.out.printf("BENCH raw ProcessBuilder /bin/true: p50 %.1f ms p95 %.1f ms%n", p(raw, 50), p(raw, 95));
        System.out.printf("BENCH open+run(true)+close: p50 %.1f ms p95 %.1f ms%n", p(open, 50), p(open, 95));
    }

    private static double p(long[] v, int pct) {
        long[] c = v.clone();
        Arrays.sort(c);
        return c[Math.min(c.length - 1, c.length * pct / 100)] / 1e6;
    }
}
