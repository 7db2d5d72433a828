package dev.sandbox4j.core;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.FileRules;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.SandboxException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * The checks behind {@link GuardedFileSystem}: which workspace paths {@link FileRules} protect (globs matched
 * without case, on a path and on each of its parents), where a path really leads once the symbolic links on its way
 * are followed (as the backend would follow them inside the workspace), and whether a directory holds a protected
 * path.
 */
final class PathRules {
    /** Links followed while resolving one path, as the kernel's {@code MAXSYMLINKS}. */
    static final int MAX_LINKS = 40;

    private final FileSystem fs;
    private final FileRules rules;
    private final List<Predicate<String>> globs = new ArrayList<>();
    /** Lower-case globs that hold no wildcard: a directory can hold them only under their own prefix. */
    private final List<String> literals = new ArrayList<>();
    private boolean anyWildcard;

    PathRules(FileSystem fs, FileRules rules) {
        this.fs = fs;
        this.rules = rules;
        for (String raw : rules.protectedPaths()) {
            String glob = raw.startsWith(WorkspacePaths.WORKSPACE + "/")
                    ? raw.substring(WorkspacePaths.WORKSPACE.length() + 1) : raw;
            while (glob.startsWith("./")) {
                glob = glob.substring(2);
            }
            String lower = glob.toLowerCase(Locale.ROOT);
            if (lower.chars().noneMatch(c -> "*?[{".indexOf(c) >= 0)) {
                lower = WorkspacePaths.normalize(lower);
                literals.add(lower);
                String exact = lower;
                globs.add(exact::equals);
            } else {
                anyWildcard = true;
                globs.add(Globs.compile(lower));
            }
        }
    }

    boolean refuseSymlinks() {
        return rules.refuseSymlinks();
    }

    boolean protects() {
        return !globs.isEmpty();
    }

    /** Whether {@code normalized} or one of its parents is protected. */
    boolean isProtected(String normalized) {
        String lower = normalized.toLowerCase(Locale.ROOT);
        for (int end = lower.indexOf('/'); ; end = lower.indexOf('/', end + 1)) {
            String prefix = end < 0 ? lower : lower.substring(0, end);
            if (!prefix.isEmpty() && globs.stream().anyMatch(g -> g.test(prefix))) {
                return true;
            }
            if (end < 0) {
                return false;
            }
        }
    }

    /**
     * Where {@code path} leads: its normalized form with every symbolic link on the way followed (the last segment's
     * too when {@code followLast}). A missing segment ends the walk: the rest is taken as written.
     *
     * @throws SandboxException {@link ErrorKind#PERMISSION_DENIED} for a link when links are refused, for a link
     *     that leads out of the workspace and past {@value #MAX_LINKS} links
     */
    String resolve(String path, boolean followLast) {
        List<String> segments = WorkspacePaths.segments(path);
        if (noLinkOnTheWay(segments, followLast)) {
            return String.join("/", segments);
        }
        return walk(path, followLast);
    }

    /**
     * The fast answer, one {@code stat} in the common case: the deepest existing entry of the path (the last
     * segment's parent when it is not followed) is found by the backend without error and is no link. Every backend
     * refuses a link met on the way ({@link FileSystem}'s rule, the kit's {@code FileSystemSecurityContract}), so such
     * a stat proves there is none before it, and what follows it does not exist yet. Anything else (a link, a refusal)
     * takes the walk, which names the link.
     */
    private boolean noLinkOnTheWay(List<String> segments, boolean followLast) {
        int end = followLast ? segments.size() : segments.size() - 1;
        for (int n = end; n > 0; n--) {
            FileInfo info;
            try {
                info = fs.stat(String.join("/", segments.subList(0, n)));
            } catch (SandboxException e) {
                if (e.kind() == ErrorKind.NOT_FOUND) {
                    continue;
                }
                return false;
            }
            return !info.isSymlink() && (n == end || info.isDirectory());
        }
        return true;
    }

    /** Resolves segment by segment, following links inside the workspace as a backend that followed them would. */
    private String walk(String path, boolean followLast) {
        Deque<String> todo = new ArrayDeque<>(WorkspacePaths.segments(path));
        List<String> done = new ArrayList<>();
        int links = 0;
        while (!todo.isEmpty()) {
            String segment = todo.pop();
            if (segment.equals(".") || segment.isEmpty()) {
                continue;
            }
            if (segment.equals("..")) {
                if (done.isEmpty()) {
                    throw denied(path, "a symbolic link on its way leads out of the workspace");
                }
                done.remove(done.size() - 1);
                continue;
            }
            done.add(segment);
            if (todo.isEmpty() && !followLast) {
                break;
            }
            FileInfo info = statOrNull(String.join("/", done));
            if (info == null) {
                todo.forEach(done::add);
                break;
            }
            if (!info.isSymlink()) {
                continue;
            }
            if (rules.refuseSymlinks()) {
                throw denied(path, "it passes through the symbolic link " + String.join("/", done)
                        + " and symbolic links are refused in this workspace");
            }
            if (++links > MAX_LINKS) {
                throw denied(path, "more than " + MAX_LINKS + " symbolic links on its way");
            }
            done.remove(done.size() - 1);
            String target = info.linkTarget() == null ? "" : info.linkTarget();
            if (target.startsWith("/")) {
                if (!(target.equals(WorkspacePaths.WORKSPACE) || target.startsWith(WorkspacePaths.WORKSPACE + "/"))) {
                    throw denied(path, "the symbolic link " + info.path() + " leads out of the workspace");
                }
                done.clear();
                target = target.substring(WorkspacePaths.WORKSPACE.length());
            }
            String[] parts = target.split("/");
            for (int i = parts.length - 1; i >= 0; i--) {
                todo.push(parts[i]);
            }
        }
        return String.join("/", done);
    }

    private FileInfo statOrNull(String normalized) {
        try {
            return fs.stat(normalized);
        } catch (SandboxException e) {
            if (e.kind() == ErrorKind.NOT_FOUND || e.kind() == ErrorKind.NOT_A_DIRECTORY) {
                return null;
            }
            throw e;
        }
    }

    /**
     * Whether the tree at {@code dir} (resolved, normalized) holds a protected path, or would hold one once moved or
     * copied to {@code movedTo} (null when it stays); a copy ({@code copy}) leaves the tree where it is, so only
     * where it lands counts. Lists the tree only when a protected glob can be under it.
     */
    boolean holdsProtected(String dir, String movedTo, boolean copy) {
        int depth = copy ? 0 : depthNeeded(dir);
        if (movedTo != null) {
            depth = Math.max(depth, depthNeeded(movedTo));
        }
        if (depth == 0) {
            return false;
        }
        FileInfo info = statOrNull(dir);
        if (info == null || !info.isDirectory()) {
            return false;
        }
        List<FileInfo> entries;
        try {
            entries = fs.list(dir, depth);
        } catch (SandboxException e) {
            if (e.kind() == ErrorKind.TOO_LARGE) {
                throw denied(dir, "it is too deep to check for protected paths under it");
            }
            throw e;
        }
        for (FileInfo e : entries) {
            String p = WorkspacePaths.normalize(e.path());
            if (!copy && isProtected(p)) {
                return true;
            }
            if (movedTo != null && p.startsWith(dir.isEmpty() ? "" : dir + "/")) {
                String rest = dir.isEmpty() ? p : p.substring(dir.length() + 1);
                if (isProtected(WorkspacePaths.child(movedTo, rest))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** How deep under {@code dir} a protected path may be: 0 for none, 256 for a wildcard. */
    private int depthNeeded(String dir) {
        if (anyWildcard) {
            return 256;
        }
        String prefix = dir.isEmpty() ? "" : dir.toLowerCase(Locale.ROOT) + "/";
        int depth = 0;
        for (String literal : literals) {
            if (literal.startsWith(prefix) && literal.length() > prefix.length()) {
                String rest = literal.substring(prefix.length());
                depth = Math.max(depth, (int) rest.chars().filter(c -> c == '/').count() + 1);
            }
        }
        return depth;
    }

    static SandboxException denied(String path, String why) {
        return WorkspacePaths.denied(path, why);
    }
}
