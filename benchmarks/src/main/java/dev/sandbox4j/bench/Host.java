package dev.sandbox4j.bench;

import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** What a user would do by hand: raw processes, a fresh hardened bwrap, the docker CLI. */
final class Host {
    /** The image the docker backend uses by default. */
    static final String IMAGE = System.getProperty("sandbox4j.docker.image", "sandbox4j/runtime:bookworm");
    /** The user the docker backend runs commands as. */
    static final String DOCKER_USER = "10001:10001";
    /** An unprivileged uid for the hand-made bwrap jail (the JVM here runs as root; the library drops to a uid too). */
    static final String BWRAP_UID = "65534";

    /** 1 KB of output: {@code echo} of 1023 characters plus the newline. */
    static final String ECHO_1K = "echo " + "x".repeat(1023);

    /** 1 GiB of text on stdout. */
    static final String FLOOD = "yes | head -c 1073741824";

    private Host() {
    }

    static String command(String name) {
        return switch (name) {
            case "true" -> "true";
            case "echo1k" -> ECHO_1K;
            default -> throw new IllegalArgumentException(name);
        };
    }

    /** Output of a finished raw process. */
    record Out(int exit, byte[] stdout, byte[] stderr) {
        String text() {
            return new String(stdout, StandardCharsets.UTF_8);
        }
    }

    /** Runs argv, capturing stdout and stderr in full (what a user writing ProcessBuilder code does). */
    static Out run(List<String> argv) {
        try {
            Process p = new ProcessBuilder(argv).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .start();
            CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> readAll(p.getErrorStream()));
            byte[] out = p.getInputStream().readAllBytes();
            int exit = p.waitFor();
            return new Out(exit, out, err.join());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Runs argv with stdout and stderr going to /dev/null; returns the exit code. */
    static int runDiscard(List<String> argv) {
        try {
            Process p = new ProcessBuilder(argv).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            return p.waitFor();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Runs argv and fails unless it exits 0; returns trimmed stdout. */
    static String check(List<String> argv) {
        Out o = run(argv);
        if (o.exit() != 0) {
            throw new IllegalStateException(argv + " exited " + o.exit() + ": "
                    + new String(o.stderr(), StandardCharsets.UTF_8).trim());
        }
        return o.text().trim();
    }

    static String check(String... argv) {
        return check(List.of(argv));
    }

    private static byte[] readAll(InputStream in) {
        try {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Out sh(String command) {
        return run(List.of("/bin/sh", "-c", command));
    }

    /**
     * A fresh hardened bwrap per command, the policy of security.md 4.1 (the library's flags) minus the seccomp
     * filter and the synthesized passwd/group, dropped to an unprivileged uid with setpriv as the library does.
     */
    static List<String> bwrap(Path workspace, String command) {
        List<String> a = new ArrayList<>(List.of(
                "setpriv", "--reuid", BWRAP_UID, "--regid", BWRAP_UID, "--clear-groups", "--inh-caps=-all",
                "--bounding-set=-all", "--",
                "bwrap", "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
                "--cap-drop", "ALL", "--clearenv",
                "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "HOME", "/workspace",
                "--setenv", "TMPDIR", "/tmp", "--setenv", "LANG", "C.UTF-8",
                "--hostname", "sandbox",
                "--ro-bind", "/usr", "/usr",
                "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin", "--symlink", "usr/lib", "/lib",
                "--symlink", "usr/lib64", "/lib64",
                "--perms", "0755", "--dir", "/etc",
                "--ro-bind-try", "/etc/alternatives", "/etc/alternatives",
                "--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
                "--proc", "/proc", "--dev", "/dev",
                "--perms", "1777", "--size", "67108864", "--tmpfs", "/dev/shm",
                "--perms", "1777", "--size", "268435456", "--tmpfs", "/tmp",
                "--bind", workspace.toString(), "/workspace", "--chdir", "/workspace",
                "--remount-ro", "/",
                "--", "/bin/sh", "-c", command));
        return a;
    }

    /** A workspace directory the hand-made bwrap jail may write. */
    static Path bwrapWorkspace() {
        try {
            Path dir = Files.createTempDirectory("sbx-bench-ws");
            check("chown", BWRAP_UID + ":" + BWRAP_UID, dir.toString());
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The hardened flags of the docker backend, as CLI options (no seccomp profile: the engine's default). */
    static List<String> dockerHardened() {
        return List.of("--network", "none", "--cap-drop", "ALL", "--security-opt", "no-new-privileges:true",
                "--read-only", "--tmpfs", "/tmp:rw,nosuid,nodev,size=268435456,mode=1777", "--user", DOCKER_USER,
                "--pids-limit", "256", "--memory", "1g", "--memory-swap", "1g", "--cpus", "1",
                "--ulimit", "nofile=4096:4096", "--ulimit", "core=0:0");
    }

    /** The container id of a docker-backend sandbox (its container is named {@code sandbox4j-<sandbox id>}). */
    static String containerOf(Sandbox sandbox) {
        return check("docker", "inspect", "-f", "{{.Id}}", "sandbox4j-" + sandbox.id());
    }

    static void ok(ExecResult r) {
        if (!r.isSuccess()) {
            throw new IllegalStateException("command failed: " + r.status() + " " + r.exitCode() + " " + r.stderr());
        }
    }

    static void ok(Out o) {
        if (o.exit() != 0) {
            throw new IllegalStateException("exited " + o.exit() + ": " + new String(o.stderr(), StandardCharsets.UTF_8));
        }
    }

    static void ok(int exit) {
        if (exit != 0) {
            throw new IllegalStateException("exited " + exit);
        }
    }

    /** Deletes a directory tree; best effort. */
    static void deleteTree(Path dir) {
        if (dir == null) {
            return;
        }
        runDiscard(List.of("rm", "-rf", "--one-file-system", dir.toString()));
    }

    /** A sink that counts and drops bytes. */
    static final class Counting extends OutputStream {
        long count;

        @Override
        public void write(int b) {
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            count += len;
        }
    }

    /** The hand-run measures' backends: the arguments that are not numbers, or local and docker. */
    static java.util.List<String> backendsArg(String[] args) {
        java.util.List<String> b = java.util.Arrays.stream(args).filter(a -> !a.matches("\\d+")).toList();
        return b.isEmpty() ? java.util.List.of("local", "docker") : b;
    }

    /** The hand-run measures' rounds: the last argument that is a number, or {@code otherwise}. */
    static int roundsArg(String[] args, int otherwise) {
        int rounds = otherwise;
        for (String a : args) {
            if (a.matches("\\d+")) {
                rounds = Integer.parseInt(a);
            }
        }
        return rounds;
    }
}
