package dev.sandbox4j.bench;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.spi.SandboxProvider;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Issue 12's docker open target: the docker provider's {@code open} with the default spec (the sandbox is ready for
 * commands when it returns; the provider's availability is asked once, before, as {@code Sandboxes.open} would ask
 * it on every call) against {@code docker run -d} of the same image with {@link Host#dockerHardened()}'s
 * flags running {@code sleep infinity}; then (issue 36) the sandbox's {@code close} against {@code docker rm -f -v} of
 * that container ({@code -v}: the image's {@code VOLUME /workspace} gives each such container an anonymous volume,
 * as close removes the sandbox's workspace volume).
 * The two alternate round by round, and which goes first alternates too, so load drifts on a shared machine hit both
 * alike.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar dev.sandbox4j.bench.DockerOpenMeasure [rounds]</pre>
 */
public final class DockerOpenMeasure {
    private static final int WARMUPS = 5;

    private DockerOpenMeasure() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = Host.roundsArg(args, 20);
        SandboxProvider docker = Sandboxes.providers().stream().filter(p -> p.name().equals("docker")).findFirst()
                .orElseThrow();
        docker.unavailableReason().ifPresent(why -> {
            throw new IllegalStateException(why);
        });
        List<String> run = new ArrayList<>(List.of("docker", "run", "-d"));
        run.addAll(Host.dockerHardened());
        run.addAll(List.of(Host.IMAGE, "sleep", "infinity"));
        double[] open = new double[rounds];
        double[] cli = new double[rounds];
        double[] close = new double[rounds];
        double[] rm = new double[rounds];
        for (int i = -WARMUPS; i < rounds; i++) {
            double o = 0;
            double c = 0;
            double oc = 0;
            double rc = 0;
            for (int k = 0; k < 2; k++) {
                if ((k == 0) == (Math.floorMod(i, 2) == 0)) {
                    long t0 = System.nanoTime();
                    Sandbox s = docker.open(SandboxSpec.defaults());
                    o = (System.nanoTime() - t0) / 1e6;
                    long t1 = System.nanoTime();
                    s.close();
                    oc = (System.nanoTime() - t1) / 1e6;
                } else {
                    long t0 = System.nanoTime();
                    String id = Host.check(run);
                    c = (System.nanoTime() - t0) / 1e6;
                    long t1 = System.nanoTime();
                    Host.check("docker", "rm", "-f", "-v", id);
                    rc = (System.nanoTime() - t1) / 1e6;
                }
            }
            if (i >= 0) {
                open[i] = o;
                cli[i] = c;
                close[i] = oc;
                rm[i] = rc;
            }
        }
        double mo = median(open);
        double mc = median(cli);
        System.out.printf("docker open: median %.1f ms (p10 %.1f, p90 %.1f); docker run -d: median %.1f ms (p10 %.1f,"
                        + " p90 %.1f); open / run -d %.2fx (n=%d each after %d warm-ups)%n", mo, pct(open, 10),
                pct(open, 90), mc, pct(cli, 10), pct(cli, 90), mo / mc, rounds, WARMUPS);
        double mcl = median(close);
        double mrm = median(rm);
        System.out.printf("docker close: median %.1f ms (p10 %.1f, p90 %.1f); docker rm -f -v: median %.1f ms (p10 %.1f,"
                        + " p90 %.1f); close / rm -f %.2fx%n", mcl, pct(close, 10), pct(close, 90), mrm, pct(rm, 10),
                pct(rm, 90), mcl / mrm);
        System.exit(0);
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
