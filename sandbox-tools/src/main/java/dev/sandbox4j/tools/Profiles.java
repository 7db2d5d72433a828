package dev.sandbox4j.tools;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The published tool surfaces ({@link ToolProfile}): each tool's spec (names, parameters, defaults, result and error
 * fields) and a handler that translates the call into the same operations the default tools use (commands through
 * {@link SandboxTools#runCommand}, the default handlers where a tool differs only in names, {@link dev.sandbox4j
 * .FileSystem} calls where a surface has an operation the default set lacks), then renames the result's fields.
 */
final class Profiles {
    private Profiles() {
    }

    /** Runs one tool of a profile. */
    interface Handler {
        ToolResult call(SandboxTools tools, Args args, ToolProgress progress);
    }

    /** A tool of a profile: what the model sees and what runs. */
    record Tool(ToolSpec spec, Handler handler) {
    }

    /** The capability of a tool of any profile, by name; null for a name that is no tool of any profile. */
    static Capability capabilityOf(String tool) {
        Capability c = Catalog.capabilityOf(tool);
        if (c != null) {
            return c;
        }
        return switch (tool) {
            case "shell", "sub_agent", "exec_command", "write_stdin", "browser" -> Capability.RUN_COMMANDS;
            case "apply_patch" -> Capability.WRITE_FILES;
            case "run_code", EXECUTE_CODE_NAME -> Capability.RUN_CODE;
            case "read_text_file", "read_media_file", "list_directory_with_sizes", "directory_tree",
                    "list_allowed_directories" -> Capability.READ_FILES;
            // Spacebot's file tool writes as well as reads: it goes whenever writing is off
            case "file", "file_write", "file_replace" -> Capability.WRITE_FILES;
            // Spacebot's set_status changes nothing in the sandbox: it stays wherever reading does
            case "set_status", "read_skill" -> Capability.READ_FILES;
            // Playwright MCP's read-only pair reads the page a browser already shows; the others drive it
            case "browser_snapshot", "browser_take_screenshot", "browser_wait_for" -> Capability.READ_FILES;
            case "browser_navigate", "browser_navigate_back", "browser_click", "browser_type", "browser_press_key", "browser_hover",
                    "browser_tabs", "browser_close", "browser_evaluate" -> Capability.RUN_COMMANDS;
            case "file_read", "file_search", "file_find", "file_grep", "file_glob", "file_list", "file_download" ->
                    Capability.READ_FILES;
            default -> null;
        };
    }

    /** The tool names of a profile. */
    static Set<String> names(ToolProfile profile) {
        Set<String> names = new LinkedHashSet<>();
        for (Tool t : tools(profile, ToolConfig.defaults())) {
            names.add(t.spec().name());
        }
        return names;
    }

    /** execute-code's published invocation name ({@link ToolConfig#dotlessNames()} offers it as execute_code). */
    static final String EXECUTE_CODE_NAME = "code_execution_sandbox.execute_code";

    static final List<String> EXECUTE_CODE_ERRORS = List.of("UNSUPPORTED_LANGUAGE", "SANDBOX_SETUP_FAILED",
            "EXECUTION_TIMEOUT", "RUNTIME_ERROR");

    static List<Tool> tools(ToolProfile profile, ToolConfig c) {
        Map<String, ToolSpec> base = new LinkedHashMap<>();
        for (ToolSpec s : Catalog.all(c)) {
            base.put(s.name(), s);
        }
        List<Tool> out = new ArrayList<>();
        switch (profile) {
            case DEFAULT -> {
                base.values().forEach(s -> out.add(same(s)));
                // the coding tool, with the default surface's integers
                out.add(CodingProfile.subAgent(ToolParam.Type.INTEGER));
            }
            case AGENTBAY -> AgentbayProfile.add(c, base, out);
            case CODING -> CodingProfile.add(c, base, out);
            case EXECUTE_CODE -> ExecuteCodeProfile.add(c, base, out);
            case SPACEBOT -> SpacebotProfile.add(c, out);
            case AIO -> AioProfile.aio(c, out);
            case FILESYSTEM -> FilesystemTools.add(out, c);
            case CODEX -> CodexProfile.add(c, out);
            case PLAYWRIGHT -> PlaywrightProfile.add(c, out);
            default -> throw new IllegalStateException(profile.name());
        }
        return out;
    }

    // ------------------------------------------------------------------ building specs

    static ToolParam req(String name, ToolParam.Type type, String description) {
        return new ToolParam(name, type, description, true);
    }

    static ToolParam opt(String name, ToolParam.Type type, String description) {
        return new ToolParam(name, type, description, false);
    }

    static ToolSpec spec(String name, String description, List<ToolParam> params, Map<String, String> out) {
        return spec(name, description, params, out, Map.of());
    }

    static ToolSpec spec(String name, String description, List<ToolParam> params, Map<String, String> out,
                                 Map<String, String> errorFields) {
        Capability cap = capabilityOf(name);
        ToolSpec.Hints hints = switch (cap) {
            case RUN_COMMANDS, RUN_CODE -> new ToolSpec.Hints(true, false, false);
            case READ_FILES -> new ToolSpec.Hints(false, true, false);
            case WRITE_FILES -> new ToolSpec.Hints(true, false, false);
        };
        return new ToolSpec(name, description, params, cap, hints, out, List.of(), errorFields);
    }

    static Map<String, String> fields(String... nameType) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < nameType.length; i += 2) {
            m.put(nameType[i], nameType[i + 1]);
        }
        return m;
    }

    /** A default tool as it is. */
    static Tool same(ToolSpec spec) {
        String name = spec.name();
        return new Tool(spec, (t, a, p) -> t.dispatch(name, a, p));
    }

    /** A default tool with some parameters replaced (same name) to match a published schema. */
    static Tool retyped(ToolSpec spec, ToolParam... replacements) {
        List<ToolParam> params = new ArrayList<>();
        for (ToolParam p : spec.params()) {
            ToolParam r = p;
            for (ToolParam q : replacements) {
                if (q.name().equals(p.name())) {
                    r = q;
                }
            }
            params.add(r);
        }
        return same(spec.reshaped(spec.name(), spec.description(), params, spec.output(), spec.errorCodes(),
                spec.errorFields()));
    }

    /** Runs a default tool with these arguments. */
    static ToolResult reuse(SandboxTools t, String tool, Map<String, Object> args, ToolProgress p) {
        return t.dispatch(tool, new Args(tool, args), p);
    }

    /**
     * A successful result with only the named fields, in order: {@code "new=old"} renames, a plain name keeps the
     * field; absent fields stay absent. Failures pass as they are.
     */
    static ToolResult pick(ToolResult r, String... names) {
        if (!r.success()) {
            return r;
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("success", true);
        for (String n : names) {
            int eq = n.indexOf('=');
            String to = eq < 0 ? n : n.substring(0, eq);
            String from = eq < 0 ? n : n.substring(eq + 1);
            if (r.fields().containsKey(from)) {
                f.put(to, r.get(from));
            }
        }
        return r.withFields(f);
    }

    static void putIfPresent(Map<String, Object> m, String name, Object value) {
        if (value != null) {
            m.put(name, value);
        }
    }

    // ------------------------------------------------------------------ results of a profile

    /**
     * Gives a result its profile's error shape: AIO failures carry {@code errno}; execute-code answers a run that did
     * not complete, and every failure, with its four codes.
     */
    static ToolResult finish(ToolProfile profile, String tool, ToolResult r) {
        switch (profile) {
            case AIO -> {
                if (r.success()) {
                    return r;
                }
                Map<String, Object> f = new LinkedHashMap<>(r.fields());
                f.put("errno", AioProfile.errno(r.errorType()));
                return r.withFields(f);
            }
            case EXECUTE_CODE -> {
                return ExecuteCodeProfile.executeCodeResult(r);
            }
            case SPACEBOT -> {
                return SpacebotProfile.spacebotResult(tool, r);
            }
            default -> {
                return r;
            }
        }
    }

}
