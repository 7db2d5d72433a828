package dev.sandbox4j.local;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The jail's command line, as a pure function of what the open decided ({@link Jail}), what the host is
 * ({@link HostFacts}) and where its files are ({@link Paths}): bwrap's arguments (passed in a file on fd 3, so no
 * path of the host shows on a command line), the agent's argv, the control files bwrap reads (fds 4 to 8, optionally
 * 9 for {@code --info-fd}), and the launcher ({@code /bin/sh -c} script: the cgroup placement, then {@code exec}
 * through {@code prlimit} and, as root, {@code setpriv} into bwrap). No I/O and no processes here: the open reads the
 * host once ({@link Host#jailFacts()}) and {@code JailCommandLineTest} checks the exact argv for given inputs.
 *
 * @param bwrap    bwrap's arguments up to the command (the {@code --args} file's content)
 * @param agent    the jail's command: the agent and its flags (on bwrap's argv after {@code --args 3 --})
 * @param launcher what the host starts: the cgroup setting's prefix, then {@code /bin/sh -c script}
 */
record JailCommandLine(List<String> bwrap, List<String> agent, List<String> launcher) {
    /** The agent inside the jail (its directory is bound read-only at {@link #AGENT_DIR}). */
    static final String AGENT_DIR = "/opt/sandbox4j";
    static final String AGENT_PATH = AGENT_DIR + "/sbx-agent";
    /** The control files, in the order of their descriptors from 3 (the script opens them, then deletes them). */
    static final List<String> CONTROL_FILES = List.of("args", "seccomp", "passwd", "group", "hosts", "nsswitch");

    /**
     * What the open decided for one jail.
     *
     * @param root         the JVM is root: the launcher drops to {@code uid}/{@code gid} with setpriv; otherwise bwrap
     *                     maps the JVM's own uid in the jail's user namespace (no setpriv)
     * @param maxFileBytes RLIMIT_FSIZE set by prlimit, 0 for none
     * @param tmpBytes     the size of {@code /tmp} ({@code /dev/shm}: at most 64 MiB of it), 0 for unbounded
     * @param nproc        the agent's {@code --nproc} (RLIMIT_NPROC per command, no pids cgroup), 0 for none
     * @param dataBytes    the agent's {@code --data} (RLIMIT_DATA per command, no memory cgroup), 0 for none
     * @param infoFd       bwrap writes its child's pid to fd 9 (the quota's helper joins that jail)
     */
    record Jail(boolean root, int uid, int gid, long maxFileBytes, long tmpBytes, int nproc, long dataBytes,
                boolean infoFd) {
    }

    /**
     * What the host is, read once by {@link Host#jailFacts()}.
     *
     * @param bwrap     bwrap's path
     * @param setpriv   setpriv's path (used as root only)
     * @param prlimit   prlimit's path, or null: then no open-files, core or file-size limit is set
     * @param nofile    the jail's RLIMIT_NOFILE
     * @param rootLinks the host's top-level entries among {@link #ROOT_ENTRIES}: a symlink's target, or "" for a
     *                  directory; absent ones are left out
     */
    record HostFacts(String bwrap, String setpriv, String prlimit, long nofile, Map<String, String> rootLinks) {
        HostFacts {
            rootLinks = Map.copyOf(rootLinks);
        }
    }

    /** The host's top-level directories the jail mirrors (read-only, or as the same symlink), in this order. */
    static final List<String> ROOT_ENTRIES = List.of("bin", "sbin", "lib", "lib64", "lib32", "libx32");

    /**
     * Host paths.
     *
     * @param ctl       the sandbox's control directory (the launcher's working directory, its files' home)
     * @param workspace bound read-write at {@code /workspace}
     * @param agentDir  the agent's binaries, bound read-only at {@link #AGENT_DIR}
     * @param mounts    extra binds after the workspace's (read-only host paths, scratch directories), in order
     */
    record Paths(Path ctl, Path workspace, Path agentDir, List<Bind> mounts) {
        Paths {
            mounts = List.copyOf(mounts);
        }

        Paths(Path ctl, Path workspace, Path agentDir) {
            this(ctl, workspace, agentDir, List.of());
        }
    }

    /**
     * One extra bind: {@code host} at {@code dest} in the jail, read-only or not. Binds under {@code /workspace} come
     * after the workspace's own, so they cover it there.
     */
    record Bind(Path host, String dest, boolean readOnly) {
        List<String> args() {
            return List.of(readOnly ? "--ro-bind" : "--bind", host.toString(), dest);
        }
    }

    JailCommandLine {
        bwrap = List.copyOf(bwrap);
        agent = List.copyOf(agent);
        launcher = List.copyOf(launcher);
    }

    /**
     * The command line; {@code placeLauncher} (shell lines placing {@code $$} in the sandbox's cgroups) and
     * {@code launchPrefix} (a command the launcher runs under, e.g. {@code systemd-run}) come from the cgroup
     * setting. An {@link IllegalArgumentException} for a path or argument the script cannot quote.
     */
    static JailCommandLine of(Jail jail, HostFacts host, Paths paths, String placeLauncher,
                              List<String> launchPrefix) {
        List<String> bwrap = bwrapArgs(jail, host, paths);
        List<String> agent = agentArgv(jail);
        List<String> launcher = new ArrayList<>(launchPrefix);
        launcher.addAll(List.of("/bin/sh", "-c", script(jail, host, paths, placeLauncher, agent)));
        return new JailCommandLine(bwrap, agent, launcher);
    }

    /** The launcher's script (the last element of {@link #launcher}). */
    String script() {
        return launcher.get(launcher.size() - 1);
    }

    static List<String> bwrapArgs(Jail jail, HostFacts host, Paths paths) {
        List<String> a = new ArrayList<>();
        if (jail.infoFd()) {
            a.addAll(List.of("--info-fd", "9"));
        }
        a.addAll(List.of(
                // every namespace, the network's too: the jail has loopback only (egress goes through the agent)
                "--unshare-all", "--unshare-user", "--disable-userns",
                // the agent is the jail's init (as it is the container's on Docker): no bwrap reaper process between
                "--as-pid-1",
                "--die-with-parent", "--new-session", "--cap-drop", "ALL",
                "--clearenv",
                "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin",
                "--setenv", "HOME", "/workspace",
                "--setenv", "TMPDIR", "/tmp",
                "--setenv", "LANG", "C.UTF-8",
                "--setenv", "USER", "sandbox",
                "--setenv", "LOGNAME", "sandbox",
                "--hostname", "sandbox",
                "--ro-bind", "/usr", "/usr"));
        for (String d : ROOT_ENTRIES) {
            String link = host.rootLinks().get(d);
            if (link == null) {
                continue;
            }
            a.addAll(link.isEmpty() ? List.of("--ro-bind", "/" + d, "/" + d) : List.of("--symlink", link, "/" + d));
        }
        a.addAll(List.of("--perms", "0755", "--dir", "/etc"));
        for (String e : List.of("/etc/alternatives", "/etc/ssl", "/etc/ca-certificates", "/etc/ld.so.cache",
                "/etc/localtime")) {
            a.addAll(List.of("--ro-bind-try", e, e));
        }
        // the jail's own users, group and hosts (fds 5 to 8), a new /proc of its pid namespace, a minimal /dev
        a.addAll(List.of("--ro-bind-data", "5", "/etc/passwd", "--ro-bind-data", "6", "/etc/group",
                "--ro-bind-data", "7", "/etc/hosts", "--ro-bind-data", "8", "/etc/nsswitch.conf",
                "--proc", "/proc", "--dev", "/dev"));
        long tmp = jail.tmpBytes();
        a.addAll(List.of("--perms", "1777"));
        if (tmp > 0) {
            a.addAll(List.of("--size", Long.toString(Math.min(tmp, 64L << 20))));
        }
        a.addAll(List.of("--tmpfs", "/dev/shm", "--perms", "1777"));
        if (tmp > 0) {
            a.addAll(List.of("--size", Long.toString(tmp)));
        }
        a.addAll(List.of("--tmpfs", "/tmp",
                "--bind", paths.workspace().toString(), "/workspace"));
        for (Bind b : paths.mounts()) {
            a.addAll(b.args());
        }
        a.addAll(List.of("--ro-bind", paths.agentDir().toString(), AGENT_DIR));
        a.addAll(List.of("--chdir", "/workspace", "--remount-ro", "/"));
        a.addAll(List.of("--seccomp", "4")); // the program: the control file "seccomp"
        return a;
    }

    /**
     * The jail's command: {@code sbx-agent [--nproc=N] [--data=BYTES]}. Each command runs as
     * {@code sbx-reaper -- argv} with, on hosts without a pids or memory cgroup, RLIMIT_NPROC = N + 1 (the agent,
     * single-threaded, which is the jail's init; the count is per user namespace: this jail's) and RLIMIT_DATA =
     * BYTES, soft = hard.
     */
    static List<String> agentArgv(Jail jail) {
        List<String> cmd = new ArrayList<>(List.of(AGENT_PATH));
        if (jail.nproc() > 0) {
            cmd.add("--nproc=" + jail.nproc());
        }
        if (jail.dataBytes() > 0) {
            cmd.add("--data=" + jail.dataBytes());
        }
        return cmd;
    }

    /**
     * The launcher's script: joins the cgroups, opens the control files on fds 3 to 8 (and 9 for bwrap's info),
     * deletes them (the jail holds only descriptors), then execs prlimit, setpriv (root) and bwrap.
     */
    private static String script(Jail jail, HostFacts host, Paths paths, String placeLauncher, List<String> agent) {
        String c = quotable(paths.ctl().toString());
        StringBuilder script = new StringBuilder(placeLauncher);
        script.append("exec");
        for (int i = 0; i < CONTROL_FILES.size(); i++) {
            script.append(' ').append(i + 3).append("<'").append(c).append('/')
                    .append(CONTROL_FILES.get(i)).append('\'');
        }
        script.append(jail.infoFd() ? " 9>'" + c + "/info'" : "").append(" || exit 122\n");
        script.append("rm -f");
        for (String f : CONTROL_FILES) {
            script.append(" '").append(c).append('/').append(f).append('\'');
        }
        script.append("\nexec");
        if (host.prlimit() != null) {
            script.append(" '").append(quotable(host.prlimit())).append("' --nofile=").append(host.nofile())
                    .append(':').append(host.nofile()).append(" --core=0:0");
            if (jail.maxFileBytes() > 0) {
                script.append(" --fsize=").append(jail.maxFileBytes()).append(':').append(jail.maxFileBytes());
            }
        }
        if (jail.root()) {
            script.append(" '").append(quotable(host.setpriv())).append("' --reuid=").append(jail.uid())
                    .append(" --regid=").append(jail.gid())
                    .append(" --clear-groups --inh-caps=-all --bounding-set=-all --");
        }
        script.append(" '").append(quotable(host.bwrap())).append("' --args 3 --");
        for (String part : agent) {
            script.append(" '").append(quotable(part)).append('\'');
        }
        return script.append('\n').toString();
    }

    private static String quotable(String s) {
        if (s.indexOf('\'') >= 0 || s.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("unsupported character in a jail path or argument: " + s);
        }
        return s;
    }

    /**
     * The control files by name, in {@link #CONTROL_FILES} order: bwrap's arguments (NUL-separated), the seccomp
     * program ({@code seccompProgram}, as {@link Seccomp#program()} makes it), and the jail's passwd, group, hosts and
     * nsswitch.conf.
     */
    Map<String, byte[]> controlFiles(Jail jail, byte[] seccompProgram) {
        Map<String, byte[]> files = new LinkedHashMap<>();
        files.put("args", nulJoin(bwrap));
        files.put("seccomp", seccompProgram.clone());
        files.put("passwd", utf8("root:x:0:0:root:/root:/usr/sbin/nologin\n"
                + "sandbox:x:" + jail.uid() + ":" + jail.gid() + ":sandbox:/workspace:/bin/sh\n"
                + "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"));
        files.put("group", utf8("root:x:0:\nsandbox:x:" + jail.gid() + ":\nnogroup:x:65534:\n"));
        // localhost resolves to loopback, as in a container; no resolver is consulted (there is no network)
        files.put("hosts", utf8("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
                + "127.0.1.1\tsandbox\n"));
        files.put("nsswitch", utf8("passwd: files\ngroup: files\nhosts: files\n"));
        return files;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] nulJoin(List<String> args) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (String s : args) {
            if (s.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("NUL in a jail argument");
            }
            b.writeBytes(s.getBytes(StandardCharsets.UTF_8));
            b.write(0);
        }
        return b.toByteArray();
    }
}
