package dev.sandbox4j.tools;

import static dev.sandbox4j.tools.Profiles.fields;
import static dev.sandbox4j.tools.Profiles.opt;
import static dev.sandbox4j.tools.Profiles.pick;
import static dev.sandbox4j.tools.Profiles.req;
import static dev.sandbox4j.tools.Profiles.retyped;
import static dev.sandbox4j.tools.Profiles.reuse;
import static dev.sandbox4j.tools.Profiles.same;
import static dev.sandbox4j.tools.Profiles.spec;
import static dev.sandbox4j.tools.ToolParam.Type.INTEGER;
import static dev.sandbox4j.tools.ToolParam.Type.STRING;
import static dev.sandbox4j.tools.ToolParam.Type.STRING_MAP;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.tools.Profiles.Tool;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The AgentBay surface ({@link ToolProfile#AGENTBAY}): run_code, shell and the file tools with its defaults. */
final class AgentbayProfile {
    private AgentbayProfile() {
    }

    /** AgentBay's run_code and shell, then its file tools. */
    static void add(ToolConfig c, Map<String, ToolSpec> base, List<Tool> out) {
        out.add(new Tool(spec("run_code", "Run python or javascript code in the sandbox and return what"
                + " it printed (result), stdout, stderr, exit_code and status (completed, timeout,"
                + " error_runtime, error_setup). timeout_s is in seconds (default 300, at most "
                + c.maxTimeout().toSeconds() + ").",
                List.of(req("code", STRING, "Code to execute"),
                        opt("language", STRING, "The programming language to use for code execution."
                                + " Supported values: 'python', 'javascript'. If not specified, Python will"
                                + " be used by default."),
                        opt("timeout_s", INTEGER, "Command execution timeout (unit: seconds). Default 300,"
                                + " maximum " + c.maxTimeout().toSeconds() + " seconds").withDefault(300)),
                fields("result", "string", "stdout", "string", "stderr", "string", "exit_code", "integer",
                        "status", "string")), AgentbayProfile::agentbayRunCode));
        out.add(new Tool(spec("shell", "Run a shell command (/bin/sh -c) in the sandbox and return its"
                + " output, stdout, stderr and exit_code. timeout_ms is in milliseconds (default 1000);"
                + " the whole process tree is killed when it expires. Each stream keeps its first and last "
                + c.outputLimit() + " characters with a marker saying how much was cut.",
                List.of(req("command", STRING, "The command line to run"),
                        req("timeout_ms", INTEGER, "Timeout in milliseconds (at most "
                                + c.maxTimeout().toMillis() + ")").withDefault(1000),
                        opt("cwd", STRING, "Working directory inside the workspace"),
                        opt("envs", STRING_MAP, "Extra environment variables for this command")),
                fields("output", "string", "stdout", "string", "stderr", "string", "exit_code", "integer",
                        "status", "string")), AgentbayProfile::agentbayShell));
        agentbayFiles(base, out);
    }

    /** AgentBay's file tools: the default ones with the defaults, bounds and required flags its list declares. */
    private static void agentbayFiles(Map<String, ToolSpec> base, List<Tool> out) {
        out.add(same(base.get("create_directory")));
        out.add(retyped(base.get("edit_file"), base.get("edit_file").param("dryRun").withDefault(false)));
        out.add(same(base.get("get_file_info")));
        ToolSpec read = base.get("read_file");
        out.add(retyped(read, read.param("offset").withDefault(0).withMinimum(0),
                read.param("length").withMinimum(0)));
        out.add(same(base.get("read_multiple_files")));
        out.add(retyped(base.get("list_directory"), new ToolParam("path", STRING, "Directory path to list"
                + " (relative to the workspace, or absolute under /workspace)", true)));
        out.add(same(base.get("move_file")));
        out.add(retyped(base.get("search_files"), base.get("search_files").param("excludePatterns")
                .withDefault(List.of())));
        out.add(retyped(base.get("write_file"), base.get("write_file").param("mode").withDefault("overwrite")));
    }

    private static ToolResult agentbayShell(SandboxTools t, Args a, ToolProgress p) {
        String command = a.text("command");
        SandboxTools.Timeout timeout = t.timeout(a, "timeout_ms", Duration.ofMillis(1000), TimeUnit.MILLISECONDS);
        Map<String, String> env = a.stringMap("envs");
        ToolResult refused = t.refuseEnv(env);
        if (refused != null) {
            return refused;
        }
        ExecRequest request = ExecRequest.shell(command).withEnv(env).withTimeout(timeout.duration())
                .withOutputLimit(t.config().outputLimit());
        String cwd = a.optString("cwd", null);
        if (cwd != null && !cwd.isBlank()) {
            request = request.withCwd(cwd);
        }
        ToolResult r = t.runCommand(request, Shaping.lastProgram(command), timeout, p);
        return pick(r, "output=stdout", "stdout", "stderr", "exit_code", "status");
    }

    private static ToolResult agentbayRunCode(SandboxTools t, Args a, ToolProgress p) {
        Map<String, Object> args = new LinkedHashMap<>();
        String language = a.optString("language", "python").trim().toLowerCase(Locale.ROOT);
        language = language.isEmpty() ? "python" : language;
        if (!language.equals("python") && !language.equals("javascript")) {
            return ToolResult.error(ErrorKind.UNSUPPORTED_LANGUAGE, "run_code supports python, javascript; got '"
                    + language + "'", Map.of("supported_languages", List.of("python", "javascript")));
        }
        args.put("language", language);
        args.put("code", a.string("code"));
        Long seconds = a.optLong("timeout_s");
        if (seconds != null && seconds <= 0) {
            throw new Args.ArgException("argument 'timeout_s' of run_code must be positive, got " + seconds);
        }
        args.put("timeout_ms", (seconds == null ? 300 : seconds) * 1000);
        return pick(reuse(t, "execute_code", args, p), "result=stdout", "stdout", "stderr", "exit_code", "status");
    }
}
