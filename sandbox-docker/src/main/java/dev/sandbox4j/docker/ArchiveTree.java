package dev.sandbox4j.docker;

import dev.sandbox4j.ErrorKind;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * A tar stream of a sandbox's directory (the engine's archive of {@code /workspace}) written into a private host
 * directory. Everything in it is the sandbox's to choose, so: names must stay inside (no absolute names, no
 * {@code ..}), nothing is ever written through a link (every parent is checked to be a directory this extraction
 * made), links are made as links and never followed, hard links become copies of a file already extracted, FIFOs and
 * devices are skipped, permission bits only are kept, and the total size and entry count are bounded. A stream that
 * breaks a rule fails with {@link ErrorKind#IO_ERROR} naming the entry.
 */
final class ArchiveTree {
    /** Bounds of one extraction. */
    record Limits(long maxBytes, long maxEntries) {
        /** 8 GiB, 2 million entries: a workspace with no quota, bounded still. */
        static final Limits DEFAULT = new Limits(8L << 30, 2_000_000);
    }

    private ArchiveTree() {
    }

    /**
     * Extracts {@code in} (its first path component is the archived directory's own name) into {@code into}; returns
     * how many special files (FIFOs, devices) it left out.
     */
    static long extract(InputStream in, Path into, Limits limits) throws IOException {
        long skipped = 0;
        long bytes = 0;
        long entries = 0;
        // directories get their modes last: one without write permission must still take the entries under it
        java.util.List<java.util.Map.Entry<Path, Integer>> dirModes = new java.util.ArrayList<>();
        TarArchiveInputStream tar = new TarArchiveInputStream(in);
        TarArchiveEntry e;
        while ((e = tar.getNextEntry()) != null) {
            if (++entries > limits.maxEntries()) {
                throw refused("more than " + limits.maxEntries() + " entries");
            }
            String rel = relative(e.getName());
            if (rel == null) {
                continue; // the archived directory itself
            }
            Path target = into.resolve(rel).normalize();
            if (!target.startsWith(into) || target.equals(into)) {
                throw refused("the entry " + printable(e.getName()) + " leads outside the workspace");
            }
            checkParents(into, target.getParent());
            if (e.isDirectory()) {
                makeDirectory(target);
                dirModes.add(java.util.Map.entry(target, e.getMode()));
            } else if (e.isSymbolicLink()) {
                Files.createSymbolicLink(target, Path.of(e.getLinkName()));
            } else if (e.isLink()) {
                String from = relative(e.getLinkName());
                Path source = from == null ? null : into.resolve(from).normalize();
                if (source == null || !source.startsWith(into)) {
                    throw refused("the hard link " + printable(e.getName()) + " leads outside the workspace");
                }
                checkParents(into, source.getParent());
                if (!Files.isRegularFile(source, LinkOption.NOFOLLOW_LINKS)) {
                    throw refused("the hard link " + printable(e.getName()) + " names no file extracted before it");
                }
                bytes += Files.size(source);
                check(bytes, limits);
                Files.copy(source, target, LinkOption.NOFOLLOW_LINKS);
            } else if (e.isFIFO() || e.isCharacterDevice() || e.isBlockDevice()) {
                skipped++; // a copy holds no special files
            } else if (e.isFile()) {
                bytes += e.getSize();
                check(bytes, limits);
                try (OutputStream out = Files.newOutputStream(target, StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                    tar.transferTo(out);
                }
                Files.setPosixFilePermissions(target, perms(e.getMode()));
                Files.setLastModifiedTime(target, java.nio.file.attribute.FileTime.from(e.getModTime().toInstant()));
            }
        }
        for (int i = dirModes.size() - 1; i >= 0; i--) {
            Files.setPosixFilePermissions(dirModes.get(i).getKey(), perms(dirModes.get(i).getValue()));
        }
        return skipped;
    }

    /** The entry's name without the archived directory's own component, or null for that directory. */
    private static String relative(String name) {
        if (name.startsWith("/") || name.contains("\0")) {
            throw refused("the entry " + printable(name) + " is absolute or holds a NUL");
        }
        for (String part : name.split("/")) {
            if (part.equals("..")) {
                throw refused("the entry " + printable(name) + " holds ..");
            }
        }
        int slash = name.indexOf('/');
        String rest = slash < 0 ? "" : name.substring(slash + 1);
        while (rest.endsWith("/")) {
            rest = rest.substring(0, rest.length() - 1);
        }
        return rest.isEmpty() ? null : rest;
    }

    /** Every directory from {@code into} down to {@code dir} must be a real directory, never a link. */
    private static void checkParents(Path into, Path dir) throws IOException {
        for (Path p = dir; p != null && !p.equals(into); p = p.getParent()) {
            BasicFileAttributes a;
            try {
                a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (java.nio.file.NoSuchFileException e) {
                throw refused("the entry under " + printable(into.relativize(p).toString()) + " comes before its "
                        + "directory");
            }
            if (!a.isDirectory()) {
                throw refused(printable(into.relativize(p).toString()) + " is not a directory (an entry would be "
                        + "written through it)");
            }
        }
    }

    private static void makeDirectory(Path target) throws IOException {
        try {
            Files.createDirectory(target);
        } catch (FileAlreadyExistsException e) {
            if (!Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
                throw refused(printable(target.getFileName().toString()) + " is both a directory and not one");
            }
        }
    }

    private static void check(long bytes, Limits limits) {
        if (bytes > limits.maxBytes()) {
            throw refused("more than " + limits.maxBytes() + " bytes");
        }
    }

    private static Set<PosixFilePermission> perms(int mode) {
        Set<PosixFilePermission> s = EnumSet.noneOf(PosixFilePermission.class);
        for (PosixFilePermission p : PosixFilePermission.values()) {
            if ((mode & (0400 >> p.ordinal())) != 0) {
                s.add(p);
            }
        }
        return s;
    }

    private static dev.sandbox4j.SandboxException refused(String why) {
        return DockerErrors.error(ErrorKind.IO_ERROR, "the sandbox's workspace archive was refused: " + why);
    }

    /** A name from the sandbox, bounded and without control characters, for a message. */
    private static String printable(String s) {
        String t = s.length() > 200 ? s.substring(0, 200) + "..." : s;
        return "'" + t.replaceAll("\\p{Cntrl}", "?") + "'";
    }

    /**
     * Deletes a download without following links; a directory the sandbox made read-only is opened up first, so that
     * its entries can go when the JVM is not root.
     */
    static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            Files.setPosixFilePermissions(p, perms(0700));
            try (var s = Files.list(p)) {
                for (Path c : (Iterable<Path>) s::iterator) {
                    deleteTree(c);
                }
            }
        }
        Files.delete(p);
    }
}
