package dev.sandbox4j.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Feature;
import dev.sandbox4j.Mount;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Workspace.Change;
import dev.sandbox4j.WorkspaceSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 35: workspaces from a host directory. Gated by {@link Feature#WORKSPACE_OVERLAY},
 * {@link Feature#WORKSPACE_COPY}, {@link Feature#WORKSPACE_BIND} and {@link Feature#READ_ONLY_MOUNTS}, each with its
 * twin: a backend without the feature refuses the source at open with {@link ErrorKind#UNSUPPORTED}. The host
 * directories are made under the JVM's temp directory, world-readable (a jail may run as another uid).
 */
public interface WorkspaceSourceContract extends ConformanceSupport {
    /**
     * The contract's specs ask for no workspace quota: combining a source with a quota is a backend's own choice
     * (the local backend refuses it when not root, as its quota's tmpfs is mounted over the workspace in the jail).
     */
    private static SandboxSpec.Builder base() {
        return SandboxSpec.builder().limits(dev.sandbox4j.ResourceLimits.DEFAULTS.withoutWorkspaceQuota());
    }

    /** A small repository: text, an executable, a nested file, a relative link, a binary file. */
    private static Path repo() {
        try {
            Path d = Files.createTempDirectory("sandbox4j-kit-repo-");
            Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.writeString(d.resolve("README.md"), "# demo\nline two\n");
            Files.writeString(d.resolve("build.sh"), "#!/bin/sh\necho build\n");
            Files.setPosixFilePermissions(d.resolve("build.sh"), PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.createDirectories(d.resolve("src/main"));
            Files.setPosixFilePermissions(d.resolve("src"), PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.setPosixFilePermissions(d.resolve("src/main"), PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.writeString(d.resolve("src/main/App.java"), "class App {}\n");
            Files.writeString(d.resolve("old.txt"), "to be deleted\n");
            Files.write(d.resolve("logo.bin"), new byte[] {(byte) 0x89, 'P', 'N', 'G', 0, 0, 1});
            Files.createSymbolicLink(d.resolve("docs"), Path.of("README.md"));
            for (String f : List.of("README.md", "src/main/App.java", "old.txt", "logo.bin")) {
                Files.setPosixFilePermissions(d.resolve(f), PosixFilePermissions.fromString("rw-r--r--"));
            }
            // a backend whose apply-back baseline is the kernel's ctime (local) calls files changed in the last
            // moments before the open conflicts (it cannot tell them from changes after it): a repository is older
            Thread.sleep(150);
            return d;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void delete(Path d) {
        if (d == null || !Files.exists(d)) {
            return;
        }
        try (Stream<Path> s = Files.walk(d)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every entry of a tree: path -> content (files), target (links), "dir"; plus the mode. */
    private static Map<String, String> snapshot(Path d) {
        Map<String, String> m = new TreeMap<>();
        try (Stream<Path> s = Files.walk(d)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                String rel = d.relativize(p).toString();
                String mode = Files.isSymbolicLink(p) ? "" : " " + PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(p));
                m.put(rel, Files.isSymbolicLink(p) ? "-> " + Files.readSymbolicLink(p)
                        : Files.isDirectory(p) ? "dir" + mode : java.util.Arrays.toString(Files.readAllBytes(p)) + mode);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return m;
    }

    private static Map<String, Change.Kind> kinds(List<Change> changes) {
        Map<String, Change.Kind> m = new TreeMap<>();
        changes.forEach(c -> m.put(c.path(), c.kind()));
        return m;
    }

    private static ErrorKind kindOf(Runnable call) {
        SandboxException e = catchThrowableOfType(call::run, SandboxException.class);
        return e == null ? null : e.kind();
    }

    /** The sandbox's edits, through the file API (every backend has it) and, with a shell, a command. */
    private void edit(Sandbox s) {
        s.files().write("README.md", "# demo\nline 2\n");
        s.files().write("src/main/New.java", "class New {}\n");
        s.files().delete("old.txt");
        if (supports(Feature.SHELL)) {
            ExecResult r = s.shell().run("chmod 0700 build.sh && printf 'x\\000y' > data.bin");
            assertThat(r.exitCode()).as(r.stderr()).isZero();
        } else {
            s.files().write("data.bin", new byte[] {'x', 0, 'y'});
        }
    }

    private void checkEdited(Sandbox s, Path repo, Map<String, String> before) {
        assertThat(snapshot(repo)).as("the host directory is never written").isEqualTo(before);
        Map<String, Change.Kind> expected = new TreeMap<>(Map.of("README.md", Change.Kind.MODIFIED,
                "src/main/New.java", Change.Kind.CREATED, "old.txt", Change.Kind.DELETED,
                "data.bin", Change.Kind.CREATED));
        if (supports(Feature.SHELL)) {
            expected.put("build.sh", Change.Kind.MODIFIED);
        }
        assertThat(kinds(s.workspace().changes())).isEqualTo(expected);
        assertThat(s.workspace().diff()).contains("--- a/README.md\n+++ b/README.md\n", "-line two\n+line 2\n",
                "Binary files /dev/null and b/data.bin differ", "+++ /dev/null").doesNotContain("x\u0000y");
    }

    private void roundTrip(WorkspaceSource.Kind kind) throws IOException {
        Path repo = repo();
        Path target = null;
        try {
            Map<String, String> before = snapshot(repo);
            WorkspaceSource source = kind == WorkspaceSource.Kind.OVERLAY ? WorkspaceSource.overlayOf(repo)
                    : WorkspaceSource.copyOf(repo);
            try (Sandbox s = fixture().open(base().workspace(source).build())) {
                assertThat(s.workspace().source()).isEqualTo(source);
                assertThat(s.files().readText("src/main/App.java")).isEqualTo("class App {}\n");
                assertThat(s.files().stat("docs").isSymlink()).isTrue();
                assertThat(s.info().details().get("workspace source")).contains(kind.name().toLowerCase());
                edit(s);
                checkEdited(s, repo, before);
                target = Files.createTempDirectory("sandbox4j-kit-target-");
                delete(target);
                copyTree(repo, target);
                s.workspace().applyTo(target);
                Map<String, String> applied = snapshot(target);
                assertThat(applied).doesNotContainKey("old.txt").containsEntry("README.md",
                        java.util.Arrays.toString("# demo\nline 2\n".getBytes()) + " rw-r--r--");
                assertThat(applied.get("data.bin")).startsWith("[120, 0, 121]");
                if (supports(Feature.SHELL)) {
                    assertThat(applied.get("build.sh")).endsWith(" rwx------");
                }
            }
        } finally {
            delete(repo);
            delete(target);
        }
    }

    private static void copyTree(Path from, Path to) {
        try {
            assertThat(new ProcessBuilder("cp", "-a", from.toString(), to.toString()).start().waitFor()).isZero();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    @Requires(Feature.WORKSPACE_OVERLAY)
    default void overlay_seesTheHostDir_neverWritesIt_changesDiffAndApplyRoundTrip() throws IOException {
        roundTrip(WorkspaceSource.Kind.OVERLAY);
    }

    @Test
    @Requires(Feature.WORKSPACE_COPY)
    default void copy_seesTheHostDir_neverWritesIt_changesDiffAndApplyRoundTrip() throws IOException {
        roundTrip(WorkspaceSource.Kind.COPY);
    }

    @Test
    @Requires(Feature.WORKSPACE_OVERLAY)
    default void overlay_applyTo_hostChangedTheSameFile_conflictNamesIt_nothingApplied() {
        Path repo = repo();
        try (Sandbox s = fixture().open(base().workspace(WorkspaceSource.overlayOf(repo)).build())) {
            edit(s);
            Files.writeString(repo.resolve("README.md"), "# the user's own edit\n");
            Map<String, String> before = snapshot(repo);
            SandboxException e = catchThrowableOfType(() -> s.workspace().applyTo(repo), SandboxException.class);
            assertThat(e).isNotNull();
            assertThat(e.kind()).isEqualTo(ErrorKind.CONFLICT);
            assertThat(e.getMessage()).contains("README.md").doesNotContain("New.java");
            assertThat(snapshot(repo)).as("nothing applied").isEqualTo(before);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            delete(repo);
        }
    }

    @Test
    @Requires(Feature.WORKSPACE_OVERLAY)
    default void source_symlinkOrMissingOrFile_refusedTyped() throws IOException {
        Path repo = repo();
        Path link = repo.resolveSibling(repo.getFileName() + "-link");
        try {
            Files.createSymbolicLink(link, repo);
            assertThat(kindOf(() -> fixture().open(base()
                    .workspace(WorkspaceSource.overlayOf(link)).build()).close()))
                    .isEqualTo(ErrorKind.PERMISSION_DENIED);
            assertThat(kindOf(() -> fixture().open(base()
                    .workspace(WorkspaceSource.overlayOf(repo.resolve("missing"))).build()).close()))
                    .isEqualTo(ErrorKind.NOT_FOUND);
            assertThat(kindOf(() -> fixture().open(base()
                    .workspace(WorkspaceSource.overlayOf(repo.resolve("README.md"))).build()).close()))
                    .isEqualTo(ErrorKind.NOT_A_DIRECTORY);
        } finally {
            Files.deleteIfExists(link);
            delete(repo);
        }
    }

    @Test
    default void emptySource_hasNoChangeSet_unsupported(Sandbox sandbox) {
        assertThat(kindOf(() -> sandbox.workspace().changes())).isEqualTo(ErrorKind.UNSUPPORTED);
    }

    @Test
    @Requires(Feature.WORKSPACE_BIND)
    default void bind_writesReachTheHost() throws IOException {
        Path repo = repo();
        // writable by anyone: a jail may run as another uid than the directory's owner (a root JVM's own files)
        Files.setPosixFilePermissions(repo, PosixFilePermissions.fromString("rwxrwxrwx"));
        try (Sandbox s = fixture().open(base().workspace(WorkspaceSource.bindReadWrite(repo))
                .build())) {
            s.files().write("from-sandbox.txt", "hello\n");
            assertThat(Files.readString(repo.resolve("from-sandbox.txt"))).isEqualTo("hello\n");
            assertThat(kindOf(() -> s.workspace().changes())).isEqualTo(ErrorKind.UNSUPPORTED);
        } finally {
            delete(repo);
        }
    }

    @Test
    @Requires(Feature.READ_ONLY_MOUNTS)
    default void readOnlyMount_writesFail_EROFSInside_permissionDeniedThroughTheApi() {
        Path data = repo();
        try {
            // writable by anyone: the mount, not the files' modes, must be what refuses the writes
            Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwxrwxrwx"));
            Files.setPosixFilePermissions(data.resolve("README.md"), PosixFilePermissions.fromString("rw-rw-rw-"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (Sandbox s = fixture().open(base().mount(Mount.readOnly(data, "/workspace/data"))
                .build())) {
            assertThat(s.files().readText("data/README.md")).startsWith("# demo");
            assertThat(kindOf(() -> s.files().write("data/README.md", "x"))).isEqualTo(ErrorKind.PERMISSION_DENIED);
            assertThat(kindOf(() -> s.files().write("data/new.txt", "x"))).isEqualTo(ErrorKind.PERMISSION_DENIED);
            if (supports(Feature.SHELL)) {
                ExecResult r = s.shell().run("echo x >> /workspace/data/README.md");
                assertThat(r.exitCode()).isNotZero();
                assertThat(r.stderr()).contains("Read-only file system");
            }
            assertThat(s.info().details().get("mounts")).contains(data.toString(), "/workspace/data");
        } finally {
            delete(data);
        }
    }

    @Test
    @Requires(absent = Feature.WORKSPACE_OVERLAY)
    default void overlay_withoutFeature_refusedAtOpenUnsupported() {
        Path repo = repo();
        try {
            assertThat(kindOf(() -> fixture().open(base().workspace(WorkspaceSource.overlayOf(repo))
                    .build()).close())).isEqualTo(ErrorKind.UNSUPPORTED);
        } finally {
            delete(repo);
        }
    }

    @Test
    @Requires(absent = Feature.WORKSPACE_COPY)
    default void copy_withoutFeature_refusedAtOpenUnsupported() {
        Path repo = repo();
        try {
            assertThat(kindOf(() -> fixture().open(base().workspace(WorkspaceSource.copyOf(repo))
                    .build()).close())).isEqualTo(ErrorKind.UNSUPPORTED);
        } finally {
            delete(repo);
        }
    }

    @Test
    @Requires(absent = Feature.WORKSPACE_BIND)
    default void bind_withoutFeature_refusedAtOpenUnsupported_hostUntouched() {
        Path repo = repo();
        try {
            Map<String, String> before = snapshot(repo);
            assertThat(kindOf(() -> fixture().open(base()
                    .workspace(WorkspaceSource.bindReadWrite(repo)).build()).close())).isEqualTo(ErrorKind.UNSUPPORTED);
            assertThat(snapshot(repo)).isEqualTo(before);
        } finally {
            delete(repo);
        }
    }

    @Test
    @Requires(absent = Feature.READ_ONLY_MOUNTS)
    default void readOnlyMount_withoutFeature_refusedAtOpenUnsupported() {
        Path data = repo();
        try {
            assertThat(kindOf(() -> fixture().open(base().mount(Mount.readOnly(data, "/data"))
                    .build()).close())).isEqualTo(ErrorKind.UNSUPPORTED);
        } finally {
            delete(data);
        }
    }
}
