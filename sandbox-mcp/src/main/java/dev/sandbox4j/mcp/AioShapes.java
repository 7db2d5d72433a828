package dev.sandbox4j.mcp;

import dev.sandbox4j.FileWatch;
import dev.sandbox4j.tools.ToolResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The shapes of AIO Sandbox's file API (the {@code aio} surface document): the {@code {success, message, data}}
 * wrapper, its failure data ({@code errno}, {@code errno_name}, {@code exception_type}: what AIO's Python server
 * reports), the file event, and the mapping between AIO's absolute workspace path (default
 * {@code /home/gem/workspace}, so the document's client code runs unchanged) and the sandbox's workspace.
 */
final class AioShapes {
    private final String root;

    /** @param root the absolute path AIO clients use for the workspace, such as {@code /home/gem/workspace} */
    AioShapes(String root) {
        String r = root.endsWith("/") && root.length() > 1 ? root.substring(0, root.length() - 1) : root;
        if (!r.startsWith("/")) {
            throw new IllegalArgumentException("the AIO workspace path must be absolute, got " + root);
        }
        this.root = r;
    }

    String root() {
        return root;
    }

    /** A client's path as the tools take it: under the AIO root it becomes workspace-relative; others pass as is. */
    String in(String path) {
        if (path == null) {
            return null;
        }
        if (path.equals(root)) {
            return ".";
        }
        if (path.startsWith(root + "/")) {
            String rel = path.substring(root.length() + 1);
            return rel.isEmpty() ? "." : rel;
        }
        return path;
    }

    /** A workspace-relative path as AIO answers it: absolute under the root. */
    String out(String relative) {
        if (relative == null) {
            return null;
        }
        if (relative.startsWith("/")) {
            return relative;
        }
        return relative.isEmpty() || relative.equals(".") ? root : root + "/" + relative;
    }

    /** The success wrapper, with the path fields of {@code data} made absolute. */
    Map<String, Object> ok(String message, Map<String, Object> fields) {
        Map<String, Object> data = new LinkedHashMap<>(fields);
        data.remove("success");
        absolute(data);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("success", true);
        body.put("message", message);
        body.put("data", data);
        return body;
    }

    /** The failure wrapper: AIO's message prefix, the operation, its error code and the POSIX/Python names. */
    Map<String, Object> failed(String operation, String target, ToolResult r) {
        String ours = r.errorType();
        String message = "Failed to " + operation + " file: " + r.get("message");
        Map<String, Object> data = new LinkedHashMap<>();
        data.put(operation.equals("list") || operation.equals("find") || operation.equals("grep")
                || operation.equals("glob") ? "path" : "file", target);
        data.put("operation", operation);
        data.put("message", message);
        data.put("error_type", errorType(ours));
        data.put("retryable", r.get("retryable"));
        Errno e = errno(ours);
        data.put("errno", e == null ? null : e.number);
        data.put("errno_name", e == null ? null : e.name);
        data.put("exception_type", exceptionType(ours));
        for (Map.Entry<String, Object> f : r.fields().entrySet()) {
            if (!List.of("success", "error_type", "message", "retryable", "errno").contains(f.getKey())) {
                data.putIfAbsent(f.getKey(), f.getValue());
            }
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("success", false);
        body.put("message", message);
        body.put("data", data);
        return body;
    }

    /** A refusal before any tool ran (bad JSON, sudo), in the failure wrapper. */
    Map<String, Object> refused(String operation, String target, String errorType, String message) {
        return failed(operation, target, ToolResult.failure(errorType, message, false));
    }

    /** AIO's error vocabulary: the document lists {@code invalid_target} for a path of the wrong type. */
    static String errorType(String ours) {
        return switch (ours) {
            case "is_a_directory", "not_a_directory" -> "invalid_target";
            default -> ours;
        };
    }

    record Errno(int number, String name) {
    }

    static Errno errno(String ours) {
        return switch (ours) {
            case "not_found" -> new Errno(2, "ENOENT");
            case "io_error" -> new Errno(5, "EIO");
            case "permission_denied" -> new Errno(13, "EACCES");
            case "already_exists" -> new Errno(17, "EEXIST");
            case "not_a_directory" -> new Errno(20, "ENOTDIR");
            case "is_a_directory" -> new Errno(21, "EISDIR");
            case "invalid_path", "invalid_argument" -> new Errno(22, "EINVAL");
            case "too_large" -> new Errno(27, "EFBIG");
            case "no_space_left" -> new Errno(28, "ENOSPC");
            case "directory_not_empty" -> new Errno(39, "ENOTEMPTY");
            default -> null;
        };
    }

    /** The Python exception AIO's server would have caught for this failure. */
    static String exceptionType(String ours) {
        return switch (ours) {
            case "not_found" -> "FileNotFoundError";
            case "permission_denied" -> "PermissionError";
            case "already_exists" -> "FileExistsError";
            case "not_a_directory" -> "NotADirectoryError";
            case "is_a_directory" -> "IsADirectoryError";
            case "invalid_path", "invalid_argument", "no_match", "ambiguous_match", "decode_error" -> "ValueError";
            case "timeout" -> "TimeoutError";
            default -> "OSError";
        };
    }

    /** One file event as AIO gives it (its {@code inode} is not known here: null). */
    Map<String, Object> event(FileWatch.Event e, String watchedRelative) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("seq", e.seq());
        m.put("type", e.kind().code());
        m.put("path", out(e.path()));
        m.put("relative_path", relativeTo(watchedRelative, e.path()));
        m.put("old_path", e.fromPath().isEmpty() ? null : out(e.fromPath()));
        m.put("is_dir", e.dir());
        m.put("timestamp", System.currentTimeMillis() / 1000.0);
        m.put("mtime", e.modified().toEpochMilli() / 1000.0);
        m.put("size", e.size());
        m.put("inode", null);
        return m;
    }

    private static String relativeTo(String base, String path) {
        if (base == null || base.isEmpty() || base.equals(".")) {
            return path;
        }
        return path.startsWith(base + "/") ? path.substring(base.length() + 1) : path;
    }

    @SuppressWarnings("unchecked")
    private void absolute(Map<String, Object> data) {
        for (String key : List.of("file", "path")) {
            if (data.get(key) instanceof String s) {
                data.put(key, out(s));
            }
        }
        if (data.get("files") instanceof List<?> files) {
            List<Object> mapped = new ArrayList<>();
            for (Object f : files) {
                if (f instanceof String s) {
                    mapped.add(out(s));
                } else if (f instanceof Map<?, ?> m && m.get("path") instanceof String s) {
                    Map<String, Object> copy = new LinkedHashMap<>((Map<String, Object>) m);
                    copy.put("path", out(s));
                    mapped.add(copy);
                } else {
                    mapped.add(f);
                }
            }
            data.put("files", mapped);
        }
        if (data.get("matches") instanceof List<?> matches && !matches.isEmpty() && matches.get(0) instanceof Map) {
            List<Object> mapped = new ArrayList<>();
            for (Object o : matches) {
                Map<String, Object> copy = new LinkedHashMap<>((Map<String, Object>) o);
                if (copy.get("file") instanceof String s) {
                    copy.put("file", out(s));
                }
                mapped.add(copy);
            }
            data.put("matches", mapped);
        }
    }
}
