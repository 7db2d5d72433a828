package dev.sandbox4j.local;

import dev.sandbox4j.core.SandboxHost;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.IntPredicate;

/** What the shared shell needs of a jail's cgroups: each command placed in its own groups, signals, counters. */
final class JailControl implements SandboxHost.ProcessControl {
    private final Cgroups cgroups;

    JailControl(Cgroups cgroups) {
        this.cgroups = cgroups;
    }

    @Override
    public String place(int agentPid, int commandId) {
        if (!cgroups.perCommand()) {
            return null;
        }
        Phases.mark("run: spawned");
        long host = hostPid(agentPid);
        Phases.mark("run: gate's host pid found");
        if (host <= 0) {
            return "its process was not found in the sandbox";
        }
        boolean placed = cgroups.placeCommand(host, commandId);
        Phases.mark("run: placed in cgroups");
        return placed ? null : "it could not be placed in its cgroups";
    }

    @Override
    public boolean hasGroup(int commandId) {
        return cgroups.hasCommandGroup(commandId);
    }

    @Override
    public void signalGroup(int commandId, boolean kill) {
        cgroups.signal(commandId, kill);
    }

    @Override
    public void pruneGroups(IntPredicate live) {
        cgroups.pruneCommandGroups(live);
    }

    @Override
    public long oomKills() {
        return cgroups.oomKills();
    }

    @Override
    public long pidsDenied() {
        return cgroups.pidsDenied();
    }

    /** The host pid of a jail pid, found among the sandbox's processes by their NSpid. */
    private long hostPid(int jailPid) {
        for (int attempt = 0; attempt < 50; attempt++) {
            List<Long> candidates = cgroups.sandboxPids();
            // newest first: the command's gate is almost always the last one listed
            for (int i = candidates.size() - 1; i >= 0; i--) {
                long p = candidates.get(i);
                try {
                    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(p), "status"))) {
                        if (line.startsWith("NSpid:")) {
                            String[] parts = line.substring(6).trim().split("\\s+");
                            if (parts.length > 1 && parts[parts.length - 1].equals(Integer.toString(jailPid))) {
                                return p;
                            }
                        }
                    }
                } catch (IOException | RuntimeException ignored) {
                    // exited
                }
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1;
            }
        }
        return -1;
    }
}
