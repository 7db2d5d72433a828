package dev.sandbox4j.local;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.WorkspaceSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Issue 35's measurements, not a timed test: runs only with {@code -Dsandbox4j.bench=true}. A 10,000-file, 200 MiB
 * tree (100 directories of 100 files of 20 KiB), owned by an unprivileged uid as root (so the overlay is overlayfs).
 * Prints medians of 5 runs, and the ratios the targets name, measured in the same run.
 */
class WorkspaceBench {
    @Test
    @org.junit.jupiter.api.Timeout(900)
    void measure() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("sandbox4j.bench"), "-Dsandbox4j.bench=true");
        Jail.assumeAvailable();
        Path base = Files.createTempDirectory("sandbox4j-bench-");
        Path repo = base.resolve("repo");
        WorkspaceAttackTest.sh(base, "mkdir repo && python3 -c \"import os\nb=os.urandom(20480)\nfor d in range(100):"
                + "\n os.mkdir('repo/d%d'%d)\n for f in range(100): open('repo/d%d/f%d'%(d,f),'wb').write(b)\" && "
                + "chmod -R a+rX repo" + (Host.isRoot() ? " && chown -R " + WorkspaceAttackTest.OWNER + ":"
                + WorkspaceAttackTest.OWNER + " repo && mkdir cpfs && mount -t tmpfs -o size=1g bench cpfs" : "")
                + " && sync");
        Thread.sleep(200);
        try {
            report(base, repo);
        } finally {
            WorkspaceAttackTest.sh(Path.of("/"), "umount '" + base + "/cpfs' 2>/dev/null; rm -rf '" + base + "'");
        }
    }

    private static void report(Path base, Path repo) throws Exception {
        SandboxSpec empty = SandboxSpec.defaults();
        SandboxSpec overlay = SandboxSpec.builder().workspace(WorkspaceSource.overlayOf(repo)).build();
        SandboxSpec copy = SandboxSpec.builder().workspace(WorkspaceSource.copyOf(repo)).build();
        Jail.open(empty).close(); // warm: agent binaries, classes
        double emptyMs = median(() -> openClose(empty));
        System.out.printf("[bench] open+close empty %.1f ms%n", emptyMs);
        double overlayMs = median(() -> openClose(overlay));
        System.out.printf("[bench] open+close overlay %.1f ms%n", overlayMs);
        double copyMs = median(() -> openClose(copy));
        System.out.printf("[bench] open+close copy %.1f ms%n", copyMs);
        double cpMs = median(() -> {
            long t = System.nanoTime();
            try {
                // into a tmpfs as root, like the copy source (the default quota's tmpfs); else the same disk
                WorkspaceAttackTest.sh(base, Host.isRoot() ? "rm -rf cpfs/cp && cp -a repo cpfs/cp"
                        : "rm -rf cp && cp -a repo cp");
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            return (System.nanoTime() - t) / 1e6;
        });
        List<Double> changes = new ArrayList<>();
        String detail;
        try (Sandbox s = Jail.open(overlay)) {
            detail = s.info().details().get("workspace source");
            s.shell().run("for d in $(seq 0 99); do echo edit >> d$d/f7; done");
            for (int i = 0; i < 5; i++) {
                long t = System.nanoTime();
                int n = s.workspace().changes().size();
                changes.add((System.nanoTime() - t) / 1e6);
                if (n != 100) {
                    throw new AssertionError(n + " changes");
                }
            }
        }
        Collections.sort(changes);
        long t = System.nanoTime();
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (Stream<Path> st = Files.walk(repo)) {
            for (Path p : (Iterable<Path>) st.filter(Files::isRegularFile)::iterator) {
                md.update(Files.readAllBytes(p));
            }
        }
        double hashMs = (System.nanoTime() - t) / 1e6;
        System.out.printf("[bench] tree: 10000 files, 200 MiB; overlay: %s%n", detail);
        System.out.printf("[bench] open+close empty %.1f ms, overlay %.1f ms (%.2fx; empty*1.2+50 = %.1f ms)%n",
                emptyMs, overlayMs, overlayMs / emptyMs, emptyMs * 1.2 + 50);
        System.out.printf("[bench] changes() after 100 edits: median %.1f ms (min %.1f, max %.1f)%n",
                changes.get(2), changes.get(0), changes.get(4));
        System.out.printf("[bench] copy source: open+close %.1f ms, minus empty %.1f ms; cp -a %.1f ms; "
                + "(copy-empty)/cp = %.2fx%n", copyMs, copyMs - emptyMs, cpMs, (copyMs - emptyMs) / cpMs);
        System.out.printf("[bench] hashing the tree at open instead (SHA-256, warm cache): %.1f ms%n", hashMs);
    }

    private static double openClose(SandboxSpec spec) {
        long t = System.nanoTime();
        Jail.open(spec).close();
        return (System.nanoTime() - t) / 1e6;
    }

    private static double median(Supplier<Double> run) {
        List<Double> r = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            r.add(run.get());
        }
        Collections.sort(r);
        return r.get(2);
    }
}
