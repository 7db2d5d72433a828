package dev.sandbox4j.bench;

import dev.sandbox4j.Sandboxes;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.util.Statistics;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Runs the whole suite group by group with JMH and writes the Markdown report.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar [--quick] [--only REGEX] [--out docs/benchmarks.md] [--sandboxes 16,64]
 * </pre>
 */
public final class BenchMain {
    static final String NOTES_MARKER = "<!-- Everything below this line is hand-written and kept by scripts/bench.sh. -->";

    /**
     * One JMH run: which benchmarks, how, and for how long. {@code backends} restricts the Throughput fleet's
     * backend param (null: all available), {@code counts} its sandbox/process counts (null: --sandboxes).
     */
    record Group(String name, String include, Mode mode, int warmups, int warmupSeconds, int iterations,
                 int iterationSeconds, String exclude, String backends, String counts) {
        Group(String name, String include, Mode mode, int warmups, int warmupSeconds, int iterations,
              int iterationSeconds) {
            this(name, include, mode, warmups, warmupSeconds, iterations, iterationSeconds, null, null, null);
        }
    }

    /** One benchmark's figures, in milliseconds. */
    record Stat(double p50, double p99, double p25, double p75, double min, double max, long n) {
    }

    private final Map<String, Stat> results = new LinkedHashMap<>();
    private final Map<String, String> aux = new TreeMap<>();
    private final List<String> failures = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        boolean quick = false;
        String only = null;
        Path out = Path.of("docs/benchmarks.md");
        String sandboxes = "16,64";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--only" -> only = args[++i];
                case "--out" -> out = Path.of(args[++i]);
                case "--sandboxes" -> sandboxes = args[++i];
                default -> {
                    System.err.println("usage: [--quick] [--only REGEX] [--out FILE] [--sandboxes 16,64]");
                    System.exit(2);
                }
            }
        }
        new BenchMain().run(quick, only, out, sandboxes.split(","));
    }

    static List<Group> groups(boolean quick) {
        if (quick) {
            return List.of(
                    new Group("round trip", "RoundTrip", Mode.SampleTime, 1, 1, 1, 2),
                    new Group("open + first command + close", "OpenClose", Mode.SampleTime, 0, 0, 1, 3),
                    new Group("64 MiB write + read", "FileTransfer", Mode.SampleTime, 0, 0, 1, 3),
                    new Group("grep", "Grep", Mode.SampleTime, 0, 0, 1, 3),
                    new Group("output flood", "Flood", Mode.SingleShotTime, 0, 0, 2, 0),
                    new Group("throughput", "Throughput", Mode.SingleShotTime, 0, 0, 1, 0, null, null, "16"),
                    new Group("in-memory", "InMemory", Mode.SampleTime, 1, 1, 2, 1));
        }
        // About 15-18 minutes on 2 cores; one shot of 64 docker sandboxes x 100 execs alone takes ~4-6 minutes.
        return List.of(
                new Group("round trip", "RoundTrip", Mode.SampleTime, 2, 1, 4, 2),
                new Group("open + first command + close", "OpenClose", Mode.SampleTime, 1, 3, 3, 4),
                new Group("64 MiB write + read", "FileTransfer", Mode.SampleTime, 1, 2, 3, 3),
                new Group("grep", "Grep", Mode.SampleTime, 1, 2, 3, 3),
                new Group("output flood", "Flood", Mode.SingleShotTime, 1, 0, 4, 0),
                new Group("throughput (raw, local)", "Throughput", Mode.SingleShotTime, 0, 0, 2, 0, null, "local",
                        null),
                new Group("throughput (docker)", "Throughput", Mode.SingleShotTime, 0, 0, 1, 0, "rawProcesses",
                        "docker", null),
                new Group("in-memory", "InMemory", Mode.SampleTime, 2, 1, 5, 1));
    }

    void run(boolean quick, String only, Path out, String[] sandboxCounts) throws Exception {
        Instant start = Instant.now();
        String loadStart = loadAverage();
        Map<String, Optional<String>> providers = new LinkedHashMap<>(); // name -> why it is unavailable
        Sandboxes.providers().forEach(p -> providers.put(p.name(), p.unavailableReason()));
        boolean docker = providers.containsKey("docker") && providers.get("docker").isEmpty();
        boolean local = providers.containsKey("local") && providers.get("local").isEmpty();
        List<String> backends = new ArrayList<>();
        if (local) {
            backends.add("local");
        }
        if (docker) {
            backends.add("docker");
        }
        Path auxFile = Files.createTempFile("sbx-bench-aux", ".txt");
        for (Group g : groups(quick)) {
            if (only != null && !Pattern.compile(only).matcher(g.include()).find()) {
                continue;
            }
            System.out.println("\n=== " + g.name() + " ===");
            ChainedOptionsBuilder o = new OptionsBuilder()
                    .include("dev\\.sandbox4j\\.bench\\." + g.include() + "\\.")
                    .mode(g.mode())
                    .timeUnit(TimeUnit.MILLISECONDS)
                    .forks(1)
                    .warmupIterations(g.warmups())
                    .measurementIterations(g.iterations())
                    .shouldFailOnError(false)
                    .jvmArgsAppend("-Dbench.aux=" + auxFile, "-Xmx2g", "-Dbench.commands="
                            + Integer.getInteger("bench.commands", 100));
            if (g.mode() == Mode.SampleTime) {
                o.warmupTime(TimeValue.seconds(g.warmupSeconds())).measurementTime(TimeValue.seconds(g.iterationSeconds()));
            }
            if (!docker) {
                o.exclude("docker|Docker|testcontainers");
            }
            if (!local) {
                o.exclude("\\.local$|localOpenOnly|localNoQuota|bwrap");
            }
            if (g.exclude() != null) {
                o.exclude(g.exclude());
            }
            if (g.include().equals("Throughput")) {
                List<String> fleet = new ArrayList<>(backends);
                if (g.backends() != null) {
                    fleet.retainAll(List.of(g.backends().split(",")));
                }
                if (fleet.isEmpty()) {
                    continue;
                }
                String[] counts = g.counts() != null ? g.counts().split(",") : sandboxCounts;
                o.param("backend", fleet.toArray(String[]::new));
                o.param("sandboxes", counts);
                o.param("processes", counts);
            }
            try {
                for (RunResult r : new Runner(o.build()).run()) {
                    record(r);
                }
            } catch (Exception e) {
                failures.add(g.name() + ": " + e);
                e.printStackTrace();
            }
        }
        for (String line : Files.readAllLines(auxFile)) {
            int sp = line.indexOf(' ');
            if (sp > 0) {
                aux.put(shortName(line.substring(0, sp)), line.substring(sp + 1));
            }
        }
        Files.deleteIfExists(auxFile);
        Instant end = Instant.now();
        String report = new Report(this, quick, start, end, loadStart, loadAverage(), providers).render(readNotes(out));
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, report, StandardCharsets.UTF_8);
        System.out.println("\nwrote " + out.toAbsolutePath() + " in " + Duration.between(start, end).toSeconds() + " s");
        System.out.println(report);
    }

    private void record(RunResult r) {
        StringBuilder key = new StringBuilder(shortName(r.getParams().getBenchmark()));
        List<String> ps = new ArrayList<>();
        for (String k : r.getParams().getParamsKeys()) {
            ps.add(k + "=" + r.getParams().getParam(k));
        }
        if (!ps.isEmpty()) {
            key.append('[').append(String.join(",", ps)).append(']');
        }
        Statistics s = r.getPrimaryResult().getStatistics();
        double scale = toMillis(r.getPrimaryResult().getScoreUnit());
        results.put(key.toString(), new Stat(s.getPercentile(50) * scale, s.getPercentile(99) * scale,
                s.getPercentile(25) * scale, s.getPercentile(75) * scale, s.getMin() * scale, s.getMax() * scale,
                s.getN()));
    }

    private static double toMillis(String unit) {
        if (unit.startsWith("ms/")) {
            return 1;
        }
        if (unit.startsWith("us/")) {
            return 1e-3;
        }
        if (unit.startsWith("ns/")) {
            return 1e-6;
        }
        if (unit.startsWith("s/")) {
            return 1e3;
        }
        throw new IllegalStateException("unexpected unit " + unit);
    }

    static String shortName(String benchmark) {
        return benchmark.replaceFirst("^dev\\.sandbox4j\\.bench\\.", "");
    }

    Stat stat(String key) {
        return results.get(key);
    }

    String aux(String key) {
        return aux.get(key);
    }

    List<String> failures() {
        return failures;
    }

    Map<String, Stat> results() {
        return results;
    }

    private static String readNotes(Path out) throws IOException {
        if (!Files.exists(out)) {
            return "";
        }
        String text = Files.readString(out, StandardCharsets.UTF_8);
        int at = text.indexOf(NOTES_MARKER);
        return at < 0 ? "" : text.substring(at + NOTES_MARKER.length());
    }

    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "?";
        }
    }

    static String time(Instant t) {
        return DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'", Locale.ROOT).withZone(ZoneOffset.UTC).format(t);
    }

    static String jvm() {
        return System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + " ("
                + System.getProperty("java.vendor") + "), heap max " + ManagementFactory.getMemoryMXBean()
                .getHeapMemoryUsage().getMax() / (1 << 20) + " MiB in the driver, -Xmx2g in the forks";
    }
}
