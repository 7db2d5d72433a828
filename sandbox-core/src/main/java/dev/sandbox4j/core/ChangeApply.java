package dev.sandbox4j.core;

import dev.sandbox4j.Workspace.Change;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;

/**
 * Applies checked changes to a host directory: deletions first, deepest first; then directories, files and links,
 * parents first. Each file and link is written beside its target under a temporary name and renamed over it, so a
 * reader sees the old or the new, never a half. Set-user-id and set-group-id bits are never applied (the sandbox's
 * files must not become privileged programs on the host).
 */
final class ChangeApply {
    private static final SecureRandom RANDOM = new SecureRandom();

    record Step(Change change, Path rel, ChangeSet.Entry upper) {
    }

    private ChangeApply() {
    }

    static List<Change> apply(Path root, List<Step> steps) throws IOException {
        List<Change> done = new ArrayList<>();
        List<Step> deletions = new ArrayList<>(steps.stream()
                .filter(s -> s.change().kind() == Change.Kind.DELETED).toList());
        deletions.sort(Comparator.comparing((Step s) -> s.change().path()).reversed());
        for (Step s : deletions) {
            Files.deleteIfExists(target(root, s));
            done.add(s.change());
        }
        for (Step s : steps) {
            if (s.change().kind() == Change.Kind.DELETED || s.upper().type() == 'o') {
                continue;
            }
            Path to = target(root, s);
            ChangeSet.Entry u = s.upper();
            int mode = u.mode() & 01777;
            if (u.type() == 'd') {
                if (!Files.isDirectory(to, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createDirectory(to);
                }
                Files.setAttribute(to, "unix:mode", mode, LinkOption.NOFOLLOW_LINKS);
            } else {
                Path tmp = to.resolveSibling("." + to.getFileName() + ".sandbox4j-"
                        + HexFormat.of().formatHex(bytes()));
                try {
                    if (u.type() == 'l') {
                        Files.createSymbolicLink(tmp, tmp.getFileSystem().getPath(u.target()));
                    } else {
                        ChangeSet.copy(u.path(), tmp);
                        Files.setAttribute(tmp, "unix:mode", mode, LinkOption.NOFOLLOW_LINKS);
                    }
                    Files.move(tmp, to, ChangeSet.ATOMIC);
                } finally {
                    Files.deleteIfExists(tmp);
                }
            }
            done.add(s.change());
        }
        return done;
    }

    private static Path target(Path root, Step s) throws IOException {
        Path to = inside(root, s.rel());
        if (to == null) {
            throw new IOException("a parent of " + s.change().path() + " is no longer a directory on the host");
        }
        return to;
    }

    /** {@code root/rel} when every existing parent below root is a directory (not a link), else null. */
    static Path inside(Path root, Path rel) throws IOException {
        Path at = root;
        for (int i = 0; i < rel.getNameCount() - 1; i++) {
            at = at.resolve(rel.getName(i).toString());
            ChangeSet.Entry e = ChangeSet.entry(at);
            if (e == null) {
                return root.resolve(rel.toString());
            }
            if (e.type() != 'd') {
                return null;
            }
        }
        return rel.getFileSystem() == root.getFileSystem() ? root.resolve(rel) : root.resolve(rel.toString());
    }

    private static byte[] bytes() {
        byte[] b = new byte[6];
        RANDOM.nextBytes(b);
        return b;
    }
}
