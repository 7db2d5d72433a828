package dev.sandbox4j.core;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.Workspace;
import dev.sandbox4j.WorkspaceSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A workspace's change set, written once for every backend: what differs between a lower tree (the source as the
 * sandbox got it) and an upper tree, as {@link Workspace.Change}s, a unified diff, and their application to a host
 * directory with a conflict check. Two layouts of the upper tree: {@link Layout#OVERLAY_UPPER} (an overlayfs upper
 * directory: only what changed, deletions as whiteouts, a char device 0/0, and replaced directories marked opaque
 * with the xattr {@code user.overlay.opaque}) and {@link Layout#FULL_TREE} (a complete copy, compared name by name).
 *
 * <p>Nothing here follows a symbolic link: entries are read with {@code NOFOLLOW_LINKS}, links are compared and
 * applied as links. Special files (FIFOs, devices, sockets) are listed but never applied.
 */
public final class ChangeSet implements Workspace {
    /** How the upper tree holds the changes. */
    public enum Layout { OVERLAY_UPPER, FULL_TREE }

    /** Whether the host's entry at a changed path is still what the lower had at open (else: conflict). */
    public interface Baseline {
        boolean unchanged(Path host, Entry lower) throws IOException;
    }

    /** One entry of a tree: type {@code d f l o} (other) or {@code w} (whiteout), mode bits, size, link target. */
    public record Entry(Path path, char type, int mode, long size, String target, FileTime modified) {
        FileInfo info(String rel) {
            Instant m = modified.toInstant();
            return switch (type) {
                case 'd' -> FileInfo.directory(rel, size, mode, m);
                case 'f' -> FileInfo.file(rel, size, mode, m);
                case 'l' -> FileInfo.symlink(rel, target, size, mode, m);
                default -> FileInfo.other(rel, size, mode, m);
            };
        }
    }

    private record Item(Change change, Entry lower, Entry upper) {
    }

    private final WorkspaceSource source;
    private final Path lower;
    private final Path upper;
    private final Layout layout;
    private final Baseline baseline;
    private final Runnable guard;
    private java.util.Set<String> hidden = java.util.Set.of();
    private Object lowerKey;

    public ChangeSet(WorkspaceSource source, Path lower, Path upper, Layout layout, Baseline baseline,
                     Runnable guard) {
        this.source = source;
        this.lower = lower;
        this.upper = upper;
        this.layout = layout;
        this.baseline = baseline;
        this.guard = guard;
    }

    /**
     * Leaves these workspace-relative paths (and what is under them) out: mount points the jail made in the
     * workspace, which are not the sandbox's changes.
     */
    public ChangeSet hiding(java.util.Set<String> paths) {
        this.hidden = java.util.Set.copyOf(paths);
        return this;
    }

    /**
     * Pins the lower tree to the directory it is now (device and inode): when its path later leads elsewhere (a
     * parent renamed, a link swapped in), the change set refuses with {@link ErrorKind#CONFLICT} instead of
     * comparing against, diffing or reading whatever the path now names.
     */
    public ChangeSet pinLower() throws IOException {
        this.lowerKey = Files.readAttributes(lower, java.nio.file.attribute.BasicFileAttributes.class).fileKey();
        return this;
    }

    private void checkLower() {
        if (lowerKey == null) {
            return;
        }
        Object now;
        try {
            now = Files.readAttributes(lower, java.nio.file.attribute.BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
            now = null;
        }
        if (!lowerKey.equals(now)) {
            throw new SandboxException(ErrorKind.CONFLICT, "the source directory " + lower + " is no longer the "
                    + "directory the sandbox opened on (moved, or a link swapped in above it); no change set");
        }
    }

    /** The baseline of a lower tree kept apart from the host (a snapshot): the host must hold the same entry. */
    public static Baseline sameAsSnapshot() {
        return (host, lowerEntry) -> {
            Entry now = entry(host);
            return now != null && now.type() == lowerEntry.type() && now.mode() == lowerEntry.mode()
                    && sameContent(now, lowerEntry);
        };
    }

    /**
     * The baseline of a lower tree that is the live host directory: the lower entry must not have changed since
     * {@code opened} (its ctime, which the kernel sets on every change of content or metadata and no call can set
     * back, is older), and the host's entry must be that very file or hold the same. {@code margin} covers the
     * kernel's coarse clock (a tick late), at the cost of calling files changed just before the open conflicts.
     * Nothing is read at open: the cost is one stat per changed path at apply.
     */
    public static Baseline unchangedSince(Instant opened, java.time.Duration margin) {
        Instant fence = opened.minus(margin);
        Baseline content = sameAsSnapshot();
        return (host, lowerEntry) -> {
            try {
                FileTime ctime = (FileTime) Files.getAttribute(lowerEntry.path(), "unix:ctime",
                        LinkOption.NOFOLLOW_LINKS);
                if (!ctime.toInstant().isBefore(fence)) {
                    return false;
                }
            } catch (NoSuchFileException e) {
                return false;
            }
            return HostDirs.same(host, lowerEntry.path()) || content.unchanged(host, lowerEntry);
        };
    }

    @Override
    public WorkspaceSource source() {
        return source;
    }

    @Override
    public List<Change> changes() {
        return items().stream().map(Item::change).toList();
    }

    private List<Item> items() {
        guard.run();
        checkLower();
        List<Item> out = new ArrayList<>();
        try {
            compareDir(lower.getFileSystem().getPath(""), layout == Layout.FULL_TREE, out);
        } catch (IOException e) {
            throw new SandboxException(ErrorKind.IO_ERROR, "cannot compute the workspace's changes: " + e, e);
        }
        out.sort(Comparator.comparing(i -> i.change().path()));
        return out;
    }

    private void compareDir(Path rel, boolean complete, List<Item> out) throws IOException {
        Map<String, Entry> up = list(resolve(upper, rel));
        // a merged (non-opaque) overlay directory: only the names in the upper layer can have changed, so the lower
        // is asked for those alone (a directory of 100 files with one edited costs one lookup, not 100)
        Map<String, Entry> low = complete ? list(resolve(lower, rel)) : lookup(resolve(lower, rel), up);
        TreeSet<String> names = new TreeSet<>(up.keySet());
        names.addAll(low.keySet());
        for (String name : names) {
            Entry any = up.containsKey(name) ? up.get(name) : low.get(name);
            // the name as the directory gave it (bytes): a String of a name that is not UTF-8 would not find it again
            Path r = resolve(rel, any.path().getFileName());
            if (hidden.contains(r.toString())) {
                continue;
            }
            Entry u = up.get(name);
            Entry l = low.get(name);
            if (u == null) {
                // a full copy never holds the source's FIFOs, devices and sockets (TreeCopy skips them)
                if (complete && l != null && !(layout == Layout.FULL_TREE && l.type() == 'o')) {
                    deleted(r, l, out);
                }
            } else if (u.type() == 'w') {
                if (l != null) {
                    deleted(r, l, out);
                }
            } else if (l == null) {
                created(r, u, out);
            } else if (u.type() == 'd' && l.type() == 'd') {
                if (u.mode() != l.mode()) {
                    out.add(new Item(change(Change.Kind.MODIFIED, r, l, u), l, u));
                }
                compareDir(r, complete || opaque(u.path()), out);
            } else if (u.type() == 'd' || l.type() == 'd') {
                deleted(r, l, out);
                created(r, u, out);
            } else if (u.type() != l.type() || u.mode() != l.mode() || !sameContent(u, l)) {
                out.add(new Item(change(Change.Kind.MODIFIED, r, l, u), l, u));
            }
        }
    }

    private void deleted(Path rel, Entry l, List<Item> out) throws IOException {
        if (l.type() == 'd') {
            for (Entry child : list(l.path()).values()) {
                deleted(resolve(rel, child.path().getFileName()), child, out);
            }
        }
        out.add(new Item(change(Change.Kind.DELETED, rel, l, null), l, null));
    }

    private void created(Path rel, Entry u, List<Item> out) throws IOException {
        out.add(new Item(change(Change.Kind.CREATED, rel, null, u), null, u));
        if (u.type() == 'd') {
            for (Entry child : list(u.path()).values()) {
                if (child.type() != 'w') {
                    created(resolve(rel, child.path().getFileName()), child, out);
                }
            }
        }
    }

    private static Change change(Change.Kind kind, Path rel, Entry before, Entry after) {
        String r = rel.toString();
        return new Change(kind, r, before == null ? null : before.info(r), after == null ? null : after.info(r));
    }

    private static Map<String, Entry> list(Path dir) throws IOException {
        Map<String, Entry> m = new java.util.HashMap<>();
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return m;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                Entry e = entry(p);
                if (e != null) {
                    m.put(p.getFileName().toString(), e);
                }
            }
        }
        return m;
    }

    private static Map<String, Entry> lookup(Path dir, Map<String, Entry> upper) throws IOException {
        Map<String, Entry> m = new java.util.HashMap<>();
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return m;
        }
        for (Map.Entry<String, Entry> u : upper.entrySet()) {
            String name = u.getKey();
            Entry e = entry(resolve(dir, u.getValue().path().getFileName()));
            if (e != null) {
                m.put(name, e);
            }
        }
        return m;
    }

    /** The entry at {@code p}, never following a link; null when absent. */
    public static Entry entry(Path p) throws IOException {
        java.nio.file.attribute.BasicFileAttributes b;
        Map<String, Object> a;
        try {
            b = Files.readAttributes(p, java.nio.file.attribute.BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            a = Files.readAttributes(p, "unix:mode,rdev", LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return null;
        }
        // the type from the basic view: jimfs's unix:mode holds the permission bits only
        int mode = (Integer) a.get("mode");
        char type = b.isDirectory() ? 'd' : b.isRegularFile() ? 'f' : b.isSymbolicLink() ? 'l'
                : (mode & 0170000) == 0020000 && ((Number) a.get("rdev")).longValue() == 0 ? 'w' : 'o';
        String target = type == 'l' ? Files.readSymbolicLink(p).toString() : null;
        // set-user-id and set-group-id bits are never carried into a copy nor applied back: no change of theirs counts
        return new Entry(p, type, mode & 01777, b.size(), target, b.lastModifiedTime());
    }

    private static boolean opaque(Path dir) {
        UserDefinedFileAttributeView v = Files.getFileAttributeView(dir, UserDefinedFileAttributeView.class,
                LinkOption.NOFOLLOW_LINKS);
        if (v == null) {
            return false;
        }
        try {
            return v.list().contains("overlay.opaque");
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    static boolean sameContent(Entry a, Entry b) throws IOException {
        if (a.type() == 'l') {
            return a.target().equals(b.target());
        }
        if (a.type() != 'f') {
            return true;
        }
        if (a.size() != b.size()) {
            return false;
        }
        try (InputStream x = Files.newInputStream(a.path(), LinkOption.NOFOLLOW_LINKS);
             InputStream y = Files.newInputStream(b.path(), LinkOption.NOFOLLOW_LINKS)) {
            byte[] bx = new byte[65536];
            byte[] by = new byte[65536];
            while (true) {
                int n = x.readNBytes(bx, 0, bx.length);
                int m = y.readNBytes(by, 0, n);
                if (n != m || !java.util.Arrays.equals(bx, 0, n, by, 0, n)) {
                    return false;
                }
                if (n == 0) {
                    return true;
                }
            }
        }
    }

    static Path resolve(Path base, Path rel) {
        if (rel.toString().isEmpty()) {
            return base;
        }
        return rel.getFileSystem() == base.getFileSystem() ? base.resolve(rel) : base.resolve(rel.toString());
    }

    // ---------------------------------------------------------------- diff

    @Override
    public String diff() {
        StringBuilder out = new StringBuilder();
        try {
            for (Item i : items()) {
                ChangeDiff.append(out, i.change(), i.lower(), i.upper());
            }
        } catch (IOException e) {
            throw new SandboxException(ErrorKind.IO_ERROR, "cannot read the workspace's changes: " + e, e);
        }
        return out.toString();
    }

    /** UTF-8 text without NUL, or null (binary). */
    static String text(Entry e) throws IOException {
        if (e == null) {
            return "";
        }
        if (e.type() == 'l') {
            return e.target();
        }
        byte[] b = Files.readAllBytes(e.path());
        for (byte x : b) {
            if (x == 0) {
                return null;
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(b)).toString();
        } catch (CharacterCodingException ex) {
            return null;
        }
    }

    // ---------------------------------------------------------------- apply

    @Override
    public List<Change> applyTo(Path hostDir) {
        Path root = HostDirs.check(hostDir, "the directory to apply to", false);
        List<Item> items = items();
        List<String> conflicts = new ArrayList<>();
        // a directory replaced by a file or link (or back) is a deletion and a creation of one path: the deletion's
        // check is the one that says whether the host still holds what the sandbox saw
        java.util.Set<String> replaced = new java.util.HashSet<>();
        for (Item i : items) {
            if (i.change().kind() == Change.Kind.DELETED) {
                replaced.add(i.change().path());
            }
        }
        try {
            for (Item i : items) {
                if (i.upper() != null && i.upper().type() == 'o') {
                    continue;
                }
                if (i.change().kind() == Change.Kind.CREATED && underReplaced(i.change().path(), replaced)) {
                    continue;
                }
                String why = conflict(root, i);
                if (why != null) {
                    conflicts.add(i.change().path() + " (" + why + ")");
                }
            }
        } catch (IOException e) {
            throw new SandboxException(ErrorKind.IO_ERROR, "cannot check " + hostDir + ": " + e, e);
        }
        if (!conflicts.isEmpty()) {
            throw new SandboxException(ErrorKind.CONFLICT, "nothing applied to " + hostDir + ": the host changed "
                    + conflicts.size() + " of the sandbox's paths since it opened: " + String.join(", ", conflicts));
        }
        try {
            return ChangeApply.apply(root, items.stream().map(i -> new ChangeApply.Step(i.change(), relOf(i),
                    i.upper())).toList());
        } catch (IOException e) {
            throw new SandboxException(ErrorKind.IO_ERROR, "applying to " + hostDir + " failed part way (each file "
                    + "is whole, old or new): " + e, e);
        }
    }

    /** Whether {@code path} or a parent of it is deleted by the change set (then what is there is re-made). */
    private static boolean underReplaced(String path, java.util.Set<String> replaced) {
        for (String p = path; ; p = p.substring(0, p.lastIndexOf('/'))) {
            if (replaced.contains(p)) {
                return true;
            }
            if (p.lastIndexOf('/') < 0) {
                return false;
            }
        }
    }

    private Path relOf(Item i) {
        Entry e = i.upper() != null ? i.upper() : i.lower();
        Path base = i.upper() != null ? upper : lower;
        return base.relativize(e.path());
    }

    private String conflict(Path root, Item i) throws IOException {
        Path host = ChangeApply.inside(root, relOf(i));
        if (host == null) {
            return "a parent on the host is not a directory";
        }
        Entry now = entry(host);
        if (i.change().kind() == Change.Kind.CREATED) {
            return now == null ? null : "exists on the host";
        }
        if (now == null) {
            return "gone from the host";
        }
        if (!baseline.unchanged(host, i.lower())) {
            return "changed on the host";
        }
        if (i.change().kind() == Change.Kind.DELETED && now.type() == 'd'
                && !list(i.lower().path()).keySet().containsAll(list(host).keySet())) {
            return "the host's directory holds entries the sandbox did not see";
        }
        return null;
    }

    static void copy(Path from, Path to) throws IOException {
        try (InputStream in = Files.newInputStream(from, LinkOption.NOFOLLOW_LINKS);
             OutputStream out = Files.newOutputStream(to, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            in.transferTo(out);
        }
    }

    static final StandardCopyOption[] ATOMIC = {StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING};
}
