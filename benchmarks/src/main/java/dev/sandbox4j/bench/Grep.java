package dev.sandbox4j.bench;

import dev.sandbox4j.FileSystem;
import dev.sandbox4j.GrepResult;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Issue 17: grep over one 100 MiB text file (the match on its last line) and over a tree of 10,000 small files, the
 * same content in the sandbox and on the host, against GNU grep on the host ({@code grep -c}, {@code grep -r}).
 */
public class Grep {
    static final long BIG = 100L << 20;
    static final int FILES = 10_000;

    @State(Scope.Benchmark)
    public static class Data {
        Path dir;

        @Setup(Level.Trial)
        public void create() throws IOException {
            dir = Files.createTempDirectory("sbx-bench-grep");
            byte[] line = "hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay\n".getBytes(StandardCharsets.UTF_8);
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(dir.resolve("big.txt")), 1 << 20)) {
                for (long n = 0; n + line.length <= BIG - 7; n += line.length) {
                    out.write(line);
                }
                out.write("needle\n".getBytes(StandardCharsets.UTF_8));
            }
            for (int i = 0; i < FILES; i++) {
                Path f = dir.resolve(small(i));
                Files.createDirectories(f.getParent());
                Files.writeString(f, content(i));
            }
        }

        /** Makes the same files in a sandbox's workspace, with its shell (10,000 API writes would take minutes). */
        void load(dev.sandbox4j.Sandbox sandbox) {
            long lines = (BIG - 7) / 60;
            Host.ok(sandbox.shell().run(dev.sandbox4j.ExecRequest.shell(
                    "yes 'hay hay hay hay hay hay hay hay hay hay hay hay hay hay hay' | head -n " + lines
                            + " > big.txt && echo needle >> big.txt && mkdir -p $(seq -f tree/d%g 0 "
                            + (FILES / 100 - 1) + ") && i=0 && while [ $i -lt " + FILES + " ]; do"
                            + " if [ $((i % 1000)) -eq 0 ]; then w=needle; else w=hay; fi;"
                            + " printf 'line one\\nline two %d\\n%s\\n' $i $w > tree/d$((i / 100))/f$i.txt;"
                            + " i=$((i + 1)); done").withTimeout(java.time.Duration.ofMinutes(5))));
        }

        @TearDown(Level.Trial)
        public void delete() {
            Host.deleteTree(dir);
        }
    }

    static String small(int i) {
        return "tree/d" + (i / 100) + "/f" + i + ".txt";
    }

    static String content(int i) {
        return "line one\nline two " + i + "\n" + (i % 1000 == 0 ? "needle\n" : "hay\n");
    }

    @State(Scope.Benchmark)
    public static class LocalFiles {
        FileSystem fs;

        @Setup(Level.Trial)
        public void load(Data d, Boxes.Local b) {
            fs = b.sandbox.files();
            d.load(b.sandbox);
        }
    }

    @State(Scope.Benchmark)
    public static class DockerFiles {
        FileSystem fs;

        @Setup(Level.Trial)
        public void load(Data d, Boxes.Docker b) {
            fs = b.sandbox.files();
            d.load(b.sandbox);
        }
    }

    static int check(GrepResult r, int expected) {
        if (r.matches().size() != expected || !r.isComplete()) {
            throw new IllegalStateException("grep found " + r.matches().size() + ", complete " + r.isComplete());
        }
        return expected;
    }

    @Benchmark
    public int bigLocal(LocalFiles f) {
        return check(f.fs.grep("needle", "big.txt"), 1);
    }

    @Benchmark
    public int bigDocker(DockerFiles f) {
        return check(f.fs.grep("needle", "big.txt"), 1);
    }

    @Benchmark
    public int treeLocal(LocalFiles f) {
        return check(f.fs.grep("needle", "tree"), FILES / 1000);
    }

    @Benchmark
    public int treeDocker(DockerFiles f) {
        return check(f.fs.grep("needle", "tree"), FILES / 1000);
    }

    /** Baseline: {@code grep -c needle big.txt} on the host. */
    @Benchmark
    public String bigHostGrep(Data d) {
        return Host.check(List.of("grep", "-c", "needle", d.dir.resolve("big.txt").toString()));
    }

    /** Baseline: {@code grep -r needle tree} on the host. */
    @Benchmark
    public String treeHostGrep(Data d) {
        return Host.check(List.of("grep", "-r", "needle", d.dir.resolve("tree").toString()));
    }
}
