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

    /**
     * What a walk meets, parents first; {@code rel} is the path relative to the walk's root (empty for the root).
     * Every backend that carries a host tree somewhere (a copy on disk or in jimfs, an archive for an engine) walks it
     * by these rules, here, once.
     */
    public interface Visitor {
        void directory(Path dir, Path rel) throws IOException;

        void file(Path file, Path rel, long size) throws IOException;

        void link(Path link, Path rel, Path target) throws IOException;
    }

    /**
     * Walks {@code from} without following a link: directories, regular files and symbolic links go to {@code v};
     * FIFOs, devices and sockets are skipped and counted. The result counts files and links, and the files' sizes.
     */
    public static Result walk(Path from, Visitor v) throws IOException {
        long[] n = new long[3];
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes a) throws IOException {
                v.directory(dir, from.relativize(dir));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes a) throws IOException {
                if (a.isSymbolicLink()) {
                    v.link(file, from.relativize(file), Files.readSymbolicLink(file));
                } else if (a.isRegularFile()) {
                    v.file(file, from.relativize(file), a.size());
                    n[1] += a.size();
                } else {
                    n[2]++;
                    return FileVisitResult.CONTINUE;
                }
                n[0]++;
                return FileVisitResult.CONTINUE;
            }
        });
        return new Result(n[0], n[1], n[2]);
    }

    /** Copies what {@code from} holds into the existing directory {@code to}; {@code owner} may chown, or null. */
    public static Result copy(Path from, Path to, java.util.function.Consumer<Path> owner) throws IOException {
        long[] copied = {0};
        Result r = walk(from, new Visitor() {
            @Override
            public void directory(Path dir, Path rel) throws IOException {
                Path t = ChangeSet.resolve(to, rel);
                if (!dir.equals(from)) {
                    Files.createDirectory(t);
                }
                perms(dir, t);
                own(t);
            }

            @Override
            public void file(Path file, Path rel, long size) throws IOException {
                Path t = ChangeSet.resolve(to, rel);
                try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
                    copied[0] += Files.copy(in, t);
                }
                perms(file, t);
                own(t);
            }

            @Override
            public void link(Path link, Path rel, Path target) throws IOException {
                Path t = ChangeSet.resolve(to, rel);
                Files.createSymbolicLink(t, t.getFileSystem().getPath(target.toString()));
                own(t);
            }

            private void own(Path t) {
                if (owner != null) {
                    owner.accept(t);
                }
            }
        });
        return new Result(r.files(), copied[0], r.skipped());
    }

    /** Permission bits only (no link followed): set-user-id, set-group-id and sticky are never carried over. */
    public static int mode(Path p) throws IOException {
        int m = 0;
        for (PosixFilePermission perm : Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS)) {
            m |= 0400 >> perm.ordinal();
        }
        return m;
    }

    private static void perms(Path from, Path to) throws IOException {
        Set<PosixFilePermission> p = Files.getPosixFilePermissions(from, LinkOption.NOFOLLOW_LINKS);
        Files.setPosixFilePermissions(to, p.isEmpty() ? EnumSet.noneOf(PosixFilePermission.class) : p);
    }
}
