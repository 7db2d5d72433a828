package dev.sandbox4j.tools;

import dev.sandbox4j.FileInfo;
import dev.sandbox4j.Workspace;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code workspace_changes}: the model sees its own change set (issue 35) when the sandbox started from a copy or an
 * overlay of a host directory: what it created, modified and deleted, and, when asked, the diff a reviewer will read.
 * Bounded: at most {@link #MAX_CHANGES} entries and {@link #MAX_DIFF} characters of diff, with {@code truncated}.
 */
final class ChangeTools {
    static final int MAX_CHANGES = 1000;
    static final int MAX_DIFF = 100_000;

    private ChangeTools() {
    }

    static ToolResult changes(SandboxTools t, Args a) {
        Workspace w = t.sandbox().workspace();
        List<Workspace.Change> all = w.changes();
        List<Map<String, Object>> out = new ArrayList<>();
        for (Workspace.Change c : all.subList(0, Math.min(all.size(), MAX_CHANGES))) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("path", c.path());
            e.put("kind", c.kind().name().toLowerCase(Locale.ROOT));
            e.put("type", type(c.after() != null ? c.after() : c.before()));
            out.add(e);
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("source", w.source().toString());
        f.put("changes", out);
        f.put("count", all.size());
        boolean truncated = all.size() > MAX_CHANGES;
        if (a.optBool("diff", false)) {
            String diff = w.diff();
            if (diff.length() > MAX_DIFF) {
                diff = diff.substring(0, MAX_DIFF) + "\n[diff cut at " + MAX_DIFF + " of " + diff.length()
                        + " characters]\n";
                truncated = true;
            }
            f.put("diff", diff);
        }
        f.put("truncated", truncated);
        return ToolResult.ok(f);
    }

    private static String type(FileInfo i) {
        return i.isDirectory() ? "directory" : i.isSymlink() ? "symlink" : i.isFile() ? "file" : "other";
    }
}
