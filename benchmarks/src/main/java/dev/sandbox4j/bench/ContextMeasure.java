package dev.sandbox4j.bench;

import dev.sandbox4j.CodeContext;
import dev.sandbox4j.CodeRequest;
import dev.sandbox4j.CodeResult;
import dev.sandbox4j.Language;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Sandboxes;
import java.util.Arrays;
import java.util.List;

/**
 * A code context's round trip (issue 13): {@code x + 1} in a warm Python context against a fresh
 * {@code code().run} of the same snippet (a new interpreter each time, what every run cost before contexts), in one
 * sandbox per backend, interleaved round by round so load drifts hit both alike.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar dev.sandbox4j.bench.ContextMeasure [local|docker ...] [rounds]</pre>
 */
public final class ContextMeasure {
    private ContextMeasure() {
    }

    public static void main(String[] args) throws Exception {
        List<String> backends = Host.backendsArg(args);
        int rounds = Host.roundsArg(args, 40);
        for (String backend : backends) {
            try (Sandbox s = Sandboxes.open(backend, SandboxSpec.builder().bestEffortLimits(true).build());
                 CodeContext c = s.code().createContext(Language.PYTHON)) {
                check(c.run(CodeRequest.of(Language.PYTHON, "x = 41")));
                double[] warm = new double[rounds];
                double[] fresh = new double[rounds];
                for (int i = -3; i < rounds; i++) { // three warm-up rounds
                    long t0 = System.nanoTime();
                    CodeResult w = c.run(CodeRequest.of(Language.PYTHON, "x + 1"));
                    long t1 = System.nanoTime();
                    CodeResult f = s.code().run(CodeRequest.of(Language.PYTHON, "x = 41\nprint(x + 1)"));
                    long t2 = System.nanoTime();
                    if (!"42".equals(w.text()) || !"42\n".equals(f.stdout())) {
                        throw new IllegalStateException("wrong answer: " + w + " / " + f);
                    }
                    if (i >= 0) {
                        warm[i] = (t1 - t0) / 1e6;
                        fresh[i] = (t2 - t1) / 1e6;
                    }
                }
                System.out.printf("%-7s warm context x + 1: median %.2f ms (p90 %.2f); fresh code().run: median %.2f"
                        + " ms (p90 %.2f); fresh / warm %.1fx (n=%d each)%n", backend, pct(warm, 50), pct(warm, 90),
                        pct(fresh, 50), pct(fresh, 90), pct(fresh, 50) / pct(warm, 50), rounds);
            }
        }
        System.exit(0);
    }

    private static void check(CodeResult r) {
        if (!r.isSuccess()) {
            throw new IllegalStateException("setup failed: " + r);
        }
    }

    private static double pct(double[] v, int p) {
        double[] c = v.clone();
        Arrays.sort(c);
        return c[Math.min(c.length - 1, (int) Math.ceil(p / 100.0 * c.length) - 1)];
    }
}
