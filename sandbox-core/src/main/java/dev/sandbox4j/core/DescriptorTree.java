package dev.sandbox4j.core;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemLoopException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * {@link NioWorkspace}'s walks over open directory descriptors, never following a link and never recursing: the
 * visit of a tree (list, find, grep, the change report of a delete), bounded by {@link NioWorkspace#MAX_WALK_DEPTH},
 * and the delete of a tree of any depth with a bounded number of descriptors. Errors are NioWorkspace's.
 */
final class DescriptorTree {
    /** Directories open at once while deleting a tree (deeper subtrees are moved up, not descended into). */
    static final int DELETE_OPEN_DIRS = 32;

    private DescriptorTree() {
    }

    interface Visitor {
        /** Visits the entry at {@code rel}; returns whether to descend (for directories): false skips the subtree. */
        boolean visit(String rel, BasicFileAttributes attrs);
    }

    /** The names in a directory, as the file system gave them (raw bytes kept). */
    static List<Path> entries(SecureDirectoryStream<Path> dir) {
        List<Path> names = new ArrayList<>();
        for (Path entry : dir) {
            names.add(entry.getFileName());
        }
        return names;
    }

    /** One open directory of an iterative walk, with the names still to visit. */
    private static final class Frame {
        final SecureDirectoryStream<Path> dir;
        final Path name;
        final String rel;
        final ArrayDeque<Path> names;

        Frame(SecureDirectoryStream<Path> dir, Path name, String rel, List<Path> names) {
            this.dir = dir;
            this.name = name;
            this.rel = rel;
            this.names = new ArrayDeque<>(names);
        }
    }

    /**
     * Visits the tree under {@code top} (pre-order, names sorted), down to {@code depth} levels, without recursion:
     * a tree thousands of levels deep cannot overflow the stack. At most {@link NioWorkspace#MAX_WALK_DEPTH} directories are open
     * at once; a walk asked to go deeper than that fails with TOO_LARGE. {@code top} stays open.
     */
    static void walk(SecureDirectoryStream<Path> top, String rel, int depth, Visitor visitor) throws IOException {
        ArrayDeque<Frame> stack = new ArrayDeque<>();
        stack.push(new Frame(top, null, rel, sorted(entries(top))));
        try {
            while (!stack.isEmpty()) {
                Frame frame = stack.peek();
                Path name = frame.names.poll();
                if (name == null) {
                    stack.pop();
                    if (frame.dir != top) {
                        frame.dir.close();
                    }
                    continue;
                }
                String childRel = WorkspacePaths.child(frame.rel, name.toString());
                BasicFileAttributes attrs = NioWorkspace.attrs(frame.dir, name);
                if (attrs == null) {
                    continue; // deleted meanwhile
                }
                boolean descend = visitor.visit(childRel, attrs);
                if (!descend || stack.size() >= depth || !attrs.isDirectory()) {
                    continue;
                }
                if (stack.size() >= NioWorkspace.MAX_WALK_DEPTH) {
                    throw NioWorkspace.tooDeep(rel, childRel);
                }
                SecureDirectoryStream<Path> child;
                try {
                    child = frame.dir.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS);
                } catch (NoSuchFileException | NotDirectoryException | FileSystemLoopException vanished) {
                    continue; // replaced meanwhile: never followed, just skipped
                }
                try {
                    stack.push(new Frame(child, name, childRel, sorted(entries(child))));
                } catch (RuntimeException e) {
                    child.close();
                    throw e;
                }
            }
        } finally {
            for (Frame frame : stack) {
                if (frame.dir != top) {
                    closeQuietly(frame.dir);
                }
            }
        }
    }

    private static List<Path> sorted(List<Path> names) {
        names.sort((a, b) -> a.toString().compareTo(b.toString()));
        return names;
    }

    static void closeQuietly(SecureDirectoryStream<Path> dir) {
        try {
            dir.close();
        } catch (IOException ignored) {
            // closing a directory descriptor: nothing to recover
        }
    }

    /** {@link NioWorkspace#deleteTree(Path)}: the open of {@code dir}'s parent, then {@link #delete}. */
    static void deleteTree(Path dir) throws IOException {
        Path absolute = dir.toAbsolutePath();
        Path parent = absolute.getParent();
        if (parent == null) {
            throw new IOException("refusing to delete a file system root: " + dir);
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(parent)) {
            if (!(ds instanceof SecureDirectoryStream)) {
                throw new IOException("no SecureDirectoryStream on the file system of " + dir);
            }
            SecureDirectoryStream<Path> in = (SecureDirectoryStream<Path>) ds;
            Path name = absolute.getFileName();
            BasicFileAttributes attrs = NioWorkspace.attrs(in, name);
            if (attrs == null) {
                return;
            }
            if (!attrs.isDirectory()) {
                in.deleteFile(name);
                return;
            }
            // by path only when not root: root needs no chmod, and a path could be swapped for a link to a host
            // file by a process still running; a non-root JVM can only chmod files it owns anyway
            Path hostPath = isRoot() ? null : absolute;
            makeOwnerWritable(in, name, hostPath);
            delete(in, name, hostPath);
        }
    }

    /**
     * The iterative delete: a depth-first walk with an explicit stack of at most {@value #DELETE_OPEN_DIRS} open
     * directories; a subtree deeper than that is renamed up into the top directory (same file system, fd-relative)
     * and deleted from there, so neither the stack, the descriptors nor a path ever grows with the depth.
     * {@code hostPath}, when not null, is the tree's absolute path, used only to make read-only directories writable.
     */
    static void delete(SecureDirectoryStream<Path> parent, Path name, Path hostPath) throws IOException {
        SecureDirectoryStream<Path> top = parent.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS);
        ArrayDeque<Frame> stack = new ArrayDeque<>();
        try {
            Frame root = new Frame(top, name, "", entries(top));
            stack.push(root);
            while (!stack.isEmpty()) {
                Frame frame = stack.peek();
                Path n = frame.names.poll();
                if (n == null) {
                    stack.pop();
                    frame.dir.close();
                    if (frame != root) {
                        stack.peek().dir.deleteDirectory(frame.name);
                    }
                    continue;
                }
                BasicFileAttributes a = NioWorkspace.attrs(frame.dir, n);
                if (a == null) {
                    continue;
                }
                if (!a.isDirectory()) {
                    frame.dir.deleteFile(n);
                } else if (stack.size() >= DELETE_OPEN_DIRS) {
                    Path up = n.getFileSystem().getPath(".sbx-deep-" + UUID.randomUUID());
                    frame.dir.move(n, top, up);
                    root.names.add(up);
                } else {
                    String rel = frame.rel.isEmpty() ? n.toString() : frame.rel + "/" + n;
                    if (hostPath != null) {
                        makeOwnerWritable(frame.dir, n, hostPath.resolve(rel));
                    }
                    SecureDirectoryStream<Path> child = frame.dir.newDirectoryStream(n, LinkOption.NOFOLLOW_LINKS);
                    try {
                        stack.push(new Frame(child, n, rel, entries(child)));
                    } catch (RuntimeException e) {
                        child.close();
                        throw e;
                    }
                }
            }
        } finally {
            for (Frame frame : stack) {
                closeQuietly(frame.dir);
            }
        }
        parent.deleteDirectory(name);
    }

    private static boolean isRoot() {
        try {
            // /proc/<pid> is owned by the process's user; the /proc/self link itself always by root
            return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Best effort: rwx for the owner on directory {@code name}, through the open parent, else by path if known. */
    private static void makeOwnerWritable(SecureDirectoryStream<Path> dir, Path name, Path path) {
        Set<PosixFilePermission> rwx = java.nio.file.attribute.PosixFilePermissions.fromString("rwx------");
        try {
            PosixFileAttributeView view = dir.getFileAttributeView(name, PosixFileAttributeView.class,
                    LinkOption.NOFOLLOW_LINKS);
            if (view != null) {
                view.setPermissions(rwx);
            }
            return;
        } catch (IOException | RuntimeException e) {
            // a directory without read permission cannot be opened to chmod it: try its path
        }
        if (path != null) {
            try {
                Files.setPosixFilePermissions(path, rwx);
            } catch (IOException | RuntimeException ignored) {
                // root deletes anyway; otherwise the delete reports what is left
            }
        }
    }
}
