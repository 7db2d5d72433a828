package dev.sandbox4j.bench;

import dev.sandbox4j.FileSystem;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Random;

/** 64 MiB written then read back in full. */
public class FileTransfer {
    static final int SIZE = 64 << 20;

    @State(Scope.Benchmark)
    public static class Data {
        byte[] bytes;
        Path dir;
        Path source;

        @Setup(Level.Trial)
        public void create() throws IOException {
            bytes = new byte[SIZE];
            new Random(42).nextBytes(bytes);
            dir = Files.createTempDirectory("sbx-bench-files");
            source = dir.resolve("source.bin");
            Files.write(source, bytes);
        }

        @TearDown(Level.Trial)
        public void delete() {
            Host.deleteTree(dir);
        }
    }

    static long roundTrip(FileSystem fs, Data d) {
        fs.write("big.bin", new ByteArrayInputStream(d.bytes));
        Host.Counting sink = new Host.Counting();
        fs.readTo("big.bin", sink);
        if (sink.count != SIZE) {
            throw new IllegalStateException("read " + sink.count + " bytes");
        }
        return sink.count;
    }

    @Benchmark
    public long local(Data d, Boxes.Local b) {
        return roundTrip(b.sandbox.files(), d);
    }

    @Benchmark
    public long docker(Data d, Boxes.Docker b) {
        return roundTrip(b.sandbox.files(), d);
    }

    /** The same on a local sandbox without the workspace quota (a plain host directory instead of a tmpfs). */
    @Benchmark
    public long localNoQuota(Data d, Boxes.LocalNoQuota b) {
        return roundTrip(b.sandbox.files(), d);
    }

    /** The same on a docker sandbox without the workspace quota (a plain volume instead of a tmpfs volume). */
    @Benchmark
    public long dockerNoQuota(Data d, Boxes.DockerNoQuota b) {
        return roundTrip(b.sandbox.files(), d);
    }

    @Benchmark
    public long memory(Data d, Boxes.Memory b) {
        return roundTrip(b.sandbox.files(), d);
    }

    /** Baseline: {@code Files.copy} from the same in-memory stream to a host file, and back out to a sink. */
    @Benchmark
    public long filesCopy(Data d) throws IOException {
        Path f = d.dir.resolve("copy.bin");
        Files.copy(new ByteArrayInputStream(d.bytes), f, StandardCopyOption.REPLACE_EXISTING);
        Host.Counting sink = new Host.Counting();
        long n = Files.copy(f, sink);
        if (n != SIZE) {
            throw new IllegalStateException("read " + n + " bytes");
        }
        return n;
    }

    /** Baseline: {@code docker cp} of a host file into the sandbox's container and back out to a host file. */
    @Benchmark
    public long dockerCp(Data d, Boxes.Docker b) throws IOException {
        Host.check(List.of("docker", "cp", d.source.toString(), b.containerId + ":/workspace/cp.bin"));
        Path out = d.dir.resolve("out.bin");
        Files.deleteIfExists(out);
        Host.check(List.of("docker", "cp", b.containerId + ":/workspace/cp.bin", out.toString()));
        long n = Files.size(out);
        if (n != SIZE) {
            throw new IllegalStateException("copied out " + n + " bytes");
        }
        return n;
    }
}
