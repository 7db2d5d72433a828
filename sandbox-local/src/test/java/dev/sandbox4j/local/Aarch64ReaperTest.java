package dev.sandbox4j.local;

import static dev.sandbox4j.local.ReaperRun.seconds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.abort;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sandbox4j.core.AgentBinary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The aarch64 reaper run under qemu-user. */
class Aarch64ReaperTest {
    @TempDir
    Path dir;

    /** The aarch64 reaper, or a skip naming the missing cross compiler. */
    private static byte[] aarch64Reaper() throws IOException {
        try {
            return AgentBinary.bytes(AgentBinary.REAPER, "aarch64");
        } catch (IOException e) {
            return abort("this build has no aarch64 binaries (no aarch64-linux-gnu-gcc when it ran): "
                    + e.getMessage());
        }
    }

    private static String qemu() {
        for (String name : new String[] {"qemu-aarch64-static", "qemu-aarch64"}) {
            for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
                Path p = Paths.get(d, name);
                if (!d.isEmpty() && Files.isExecutable(p)) {
                    return p.toString();
                }
            }
        }
        return null;
    }

    @Test
    void aarch64ReaperUnderQemu() throws Exception {
        String qemu = qemu();
        assumeTrue(qemu != null, "no qemu-aarch64(-static) on PATH (Debian: qemu-user-static)");
        aarch64Reaper();
        Path reaper = ReaperRun.extract(dir, "aarch64");
        Path marker = dir.resolve("ran");

        ReaperRun usage = ReaperRun.start(dir, List.of(qemu, reaper.toString()));
        assertThat(usage.await(seconds(30))).isEqualTo(125);
        assertThat(usage.stderr()).startsWith("sbx-reaper: usage:");

        ReaperRun eof = ReaperRun.start(dir, argv(qemu, reaper, "touch \"$1\"; exit 7", marker));
        assertThat(eof.closeStdin().await(seconds(30))).isEqualTo(125);
        assertThat(marker).doesNotExist();

        ReaperRun run = ReaperRun.start(dir, argv(qemu, reaper, "touch \"$1\"; exit 7", marker));
        int rc = run.gate().await(seconds(30));
        if (rc == 125 && run.stderr().equals("sandbox4j: cannot start the command: prctl: Invalid argument\n")) {
            // it failed closed: the command did not run
            assertThat(marker).doesNotExist();
            abort("this qemu-user (" + qemu + ") answers prctl(PR_SET_CHILD_SUBREAPER) with EINVAL, so the aarch64"
                    + " reaper refuses to run commands under it (exit 125, checked); exit-code passthrough needs a"
                    + " qemu-user that emulates it, or an arm64 machine");
        }
        assertThat(rc).as(run.stderr()).isEqualTo(7);
        assertThat(marker).exists();
        ReaperRun killed = ReaperRun.start(dir, argv(qemu, reaper, "kill -KILL $$", marker));
        assertThat(killed.gate().await(seconds(30))).isEqualTo(137);
    }

    private static List<String> argv(String qemu, Path reaper, String script, Path arg) {
        List<String> argv = new ArrayList<>(List.of(qemu));
        argv.addAll(ReaperRun.reaperArgv(reaper, "/bin/sh", "-c", script, "script", arg.toString()));
        return argv;
    }
}
