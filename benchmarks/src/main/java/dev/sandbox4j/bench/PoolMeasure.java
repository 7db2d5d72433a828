package dev.sandbox4j.bench;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.pool.PoolOptions;
import dev.sandbox4j.pool.SandboxPool;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.DoubleSupplier;

/**
 * Issue 31's pool and pause targets, each against what a user would do by hand, alternating round by round (and
 * which goes first) so load drifts on a shared machine hit both alike:
 * <ul>
 *   <li>pooled local acquire + {@code true} + close, and acquire + {@code true} alone, against a fresh hardened
 *       {@code bwrap … true} ({@link Host#bwrap});</li>
 *   <li>pooled Docker acquire + {@code true} against {@code docker run -d} of a hardened container (removal untimed);</li>
 *   <li>pause + resume of an idle sandbox, local and Docker, against {@code docker pause} + {@code docker unpause}.</li>
 * </ul>
 * Between rounds the measure waits (untimed) until the pool has a warm sandbox again: the figures are the pool's
 * hand-out when refill keeps up; how fast refill is, is the open's own figure (OpenClose, DockerOpenMeasure).
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar dev.sandbox4j.bench.PoolMeasure [rounds]</pre>
 */
public final class PoolMeasure {
    private static final int WARMUPS = 3;
    private static final PoolOptions OPTIONS = new PoolOptions(2, 8, 2, Duration.ofMinutes(10),
            Duration.ofMinutes(2));

    private PoolMeasure() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = Host.roundsArg(args, 20);
        System.out.printf("load average before: %s%n", load());
        local(rounds);
        docker(rounds);
        System.out.printf("load average after: %s%n", load());
        System.exit(0);
    }

    private static void local(int rounds) throws InterruptedException {
        Path ws = Host.bwrapWorkspace();
        try (SandboxPool pool = SandboxPool.open("local", SandboxSpec.defaults(), OPTIONS);
             Sandbox idle = Sandboxes.open("local")) {
            double[] full = new double[rounds];
            double[] noClose = new double[rounds];
            double[] bwrap = new double[rounds];
            double[] pause = new double[rounds];
            for (int i = -WARMUPS; i < rounds; i++) {
                warm(pool);
                double[] r = alternate(i, () -> time(() -> {
                    Sandbox s = pool.acquire();
                    Host.ok(s.shell().run("true"));
                    s.close();
                }), () -> time(() -> Host.ok(Host.run(Host.bwrap(ws, "true")))));
                warm(pool);
                Sandbox s = pool.acquire();
                long t0 = System.nanoTime();
                Host.ok(s.shell().run("true"));
                double t = (System.nanoTime() - t0) / 1e6;
                s.close();
                double p = time(() -> {
                    idle.pause();
                    idle.resume();
                });
                if (i >= 0) {
                    full[i] = r[0];
                    bwrap[i] = r[1];
                    noClose[i] = t;
                    pause[i] = p;
                }
            }
            report("pooled local acquire + true + close", full, "fresh hardened bwrap ... true", bwrap);
            System.out.printf("pooled local acquire + true (close untimed): median %.2f ms (p10 %.2f, p90 %.2f)"
                    + " = %.2fx bwrap%n", median(noClose), pct(noClose, 10), pct(noClose, 90),
                    median(noClose) / median(bwrap));
            System.out.printf("local pause + resume (idle): median %.2f ms (p10 %.2f, p90 %.2f)%n", median(pause),
                    pct(pause, 10), pct(pause, 90));
        } finally {
            Host.deleteTree(ws);
        }
    }

    private static void docker(int rounds) throws InterruptedException {
        List<String> run = new ArrayList<>(List.of("docker", "run", "-d"));
        run.addAll(Host.dockerHardened());
        run.addAll(List.of(Host.IMAGE, "sleep", "infinity"));
        String still = Host.check(run);
        try (SandboxPool pool = SandboxPool.open("docker", SandboxSpec.defaults(), OPTIONS);
             Sandbox idle = Sandboxes.open("docker")) {
            double[] pooled = new double[rounds];
            double[] cli = new double[rounds];
            double[] pause = new double[rounds];
            double[] cliPause = new double[rounds];
            List<String> made = new ArrayList<>();
            List<Sandbox> lent = new ArrayList<>();
            for (int i = -WARMUPS; i < rounds; i++) {
                warm(pool);
                double[] r = alternate(i, () -> time(() -> {
                    Sandbox s = pool.acquire();
                    Host.ok(s.shell().run("true"));
                    lent.add(s);
                }), () -> time(() -> made.add(Host.check(run))));
                double[] p = alternate(i, () -> time(() -> {
                    idle.pause();
                    idle.resume();
                }), () -> time(() -> {
                    Host.check("docker", "pause", still);
                    Host.check("docker", "unpause", still);
                }));
                lent.forEach(Sandbox::close);
                lent.clear();
                if (!made.isEmpty()) {
                    List<String> rm = new ArrayList<>(List.of("docker", "rm", "-f", "-v"));
                    rm.addAll(made);
                    Host.check(rm);
                    made.clear();
                }
                if (i >= 0) {
                    pooled[i] = r[0];
                    cli[i] = r[1];
                    pause[i] = p[0];
                    cliPause[i] = p[1];
                }
            }
            report("pooled docker acquire + true", pooled, "docker run -d", cli);
            report("docker pause + resume (idle sandbox)", pause, "docker pause + docker unpause", cliPause);
        } finally {
            Host.check("docker", "rm", "-f", "-v", still);
        }
    }

    /** Waits, untimed, until the pool has a warm sandbox. */
    private static void warm(SandboxPool pool) throws InterruptedException {
        while (pool.stats().warm() == 0) {
            Thread.sleep(5);
        }
    }

    private static double[] alternate(int round, DoubleSupplier a, DoubleSupplier b) {
        double[] r = new double[2];
        if (Math.floorMod(round, 2) == 0) {
            r[0] = a.getAsDouble();
            r[1] = b.getAsDouble();
        } else {
            r[1] = b.getAsDouble();
            r[0] = a.getAsDouble();
        }
        return r;
    }

    private static double time(Runnable r) {
        long t0 = System.nanoTime();
        r.run();
        return (System.nanoTime() - t0) / 1e6;
    }

    private static void report(String what, double[] v, String baseline, double[] b) {
        System.out.printf("%s: median %.2f ms (p10 %.2f, p90 %.2f); %s: median %.2f ms (p10 %.2f, p90 %.2f);"
                        + " ratio %.2fx (n=%d each after %d warm-ups)%n", what, median(v), pct(v, 10), pct(v, 90),
                baseline, median(b), pct(b, 10), pct(b, 90), median(v) / median(b), v.length, WARMUPS);
    }

    private static String load() {
        return Host.check("cat", "/proc/loadavg");
    }

    private static double median(double[] v) {
        double[] c = v.clone();
        Arrays.sort(c);
        int n = c.length;
        return n % 2 == 1 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    }

    private static double pct(double[] v, int p) {
        double[] c = v.clone();
        Arrays.sort(c);
        return c[Math.max(0, Math.min(c.length - 1, (int) Math.ceil(p / 100.0 * c.length) - 1))];
    }
}
