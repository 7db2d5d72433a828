package dev.sandbox4j.tools;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.core.GuardedFileSystem;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * The agent tools over one sandbox: {@code bash}, {@code exec}, {@code execute_code}, {@code view}, the file
 * tools and the file-watch tools, with one set of names, schemas, defaults and result shapes that every adapter
 * shares.
 *
 * <pre>{@code
 * SandboxTools tools = new SandboxTools(sandbox);
 * ToolResult r = tools.call("bash", Map.of("command", "ls -la"));
 * String forTheModel = r.toJson();   // {"success":true,"status":"completed","exit_code":0,...}
 *
 * // a loop fed by a model's tool calls needs no JSON library:
 * ToolResult same = tools.call("bash", "{\"command\": \"ls -la\"}");
 * String schema = tools.specs().get(0).inputSchemaJson();
 * }</pre>
 *
 * <p>{@link #call} never throws for anything a model can cause: bad arguments, sandbox errors and unexpected
 * exceptions all come back as a {@link ToolResult} with {@code success:false}. Thread-safe if the sandbox is.
 */
public final class SandboxTools {
    private static final ExecutorService WAITERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "sandbox-tools-exec");
        t.setDaemon(true);
        return t;
    });

    private final Sandbox sandbox;
    private final ToolConfig config;
    private final Map<String, ToolSpec> specs = new LinkedHashMap<>();
    private final Map<String, Profiles.Handler> handlers = new LinkedHashMap<>();
    private final CodeContextTools contextTools;
    private final CommandTools commands;
    private final FileTools files;
    private final SearchTools search;
    private final WatchTools watchTools = new WatchTools(this);

    public SandboxTools(Sandbox sandbox) {
        this(sandbox, ToolConfig.defaults());
    }

    public SandboxTools(Sandbox sandbox, ToolConfig config) {
        this.sandbox = Objects.requireNonNull(sandbox, "sandbox");
        this.config = Objects.requireNonNull(config, "config");
        this.contextTools = new CodeContextTools(sandbox, config);
        this.commands = new CommandTools(this, contextTools);
        this.files = new FileTools(this);
        this.search = new SearchTools(this);
        for (Profiles.Tool tool : Profiles.tools(config.profile(), config)) {
            if (config.enabled(tool.spec())) {
                specs.put(tool.spec().name(), tool.spec());
                handlers.put(tool.spec().name(), tool.handler());
            }
        }
    }

    /** The tools this configuration offers (read-only mode and switched-off tools left out), in a stable order. */
    public static List<ToolSpec> specs(ToolConfig config) {
        return Profiles.tools(config.profile(), config).stream().map(Profiles.Tool::spec).filter(config::enabled)
                .collect(Collectors.toList());
    }

    /** Every tool of the default profile, whatever the configuration. */
    public static List<ToolSpec> allSpecs() {
        return Catalog.all(ToolConfig.defaults());
    }

    /** Every tool of a profile, with default settings and nothing switched off. */
    public static List<ToolSpec> allSpecs(ToolProfile profile) {
        return Profiles.tools(profile, ToolConfig.defaults()).stream().map(Profiles.Tool::spec)
                .collect(Collectors.toList());
    }

    /** The tools offered here. */
    public List<ToolSpec> specs() {
        return List.copyOf(specs.values());
    }

    public Sandbox sandbox() {
        return sandbox;
    }

    public ToolConfig config() {
        return config;
    }

    /**
     * Calls a tool; never throws for bad input or sandbox failures. Arguments are values as a JSON parser gives them
     * (strings, numbers, booleans, lists, maps, null) and are checked against the tool's schema before it runs, with
     * no conversion between JSON types: {@code "5"} is not an integer, {@code "a.txt"} is not an array, {@code 5.0}
     * is the integer 5, {@code null} is the same as leaving the argument out. A value that does not fit, or an
     * argument the tool does not take, is an {@code invalid_argument} result naming it.
     */
    public ToolResult call(String tool, Map<String, ?> arguments) {
        return call(tool, arguments, null);
    }

    /**
     * Calls a tool with its arguments as the JSON text a model sends ({@code {"command": "ls -la"}}); never throws
     * for bad input or sandbox failures. Text that is not JSON, or a JSON value that is not an object, is an
     * {@code invalid_argument} result like any other bad argument (nothing runs); null or blank text is no
     * arguments ({@code {}}). The parsed arguments then go through {@link #call(String, Map)}, with the same rules.
     *
     * @param argumentsJson a JSON object, name to value
     */
    public ToolResult call(String tool, String argumentsJson) {
        if (argumentsJson == null || argumentsJson.isBlank()) {
            return call(tool, Map.of(), null);
        }
        Object parsed;
        try {
            parsed = Json.parse(argumentsJson);
        } catch (Json.ParseException e) {
            return ToolResult.error(ErrorKind.INVALID_ARGUMENT, "the arguments of " + tool
                    + " are not valid JSON: " + e.getMessage() + "; send a JSON object such as {\"name\": value}");
        }
        if (!(parsed instanceof Map<?, ?> map)) {
            return ToolResult.error(ErrorKind.INVALID_ARGUMENT, "the arguments of " + tool
                    + " must be a JSON object, got " + Args.describe(parsed));
        }
        @SuppressWarnings("unchecked")
        Map<String, ?> arguments = (Map<String, ?>) map;
        return call(tool, arguments, null);
    }

    /**
     * Calls a tool, reporting a heartbeat to {@code progress} while a command runs.
     *
     * @param progress receives heartbeats every {@link ToolConfig#heartbeatInterval()}; null for none
     */
    public ToolResult call(String tool, Map<String, ?> arguments, ToolProgress progress) {
        if (tool == null || !specs.containsKey(tool)) {
            Capability capability = tool == null || !Profiles.names(config.profile()).contains(tool) ? null
                    : Profiles.capabilityOf(tool);
            if (capability == null) {
                return ToolResult.error(ErrorKind.UNSUPPORTED, "unknown tool '" + tool + "'; tools: "
                        + String.join(", ", specs.keySet()));
            }
            Set<Capability> off = EnumSet.copyOf(capability.reach());
            off.retainAll(config.disabledCapabilities());
            if (config.readOnly() && off.equals(EnumSet.of(Capability.WRITE_FILES))) {
                return ToolResult.error(ErrorKind.PERMISSION_DENIED, "tool '" + tool
                        + "' changes the sandbox and this tool set is read-only");
            }
            return ToolResult.error(ErrorKind.UNSUPPORTED, "tool '" + tool + "' is switched off: it can "
                    + off.stream().map(Capability::code).collect(Collectors.joining(", "))
                    + ", which this tool set does not allow");
        }
        ToolSpec spec = specs.get(tool);
        if (arguments != null) {
            List<String> unknown = arguments.keySet().stream().filter(k -> spec.param(k) == null).sorted()
                    .collect(Collectors.toList());
            if (!unknown.isEmpty()) {
                return ToolResult.error(ErrorKind.INVALID_ARGUMENT, "unknown argument" + (unknown.size() > 1 ? "s "
                        : " ") + unknown.stream().map(k -> "'" + k + "'").collect(Collectors.joining(", ")) + " for "
                        + tool + "; it takes: " + spec.params().stream().map(ToolParam::name)
                        .collect(Collectors.joining(", ")));
            }
        }
        Args args = new Args(tool, arguments);
        ToolResult result;
        try {
            args.checkDeclared(spec);
            result = handlers.get(tool).call(this, args, progress);
        } catch (Args.ArgException e) {
            result = ToolResult.error(ErrorKind.INVALID_ARGUMENT, e.getMessage());
        } catch (SandboxException e) {
            result = ToolResult.error(e);
        } catch (IllegalArgumentException e) {
            result = ToolResult.error(ErrorKind.INVALID_ARGUMENT, tool + ": " + e.getMessage());
        } catch (RuntimeException e) {
            result = ToolResult.error(ErrorKind.INTERNAL, tool + " failed unexpectedly ("
                    + e.getClass().getSimpleName() + ")");
        }
        return Profiles.finish(config.profile(), tool, result);
    }

    ToolResult dispatch(String tool, Args a, ToolProgress progress) {
        switch (tool) {
            case "bash":
                return commands.bash(a, progress);
            case "exec":
                return commands.exec(a, progress);
            case "execute_code":
                return commands.executeCode(a, progress);
            case "view":
                return files.view(a);
            case "read_file":
                return files.readFile(a);
            case "read_multiple_files":
                return files.readMultiple(a);
            case "write_file":
                return files.writeFile(a);
            case "create_file":
                return files.createFile(a);
            case "str_replace":
                return files.strReplace(a);
            case "edit_file":
                return files.editFile(a);
            case "create_directory":
                return files.createDirectory(a);
            case "list_directory":
                return files.listDirectory(a);
            case "get_file_info":
                return files.fileInfo(a);
            case "move_file":
                return files.moveFile(a);
            case "search_files":
                return search.searchFiles(a);
            case "grep":
                return search.grep(a);
            case "watch_files":
                return watchTools.watch(a);
            case "poll_watch":
                return watchTools.poll(a, progress);
            case "wait_for_file":
                return watchTools.waitFor(a, progress);
            case "stop_watch":
                return watchTools.stop(a);
            case "workspace_changes":
                return ChangeTools.changes(this, a);
            case "create_code_context":
                return contextTools.create(a);
            case "run_code":
                return commands.runCode(a, progress);
            case "destroy_code_context":
                return contextTools.destroy(a);
            case "start_terminal":
                return TerminalTools.start(this, a, progress);
            case "send_keys":
                return TerminalTools.sendKeys(this, a, progress);
            case "read_terminal":
                return TerminalTools.read(this, a, progress);
            default:
                throw new IllegalStateException(tool);
        }
    }

    /** The sandbox's files, holding the tools' {@link ToolConfig#fileRules()} on top of the sandbox's own. */
    FileSystem fs() {
        return GuardedFileSystem.of(sandbox.files(), config.fileRules());
    }

    // ------------------------------------------------------------------ commands

    record Timeout(Duration duration, String note) {
    }

    Timeout timeout(Args a, String name, Duration fallback, TimeUnit unit) {
        Long t = a.optLong(name);
        if (t == null) {
            return new Timeout(fallback, null);
        }
        if (t <= 0) {
            throw new Args.ArgException("argument '" + name + "' must be positive, got " + t);
        }
        Duration asked = Duration.of(t, unit.toChronoUnit());
        if (asked.compareTo(config.maxTimeout()) > 0) {
            return new Timeout(config.maxTimeout(), "timeout lowered to the maximum of "
                    + config.maxTimeout().toSeconds() + " s");
        }
        return new Timeout(asked, null);
    }

    /** A {@code permission_denied} result naming the refused variables, or null when none is refused. */
    ToolResult refuseEnv(Map<String, String> env) {
        return commands.refuseEnv(env);
    }

    /** Runs a command, with heartbeats to {@code progress} ({@link CommandTools#runCommand}). */
    ToolResult runCommand(ExecRequest request, String program, Timeout timeout, ToolProgress progress) {
        return commands.runCommand(request, program, timeout, progress);
    }

    static void heartbeat(ToolProgress progress, long elapsed, String message) {
        try {
            progress.heartbeat(elapsed, message);
        } catch (RuntimeException ignored) {
            // a listener failure must not stop the command
        }
    }

    interface Work<T> {
        T run();
    }

    /** Runs blocking work, sending heartbeats while it runs if asked. */
    <T> T await(Work<T> work, ToolProgress progress) {
        if (progress == null) {
            return work.run();
        }
        long start = System.nanoTime();
        Future<T> future = WAITERS.submit(work::run);
        long interval = config.heartbeatInterval().toMillis();
        try {
            while (true) {
                try {
                    return future.get(interval, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    long elapsed = (System.nanoTime() - start) / 1_000_000;
                    heartbeat(progress, elapsed, "still running after " + (elapsed / 1000) + " s");
                }
            }
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new SandboxException(ErrorKind.INTERRUPTED, "the call was interrupted; the command was stopped");
        } catch (CancellationException e) {
            throw new SandboxException(ErrorKind.INTERRUPTED, "the command was cancelled");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            throw new SandboxException(ErrorKind.INTERNAL, "the command failed unexpectedly ("
                    + cause.getClass().getSimpleName() + ")");
        }
    }

    /** The text, if it is within {@link ToolConfig#maxWriteChars()}; {@code too_large} otherwise. */
    String checkWriteSize(String content) {
        if (content.length() > config.maxWriteChars()) {
            throw new SandboxException(ErrorKind.TOO_LARGE, "content of " + content.length()
                    + " characters exceeds the limit of " + config.maxWriteChars() + " per call; write it in parts"
                    + " with mode 'append'");
        }
        return content;
    }
}
