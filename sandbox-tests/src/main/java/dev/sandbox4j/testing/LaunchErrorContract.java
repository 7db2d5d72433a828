package dev.sandbox4j.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.Sandbox;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An argv command whose program cannot be run (issue 36): a result, not an exception, with the exit code a shell
 * gives (127 nothing to run, 126 found but not runnable) and a shell's words on stderr, naming the program as given
 * and nothing of how the backend launches it. Arguments that look like options of a launcher are the program's
 * name, never options.
 */
public interface LaunchErrorContract extends ConformanceSupport {
    private static void assertFailed(ExecResult r, int exitCode, String stderr) {
        assertThat(r.status()).as(stderr).isEqualTo(ExecStatus.COMPLETED);
        assertThat(r.exitCode()).as(stderr).isEqualTo(exitCode);
        assertThat(r.stderr()).isEqualTo(stderr);
        assertThat(r.stdout()).isEmpty();
        assertThat(r.stderr()).doesNotContain("sbx-", "reaper", "sandbox4j");
    }

    @Test
    default void argv_missingProgram_commandNotFound127(Sandbox sandbox) {
        for (List<String> argv : List.of(List.of("--help"), List.of("--bind", "/", "/x"), List.of("-c", "id"),
                List.of("no-such-program-xyz", "arg"))) {
            ExecResult r = sandbox.shell().run(ExecRequest.argv(argv));
            assertFailed(r, 127, argv.get(0) + ": command not found\n");
        }
        assertThat(sandbox.files().exists("x")).as("no launcher took --bind as an option").isFalse();
    }

    @Test
    default void argv_missingPath_noSuchFile127(Sandbox sandbox) {
        assertFailed(sandbox.shell().run(ExecRequest.argv("./missing.sh")), 127,
                "./missing.sh: no such file or directory\n");
        String root = fixture().workspaceRoot(sandbox);
        assertFailed(sandbox.shell().run(ExecRequest.argv(root + "/missing.sh", "a")), 127,
                root + "/missing.sh: no such file or directory\n");
    }

    @Test
    default void argv_fileNotExecutable_permissionDenied126(Sandbox sandbox) {
        sandbox.files().write("plain.sh", "echo ran > ran.txt\n");
        assertFailed(sandbox.shell().run(ExecRequest.argv("./plain.sh")), 126, "./plain.sh: permission denied\n");
        String root = fixture().workspaceRoot(sandbox);
        assertFailed(sandbox.shell().run(ExecRequest.argv(root + "/plain.sh")), 126,
                root + "/plain.sh: permission denied\n");
        assertThat(sandbox.files().exists("ran.txt")).isFalse();
    }

    @Test
    default void argv_directory_isADirectory126(Sandbox sandbox) {
        sandbox.files().mkdirs("adir/sub");
        assertFailed(sandbox.shell().run(ExecRequest.argv("./adir")), 126, "./adir: is a directory\n");
        assertFailed(sandbox.shell().run(ExecRequest.argv("sub/").withCwd("adir")), 126, "sub/: is a directory\n");
    }
}
