package dev.sandbox4j.core;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;

/**
 * Copies a checked host tree into a directory, possibly of another file system (jimfs), never following a link:
 * directories, regular files (their content: a hard link to a file elsewhere becomes an independent copy) and
 * symbolic links (as links, their targets unread). FIFOs, devices and sockets are skipped, counted in
 * {@link Result#skipped()}: reading a FIFO would block and a device node has no business in a copy.
 */
public final class TreeCopy {
    /** What was copied. */
    public record Result(long files, long bytes, long skipped) {
    }

    private TreeCopy() {
    }

    /** Copies what {@code from} holds into the existing directory {@code to}; {@code owner} may chown, or null. */
    public static Result copy(Path from, Path to, java.util.function.Consumer<Path> owner) throws IOException {
        long[] n = new long[3];
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes a) throws IOException {
                Path t = ChangeSet.resolve(to, from.relativize(dir));
                if (!dir.equals(from)) {
                    Files.createDirectory(t);
                }
                perms(dir, t);
                own(t);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes a) throws IOException {
                Path t = ChangeSet.resolve(to, from.relativize(file));
                if (a.isSymbolicLink()) {
                    Files.createSymbolicLink(t, t.getFileSystem().getPath(Files.readSymbolicLink(file).toString()));
                } else if (a.isRegularFile()) {
                    try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
                        n[1] += Files.copy(in, t);
                    }
                    perms(file, t);
                } else {
                    n[2]++;
                    return FileVisitResult.CONTINUE;
                }
                own(t);
                n[0]++;
                return FileVisitResult.CONTINUE;
            }

            private void own(Path t) {
                if (owner != null) {
                    owner.accept(t);
                }
            }
        });
        return new Result(n[0], n[1], n[2]);
    }

    private static void perms(Path from, Path to) throws IOException {
        Set<PosixFilePermission> p = Files.getPosixFilePermissions(from, LinkOption.NOFOLLOW_LINKS);
        Files.setPosixFilePermissions(to, p.isEmpty() ? EnumSet.noneOf(PosixFilePermission.class) : p);
    }
}
