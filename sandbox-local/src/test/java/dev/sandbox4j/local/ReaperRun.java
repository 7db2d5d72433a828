package dev.sandbox4j.local;

import dev.sandbox4j.core.AgentBinary;
import dev.sandbox4j.core.AgentProtocol;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Test support: one run of a process (usually {@code sbx-reaper}) with its output in files, and /proc probes. */
final class ReaperRun {
    /** The shell gate the reaper replaces, as the JVM agent spawned it before sbx-reaper. */
    static final List<String> SHELL_GATE = List.of("/bin/sh", "-c", "IFS= read -r _g || exit 125; exec \"$@\"", "gate");

    final Process process;
    final Path out;
    final Path err;
    private final OutputStream stdin;

    private ReaperRun(Process process, Path out, Path err) {
        this.process = process;
        this.out = out;
        this.err = err;
        this.stdin = process.getOutputStream();
    }

    /**
     * The reaper for this host's architecture, copied from the class path (or the file named by the system property
     * {@code sandbox4j.test.reaper}, used to check that the tests fail against a broken build) into a
     * world-readable directory under {@code dir}.
     */
    static Path reaper(Path dir) throws IOException {
        String override = System.getProperty("sandbox4j.test.reaper", "");
        if (!override.isEmpty()) {
            return Paths.get(override);
        }
        return extract(dir, System.getProperty("os.arch"));
    }

    static Path extract(Path dir, String osArch) throws IOException {
        return extract(dir, osArch, AgentBinary.REAPER);
    }

    /** One of the native helpers ({@link AgentBinary#REAPER}, {@link AgentBinary#AGENT}) under {@code dir}. */
    static Path extract(Path dir, String osArch, String name) throws IOException {
        Path bin = Files.createDirectories(dir.resolve("bin-" + osArch));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path file = bin.resolve(name);
        Files.write(file, AgentBinary.bytes(name, osArch));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        return file;
    }

    static ReaperRun start(Path dir, List<String> argv) throws IOException {
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        ProcessBuilder pb = new ProcessBuilder(argv).redirectOutput(out.toFile()).redirectError(err.toFile());
        return new ReaperRun(pb.start(), out, err);
    }

    /** {@code reaper -- command...}. */
    static List<String> reaperArgv(Path reaper, String... command) {
        List<String> argv = new ArrayList<>();
        argv.add(reaper.toString());
        argv.add("--");
        argv.addAll(List.of(command));
        return argv;
    }

    ReaperRun write(String text) throws IOException {
        return write(text.getBytes(StandardCharsets.UTF_8));
    }

    ReaperRun write(byte[] bytes) throws IOException {
        stdin.write(bytes);
        stdin.flush();
        return this;
    }

    ReaperRun gate() throws IOException {
        return write("go\n");
    }

    ReaperRun closeStdin() throws IOException {
        stdin.close();
        return this;
    }

    /** Waits for the exit code; fails (after killing the process) when it takes longer than {@code limit}. */
    int await(Duration limit) throws Exception {
        if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            fail("still running after " + limit + "; stderr: " + stderr());
        }
        return process.exitValue();
    }

    String stdout() throws IOException {
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    String stderr() throws IOException {
        return Files.readString(err, StandardCharsets.UTF_8);
    }

    void signal(String name) throws Exception {
        signal(process.pid(), name);
    }

    static void signal(long pid, String name) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
        assertThat(kill.waitFor()).as("kill -%s %d", name, pid).isZero();
    }

    /** Waits (at most 10 s) until {@code file} holds a complete line with a pid, and returns it. */
    static long awaitPid(Path file) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (Files.exists(file)) {
                String s = Files.readString(file, StandardCharsets.UTF_8);
                if (s.endsWith("\n")) {
                    return Long.parseLong(s.trim());
                }
            }
            Thread.sleep(10);
        }
        return fail("no pid in " + file + " after 10 s");
    }

    /** A /proc/<pid>/stat line's state, parsed from the last ')'; '-' when the process does not exist. */
    static char state(long pid) {
        try {
            String stat = Files.readString(Paths.get("/proc/" + pid + "/stat"), StandardCharsets.ISO_8859_1);
            return stat.charAt(stat.lastIndexOf(')') + 2);
        } catch (IOException | RuntimeException e) {
            return '-';
        }
    }

    /** The command line, arguments joined by spaces; "" when the process is gone. */
    static String cmdline(long pid) {
        try {
            byte[] b = Files.readAllBytes(Paths.get("/proc/" + pid + "/cmdline"));
            return new String(b, StandardCharsets.UTF_8).replace('\0', ' ').trim();
        } catch (IOException e) {
            return "";
        }
    }

    /** Alive: exists and not a zombie. */
    static boolean alive(long pid) {
        char s = state(pid);
        return s != '-' && s != 'Z' && s != 'X';
    }

    /** A line of /proc/<pid>/status, e.g. "SigIgn", without its key; an IOException when there is none. */
    static String status(long pid, String key) throws IOException {
        for (String line : Files.readAllLines(Paths.get("/proc/" + pid + "/status"), StandardCharsets.ISO_8859_1)) {
            if (line.startsWith(key + ":")) {
                return line.substring(key.length() + 1).trim();
            }
        }
        throw new IOException("no " + key + " in /proc/" + pid + "/status");
    }

    /** Pids of live processes whose real uid is {@code uid}. */
    static List<Long> processesOf(long uid) {
        List<Long> pids = new ArrayList<>();
        try (var dir = Files.newDirectoryStream(Paths.get("/proc"), "[0-9]*")) {
            for (Path p : dir) {
                long pid = Long.parseLong(p.getFileName().toString());
                try {
                    String uids = status(pid, "Uid");
                    if (Long.parseLong(uids.split("\\s+")[0]) == uid && alive(pid)) {
                        pids.add(pid);
                    }
                } catch (IOException | RuntimeException vanished) {
                    // gone meanwhile
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return pids;
    }

    /** SIGKILLs every process of {@code uid}, round after round (a killed process forks no more). */
    static void killAll(long uid) throws InterruptedException {
        for (int round = 0; round < 200; round++) {
            List<Long> pids = processesOf(uid);
            if (pids.isEmpty()) {
                return;
            }
            pids.forEach(ReaperRun::killQuietly);
            Thread.sleep(20);
        }
    }

    static void killQuietly(long pid) {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }

    static Duration seconds(long s) {
        return Duration.ofSeconds(s);
    }
}
