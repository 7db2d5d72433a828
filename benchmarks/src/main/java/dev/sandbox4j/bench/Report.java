package dev.sandbox4j.bench;


import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** Renders docs/benchmarks.md from one run. */
final class Report {
    private final BenchMain run;
    private final boolean quick;
    private final Instant start;
    private final Instant end;
    private final String loadStart;
    private final String loadEnd;
    private final Map<String, Optional<String>> providers;
    private final StringBuilder md = new StringBuilder();

    Report(BenchMain run, boolean quick, Instant start, Instant end, String loadStart, String loadEnd,
           Map<String, Optional<String>> providers) {
        this.run = run;
        this.quick = quick;
        this.start = start;
        this.end = end;
        this.loadStart = loadStart;
        this.loadEnd = loadEnd;
        this.providers = providers;
    }

    /** A measured figure next to its baseline. */
    record Row(String figure, String subject, String subjectKey, String baseline, String baselineKey) {
    }

    static List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (String cmd : List.of("true", "echo1k")) {
            String f = "round trip `" + (cmd.equals("true") ? "true" : "echo` 1 KB") + (cmd.equals("true") ? "`" : "");
            String p = "[cmd=" + cmd + "]";
            rows.add(new Row(f, "local", "RoundTrip.local" + p, "raw ProcessBuilder", "RoundTrip.processBuilder" + p));
            rows.add(new Row(f, "local", "RoundTrip.local" + p, "fresh hardened bwrap", "RoundTrip.bwrapFresh" + p));
            rows.add(new Row(f, "docker", "RoundTrip.docker" + p, "`docker exec` CLI", "RoundTrip.dockerCli" + p));
            rows.add(new Row(f, "docker", "RoundTrip.docker" + p, "Testcontainers execInContainer",
                    "RoundTrip.testcontainers" + p));
            rows.add(new Row(f, "memory", "RoundTrip.memory" + p, "raw ProcessBuilder", "RoundTrip.processBuilder" + p));
        }
        String o = "open + `true` + close";
        rows.add(new Row(o, "local", "OpenClose.local", "`bwrap … true`", "RoundTrip.bwrapFresh[cmd=true]"));
        rows.add(new Row(o, "docker", "OpenClose.docker", "`docker run --rm … true`", "OpenClose.dockerRunRm"));
        rows.add(new Row(o, "local", "OpenClose.local", "same, no workspace quota", "OpenClose.localNoQuota"));
        rows.add(new Row("open only (close untimed)", "docker", "OpenClose.dockerOpenOnly", "`docker run -d …`",
                "OpenClose.dockerRunDetached"));
        rows.add(new Row("open only (close untimed)", "local", "OpenClose.localOpenOnly", "`bwrap … true`",
                "RoundTrip.bwrapFresh[cmd=true]"));
        String t = "64 MiB write + read";
        rows.add(new Row(t, "local", "FileTransfer.local", "`Files.copy` in + out on the host", "FileTransfer.filesCopy"));
        rows.add(new Row(t, "docker", "FileTransfer.docker", "`docker cp` in + out", "FileTransfer.dockerCp"));
        rows.add(new Row(t, "memory", "FileTransfer.memory", "`Files.copy` in + out on the host",
                "FileTransfer.filesCopy"));
        rows.add(new Row(t, "local", "FileTransfer.local", "same, no workspace quota", "FileTransfer.localNoQuota"));
        rows.add(new Row(t, "docker", "FileTransfer.docker", "same, no workspace quota",
                "FileTransfer.dockerNoQuota"));
        String g = "grep, 100 MiB file (match on the last line)";
        rows.add(new Row(g, "local", "Grep.bigLocal", "`grep -c` on the host", "Grep.bigHostGrep"));
        rows.add(new Row(g, "docker", "Grep.bigDocker", "`grep -c` on the host", "Grep.bigHostGrep"));
        String gt = "grep, 10,000 small files";
        rows.add(new Row(gt, "local", "Grep.treeLocal", "`grep -r` on the host", "Grep.treeHostGrep"));
        rows.add(new Row(gt, "docker", "Grep.treeDocker", "`grep -r` on the host", "Grep.treeHostGrep"));
        String fl = "1 GiB to stdout, default cap";
        rows.add(new Row(fl, "local", "Flood.local", "same on the host to /dev/null", "Flood.hostDevNull"));
        rows.add(new Row(fl, "local", "Flood.local", "raw ProcessBuilder, stdout read", "Flood.hostRead"));
        rows.add(new Row(fl, "local", "Flood.local", "same in the sandbox through `| cat > /dev/null`",
                "Flood.localThroughCat"));
        rows.add(new Row(fl, "local, no CPU limit", "Flood.localNoCpuLimit", "same on the host to /dev/null",
                "Flood.hostDevNull"));
        rows.add(new Row(fl, "local, no CPU limit", "Flood.localNoCpuLimit", "raw ProcessBuilder, stdout read",
                "Flood.hostRead"));
        rows.add(new Row(fl, "docker", "Flood.docker", "`docker exec` CLI to /dev/null", "Flood.dockerCliDevNull"));
        rows.add(new Row("in-memory open + `echo` + write + read + close", "memory", "InMemory.memory",
                "HashMap fake", "InMemory.hashMapFake"));
        return rows;
    }

    String render(String notes) throws IOException {
        line("# Benchmarks");
        line("");
        line("Generated by `scripts/bench.sh" + (quick ? " --quick" : "") + "` (JMH 1.37, module `benchmarks`). "
                + "Every sandbox4j figure sits next to what a user would do by hand, measured **in the same run** on "
                + "the same machine. Ratio = sandbox4j median / baseline median (time; lower is better).");
        line("");
        line("Reproduce: `scripts/bench.sh` (full suite, ~14 min here) or `scripts/bench.sh --quick` (~3.5 min, for "
                + "iteration: short iterations, fewer samples). Needs bubblewrap and a Docker engine as in `.ci/run`, "
                + "and the image `sandbox4j/runtime:bookworm` (`scripts/build-test-image.sh`); backends that are not "
                + "available are left out of the tables.");
        line("");
        line("## Machine and run");
        line("");
        line("| | |");
        line("|---|---|");
        line("| run | " + (quick ? "**quick** (short iterations: spread and p99 are rough)" : "full") + ", "
                + BenchMain.time(start) + ", " + Duration.between(start, end).toMinutes() + " min |");
        line("| CPU | " + Runtime.getRuntime().availableProcessors() + " cores, " + cpuModel() + " |");
        line("| memory | " + memTotal() + " |");
        line("| JDK | " + BenchMain.jvm() + " |");
        line("| kernel | " + System.getProperty("os.name") + " " + System.getProperty("os.version") + ", cgroup "
                + cgroup() + " |");
        line("| bwrap | " + tool("bwrap", "--version") + " |");
        line("| Docker engine | " + tool("docker", "version", "--format",
                "{{.Server.Version}} (API {{.Server.APIVersion}}), client {{.Client.Version}}") + " |");
        line("| backends | " + providersLine() + " |");
        line("| load average (1/5/15 min) | at start " + loadStart + ", at end " + loadEnd + " |");
        line("");
        line("## Figures");
        line("");
        line("Median and p99 of JMH `SampleTime` samples (every operation timed), or of `SingleShotTime` "
                + "iterations for the flood; p25–p75 is the spread; n is the number of samples.");
        line("");
        line("| figure | sandbox4j | median | p99 | p25–p75 | n | baseline | median | p99 | n | ratio |");
        line("|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|");
        for (Row r : rows()) {
            BenchMain.Stat s = run.stat(r.subjectKey());
            BenchMain.Stat b = run.stat(r.baselineKey());
            if (s == null && b == null) {
                continue;
            }
            line("| " + r.figure() + " | " + r.subject() + " | " + ms(s, BenchMain.Stat::p50) + " | "
                    + ms(s, BenchMain.Stat::p99) + " | " + spread(s) + " | " + n(s) + " | " + r.baseline() + " | "
                    + ms(b, BenchMain.Stat::p50) + " | " + ms(b, BenchMain.Stat::p99) + " | " + n(b) + " | "
                    + ratio(s, b) + " |");
        }
        line("");
        heap();
        throughput();
        targets();
        if (!run.failures().isEmpty()) {
            line("## Failures in this run");
            line("");
            run.failures().forEach(f -> line("* " + f));
            line("");
        }
        line("## All raw results (ms)");
        line("");
        line("| benchmark | median | p99 | p25 | p75 | min | max | n |");
        line("|---|---:|---:|---:|---:|---:|---:|---:|");
        run.results().forEach((k, s) -> line("| " + k + " | " + num(s.p50()) + " | " + num(s.p99()) + " | "
                + num(s.p25()) + " | " + num(s.p75()) + " | " + num(s.min()) + " | " + num(s.max()) + " | " + s.n() + " |"));
        line("");
        line(BenchMain.NOTES_MARKER);
        md.append(notes.isEmpty() ? "\n" : notes);
        return md.toString();
    }

    private void heap() {
        List<String> lines = new ArrayList<>();
        for (String b : List.of("local", "docker")) {
            String a = run.aux("Flood." + b);
            if (a != null) {
                String growth = a.replaceAll(".*growth=([-0-9/]*).*", "$1");
                StringBuilder g = new StringBuilder();
                for (String x : growth.split("/")) {
                    if (!x.isEmpty()) {
                        g.append(g.length() == 0 ? "" : ", ").append(kib(Long.parseLong(x)));
                    }
                }
                String chars = a.replaceAll(".*stdoutChars=(\\d+).*", "$1");
                String total = a.replaceAll(".*totalBytes=(\\d+).*", "$1");
                lines.add("| " + b + " | " + g + " | " + chars + " of " + total + " bytes |");
            }
        }
        if (lines.isEmpty()) {
            return;
        }
        line("### Heap retained by the 1 GiB flood");
        line("");
        line("Heap retained after each measured iteration: used heap after full GCs with the last `ExecResult` "
                + "still referenced, minus used heap after full GCs right after the sandbox opened. It includes the "
                + "result (the default cap keeps 15,000 + 15,000 characters per stream, ~30 KB of Latin-1 `String`) "
                + "and whatever the client keeps (buffers, pools); a leak would grow iteration after iteration.");
        line("");
        line("| backend | heap retained after each iteration | stdout kept |");
        line("|---|---|---:|");
        lines.forEach(this::line);
        line("");
    }

    private static String kib(long bytes) {
        return String.format(Locale.ROOT, "%.0f KiB", bytes / 1024.0);
    }

    private void throughput() {
        List<String> lines = new ArrayList<>();
        int commands = Integer.getInteger("bench.commands", 100);
        for (String n : List.of("16", "64")) {
            BenchMain.Stat raw = run.stat("Throughput.rawProcesses[processes=" + n + "]");
            for (String b : List.of("local", "docker")) {
                BenchMain.Stat s = run.stat("Throughput.sandboxes[backend=" + b + ",sandboxes=" + n + "]");
                if (s == null) {
                    continue;
                }
                lines.add("| " + b + " | " + n + " | " + num(s.p50()) + " | " + num(s.max()) + " | " + s.n() + " | "
                        + rate(Integer.parseInt(n) * commands, s) + " | " + rate(Integer.parseInt(n) * commands, raw)
                        + " | " + ratio(s, raw) + " |");
            }
        }
        if (lines.isEmpty()) {
            return;
        }
        line("### Throughput: N sandboxes at once, " + commands + " `true` commands each");
        line("");
        line("Wall time for all N × " + commands + " commands (`SingleShotTime`; few samples, so max instead of p99), "
                + "against N threads each running " + commands + " raw `ProcessBuilder` `/bin/sh -c true`.");
        line("");
        line("| backend | N | median ms | max ms | n | commands/s | raw commands/s | ratio (time) |");
        line("|---|---:|---:|---:|---:|---:|---:|---:|");
        lines.forEach(this::line);
        line("");
    }

    private void targets() {
        line("## Issue 12's targets (the native agent)");
        line("");
        line("Memory per idle sandbox and 500 sandboxes at once are measured by `FootprintMeasure` (hand-written "
                + "section below); the rest come from this run.");
        line("");
        line("| target | figure | measured | met? |");
        line("|---|---|---:|---|");
        target("local open + `true` + close at most 1.5× a fresh hardened bwrap", "open + `true` + close",
                "OpenClose.local", "RoundTrip.bwrapFresh[cmd=true]", 1.5, false);
        target("local round trip at most 1.3× raw ProcessBuilder", "`true`", "RoundTrip.local[cmd=true]",
                "RoundTrip.processBuilder[cmd=true]", 1.3, false);
        target("docker round trip at most 0.1× the `docker exec` CLI", "`true`", "RoundTrip.docker[cmd=true]",
                "RoundTrip.dockerCli[cmd=true]", 0.1, false);
        target("docker, 16 sandboxes × 100 commands, at least 0.5× raw ProcessBuilder (throughput)", "16 × 100",
                "Throughput.sandboxes[backend=docker,sandboxes=16]", "Throughput.rawProcesses[processes=16]", 0.5,
                true);
        target("docker open at most 1.0× `docker run -d`", "open only", "OpenClose.dockerOpenOnly",
                "OpenClose.dockerRunDetached", 1.0, false);
        target("1 GiB to stdout, local, at most 2× the host to /dev/null", "default spec (one core)", "Flood.local",
                "Flood.hostDevNull", 2.0, false);
        target("1 GiB to stdout, local, at most 2× the host to /dev/null", "no CPU limit", "Flood.localNoCpuLimit",
                "Flood.hostDevNull", 2.0, false);
        target("64 MiB write + read at least 0.9× the baseline (throughput)", "local vs `Files.copy`",
                "FileTransfer.local", "FileTransfer.filesCopy", 0.9, true);
        target("64 MiB write + read at least 0.9× the baseline (throughput)", "docker vs `docker cp`",
                "FileTransfer.docker", "FileTransfer.dockerCp", 0.9, true);
        line("");
        line("## Targets of earlier issues");
        line("");
        line("| target | figure | measured | met? |");
        line("|---|---|---:|---|");
        target("grep within 2× of GNU grep on the host (issue 17)", "100 MiB, local", "Grep.bigLocal",
                "Grep.bigHostGrep", 2.0, false);
        target("grep within 2× of GNU grep on the host (issue 17)", "10,000 files, local", "Grep.treeLocal",
                "Grep.treeHostGrep", 2.0, false);
        line("");
    }

    private void target(String target, String figure, String subject, String baseline, double limit,
                        boolean throughput) {
        BenchMain.Stat s = run.stat(subject);
        BenchMain.Stat b = run.stat(baseline);
        if (s == null || b == null) {
            line("| " + target + " | " + figure + " | not measured | – |");
            return;
        }
        double r = throughput ? b.p50() / s.p50() : s.p50() / b.p50();
        boolean met = throughput ? r >= limit : r <= limit;
        line("| " + target + " | " + figure + " | " + String.format(Locale.ROOT, "%.2f×", r)
                + (throughput ? " throughput" : " time") + " | " + (met ? "**met**" : "**missed**") + " |");
    }

    private static String rate(int commands, BenchMain.Stat s) {
        return s == null ? "–" : String.format(Locale.ROOT, "%.0f", commands / (s.p50() / 1000.0));
    }

    private static String ratio(BenchMain.Stat s, BenchMain.Stat b) {
        if (s == null || b == null || b.p50() <= 0) {
            return "–";
        }
        double r = s.p50() / b.p50();
        return String.format(Locale.ROOT, r >= 100 ? "%.0f×" : "%.2f×", r);
    }

    private static String ms(BenchMain.Stat s, java.util.function.ToDoubleFunction<BenchMain.Stat> f) {
        return s == null ? "–" : time(f.applyAsDouble(s));
    }

    /** A duration given in ms, in the unit that reads best. */
    static String time(double ms) {
        if (ms >= 1) {
            return num(ms) + " ms";
        }
        if (ms >= 0.001) {
            return num(ms * 1000) + " µs";
        }
        return num(ms * 1e6) + " ns";
    }

    private static String spread(BenchMain.Stat s) {
        return s == null ? "–" : time(s.p25()) + " – " + time(s.p75());
    }

    private static String n(BenchMain.Stat s) {
        return s == null ? "–" : Long.toString(s.n());
    }

    static String num(double ms) {
        if (ms >= 100) {
            return String.format(Locale.ROOT, "%.0f", ms);
        }
        if (ms >= 10) {
            return String.format(Locale.ROOT, "%.1f", ms);
        }
        if (ms >= 0.1) {
            return String.format(Locale.ROOT, "%.2f", ms);
        }
        return String.format(Locale.ROOT, "%.3g", ms);
    }

    private String providersLine() {
        List<String> parts = new ArrayList<>();
        providers.forEach((name, why) -> parts.add(name + why.map(r -> " (unavailable: " + r + ")").orElse("")));
        return String.join(", ", parts);
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .findFirst().map(l -> l.replaceFirst("model name\\s*:\\s*", "")).orElse("?");
        } catch (IOException e) {
            return "?";
        }
    }

    private static String memTotal() {
        try {
            return Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemTotal"))
                    .findFirst().map(l -> {
                        long kb = Long.parseLong(l.replaceAll("\\D", ""));
                        return String.format(Locale.ROOT, "%.1f GiB", kb / 1024.0 / 1024.0);
                    }).orElse("?");
        } catch (IOException e) {
            return "?";
        }
    }

    private static String cgroup() {
        return Files.exists(Path.of("/sys/fs/cgroup/cgroup.controllers")) ? "v2" : "v1";
    }

    private static String tool(String... argv) {
        try {
            Host.Out o = Host.run(List.of(argv));
            return o.exit() == 0 ? o.text().trim() : "unavailable";
        } catch (RuntimeException e) {
            return "unavailable";
        }
    }

    private void line(String s) {
        md.append(s).append('\n');
    }
}
