package dev.sandbox4j.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.Workspace.Change;
import dev.sandbox4j.WorkspaceSource;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChangeSetTest {
    @TempDir
    Path tmp;

    private Path tree(String name) throws Exception {
        Path d = Files.createDirectory(tmp.resolve(name));
        Files.writeString(d.resolve("keep.txt"), "same\n");
        Files.writeString(d.resolve("edit.txt"), "one\ntwo\nthree\n");
        Files.writeString(d.resolve("gone.txt"), "bye\n");
        Files.createDirectories(d.resolve("olddir/sub"));
        Files.writeString(d.resolve("olddir/sub/x"), "x\n");
        Files.writeString(d.resolve("run.sh"), "#!/bin/sh\n");
        Files.createSymbolicLink(d.resolve("link"), Path.of("keep.txt"));
        return d;
    }

    /** The sandbox's edits, done to a full copy of {@code lower}. */
    private Path edited(Path lower) throws Exception {
        Path up = tmp.resolve("upper");
        ProcessBuilder pb = new ProcessBuilder("cp", "-a", lower.toString(), up.toString());
        assertThat(pb.start().waitFor()).isZero();
        Files.writeString(up.resolve("edit.txt"), "one\nTWO\nthree\n");
        Files.delete(up.resolve("gone.txt"));
        Files.walk(up.resolve("olddir")).sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        Files.setPosixFilePermissions(up.resolve("run.sh"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.delete(up.resolve("link"));
        Files.createSymbolicLink(up.resolve("link"), Path.of("/etc/passwd"));
        Files.write(up.resolve("blob.bin"), new byte[] {0, 1, 2, (byte) 0xff});
        Files.createDirectories(up.resolve("new/deep"));
        Files.writeString(up.resolve("new/deep/n.txt"), "new\n");
        return up;
    }

    private static Map<String, Change.Kind> kinds(List<Change> changes) {
        Map<String, Change.Kind> m = new TreeMap<>();
        changes.forEach(c -> m.put(c.path(), c.kind()));
        return m;
    }

    @Test
    void fullTree_listsEveryKindOfChange_andDiffsText_namesBinary() throws Exception {
        Path lower = tree("lower");
        ChangeSet cs = new ChangeSet(WorkspaceSource.copyOf(lower), lower, edited(lower), ChangeSet.Layout.FULL_TREE,
                ChangeSet.sameAsSnapshot(), () -> { });
        assertThat(kinds(cs.changes())).hasSize(11).containsAllEntriesOf(new TreeMap<>(Map.of(
                "blob.bin", Change.Kind.CREATED, "edit.txt", Change.Kind.MODIFIED, "gone.txt", Change.Kind.DELETED,
                "link", Change.Kind.MODIFIED, "new", Change.Kind.CREATED, "new/deep", Change.Kind.CREATED,
                "new/deep/n.txt", Change.Kind.CREATED, "olddir", Change.Kind.DELETED,
                "olddir/sub", Change.Kind.DELETED, "olddir/sub/x", Change.Kind.DELETED)));
        assertThat(kinds(cs.changes())).containsEntry("run.sh", Change.Kind.MODIFIED);
        String diff = cs.diff();
        assertThat(diff).contains("--- a/edit.txt\n+++ b/edit.txt\n", "-two\n+TWO\n",
                "Binary files /dev/null and b/blob.bin differ", "old mode 100644\nnew mode 100755",
                "deleted file mode 100644", "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n", "-keep.txt\n\\ No newline at end of file\n+/etc/passwd")
                .doesNotContain("keep.txt\n+++");
    }

    @Test
    void applyTo_roundTripsExactly_modesLinksDeletionsBinary() throws Exception {
        Path lower = tree("lower");
        Path host = tmp.resolve("host");
        assertThat(new ProcessBuilder("cp", "-a", lower.toString(), host.toString()).start().waitFor()).isZero();
        Path up = edited(lower);
        ChangeSet cs = new ChangeSet(WorkspaceSource.copyOf(lower), lower, up, ChangeSet.Layout.FULL_TREE,
                ChangeSet.sameAsSnapshot(), () -> { });
        assertThat(cs.applyTo(host)).hasSize(cs.changes().size());
        ChangeSet after = new ChangeSet(WorkspaceSource.copyOf(host), host, up, ChangeSet.Layout.FULL_TREE,
                ChangeSet.sameAsSnapshot(), () -> { });
        assertThat(after.changes()).as("the host now equals the sandbox's tree").isEmpty();
        assertThat(Files.readSymbolicLink(host.resolve("link"))).isEqualTo(Path.of("/etc/passwd"));
        assertThat(Files.readAllBytes(host.resolve("blob.bin"))).containsExactly(0, 1, 2, 0xff);
        try (Stream<Path> s = Files.list(host)) {
            assertThat(s.map(p -> p.getFileName().toString())).noneMatch(n -> n.contains(".sandbox4j-"));
        }
    }

    @Test
    void applyTo_conflict_namesFiles_appliesNothing() throws Exception {
        Path lower = tree("lower");
        Path host = tmp.resolve("host");
        assertThat(new ProcessBuilder("cp", "-a", lower.toString(), host.toString()).start().waitFor()).isZero();
        ChangeSet cs = new ChangeSet(WorkspaceSource.copyOf(lower), lower, edited(lower), ChangeSet.Layout.FULL_TREE,
                ChangeSet.sameAsSnapshot(), () -> { });
        Files.writeString(host.resolve("edit.txt"), "the user's own edit\n");
        Files.writeString(host.resolve("blob.bin"), "made on the host too\n");
        assertThatThrownBy(() -> cs.applyTo(host)).isInstanceOfSatisfying(SandboxException.class, e -> {
            assertThat(e.kind()).isEqualTo(ErrorKind.CONFLICT);
            assertThat(e.getMessage()).contains("edit.txt", "blob.bin").doesNotContain("gone.txt");
        });
        assertThat(host.resolve("gone.txt")).exists();
        assertThat(host.resolve("new")).doesNotExist();
        assertThat(Files.readString(host.resolve("edit.txt"))).isEqualTo("the user's own edit\n");
        assertThat(Files.readSymbolicLink(host.resolve("link"))).isEqualTo(Path.of("keep.txt"));
    }

    @Test
    void overlayUpper_whiteoutsAndOpaqueDirs() throws Exception {
        Path lower = tree("lower");
        Path up = Files.createDirectory(tmp.resolve("upper"));
        Files.writeString(up.resolve("edit.txt"), "one\n");
        assertThat(new ProcessBuilder("mknod", up.resolve("gone.txt").toString(), "c", "0", "0").start().waitFor())
                .as("mknod (the test runs as root)").isZero();
        Files.createDirectory(up.resolve("olddir"));
        Files.writeString(up.resolve("olddir/fresh"), "f\n");
        UserDefinedFileAttributeView v = Files.getFileAttributeView(up.resolve("olddir"),
                UserDefinedFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
        v.write("overlay.opaque", java.nio.ByteBuffer.wrap("y".getBytes(StandardCharsets.US_ASCII)));
        ChangeSet cs = new ChangeSet(WorkspaceSource.overlayOf(lower), lower, up, ChangeSet.Layout.OVERLAY_UPPER,
                ChangeSet.unchangedSince(Instant.now(), Duration.ofMillis(50)), () -> { });
        assertThat(kinds(cs.changes())).containsExactlyEntriesOf(new TreeMap<>(Map.of(
                "edit.txt", Change.Kind.MODIFIED, "gone.txt", Change.Kind.DELETED,
                "olddir/fresh", Change.Kind.CREATED, "olddir/sub", Change.Kind.DELETED,
                "olddir/sub/x", Change.Kind.DELETED)));
    }

    @Test
    void ctimeBaseline_hostFileTouchedAfterOpen_conflicts() throws Exception {
        Path lower = tree("lower");
        Path up = Files.createDirectory(tmp.resolve("upper"));
        Files.writeString(up.resolve("edit.txt"), "sandbox\n");
        Files.writeString(up.resolve("keep.txt"), "sandbox\n");
        Thread.sleep(60);
        ChangeSet cs = new ChangeSet(WorkspaceSource.overlayOf(lower), lower, up, ChangeSet.Layout.OVERLAY_UPPER,
                ChangeSet.unchangedSince(Instant.now(), Duration.ofMillis(50)), () -> { });
        Files.setPosixFilePermissions(lower.resolve("edit.txt"), PosixFilePermissions.fromString("rw-------"));
        assertThatThrownBy(() -> cs.applyTo(lower)).isInstanceOfSatisfying(SandboxException.class, e ->
                assertThat(e.getMessage()).contains("edit.txt").doesNotContain("keep.txt"));
        assertThat(Files.readString(lower.resolve("keep.txt"))).isEqualTo("same\n");
    }

    @Test
    void hostDirs_refusesLinksFilesMissingAndDevices() throws Exception {
        Path d = Files.createDirectory(tmp.resolve("d"));
        Files.createSymbolicLink(tmp.resolve("l"), d);
        Files.writeString(tmp.resolve("f"), "x");
        assertThat(HostDirs.check(d, "dir", false)).isEqualTo(d.toRealPath());
        assertThatThrownBy(() -> HostDirs.check(tmp.resolve("l"), "dir", false))
                .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.PERMISSION_DENIED);
        assertThatThrownBy(() -> HostDirs.check(tmp.resolve("f"), "dir", false))
                .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.NOT_A_DIRECTORY);
        assertThat(HostDirs.check(tmp.resolve("f"), "mount", true)).isEqualTo(tmp.resolve("f").toRealPath());
        assertThatThrownBy(() -> HostDirs.check(tmp.resolve("nope"), "dir", false))
                .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.NOT_FOUND);
        assertThatThrownBy(() -> HostDirs.check(Path.of("/dev/null"), "mount", true))
                .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.PERMISSION_DENIED);
    }

    @Test
    void aDirectoryReplacedByALink_andAFileByADirectory_applyBack_withoutFollowingTheLink() throws Exception {
        Path lower = tree("lower");
        Path up = tmp.resolve("upper");
        assertThat(new ProcessBuilder("cp", "-a", lower.toString(), up.toString()).start().waitFor()).isZero();
        Files.walk(up.resolve("olddir")).sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        Files.createSymbolicLink(up.resolve("olddir"), tmp);
        Files.delete(up.resolve("keep.txt"));
        Files.createDirectories(up.resolve("keep.txt/inner"));
        assertThat(new ProcessBuilder("chmod", "4644", lower.resolve("run.sh").toString()).start().waitFor()).isZero();
        Thread.sleep(120);
        ChangeSet cs = new ChangeSet(WorkspaceSource.copyOf(lower), lower, up, ChangeSet.Layout.FULL_TREE,
                ChangeSet.unchangedSince(Instant.now(), Duration.ofMillis(50)), () -> { });
        assertThat(kinds(cs.changes())).as("a set-user-id bit the copy lacks is no change").doesNotContainKey("run.sh")
                .containsEntry("olddir", Change.Kind.CREATED).containsEntry("keep.txt/inner", Change.Kind.CREATED);
        cs.applyTo(lower);
        assertThat(Files.readSymbolicLink(lower.resolve("olddir"))).isEqualTo(tmp);
        assertThat(Files.isDirectory(lower.resolve("keep.txt/inner"), LinkOption.NOFOLLOW_LINKS)).isTrue();
        assertThat(tmp.resolve("sub")).as("nothing written through the new link").doesNotExist();
    }
}
