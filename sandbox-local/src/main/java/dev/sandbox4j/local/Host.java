package dev.sandbox4j.local;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What this host offers: bwrap, setpriv, prlimit, root or not, and the one launcher thread. */
final class Host {
    static final String INSTALL = "install bubblewrap >= 0.8.0 (Debian/Ubuntu: apt-get install bubblewrap; "
            + "Fedora: dnf install bubblewrap) and allow unprivileged user namespaces";

    /**
     * The single long-lived platform thread that starts every jail: bwrap's --die-with-parent is tied to the thread
     * that forked it (PDEATHSIG), so that thread must live as long as the JVM.
     */
    private static final ExecutorService LAUNCHER = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "sandbox4j-local-launcher");
        t.setDaemon(true);
        return t;
    });

    final String bwrap;
    final String setpriv;
    final String prlimit;
    final boolean root;
    final String problem;

    private static volatile Host cached;

    private Host(String bwrap, String setpriv, String prlimit, boolean root, String problem) {
        this.bwrap = bwrap;
        this.setpriv = setpriv;
        this.prlimit = prlimit;
        this.root = root;
        this.problem = problem;
    }

    static Host get(LocalOptions options) {
        Host h = cached;
        if (h == null || (options.bwrap() != null && !options.bwrap().equals(h.bwrap))) {
            h = probe(options);
            if (options.bwrap() == null) {
                cached = h;
            }
        }
        return h;
    }

    static Process launch(ProcessBuilder pb) throws IOException {
        Future<Process> f = LAUNCHER.submit(pb::start);
        try {
            return f.get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            destroyWhenStarted(f);
            throw new IOException("interrupted while starting the jail", e);
        } catch (java.util.concurrent.TimeoutException e) {
            destroyWhenStarted(f);
            throw new IOException("the launcher thread did not start the jail within 30 s", e);
        } catch (Exception e) {
            Throwable c = e.getCause() != null ? e.getCause() : e;
            throw c instanceof IOException io ? io : new IOException(c.getMessage(), c);
        }
    }

    /** A start the caller gave up on: the launcher (FIFO, one thread) destroys the process once it exists. */
    private static void destroyWhenStarted(Future<Process> f) {
        LAUNCHER.execute(() -> {
            try {
                Process p = f.get();
                p.destroyForcibly();
                p.getOutputStream().close();
                p.getInputStream().close();
                p.getErrorStream().close();
            } catch (Exception ignored) {
                // it never started
            }
        });
    }

    static boolean isRoot() {
        try {
            Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            return Integer.valueOf(0).equals(uid);
        } catch (IOException | RuntimeException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    static int currentUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    static int currentGid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:gid");
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    static String which(String name) {
        String path = System.getenv("PATH");
        List<String> dirs = new ArrayList<>();
        if (path != null) {
            dirs.addAll(List.of(path.split(File.pathSeparator)));
        }
        dirs.addAll(List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"));
        for (String d : dirs) {
            if (d.isEmpty()) {
                continue;
            }
            Path p = Path.of(d, name);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p.toAbsolutePath().toString();
            }
        }
        return null;
    }

    private static Host probe(LocalOptions options) {
        boolean root = isRoot();
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            return new Host(null, null, null, root, "the local backend needs Linux (found "
                    + System.getProperty("os.name") + ")");
        }
        String bwrap = options.bwrap() != null ? options.bwrap() : which("bwrap");
        if (bwrap == null) {
            return new Host(null, null, null, root, "bwrap (bubblewrap) is not on PATH; " + INSTALL);
        }
        String setpriv = which("setpriv");
        String prlimit = which("prlimit");
        if (root && setpriv == null) {
            return new Host(bwrap, null, prlimit, root, "the JVM runs as root and setpriv (util-linux) is missing, "
                    + "so the jail cannot drop to an unprivileged uid; apt-get install util-linux");
        }
        try {
            String version = run(List.of(bwrap, "--version"), 5).trim();
            Matcher m = Pattern.compile("(\\d+)\\.(\\d+)\\.(\\d+)").matcher(version);
            if (!m.find()) {
                return new Host(bwrap, setpriv, prlimit, root, "cannot read the bwrap version from '" + version
                        + "'; " + INSTALL);
            }
            int major = Integer.parseInt(m.group(1));
            int minor = Integer.parseInt(m.group(2));
            if (major == 0 && minor < 8) {
                return new Host(bwrap, setpriv, prlimit, root, "bwrap " + m.group() + " is too old (need >= 0.8.0 for "
                        + "--disable-userns); " + INSTALL);
            }
            List<String> test = new ArrayList<>();
            if (root) {
                test.addAll(List.of(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all",
                        "--bounding-set=-all", "--"));
            }
            test.addAll(List.of(bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
                    "--cap-drop", "ALL", "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink",
                    "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--proc", "/proc", "--dev", "/dev",
                    "--", "/usr/bin/true"));
            ProcessBuilder pb = new ProcessBuilder(test).redirectErrorStream(true);
            pb.environment().clear();
            pb.environment().put("PATH", "/usr/bin:/bin");
            Process p = launch(pb);
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                return new Host(bwrap, setpriv, prlimit, root, "bwrap cannot create an unprivileged user namespace "
                        + "here (" + out + "); enable user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
                        + "user.max_user_namespaces > 0, or an AppArmor profile for bwrap) or " + INSTALL);
            }
        } catch (IOException e) {
            return new Host(bwrap, setpriv, prlimit, root, "cannot run bwrap: " + e.getMessage() + "; " + INSTALL);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Host(bwrap, setpriv, prlimit, root, "interrupted while probing bwrap");
        }
        return new Host(bwrap, setpriv, prlimit, root, null);
    }

    /** The interpreters of the sandbox's languages, found in the jail's PATH order on the host's own /usr. */
    static Map<dev.sandbox4j.Language, String> interpreters() {
        Map<dev.sandbox4j.Language, String> found = new java.util.EnumMap<>(dev.sandbox4j.Language.class);
        Map<dev.sandbox4j.Language, String> names = Map.of(dev.sandbox4j.Language.PYTHON, "python3",
                dev.sandbox4j.Language.JAVASCRIPT, "node", dev.sandbox4j.Language.BASH, "bash");
        names.forEach((language, name) -> {
            for (String dir : List.of("/usr/local/bin", "/usr/bin", "/bin")) {
                Path p = Path.of(dir, name);
                if (Files.isExecutable(p) && !Files.isDirectory(p)) {
                    found.put(language, p.toString());
                    break;
                }
            }
        });
        return Map.copyOf(found);
    }

    /** What the jail's command line needs of this host (read now: its top-level links, the open-files limit). */
    JailCommandLine.HostFacts jailFacts() {
        return jailFactsOf(bwrap, setpriv, prlimit);
    }

    static JailCommandLine.HostFacts jailFactsOf(String bwrap, String setpriv, String prlimit) {
        Map<String, String> links = new LinkedHashMap<>();
        for (String d : JailCommandLine.ROOT_ENTRIES) {
            Path p = Path.of("/" + d);
            if (Files.isSymbolicLink(p)) {
                try {
                    links.put(d, Files.readSymbolicLink(p).toString());
                } catch (IOException ignored) {
                    // skip
                }
            } else if (Files.isDirectory(p)) {
                links.put(d, "");
            }
        }
        return new JailCommandLine.HostFacts(bwrap, setpriv, prlimit, nofileLimit(), links);
    }

    /** The open-files limit for the jail: min(1024, this JVM's hard RLIMIT_NOFILE) (raising it would be EPERM). */
    static long nofileLimit() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (line.startsWith("Max open files")) {
                    String[] parts = line.substring("Max open files".length()).trim().split("\\s+");
                    if (parts.length >= 2 && !parts[1].equals("unlimited")) {
                        return Math.max(1, Math.min(1024, Long.parseLong(parts[1])));
                    }
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // keep 1024
        }
        return 1024;
    }

    Optional<String> problem() {
        return Optional.ofNullable(problem);
    }

    private static String run(List<String> cmd, int seconds) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().put("PATH", "/usr/bin:/bin");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        return out;
    }
}
