package dev.sandbox4j.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The download of a sandbox's workspace is the sandbox's to shape: {@link ArchiveTree} must never write outside its
 * directory, never write through a link, never keep a special file or a set-user-id bit, and stay bounded. No engine
 * needed: the archives are made here, as a hostile container's archive could be.
 */
class ArchiveTreeTest {
    @TempDir
    Path dir;

    /** A tar stream: entries given as {type, name, link-or-content, mode}. */
    private static byte[] tar(String[]... entries) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (TarArchiveOutputStream t = new TarArchiveOutputStream(b)) {
            t.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            for (String[] e : entries) {
                byte type = switch (e[0]) {
                    case "dir" -> TarConstants.LF_DIR;
                    case "sym" -> TarConstants.LF_SYMLINK;
                    case "hard" -> TarConstants.LF_LINK;
                    case "fifo" -> TarConstants.LF_FIFO;
                    case "chr" -> TarConstants.LF_CHR;
                    default -> TarConstants.LF_NORMAL;
                };
                TarArchiveEntry te = new TarArchiveEntry(e[1], type);
                te.setMode(Integer.parseInt(e[3], 8) | (type == TarConstants.LF_DIR ? 040000 : 0));
                byte[] data = new byte[0];
                if (type == TarConstants.LF_SYMLINK || type == TarConstants.LF_LINK) {
                    te.setLinkName(e[2]);
                } else if (type == TarConstants.LF_NORMAL) {
                    data = e[2].getBytes(StandardCharsets.UTF_8);
                    te.setSize(data.length);
                }
                t.putArchiveEntry(te);
                t.write(data);
                t.closeArchiveEntry();
            }
        }
        return b.toByteArray();
    }

    private Path into() throws IOException {
        return Files.createDirectories(dir.resolve("out/workspace"));
    }

    private static ErrorKind extract(byte[] tar, Path into, ArchiveTree.Limits limits) {
        SandboxException e = catchThrowableOfType(() -> {
            try {
                ArchiveTree.extract(new ByteArrayInputStream(tar), into, limits);
            } catch (IOException x) {
                throw new java.io.UncheckedIOException(x);
            }
        }, SandboxException.class);
        return e == null ? null : e.kind();
    }

    @Test
    void aPlainTree_keepsContentModesAndLinks_dropsSetuidAndSpecialFiles() throws IOException {
        Path into = into();
        byte[] t = tar(new String[] {"dir", "workspace/", "", "755"}, new String[] {"dir", "workspace/ro/", "", "555"},
                new String[] {"file", "workspace/ro/a.txt", "hello", "644"},
                new String[] {"file", "workspace/suid", "x", "4755"},
                new String[] {"sym", "workspace/link", "/etc/passwd", "777"},
                new String[] {"hard", "workspace/copy", "workspace/ro/a.txt", "644"},
                new String[] {"fifo", "workspace/fifo", "", "644"}, new String[] {"chr", "workspace/null", "", "666"});
        assertThat(extract(t, into, ArchiveTree.Limits.DEFAULT)).isNull();
        assertThat(Files.readString(into.resolve("ro/a.txt"))).isEqualTo("hello");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(into.resolve("ro"))))
                .isEqualTo("r-xr-xr-x");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(into.resolve("suid"))))
                .isEqualTo("rwxr-xr-x");
        assertThat(Files.readSymbolicLink(into.resolve("link"))).isEqualTo(Path.of("/etc/passwd"));
        assertThat(Files.readString(into.resolve("copy"))).isEqualTo("hello");
        assertThat(Files.isSameFile(into.resolve("copy"), into.resolve("ro/a.txt"))).as("a copy, not a link")
                .isFalse();
        assertThat(into.resolve("fifo")).doesNotExist();
        assertThat(into.resolve("null")).doesNotExist();
    }

    @Test
    void namesOutsideOrThroughALink_areRefused_nothingWrittenOutside() throws IOException {
        Path outside = Files.createDirectories(dir.resolve("outside"));
        String[][][] attacks = {
            {{"file", "workspace/../../outside/x", "pwn", "644"}},
            {{"sym", "workspace/l", outside.toString(), "777"}, {"file", "workspace/l/x", "pwn", "644"}},
            {{"sym", "workspace/l", "../../outside", "777"}, {"dir", "workspace/l/d/", "", "755"}},
            {{"hard", "workspace/h", "../outside/x", "644"}},
            {{"sym", "workspace/s", outside + "/x", "777"}, {"hard", "workspace/h", "workspace/s", "644"}},
            {{"file", "workspace/f", "x", "644"}, {"file", "workspace/f/x", "pwn", "644"}},
        };
        for (String[][] attack : attacks) {
            Path into = Files.createTempDirectory(dir, "try-");
            assertThat(extract(tar(attack), into, ArchiveTree.Limits.DEFAULT)).as(attack[attack.length - 1][1])
                    .isEqualTo(ErrorKind.IO_ERROR);
            try (Stream<Path> s = Files.list(outside)) {
                assertThat(s).as("nothing written outside by " + attack[attack.length - 1][1]).isEmpty();
            }
        }
    }

    @Test
    void sizeAndEntryBounds_areEnforced() throws IOException {
        byte[] t = tar(new String[] {"file", "workspace/a", "0123456789", "644"},
                new String[] {"file", "workspace/b", "0123456789", "644"});
        assertThat(extract(t, into(), new ArchiveTree.Limits(15, 100))).isEqualTo(ErrorKind.IO_ERROR);
        assertThat(extract(t, Files.createTempDirectory(dir, "n-"), new ArchiveTree.Limits(1000, 1)))
                .isEqualTo(ErrorKind.IO_ERROR);
        assertThat(extract(t, Files.createTempDirectory(dir, "ok-"), new ArchiveTree.Limits(20, 3))).isNull();
    }

    @Test
    void anAbsoluteName_isReadRelative_andLandsInside() throws IOException {
        Path into = into();
        // the tar reader drops the leading slash; the first component is then taken as the archived directory's
        assertThat(extract(tar(new String[] {"file", "/workspace/x", "in", "644"}), into, ArchiveTree.Limits.DEFAULT))
                .isNull();
        assertThat(Files.readString(into.resolve("x"))).isEqualTo("in");
    }

    /** Random damage to a valid archive: an ordinary error or a tree, never another exception, never outside. */
    @Test
    void fuzz_mutatedArchives_failTypedOrExtractInside() throws IOException {
        byte[] valid = tar(new String[] {"dir", "workspace/d/", "", "755"},
                new String[] {"file", "workspace/d/a.txt", "hello world", "644"},
                new String[] {"sym", "workspace/l", "d/a.txt", "777"},
                new String[] {"hard", "workspace/h", "workspace/d/a.txt", "644"});
        Path outside = Files.createDirectories(dir.resolve("fuzz-outside"));
        Random r = new Random(35);
        for (int i = 0; i < 800; i++) {
            byte[] t = valid.clone();
            for (int k = 1 + r.nextInt(8); k > 0; k--) {
                t[r.nextInt(Math.min(t.length, 2048))] = (byte) r.nextInt(256);
            }
            Path into = Files.createDirectories(dir.resolve("fuzz-" + i + "/workspace"));
            try {
                ArchiveTree.extract(new ByteArrayInputStream(t), into, new ArchiveTree.Limits(1 << 20, 100));
            } catch (SandboxException | IOException | IllegalArgumentException expected) {
                // refused, or the tar reader's own error for a broken header
            }
            Path mine = dir.resolve("fuzz-" + i);
            try (Stream<Path> s = Files.walk(mine)) {
                s.forEach(p -> assertThat(p.normalize().startsWith(mine)).as(p.toString()).isTrue());
            }
            try (Stream<Path> s = Files.list(outside)) {
                assertThat(s).isEmpty();
            }
            assertThat(Files.exists(dir.resolve("x"), LinkOption.NOFOLLOW_LINKS)).isFalse();
        }
    }
}
