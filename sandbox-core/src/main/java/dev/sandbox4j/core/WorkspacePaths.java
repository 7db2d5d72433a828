package dev.sandbox4j.core;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The path rules every backend shares: workspace-relative POSIX paths, absolute ones only under
 * {@value #WORKSPACE}, no escape by {@code ..}, no NUL, no segment over 255 bytes, no path over 4,096 bytes.
 *
 * <p>Lexical only: it never touches a file system. Backends must still refuse symbolic links on the way.
 */
public final class WorkspacePaths {
    /** Where the workspace is mounted inside every sandbox. */
    public static final String WORKSPACE = "/workspace";
    /** Longest path segment, in UTF-8 bytes (Linux NAME_MAX). */
    public static final int MAX_SEGMENT_BYTES = 255;
    /** Longest path, in UTF-8 bytes (Linux PATH_MAX). */
    public static final int MAX_PATH_BYTES = 4096;

    private WorkspacePaths() {
    }

    /**
     * The normalized segments of a path: {@code "a/./b/../c"} gives {@code [a, c]}; {@code ""}, {@code "."} and
     * {@code "/workspace"} give the root, {@code []}.
     *
     * @throws SandboxException {@link ErrorKind#INVALID_PATH} for a path that breaks the rules
     */
    public static List<String> segments(String path) {
        if (path == null) {
            throw invalid("null", "a path is required");
        }
        if (path.indexOf('\0') >= 0) {
            throw invalid(path.replace('\0', '?'), "it contains a NUL character");
        }
        if (path.getBytes(StandardCharsets.UTF_8).length > MAX_PATH_BYTES) {
            throw invalid(abbreviate(path), "it is longer than " + MAX_PATH_BYTES + " bytes");
        }
        String rest = path;
        if (path.startsWith("/")) {
            if (!(path.equals(WORKSPACE) || path.startsWith(WORKSPACE + "/"))) {
                throw invalid(path, "absolute paths must be under " + WORKSPACE);
            }
            rest = path.substring(WORKSPACE.length());
        }
        List<String> out = new ArrayList<>();
        for (String segment : rest.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".")) {
                continue;
            }
            if (segment.equals("..")) {
                if (out.isEmpty()) {
                    throw invalid(path, "it leaves the workspace");
                }
                out.remove(out.size() - 1);
                continue;
            }
            if (segment.getBytes(StandardCharsets.UTF_8).length > MAX_SEGMENT_BYTES) {
                throw invalid(abbreviate(path), "a name is longer than " + MAX_SEGMENT_BYTES + " bytes");
            }
            out.add(segment);
        }
        return List.copyOf(out);
    }

    /** The normalized workspace-relative form of a path, {@code ""} for the root. */
    public static String normalize(String path) {
        return String.join("/", segments(path));
    }

    /** The normalized path of something that must not be the workspace root itself (a file to write, a move source). */
    public static String requireNonRoot(String path) {
        String normalized = normalize(path);
        if (normalized.isEmpty()) {
            throw invalid(path, "it names the workspace root");
        }
        return normalized;
    }

    /** The absolute path inside the sandbox, such as {@code /workspace/src/app.py}. */
    public static String absolute(String path) {
        return absolute(WORKSPACE, path);
    }

    /** The absolute path where the agent sees the workspace at {@code root} ({@link SandboxHost#workspaceRoot()}). */
    public static String absolute(String root, String path) {
        String normalized = normalize(path);
        return normalized.isEmpty() ? root : root + "/" + normalized;
    }

    /** {@code parent/child}, or {@code child} when the parent is the root. */
    public static String child(String parent, String name) {
        return parent.isEmpty() ? name : parent + "/" + name;
    }

    /** The parent of a normalized path, {@code ""} for a top-level entry. */
    public static String parent(String normalized) {
        int slash = normalized.lastIndexOf('/');
        return slash < 0 ? "" : normalized.substring(0, slash);
    }

    /** A file call refused by the sandbox's {@link dev.sandbox4j.FileRules} ({@link PathRules}). */
    static SandboxException denied(String path, String why) {
        return new SandboxException(ErrorKind.PERMISSION_DENIED, "refused '" + path + "': " + why);
    }

    private static SandboxException invalid(String path, String why) {
        return new SandboxException(ErrorKind.INVALID_PATH, "invalid path '" + path + "': " + why);
    }

    private static String abbreviate(String path) {
        return path.length() <= 80 ? path : path.substring(0, 60) + "…(" + path.length() + " chars)";
    }

    /**
     * Walk order, the order grep reports files in on every backend: depth first, names sorted, so a directory's whole
     * subtree comes before the names that sort after the directory's ({@code a/z.txt} before {@code a-b.txt}), as a
     * tar of the tree lists them. Compares workspace-relative paths segment by segment.
     */
    public static int walkOrder(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ea = a.indexOf('/', i);
            int eb = b.indexOf('/', j);
            String sa = a.substring(i, ea < 0 ? a.length() : ea);
            String sb = b.substring(j, eb < 0 ? b.length() : eb);
            int c = sa.compareTo(sb);
            if (c != 0) {
                return c;
            }
            if (ea < 0 || eb < 0) {
                return ea < 0 ? (eb < 0 ? 0 : -1) : 1;
            }
            i = ea + 1;
            j = eb + 1;
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }
}
