package dev.sandbox4j.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The Docker side of issue 33's "within 5 % of before" (not a pass/fail test of speed): containers with the deny-list
 * profile the backend had before the allow-list ({@code seccomp.json} at commit ecc5599^, given through
 * {@link DockerOptions#withSeccompProfile}) against the generated allow-list profile, interleaved sample by sample
 * (A B, then B A) so that the load of this shared machine falls on both alike. Per round: open + {@code true} + close
 * and command round-trips. Runs only with {@code -Dsandbox4j.measure=true} (rounds {@code -Dsandbox4j.measure.rounds},
 * default 6); prints to stdout.
 */
@EnabledIfSystemProperty(named = "sandbox4j.measure", matches = "true")
class DockerSeccompCostMeasure {
    static final int OPENS = 8;
    static final int TRIPS = 60;

    @Test
    @Timeout(value = 60, unit = TimeUnit.MINUTES)
    void denyListProfileAgainstAllowListProfile() throws Exception {
        DockerTestSupport.requireDocker();
        String old;
        try (InputStream in = getClass().getResourceAsStream("seccomp-denylist-ecc5599.json")) {
            old = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Map<String, DockerSandboxProvider> variants = new LinkedHashMap<>();
        variants.put("deny-list", new DockerSandboxProvider(DockerOptions.defaults().withSeccompProfile(old)));
        variants.put("allow-list", new DockerSandboxProvider(DockerOptions.defaults()));
        String[] names = variants.keySet().toArray(new String[0]);
        int rounds = Integer.getInteger("sandbox4j.measure.rounds", 6);
        Map<String, double[]> openMedians = new LinkedHashMap<>();
        Map<String, double[]> tripMedians = new LinkedHashMap<>();
        for (String n : names) {
            openMedians.put(n, new double[rounds]);
            tripMedians.put(n, new double[rounds]);
        }
        for (int r = -1; r < rounds; r++) { // round -1: warm-up
            double load0 = load();
            Map<String, double[]> open = new LinkedHashMap<>();
            Map<String, double[]> trip = new LinkedHashMap<>();
            for (String n : names) {
                open.put(n, new double[OPENS]);
                trip.put(n, new double[TRIPS]);
            }
            for (int i = 0; i < OPENS; i++) {
                for (String n : order(names, i)) {
                    long t0 = System.nanoTime();
                    try (Sandbox s = variants.get(n).open(SandboxSpec.defaults())) {
                        assertThat(s.shell().run("true").exitCode()).isZero();
                    }
                    open.get(n)[i] = (System.nanoTime() - t0) / 1e6;
                }
            }
            Map<String, Sandbox> boxes = new LinkedHashMap<>();
            try {
                for (String n : names) {
                    boxes.put(n, variants.get(n).open(SandboxSpec.defaults()));
                }
                assertThat(boxes.get("deny-list").info().details().get("seccomp")).contains("custom");
                for (int i = 0; i < TRIPS; i++) {
                    for (String n : order(names, i)) {
                        long t0 = System.nanoTime();
                        ExecResult x = boxes.get(n).shell().run("true");
                        trip.get(n)[i] = (System.nanoTime() - t0) / 1e6;
                        assertThat(x.exitCode()).isZero();
                    }
                }
            } finally {
                boxes.values().forEach(Sandbox::close);
            }
            if (r < 0) {
                continue;
            }
            for (String n : names) {
                openMedians.get(n)[r] = median(open.get(n));
                tripMedians.get(n)[r] = median(trip.get(n));
                System.out.printf("[docker seccomp cost] round %d %-10s open+true+close %.1f ms, round-trip %.2f ms,"
                        + " load %.2f -> %.2f%n", r, n, openMedians.get(n)[r], tripMedians.get(n)[r], load0, load());
            }
        }
        for (Map.Entry<String, Map<String, double[]>> e : Map.of("open+true+close (ms)", openMedians,
                "round-trip (ms)", tripMedians).entrySet()) {
            double a = median(e.getValue().get("deny-list"));
            double b = median(e.getValue().get("allow-list"));
            double[] ratios = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                ratios[r] = e.getValue().get("allow-list")[r] / e.getValue().get("deny-list")[r];
            }
            System.out.printf("[docker seccomp cost] %-22s deny-list %.2f allow-list %.2f ratio of medians %.3f,"
                            + " per-round ratios median %.3f (%.3f-%.3f), %d rounds%n", e.getKey(), a, b, b / a,
                    median(ratios), Arrays.stream(ratios).min().orElse(0), Arrays.stream(ratios).max().orElse(0),
                    rounds);
        }
    }

    private static String[] order(String[] names, int i) {
        return i % 2 == 0 ? names : new String[] {names[1], names[0]};
    }

    static double median(double[] xs) {
        double[] s = xs.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    private static double load() throws IOException {
        return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    }
}
