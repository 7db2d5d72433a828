package dev.sandbox4j.bench;

import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.Snapshot;
import dev.sandbox4j.SnapshotStore;
import dev.sandbox4j.WorkspaceSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Issue 31's snapshot target: a snapshot of a 100 MiB / 10,000-file workspace plus an open from it (to the first
 * command), against {@code tar c} + {@code tar x} of the same tree on the same disk, alternating which goes first
 * round by round. The sandbox holding the tree is opened once (untimed) as a copy of it, without a quota (on disk);
 * the store and tar's archive are in the same temporary directory; closes and deletions are untimed.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar dev.sandbox4j.bench.SnapshotMeasure [local] [docker] [rounds]</pre>
 */
public final class SnapshotMeasure {
    private static final int FILES = 10_000;
    private static final int SIZE = (100 << 20) / FILES;

    private SnapshotMeasure() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = Host.roundsArg(args, 5);
        System.out.printf("load average before: %s%n", Files.readString(Path.of("/proc/loadavg")).trim());
        Path base = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "sbx-snap-bench");
        try {
            Path tree = tree(base.resolve("tree"));
            for (String backend : Host.backendsArg(args)) {
                measure(backend, base, tree, rounds);
            }
        } finally {
            Host.deleteTree(base);
        }
        System.out.printf("load average after: %s%n", Files.readString(Path.of("/proc/loadavg")).trim());
        System.exit(0);
    }

    private static Path tree(Path dir) throws IOException {
        Random r = new Random(31);
        byte[] content = new byte[SIZE];
        for (int i = 0; i < FILES; i++) {
            Path f = dir.resolve("d" + (i / 100)).resolve("f" + i + ".bin");
            Files.createDirectories(f.getParent());
            r.nextBytes(content);
            Files.write(f, content);
        }
        return dir;
    }

    private static void measure(String backend, Path base, Path tree, int rounds) throws IOException {
        SandboxSpec spec = SandboxSpec.builder().limits(ResourceLimits.DEFAULTS.withoutWorkspaceQuota()).build();
        SnapshotStore store = SnapshotStore.directory(base.resolve("store"));
        double[] ours = new double[rounds];
        double[] snapOnly = new double[rounds];
        double[] tar = new double[rounds];
        try (Sandbox src = Sandboxes.open(backend, spec.toBuilder().workspace(WorkspaceSource.copyOf(tree)).build())) {
            for (int i = -1; i < rounds; i++) {
                double[] t = new double[3];
                Runnable a = () -> {
                    long t0 = System.nanoTime();
                    Snapshot s = src.snapshot(store);
                    long t1 = System.nanoTime();
                    Sandbox restored = Sandboxes.open(backend, spec.toBuilder()
                            .workspace(WorkspaceSource.snapshot(store, s.id())).build());
                    Host.ok(restored.shell().run("true"));
                    long t2 = System.nanoTime();
                    restored.close();
                    try {
                        store.delete(s.id());
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                    t[0] = (t2 - t0) / 1e6;
                    t[1] = (t1 - t0) / 1e6;
                };
                Runnable b = () -> {
                    Path archive = base.resolve("tree.tar");
                    Path out = base.resolve("untarred");
                    long t0 = System.nanoTime();
                    Host.ok(Host.run(List.of("tar", "cf", archive.toString(), "-C", tree.toString(), ".")));
                    Host.ok(Host.run(List.of("mkdir", out.toString())));
                    Host.ok(Host.run(List.of("tar", "xf", archive.toString(), "-C", out.toString())));
                    long t1 = System.nanoTime();
                    t[2] = (t1 - t0) / 1e6;
                    Host.deleteTree(out);
                    Host.deleteTree(archive);
                };
                if ((i & 1) == 0) {
                    a.run();
                    b.run();
                } else {
                    b.run();
                    a.run();
                }
                if (i >= 0) {
                    ours[i] = t[0];
                    snapOnly[i] = t[1];
                    tar[i] = t[2];
                }
            }
        }
        System.out.printf("%s: snapshot + open from it + true: median %.0f ms (snapshot alone %.0f ms); tar c + tar x: "
                + "median %.0f ms; ratio %.2fx (%d rounds: %s vs %s)%n", backend, median(ours), median(snapOnly),
                median(tar), median(ours) / median(tar), rounds, Arrays.toString(round(ours)),
                Arrays.toString(round(tar)));
    }

    private static long[] round(double[] v) {
        return Arrays.stream(v).mapToLong(Math::round).toArray();
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
