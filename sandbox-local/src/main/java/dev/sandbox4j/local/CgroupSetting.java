package dev.sandbox4j.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * What cgroups this JVM can use, found once: cgroup v1 as root; cgroup v2 under a configured parent, at the top as
 * root, or in the JVM's own delegated subtree (a systemd service with {@code Delegate=yes}, a {@code systemd-run
 * --user -p Delegate=yes} scope, a container's cgroup namespace); or none, with the reason. For the delegated case
 * it does what crun and podman do: the JVM's processes move to a leaf ({@code jvm}) so that the group may enable
 * controllers for its children (cgroup v2's no-internal-processes rule), then sandboxes go under {@code sandbox4j}.
 */
final class CgroupSetting {
    enum Kind { V1, V2, NONE }

    final Kind kind;
    /** v2: the group sandboxes are made in. */
    final Path parent;
    final boolean memory;
    final boolean pids;
    final boolean cpu;
    /**
     * v2 without a writable group of our own: each sandbox's launcher starts in a transient systemd user scope with
     * {@code Delegate=yes} ({@code systemd-run --user --scope}), whose limits systemd sets and inside which the
     * sandbox makes its own groups. Null when not used.
     */
    final List<String> scope;
    /** What this is, for info() and errors. */
    final String description;
    /** Why a controller (or any group) is missing, with what to change; empty when all three are there. */
    final String missing;

    private static volatile CgroupSetting current;
    private static volatile Path currentParentOption;

    private CgroupSetting(Kind kind, Path parent, boolean memory, boolean pids, boolean cpu, String description,
                          String missing) {
        this(kind, parent, memory, pids, cpu, null, description, missing);
    }

    private CgroupSetting(Kind kind, Path parent, boolean memory, boolean pids, boolean cpu, List<String> scope,
                          String description, String missing) {
        this.kind = kind;
        this.parent = parent;
        this.memory = memory;
        this.pids = pids;
        this.cpu = cpu;
        this.scope = scope;
        this.description = description;
        this.missing = missing;
    }

    /** The setting in use (null before the first probe). */
    static CgroupSetting current() {
        return current;
    }

    static synchronized CgroupSetting get(LocalOptions options) {
        CgroupSetting s = current;
        if (s == null || !java.util.Objects.equals(currentParentOption, options.cgroupParent())) {
            s = probe(options.cgroupParent(), Host.isRoot());
            current = s;
            currentParentOption = options.cgroupParent();
        }
        return s;
    }

    Cgroups create(String id, long memoryBytes, int maxProcesses, double cpus) throws IOException {
        return switch (kind) {
            case V1 -> CgroupsV1.create(id, memoryBytes, maxProcesses, cpus);
            case V2 -> scope != null ? CgroupsV2.scoped(this, id, memoryBytes, maxProcesses, cpus)
                    : CgroupsV2.create(this, id, memoryBytes, maxProcesses, cpus);
            case NONE -> Cgroups.none();
        };
    }

    List<String> leftovers(String prefix) {
        return switch (kind) {
            case V1 -> CgroupsV1.leftovers(prefix);
            case V2 -> Cgroups.subgroups(parent).stream().filter(p -> p.getFileName().toString().startsWith(prefix))
                    .map(p -> "cgroup " + p).toList();
            case NONE -> List.of();
        };
    }

    /** Kills and removes the sandbox groups whose owner is dead; returns how many went. */
    int reap(Predicate<String> deadOwner) {
        return switch (kind) {
            case V1 -> CgroupsV1.reap(deadOwner);
            case V2 -> {
                int n = 0;
                for (Path g : Cgroups.subgroups(parent)) {
                    if (deadOwner.test(g.getFileName().toString())) {
                        CgroupsV2.killAll(g);
                        if (Cgroups.removeTreeRetrying(g, 2_000)) {
                            n++;
                        }
                    }
                }
                yield n;
            }
            case NONE -> 0;
        };
    }

    // ---------------------------------------------------------------- probing

    static CgroupSetting probe(Path parentOption, boolean root) {
        Path top = Cgroups.ROOT;
        if (Files.exists(top.resolve("cgroup.controllers"))) {
            return probeV2(top, parentOption, root);
        }
        if (Files.exists(top.resolve("memory/tasks")) || Files.exists(top.resolve("pids/tasks"))) {
            if (!root) {
                return none("cgroup v1 lets only root create groups, and the JVM runs as uid " + Host.currentUid()
                        + "; run it as root, or on a cgroup v2 host under systemd with a delegated cgroup "
                        + "(a service with Delegate=yes, or systemd-run --user -p Delegate=yes --scope java ...)");
            }
            boolean mem = CgroupsV1.usable("memory");
            boolean pid = CgroupsV1.usable("pids");
            boolean cp = CgroupsV1.usable("cpu");
            String missing = missingText(mem, pid, cp, "these cgroup v1 controllers are not mounted or writable");
            return new CgroupSetting(Kind.V1, null, mem, pid, cp, "cgroup v1 (root)", missing);
        }
        return none("no cgroup file system is mounted at " + top);
    }

    private static CgroupSetting probeV2(Path top, Path parentOption, boolean root) {
        if (parentOption != null) {
            Path p = parentOption.isAbsolute() ? parentOption : top.resolve(parentOption);
            return v2At(p, "cgroup v2, configured parent " + p);
        }
        List<String> tried = new ArrayList<>();
        if (root) {
            for (String c : List.of("memory", "pids", "cpu")) {
                Cgroups.write(top.resolve("cgroup.subtree_control"), "+" + c);
            }
            CgroupSetting s = v2At(top.resolve(Cgroups.PARENT), "cgroup v2 (root), " + top.resolve(Cgroups.PARENT));
            if (s.kind == Kind.V2) {
                return s;
            }
            tried.add(s.missing);
        }
        Path own = ownGroup();
        if (own == null) {
            return none("cannot read this JVM's cgroup from /proc/self/cgroup");
        }
        if (!Files.isWritable(own) || !Files.isWritable(own.resolve("cgroup.procs"))
                || !Files.isWritable(own.resolve("cgroup.subtree_control"))) {
            CgroupSetting scoped = root ? null : userScope(own);
            if (scoped != null && scoped.kind == Kind.V2) {
                return scoped;
            }
            if (scoped != null) {
                tried.add(scoped.missing);
            }
            String owner;
            try {
                owner = "uid " + Files.getAttribute(own, "unix:uid");
            } catch (IOException | RuntimeException e) {
                owner = "another user";
            }
            return none("the JVM's cgroup " + own + " is owned by " + owner + " and not delegated to uid "
                    + Host.currentUid() + " (cgroup v2 lets a non-root user make groups only in a delegated subtree); "
                    + "run the JVM in a systemd service with Delegate=yes, or under systemd-run --user "
                    + "-p Delegate=yes --scope java ..., or name a writable parent with "
                    + "LocalOptions.withCgroupParent" + (tried.isEmpty() ? "" : "; also tried: " + tried));
        }
        String moved = moveToLeaf(own);
        if (moved != null) {
            return none("the JVM's cgroup " + own + " is delegated, but " + moved);
        }
        for (String c : List.of("memory", "pids", "cpu")) {
            if (controllers(own).contains(c)) {
                Cgroups.write(own.resolve("cgroup.subtree_control"), "+" + c);
            }
        }
        return v2At(own.resolve(Cgroups.PARENT), "cgroup v2, delegated subtree " + own);
    }

    /**
     * The systemd user manager's transient scopes, when the JVM's own group is not delegated (a login session, a
     * service without Delegate=yes): one probe scope says which controllers a sandbox's scope gets. Null when there
     * is no systemd-run or no user manager to ask.
     */
    private static CgroupSetting userScope(Path own) {
        String systemdRun = Host.which("systemd-run");
        Path bus = Path.of("/run/user/" + Host.currentUid() + "/bus");
        if (systemdRun == null) {
            return null;
        }
        if (!Files.exists(bus)) {
            return none("no systemd user manager bus at " + bus + " for transient scopes (start the user manager: "
                    + "loginctl enable-linger for a service account; the bus needs dbus-user-session)");
        }
        List<String> scope = List.of(systemdRun, "--user", "--scope", "--quiet", "--collect", "-p", "Delegate=yes",
                "-p", "MemoryAccounting=yes", "-p", "TasksAccounting=yes", "-p", "CPUAccounting=yes");
        List<String> probe = new ArrayList<>(scope);
        probe.addAll(List.of("--", "/bin/sh", "-c", "cat \"/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)"
                + "/cgroup.controllers\""));
        String out;
        try {
            ProcessBuilder pb = new ProcessBuilder(probe).redirectErrorStream(true);
            userBusEnv(pb);
            Process p = pb.start();
            byte[] bytes = p.getInputStream().readNBytes(4096);
            if (!p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return none("systemd-run --user did not answer within 10 s");
            }
            out = new String(bytes, java.nio.charset.StandardCharsets.UTF_8).trim();
            if (p.exitValue() != 0) {
                return none("systemd-run --user --scope failed (" + out + ")");
            }
        } catch (IOException e) {
            return none("cannot run systemd-run: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
        List<String> on = List.of(out.split("\\s+"));
        boolean mem = on.contains("memory");
        boolean pid = on.contains("pids");
        boolean cp = on.contains("cpu");
        if (!mem && !pid && !cp) {
            return none("a systemd user scope gets no controller here ('" + out + "')");
        }
        String missing = missingText(mem, pid, cp, "the systemd user manager does not delegate these controllers "
                + "(see user@.service's Delegate=)");
        return new CgroupSetting(Kind.V2, null, mem, pid, cp, scope, "cgroup v2, a transient systemd user scope "
                + "per sandbox (the JVM's cgroup " + own + " is not delegated)", missing);
    }

    /** systemd-run --user needs the user manager's bus; a service's environment often lacks the variables. */
    static void userBusEnv(ProcessBuilder pb) {
        String dir = "/run/user/" + Host.currentUid();
        pb.environment().putIfAbsent("XDG_RUNTIME_DIR", dir);
        pb.environment().putIfAbsent("DBUS_SESSION_BUS_ADDRESS", "unix:path=" + dir + "/bus");
    }

    /** Makes {@code p} (if needed) and enables the three controllers for its children. */
    private static CgroupSetting v2At(Path p, String description) {
        if (!Cgroups.mkdir(p)) {
            return none("cannot create " + p);
        }
        List<String> available = controllers(p);
        for (String c : List.of("memory", "pids", "cpu")) {
            if (available.contains(c)) {
                Cgroups.write(p.resolve("cgroup.subtree_control"), "+" + c);
            }
        }
        List<String> on = List.of(Cgroups.read(p.resolve("cgroup.subtree_control")).trim().split("\\s+"));
        boolean mem = on.contains("memory");
        boolean pid = on.contains("pids");
        boolean cp = on.contains("cpu");
        if (!mem && !pid && !cp) {
            return none("no controller can be enabled in " + p + " (its cgroup.controllers: '"
                    + String.join(" ", available) + "'); the parent must delegate memory, pids and cpu");
        }
        String missing = missingText(mem, pid, cp, "these controllers are not delegated to " + p
                + " (systemd delegates memory and pids to user services by default, cpu only with "
                + "Delegate=yes or Delegate=cpu memory pids)");
        return new CgroupSetting(Kind.V2, p, mem, pid, cp, description, missing);
    }

    /**
     * Moves every process of {@code own} into {@code own/jvm}, so that {@code own} may enable controllers; null on
     * success, else why not.
     */
    private static String moveToLeaf(Path own) {
        if (Cgroups.procs(own).isEmpty()) {
            return null;
        }
        Path leaf = own.resolve("jvm");
        if (!Cgroups.mkdir(leaf)) {
            return "cannot create " + leaf;
        }
        for (int round = 0; round < 20; round++) {
            List<Long> left = Cgroups.procs(own);
            if (left.isEmpty()) {
                return null;
            }
            for (long pid : left) {
                Cgroups.write(leaf.resolve("cgroup.procs"), Long.toString(pid));
            }
        }
        return "processes of " + own + " could not be moved to " + leaf + " (another user's?): "
                + Cgroups.procs(own);
    }

    /** This JVM's cgroup v2 directory, from the {@code 0::} line of /proc/self/cgroup. */
    static Path ownGroup() {
        for (String line : Cgroups.read(Path.of("/proc/self/cgroup")).split("\n")) {
            if (line.startsWith("0::/")) {
                String rel = line.substring(4).trim();
                return rel.isEmpty() ? Cgroups.ROOT : Cgroups.ROOT.resolve(rel);
            }
        }
        return null;
    }

    private static List<String> controllers(Path g) {
        return List.of(Cgroups.read(g.resolve("cgroup.controllers")).trim().split("\\s+"));
    }

    private static String missingText(boolean mem, boolean pid, boolean cp, String why) {
        List<String> m = new ArrayList<>();
        if (!mem) {
            m.add("memory");
        }
        if (!pid) {
            m.add("pids");
        }
        if (!cp) {
            m.add("cpu");
        }
        return m.isEmpty() ? "" : String.join(", ", m) + ": " + why;
    }

    private static CgroupSetting none(String why) {
        return new CgroupSetting(Kind.NONE, null, false, false, false, "no cgroups", why);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%s (memory=%s pids=%s cpu=%s)%s", description, memory, pids, cpu,
                missing.isEmpty() ? "" : "; missing " + missing);
    }
}
