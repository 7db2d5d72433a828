package dev.sandbox4j.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.sandbox4j.Edit;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Feature;
import dev.sandbox4j.FileRules;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.WorkspaceSource;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * {@link FileRules} (issue 29): protected paths are readable but no file call changes them, by any path spelling,
 * through a parent directory or through a symbolic link; with links refused, no file call passes through one. Every
 * backend holds them (the rules live in sandbox-core). The link tests need links in the workspace: made by a command
 * ({@link Feature#SHELL} and {@link Feature#SYMLINKS}) or brought by a copied host directory
 * ({@link Feature#WORKSPACE_COPY}); a backend with neither skips them.
 */
public interface FileRulesContract extends ConformanceSupport {
    /** Spacebot's identity files plus a nested literal and a glob. */
    FileRules RULES = new FileRules(List.of("SOUL.md", "IDENTITY.md", "USER.md", "docs/SOUL.md", "keys/*.pem",
            "vault/*.key"),
            false);

    private Sandbox open(FileRules rules, WorkspaceSource source) {
        SandboxSpec.Builder b = SandboxSpec.builder().fileRules(rules)
                .limits(ResourceLimits.DEFAULTS.withoutWorkspaceQuota())
                .file("SOUL.md", "soul\n").file("docs/SOUL.md", "nested soul\n").file("keys/a.pem", "key\n")
                .file("notes.txt", "notes\n");
        if (source != null) {
            b.workspace(source);
        }
        return fixture().open(b.build());
    }

    private static void denied(String what, ThrowingCallable call) {
        Throwable t = catchThrowable(call);
        assertThat(t).as("%s must be refused", what).isInstanceOf(SandboxException.class);
        assertThat(((SandboxException) t).kind()).as("%s: %s", what, t).isEqualTo(ErrorKind.PERMISSION_DENIED);
    }

    private static void unchanged(FileSystem fs) {
        assertThat(fs.readText("SOUL.md")).isEqualTo("soul\n");
        assertThat(fs.readText("docs/SOUL.md")).isEqualTo("nested soul\n");
        assertThat(fs.readText("keys/a.pem")).isEqualTo("key\n");
        assertThat(fs.exists("IDENTITY.md")).as("a protected path is not created either").isFalse();
        assertThat(fs.exists("vault")).isFalse();
    }

    @Test
    default void protectedFile_isReadableButNoFileCallChangesIt() {
        try (Sandbox s = open(RULES, null)) {
            FileSystem fs = s.files();
            assertThat(fs.readText("SOUL.md")).isEqualTo("soul\n");
            assertThat(fs.grep("soul", "").matches()).isNotEmpty();
            for (String p : List.of("SOUL.md", "docs/SOUL.md", "keys/a.pem", "keys/new.pem", "IDENTITY.md")) {
                denied("write " + p, () -> fs.write(p, "x"));
                denied("write bytes " + p, () -> fs.write(p, new byte[] {1}));
                denied("upload " + p, () -> fs.write(p, new ByteArrayInputStream(new byte[] {1})));
                denied("append " + p, () -> fs.append(p, "x"));
                denied("replace " + p, () -> fs.replace(p, "soul", "x"));
                denied("edit " + p, () -> fs.edit(p, List.of(new Edit("soul", "x"))));
                denied("delete " + p, () -> fs.delete(p));
                denied("deleteRecursively " + p, () -> fs.deleteRecursively(p));
                denied("move from " + p, () -> fs.move(p, "moved.md"));
                denied("move onto " + p, () -> fs.moveReplacing("notes.txt", p));
                denied("copy onto " + p, () -> fs.copyReplacing("notes.txt", p));
                denied("mkdirs " + p, () -> fs.mkdirs(p + "/sub"));
            }
            unchanged(fs);
            assertThat(fs.readText("notes.txt")).as("a refused move changes nothing").isEqualTo("notes\n");
            fs.write("notes.txt", "free\n");
            fs.copy("SOUL.md", "copy-of-soul.md");
            assertThat(fs.readText("copy-of-soul.md")).as("reading, and so copying from, is allowed")
                    .isEqualTo("soul\n");
        }
    }

    @Test
    default void pathSpellings_caseAndParentDirectories_areAllRefused() {
        try (Sandbox s = open(RULES, null)) {
            FileSystem fs = s.files();
            for (String p : List.of("./SOUL.md", "/workspace/SOUL.md", "docs/../SOUL.md", "docs//SOUL.md",
                    "soul.md", "Soul.MD", "DOCS/soul.md", "docs/./SOUL.md", "keys/../keys/b.PEM")) {
                denied("write " + p, () -> fs.write(p, "x"));
                denied("delete " + p, () -> fs.delete(p));
            }
            denied("deleteRecursively the parent", () -> fs.deleteRecursively("docs"));
            denied("deleteRecursively the parent by another spelling", () -> fs.deleteRecursively("./docs/"));
            denied("move the parent", () -> fs.move("docs", "elsewhere"));
            denied("move a parent of a glob match", () -> fs.move("keys", "k2"));
            denied("delete the workspace root", () -> fs.deleteRecursively(""));
            fs.mkdirs("staging");
            fs.write("staging/SOUL.md", "planted\n");
            denied("replace the parent by a directory holding a new SOUL.md", () -> fs.moveReplacing("staging",
                    "docs"));
            fs.write("staging2/a.key", "planted\n");
            denied("move a directory so it creates a protected path", () -> fs.move("staging2", "vault"));
            denied("copy a directory so it creates a protected path", () -> fs.copy("staging2", "vault"));
            fs.deleteRecursively("staging2");
            unchanged(fs);
            assertThat(fs.readText("staging/SOUL.md")).isEqualTo("planted\n");
        }
    }

    @Test
    default void symbolicLinks_toProtectedFilesOrTheirParents_doNotWriteThem() {
        try (Sandbox s = withLinks(RULES)) {
            FileSystem fs = s.files();
            for (String p : List.of("soul-link", "root-link/SOUL.md", "docs-link/SOUL.md", "abs-link/SOUL.md",
                    "docs-link/../SOUL.md")) {
                denied("write through " + p, () -> fs.write(p, "x"));
                denied("append through " + p, () -> fs.append(p, "x"));
                denied("edit through " + p, () -> fs.replace(p, "soul", "x"));
            }
            denied("delete through a linked parent", () -> fs.delete("root-link/SOUL.md"));
            denied("move through a linked parent", () -> fs.move("docs-link/SOUL.md", "x.md"));
            unchanged(fs);
            fs.delete("soul-link");
            assertThat(fs.readText("SOUL.md")).as("deleting a link removes the link, not its target")
                    .isEqualTo("soul\n");
        }
    }

    @Test
    default void refuseSymlinks_refusesEveryCallThroughALink() {
        try (Sandbox s = withLinks(FileRules.NONE.withRefuseSymlinks(true))) {
            FileSystem fs = s.files();
            denied("read a link", () -> fs.readText("soul-link"));
            denied("read through a linked directory", () -> fs.readText("docs-link/SOUL.md"));
            denied("list a linked directory", () -> fs.list("docs-link"));
            denied("write through a link", () -> fs.write("notes-link", "x"));
            denied("write under a linked directory", () -> fs.write("docs-link/new.txt", "x"));
            assertThat(fs.stat("soul-link").isSymlink()).as("a link itself can still be described").isTrue();
            assertThat(fs.readText("notes.txt")).isEqualTo("notes\n");
            fs.write("docs/new.txt", "fine\n");
            assertThat(fs.readText("docs/new.txt")).isEqualTo("fine\n");
            fs.write("SOUL.md", "changed\n");
            assertThat(fs.readText("SOUL.md")).as("no protected paths: the identity file is writable")
                    .isEqualTo("changed\n");
        }
    }

    @Test
    default void malformedProtectedGlob_isRefusedAtOpen() {
        Throwable t = catchThrowable(() -> open(FileRules.protect("{a,b}".repeat(11)), null).close());
        assertThat(t).isInstanceOf(SandboxException.class);
        assertThat(((SandboxException) t).kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT);
    }

    /** A sandbox holding links: soul-link, notes-link, root-link (to .), docs-link (to docs), abs-link. */
    private Sandbox withLinks(FileRules rules) {
        Map<String, String> links = Map.of("soul-link", "SOUL.md", "notes-link", "notes.txt", "root-link", ".",
                "docs-link", "docs", "abs-link", "/workspace");
        if (supports(Feature.SHELL) && supports(Feature.SYMLINKS)) {
            Sandbox s = open(rules, null);
            StringBuilder cmd = new StringBuilder("true");
            links.forEach((name, target) -> cmd.append(" && ln -s ").append(target).append(' ').append(name));
            ExecResult r = s.shell().run(cmd.toString());
            assertThat(r.exitCode()).as(r.stderr()).isZero();
            return s;
        }
        Assumptions.assumeTrue(supports(Feature.WORKSPACE_COPY), "links need a shell or a copied workspace");
        Path dir = null;
        try {
            dir = Files.createTempDirectory("sandbox4j-kit-links-");
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            for (Map.Entry<String, String> e : links.entrySet()) {
                Files.createSymbolicLink(dir.resolve(e.getKey()), Path.of(e.getValue()));
            }
            return open(rules, WorkspaceSource.copyOf(dir));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            delete(dir);
        }
    }

    private static void delete(Path d) {
        if (d == null) {
            return;
        }
        try (Stream<Path> s = Files.walk(d)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
