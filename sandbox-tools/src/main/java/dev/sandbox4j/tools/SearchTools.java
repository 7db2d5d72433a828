package dev.sandbox4j.tools;

import dev.sandbox4j.FileSystem;
import dev.sandbox4j.GrepMatch;
import dev.sandbox4j.GrepOptions;
import dev.sandbox4j.GrepResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The search tools of {@link SandboxTools}: search_files (names) and grep (contents). */
final class SearchTools {
    private final SandboxTools tools;

    SearchTools(SandboxTools tools) {
        this.tools = tools;
    }

    private FileSystem fs() {
        return tools.fs();
    }

    private static final int MAX_FOUND = 1000;
    /** Skipped files a grep result lists (its {@code skipped_count} counts them all). */
    private static final int MAX_SKIPPED_SHOWN = 50;

    ToolResult searchFiles(Args a) {
        String path = a.string("path");
        String pattern = a.text("pattern");
        List<String> excludes = a.strings("excludePatterns", false);
        List<String> found = fs().find(pattern, path, excludes);
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("matches", found.size() > MAX_FOUND ? found.subList(0, MAX_FOUND) : found);
        f.put("count", found.size());
        if (found.size() > MAX_FOUND) {
            f.put("truncated", true);
            f.put("note", "showing the first " + MAX_FOUND + " of " + found.size() + "; narrow the pattern");
        }
        return ToolResult.ok(f);
    }

    ToolResult grep(Args a) {
        String pattern = a.string("pattern");
        if (pattern.isEmpty()) {
            throw new Args.ArgException("argument 'pattern' of grep must not be empty");
        }
        String path = a.optString("path", ".");
        String include = a.optString("include", null);
        String exclude = a.optString("exclude", null);
        boolean ci = a.optBool("case_insensitive", false);
        long max = a.optLong("max_results", 200);
        if (max <= 0 || max > 100_000) {
            throw new Args.ArgException("max_results must be between 1 and 100000, got " + max);
        }
        GrepOptions options = GrepOptions.defaults().withCaseInsensitive(ci).withMaxResults((int) max);
        if (include != null && !include.isBlank()) {
            options = options.withIncludes(include);
        }
        if (exclude != null && !exclude.isBlank()) {
            options = options.withExcludes(exclude);
        }
        GrepResult result = fs().grep(pattern, path, options);
        List<String> lines = new ArrayList<>();
        for (GrepMatch m : result.matches()) {
            lines.add(m.path() + ":" + m.lineNumber() + ": " + m.line());
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("matches", lines);
        f.put("count", lines.size());
        f.put("truncated", result.truncated());
        List<String> notes = new ArrayList<>();
        if (result.truncated()) {
            notes.add("stopped at max_results=" + max + "; narrow the search or raise max_results");
        }
        if (result.timedOut()) {
            f.put("timed_out", true);
            notes.add("the time budget ran out: the matches are partial (files not searched to the end are in"
                    + " 'skipped' as time_budget); search a smaller path");
        }
        if (result.skippedCount() > 0) {
            List<Object> skipped = new ArrayList<>();
            for (GrepResult.Skipped s : result.skipped().subList(0, Math.min(MAX_SKIPPED_SHOWN,
                    result.skipped().size()))) {
                Map<String, Object> one = new LinkedHashMap<>();
                one.put("path", s.path());
                one.put("reason", s.reason().code());
                if (!s.detail().isEmpty()) {
                    one.put("detail", s.detail());
                }
                skipped.add(one);
            }
            f.put("skipped", skipped);
            f.put("skipped_count", result.skippedCount());
            notes.add(result.skippedCount() + " file(s) not searched (binary, link, special, unreadable, too large"
                    + " or out of time; see 'skipped'" + (result.skippedCount() > skipped.size()
                    ? ", first " + skipped.size() + " shown" : "") + "): no match there proves nothing");
        }
        if (!notes.isEmpty()) {
            f.put("note", String.join("; ", notes));
        }
        return ToolResult.ok(f);
    }
}
