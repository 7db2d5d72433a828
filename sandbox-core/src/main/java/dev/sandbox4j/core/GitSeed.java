package dev.sandbox4j.core;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Mount;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Shell;
import dev.sandbox4j.WorkspaceSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A git workspace source ({@code WorkspaceSource.git}), the same on every backend with a shell: git runs inside the
 * sandbox, as the sandbox user, so nothing of the repository (its hooks, its configuration, a crafted object that
 * attacks git itself) runs on the host. A URL goes through the sandbox's network policy like any command's traffic; a
 * host path is mounted read-only at {@link #SOURCE} (the backend's read-only mount) and cloned with the {@code file://}
 * transport, which honours {@code --depth}.
 */
public final class GitSeed {
    /** Where a host repository is mounted read-only for its clone. */
    public static final String SOURCE = "/mnt/sandbox4j-git-source";
    static final Duration TIMEOUT = Duration.ofMinutes(10);
    static final String CONFIG = "/tmp/.sandbox4j-git-clone-config";

    private GitSeed() {
    }

    /** The spec a backend opens: a git source from a host path gets its read-only mount. */
    public static SandboxSpec withMount(SandboxSpec spec) {
        WorkspaceSource s = spec.workspace();
        if (s.kind() != WorkspaceSource.Kind.GIT || s.hostDir().isEmpty()) {
            return spec;
        }
        HostDirs.check(s.hostDir().get(), "the git repository", false); // typed errors before anything is made
        return spec.toBuilder().mount(Mount.readOnly(s.hostDir().get(), SOURCE)).build();
    }

    /** Clones into the (empty) workspace; what {@code info()} then says under {@code workspace source}. */
    static String cloneInto(Shell shell, WorkspaceSource s) {
        String from = s.hostDir().isPresent() ? "file://" + SOURCE : s.gitRepository().orElseThrow();
        // safe.directory is honoured only from protected configuration, and the clone's upload-pack (a child) does not
        // see -c: a global configuration file of the clone's own, in the sandbox's /tmp, says the mounted source
        // (owned by another uid) is safe. The workspace's own configuration stays untouched.
        List<String> argv = new ArrayList<>(List.of("sh", "-c", "printf '[safe]\\n\\tdirectory = *\\n' > " + CONFIG
                + " && GIT_CONFIG_GLOBAL=" + CONFIG + " exec git -c advice.detachedHead=false \"$@\"", "sh",
                "clone", "--quiet", "--no-tags"));
        if (s.shallow()) {
            argv.addAll(List.of("--depth", "1"));
        }
        s.gitRef().ifPresent(ref -> argv.addAll(List.of("--branch", ref)));
        argv.addAll(List.of("--", from, "."));
        ExecResult r;
        try {
            r = shell.run(ExecRequest.argv(argv).withTimeout(TIMEOUT).withEnv("GIT_TERMINAL_PROMPT", "0"));
        } catch (SandboxException e) {
            throw new SandboxException(e.kind(), "cloning " + s + " in the sandbox: " + e.getMessage(), e);
        }
        if (r.exitCode() == 127) {
            throw new SandboxException(ErrorKind.UNSUPPORTED, "cloning " + s + ": the sandbox has no git (install "
                    + "it in the image or on the host)");
        }
        if (r.exitCode() != 0) {
            String err = r.stderr().strip();
            ErrorKind kind = err.contains("not found") || err.contains("does not appear to be a git repository")
                    || err.contains("Could not find remote branch") || err.contains("does not exist")
                    ? ErrorKind.NOT_FOUND : ErrorKind.IO_ERROR;
            throw new SandboxException(kind, "cloning " + s + " in the sandbox failed (exit " + r.exitCode() + "): "
                    + (err.length() > 2000 ? err.substring(0, 2000) + "..." : err));
        }
        ExecResult head = shell.run(ExecRequest.argv("git", "rev-parse", "HEAD"));
        return s + " (cloned in the sandbox" + (s.shallow() ? ", shallow" : "") + "; HEAD "
                + head.stdout().strip() + ")";
    }
}
