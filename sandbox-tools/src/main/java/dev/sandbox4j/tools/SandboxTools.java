package dev.sandbox4j.tools;

import dev.sandbox4j.CodeRequest;
import dev.sandbox4j.CodeResult;
import dev.sandbox4j.Edit;
import dev.sandbox4j.EditResult;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Feature;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.GrepMatch;
import dev.sandbox4j.GrepOptions;
import dev.sandbox4j.GrepResult;
import dev.sandbox4j.Language;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.OutputListener;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.Optional;
import java.util.TreeSet;
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
    private final WatchTools watchTools = new WatchTools(this);

    public SandboxTools(Sandbox sandbox) {
        this(sandbox, ToolConfig.defaults());
    }

    public SandboxTools(Sandbox sandbox, ToolConfig config) {
        this.sandbox = Objects.requireNonNull(sandbox, "sandbox");
        this.config = Objects.requireNonNull(config, "config");
        this.contextTools = new CodeContextTools(sandbox, config);
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
                return bash(a, progress);
            case "exec":
                return exec(a, progress);
            case "execute_code":
                return executeCode(a, progress);
            case "view":
                return view(a);
            case "read_file":
                return readFile(a);
            case "read_multiple_files":
                return readMultiple(a);
            case "write_file":
                return writeFile(a);
            case "create_file":
                return createFile(a);
            case "str_replace":
                return strReplace(a);
            case "edit_file":
                return editFile(a);
            case "create_directory":
                return createDirectory(a);
            case "list_directory":
                return listDirectory(a);
            case "get_file_info":
                return fileInfo(a);
            case "move_file":
                return moveFile(a);
            case "search_files":
                return searchFiles(a);
            case "grep":
                return grep(a);
            case "watch_files":
                return watchTools.watch(a);
            case "poll_watch":
                return watchTools.poll(a, progress);
            case "wait_for_file":
                return watchTools.waitFor(a, progress);
            case "stop_watch":
                return watchTools.stop(a);
            case "create_code_context":
                return contextTools.create(a);
            case "run_code":
                return runCode(a, progress);
            case "destroy_code_context":
                return contextTools.destroy(a);
            default:
                throw new IllegalStateException(tool);
        }
    }

    FileSystem fs() {
        return sandbox.files();
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

    private ToolResult bash(Args a, ToolProgress progress) {
        String command = a.text("command");
        String cwd = a.optString("cwd", null);
        Timeout timeout = timeout(a, "timeout", config.defaultTimeout(), TimeUnit.SECONDS);
        ExecRequest request = ExecRequest.shell(command).withTimeout(timeout.duration())
                .withOutputLimit(config.outputLimit());
        if (cwd != null && !cwd.isBlank()) {
            request = request.withCwd(cwd);
        }
        return runCommand(request, Shaping.lastProgram(command), timeout, progress);
    }

    private ToolResult exec(Args a, ToolProgress progress) {
        String program = a.text("program");
        List<String> argv = new ArrayList<>();
        argv.add(program);
        argv.addAll(a.strings("args", false));
        Map<String, String> env = a.stringMap("env");
        ToolResult refused = refuseEnv(env);
        if (refused != null) {
            return refused;
        }
        String cwd = a.optString("cwd", null);
        Timeout timeout = timeout(a, "timeout", config.defaultTimeout(), TimeUnit.SECONDS);
        ExecRequest request = ExecRequest.argv(argv).withEnv(env).withTimeout(timeout.duration())
                .withOutputLimit(config.outputLimit());
        if (cwd != null && !cwd.isBlank()) {
            request = request.withCwd(cwd);
        }
        return runCommand(request, Shaping.firstProgram(List.of(program)), timeout, progress);
    }

    /**
     * Runs a command. Where the sandbox has background processes, the command is started with a listener that counts
     * every character and line of both streams (so the marker can say how many lines were cut) and keeps the newest
     * output for progress reports; the wait is interruptible, and an interrupt kills the command's process tree.
     */
    /** A {@code permission_denied} result naming the refused variables, or null when none is refused. */
    ToolResult refuseEnv(Map<String, String> env) {
        List<String> refused = new ArrayList<>();
        for (String name : env.keySet()) {
            if (blocked(name)) {
                refused.add(name);
            }
        }
        if (refused.isEmpty()) {
            return null;
        }
        return ToolResult.error(ErrorKind.PERMISSION_DENIED, "refused environment variable"
                + (refused.size() > 1 ? "s " : " ") + String.join(", ", refused)
                + ": it can hijack the loader or an interpreter. Refused names: "
                + String.join(", ", config.blockedEnv()) + ". Pass settings as arguments instead.",
                Map.of("refused_env", refused));
    }

    ToolResult runCommand(ExecRequest request, String program, Timeout timeout, ToolProgress progress) {
        if (!sandbox.info().features().contains(Feature.BACKGROUND_PROCESSES)) {
            ExecResult result = await(() -> sandbox.shell().run(request), progress);
            return ToolResult.ok(Shaping.execFields(result, program, config.outputLimit(), timeout.note(), null,
                    null));
        }
        Shaping.StreamCount out = new Shaping.StreamCount();
        Shaping.StreamCount err = new Shaping.StreamCount();
        Recent recent = new Recent();
        ExecHandle handle = sandbox.shell().start(request, OutputListener.of(text -> {
            out.add(text);
            recent.add(false, text);
        }, text -> {
            err.add(text);
            recent.add(true, text);
        }));
        long start = System.nanoTime();
        // a backstop only: the request's own timeout ends the command well before this
        long deadline = start + timeout.duration().plusSeconds(30).toNanos();
        try {
            handle.closeStdin();
            Duration step = progress == null ? Duration.ofMillis(500) : config.heartbeatInterval();
            while (true) {
                if (Thread.currentThread().isInterrupted()) {
                    throw new SandboxException(ErrorKind.INTERRUPTED, "interrupted");
                }
                Optional<ExecResult> done = handle.await(step);
                if (done.isPresent()) {
                    return ToolResult.ok(Shaping.execFields(done.get(), program, config.outputLimit(),
                            timeout.note(), out, err));
                }
                if (System.nanoTime() > deadline) {
                    ExecResult killed = handle.kill();
                    return ToolResult.ok(Shaping.execFields(killed, program, config.outputLimit(),
                            "the command outlived its timeout and was killed", out, err));
                }
                if (progress != null) {
                    long elapsed = (System.nanoTime() - start) / 1_000_000;
                    heartbeat(progress, elapsed, "still running after " + (elapsed / 1000) + " s" + recent.take());
                }
            }
        } catch (SandboxException e) {
            if (e.kind() != ErrorKind.INTERRUPTED) {
                throw e;
            }
            killQuietly(handle);
            Thread.currentThread().interrupt();
            throw new SandboxException(ErrorKind.INTERRUPTED, "the call was cancelled or interrupted; the command"
                    + " and every process it started were killed");
        } finally {
            if (handle.isAlive()) {
                killQuietly(handle);
            }
            handle.close();
        }
    }

    private static void killQuietly(ExecHandle handle) {
        boolean interrupted = Thread.interrupted(); // the kill must not be cut short by the caller's interrupt
        try {
            handle.kill();
        } catch (RuntimeException ignored) {
            // already ended, or the sandbox closed: nothing left to kill
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static void heartbeat(ToolProgress progress, long elapsed, String message) {
        try {
            progress.heartbeat(elapsed, message);
        } catch (RuntimeException ignored) {
            // a listener failure must not stop the command
        }
    }

    /** The newest output since the last progress report, at most {@link #PROGRESS_OUTPUT} characters per stream. */
    static final int PROGRESS_OUTPUT = 2_000;

    private static final class Recent {
        private final StringBuilder out = new StringBuilder();
        private final StringBuilder err = new StringBuilder();

        synchronized void add(boolean stderr, String text) {
            StringBuilder b = stderr ? err : out;
            b.append(text);
            if (b.length() > 2 * PROGRESS_OUTPUT) {
                b.delete(0, b.length() - PROGRESS_OUTPUT);
            }
        }

        /** "; new stdout: ...; new stderr: ..." for what arrived since the last call, or "" when nothing did. */
        synchronized String take() {
            String s = part("stdout", out) + part("stderr", err);
            out.setLength(0);
            err.setLength(0);
            return s;
        }

        private static String part(String name, StringBuilder b) {
            if (b.length() == 0) {
                return "";
            }
            String text = b.length() > PROGRESS_OUTPUT ? "..." + b.substring(b.length() - PROGRESS_OUTPUT)
                    : b.toString();
            return "\nnew " + name + ":\n" + text;
        }
    }

    boolean blocked(String name) {
        String upper = name.toUpperCase(Locale.ROOT);
        for (String b : config.blockedEnv()) {
            String bu = b.toUpperCase(Locale.ROOT);
            if (bu.endsWith("*") ? upper.startsWith(bu.substring(0, bu.length() - 1)) : upper.equals(bu)) {
                return true;
            }
        }
        return false;
    }

    private ToolResult executeCode(Args a, ToolProgress progress) {
        String languageName = a.text("language");
        String code = a.string("code");
        String stdin = a.optString("stdin_data", null);
        Timeout timeout = timeout(a, "timeout_ms", config.defaultCodeTimeout(), TimeUnit.MILLISECONDS);
        Language language;
        try {
            language = Language.of(languageName);
        } catch (SandboxException e) {
            language = null;
        }
        List<String> supported = sandbox.code().languages().stream().map(Language::id)
                .collect(Collectors.toCollection(TreeSet::new)).stream().collect(Collectors.toList());
        if (language == null || !sandbox.code().languages().contains(language)) {
            return ToolResult.error(ErrorKind.UNSUPPORTED_LANGUAGE, "language '" + languageName
                    + "' is not supported here; supported: " + (supported.isEmpty() ? "none"
                    : String.join(", ", supported)), Map.of("supported_languages", supported));
        }
        CodeRequest request = CodeRequest.of(language, code).withTimeout(timeout.duration())
                .withOutputLimit(config.outputLimit());
        if (stdin != null) {
            request = request.withStdin(stdin);
        }
        CodeRequest r = request;
        CodeResult result = await(() -> sandbox.code().run(r), progress);
        return ToolResult.ok(CodeContextTools.codeFields(result, config, timeout.note(), false));
    }

    /** run_code: in a code context when context_id is given, else once in a fresh interpreter. */
    private ToolResult runCode(Args a, ToolProgress progress) {
        Timeout timeout = timeout(a, "timeout_s", config.defaultCodeTimeout(), TimeUnit.SECONDS);
        return contextTools.run(a, timeout.duration(), timeout.note(),
                r -> await(() -> contextTools.context(a.text("context_id")).run(r), progress),
                r -> ToolResult.ok(contextTools.fields(await(() -> sandbox.code().run(r), progress),
                        timeout.note())));
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

    // ------------------------------------------------------------------ files

    private ToolResult view(Args a) {
        String path = a.string("path");
        List<Long> range = a.longs("view_range");
        FileInfo info = fs().stat(path);
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("path", info.path());
        if (info.isDirectory()) {
            if (range != null) {
                throw new Args.ArgException("view_range applies to files, and " + path + " is a directory");
            }
            List<FileInfo> entries = fs().listVisible(path, 2);
            f.put("type", "directory");
            f.put("content", Views.tree(info.path(), entries));
            f.put("entries", entries.size());
            return ToolResult.ok(f);
        }
        if (!info.isFile()) {
            throw new SandboxException(ErrorKind.PERMISSION_DENIED, path + " is a " + Shaping.fileType(info)
                    + (info.linkTarget() != null ? " to " + info.linkTarget() : "")
                    + "; view it through its target");
        }
        int from = 1;
        int to = -1;
        if (range != null) {
            if (range.size() != 2) {
                throw new Args.ArgException("view_range must be [start, end], got " + range.size() + " numbers");
            }
            long s = range.get(0);
            long e = range.get(1);
            if (s < 1 || (e != -1 && e < s) || s > Integer.MAX_VALUE || e > Integer.MAX_VALUE) {
                throw new Args.ArgException("view_range [" + s + ", " + e + "] is invalid: start must be >= 1"
                        + " and end >= start, or -1 for the end of the file");
            }
            from = (int) s;
            to = (int) e;
        }
        if (info.size() > FileSystem.MAX_READ_BYTES) {
            if (range == null) {
                throw new SandboxException(ErrorKind.TOO_LARGE, path + " is " + info.size() + " bytes, too large to"
                        + " view whole; use read_file with offset and length, or grep");
            }
        }
        byte[] head = fs().readBytes(path, 0, (int) Math.min(info.size(), 8192));
        if (Views.hasNul(head)) {
            return viewBinary(path, info, f);
        }
        String text = info.size() > FileSystem.MAX_READ_BYTES ? fs().readText(path, from, to)
                : fs().readText(path);
        if (info.size() > FileSystem.MAX_READ_BYTES) {
            // readText(path, from, to) returned only the range; number it from 'from'
            Views.Numbered n = Views.number(text, 1, -1, config.maxViewChars());
            String shifted = renumber(n.content(), from - 1);
            f.put("type", "text");
            f.put("content", shifted);
            return ToolResult.ok(f);
        }
        Views.Numbered n = Views.number(text, from, to, config.maxViewChars());
        if (from > Math.max(1, n.totalLines())) {
            throw new Args.ArgException("view_range starts at line " + from + " but " + path + " has "
                    + n.totalLines() + " lines");
        }
        f.put("type", "text");
        f.put("total_lines", n.totalLines());
        f.put("content", n.content());
        int wantedEnd = to < 0 ? n.totalLines() : Math.min(to, n.totalLines());
        if (n.lastShown() < wantedEnd) {
            f.put("truncated", true);
            f.put("note", "shown lines " + from + "-" + n.lastShown() + " of " + n.totalLines()
                    + "; use view_range [" + (n.lastShown() + 1) + ", -1] to see more");
        }
        return ToolResult.ok(f);
    }

    private static String renumber(String numbered, int offset) {
        if (offset == 0) {
            return numbered;
        }
        StringBuilder sb = new StringBuilder();
        for (String line : numbered.split("\n")) {
            int tab = line.indexOf('\t');
            int n = Integer.parseInt(line.substring(0, tab).trim()) + offset;
            sb.append(String.format("%6d", n)).append(line.substring(tab)).append('\n');
        }
        return sb.toString();
    }

    private ToolResult viewBinary(String path, FileInfo info, Map<String, Object> f) {
        f.put("type", "binary");
        f.put("size", info.size());
        if (info.size() > config.maxReadBytes()) {
            byte[] head = fs().readBytes(path, 0, 64);
            f.put("mime_type", Views.mimeType(path, head));
            f.put("note", "binary file larger than " + config.maxReadBytes()
                    + " bytes: content not included; use read_file with offset and length");
            return ToolResult.ok(f);
        }
        byte[] bytes = fs().readBytes(path);
        String mime = Views.mimeType(path, bytes);
        f.put("mime_type", mime);
        f.put("encoding", "base64");
        f.put("content", Base64.getEncoder().encodeToString(bytes));
        List<ToolResult.Image> images = new ArrayList<>();
        if (mime.startsWith("image/")) {
            Views.Thumbnail t = Views.thumbnail(bytes);
            if (t != null) {
                f.put("image_width", t.width());
                f.put("image_height", t.height());
                f.put("thumbnail", t.thumbWidth() + "x" + t.thumbHeight() + " PNG attached as an image");
                images.add(new ToolResult.Image(t.base64(), "image/png"));
            }
        }
        return ToolResult.ok(f, images);
    }

    private ToolResult readFile(Args a) {
        String path = a.string("path");
        long offset = a.optLong("offset", 0);
        Long lengthArg = a.optLong("length");
        if (offset < 0) {
            throw new Args.ArgException("offset must be >= 0, got " + offset);
        }
        if (lengthArg != null && lengthArg < 0) {
            throw new Args.ArgException("length must be >= 0, got " + lengthArg);
        }
        FileInfo info = fs().stat(path);
        if (info.isDirectory()) {
            throw new SandboxException(ErrorKind.IS_A_DIRECTORY, path + " is a directory; use list_directory");
        }
        long available = Math.max(0, info.size() - offset);
        long wanted = lengthArg == null ? available : Math.min(lengthArg, available);
        int length = (int) Math.min(wanted, config.maxReadBytes());
        byte[] bytes = fs().readBytes(path, offset, length);
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("path", info.path());
        f.put("size", info.size());
        f.put("offset", offset);
        f.put("length", bytes.length);
        boolean eof = offset + bytes.length >= info.size();
        f.put("eof", eof);
        if (Views.hasNul(bytes)) {
            f.put("encoding", "base64");
            f.put("content", Base64.getEncoder().encodeToString(bytes));
        } else {
            f.put("encoding", "utf-8");
            f.put("content", new String(bytes, StandardCharsets.UTF_8));
        }
        if (!eof && (lengthArg == null || lengthArg > bytes.length)) {
            f.put("note", "read " + bytes.length + " of " + info.size() + " bytes; call again with offset "
                    + (offset + bytes.length) + " to read on");
        }
        return ToolResult.ok(f);
    }

    private ToolResult readMultiple(Args a) {
        List<String> paths = a.strings("paths", true);
        if (paths.isEmpty()) {
            throw new Args.ArgException("argument 'paths' must name at least one file");
        }
        List<Object> results = new ArrayList<>();
        int failed = 0;
        for (String path : paths) {
            ToolResult r = call("read_file", Map.of("path", path));
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("path", path);
            r.fields().forEach((k, v) -> {
                if (!k.equals("path")) {
                    one.put(k, v);
                }
            });
            if (!r.success()) {
                failed++;
            }
            results.add(one);
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("files", results);
        f.put("failed", failed);
        return ToolResult.ok(f);
    }

    private String content(Args a) {
        return checkWriteSize(a.string("content"));
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

    private ToolResult writeFile(Args a) {
        String path = a.string("path");
        String content = content(a);
        String mode = a.optString("mode", "overwrite").toLowerCase(Locale.ROOT);
        switch (mode) {
            case "overwrite" -> fs().write(path, content);
            case "append" -> fs().append(path, content);
            default -> throw new Args.ArgException("mode must be 'overwrite' or 'append', got '" + mode + "'");
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("path", fs().stat(path).path());
        f.put("mode", mode);
        f.put("bytes_written", content.getBytes(StandardCharsets.UTF_8).length);
        return ToolResult.ok(f);
    }

    private ToolResult createFile(Args a) {
        String path = a.string("path");
        String content = content(a);
        if (fs().exists(path)) {
            throw new SandboxException(ErrorKind.ALREADY_EXISTS, path + " already exists; use view to read it,"
                    + " str_replace to change it or write_file to replace it");
        }
        fs().write(path, content);
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("path", fs().stat(path).path());
        f.put("bytes_written", content.getBytes(StandardCharsets.UTF_8).length);
        return ToolResult.ok(f);
    }

    private ToolResult strReplace(Args a) {
        String path = a.string("path");
        String oldStr = a.string("old_str");
        String newStr = a.string("new_str");
        if (oldStr.isEmpty()) {
            throw new Args.ArgException("old_str must not be empty; to write a whole file use write_file");
        }
        try {
            return edited(fs().replace(path, oldStr, newStr));
        } catch (SandboxException e) {
            return nearMiss(e, path, text -> new String[] {text, oldStr, ""});
        }
    }

    private ToolResult editFile(Args a) {
        String path = a.string("path");
        List<Edit> edits = a.edits("edits");
        boolean dryRun = a.optBool("dryRun", false);
        try {
            return edited(dryRun ? fs().previewEdit(path, edits) : fs().edit(path, edits));
        } catch (SandboxException e) {
            return nearMiss(e, path, text -> {
                int failing = NearMiss.failingEdit(text, edits);
                return failing < 0 ? null : new String[] {NearMiss.applyBefore(text, edits, failing),
                        edits.get(failing).oldText(), " Edit " + (failing + 1) + " of " + edits.size()
                        + (failing > 0 ? " (line numbers as the earlier edits leave the file)" : "") + "."};
            });
        }
    }

    /**
     * A {@code no_match} answer that names the nearest candidate and how it differs, read through the file API; any
     * other failure, or a file with nothing near, is answered as it was thrown. Never applies anything.
     */
    private ToolResult nearMiss(SandboxException e, String path,
                                java.util.function.Function<String, String[]> textNeedleNote) {
        if (e.kind() != ErrorKind.NO_MATCH) {
            throw e;
        }
        NearMiss.Diagnosis d = null;
        String note = "";
        try {
            FileInfo info = fs().stat(path);
            if (info.size() <= NearMiss.MAX_CHARS) {
                String text = fs().readText(path);
                String[] wanted = textNeedleNote.apply(text);
                if (wanted != null) {
                    d = NearMiss.diagnose(wanted[0], wanted[1]);
                    note = wanted[2];
                }
            }
        } catch (SandboxException ignored) {
            // the file cannot be read for a diagnosis: the plain answer stays
        }
        if (d == null) {
            throw e;
        }
        return ToolResult.error(ErrorKind.NO_MATCH, e.getMessage() + "." + note + d.sentence(), d.fields());
    }

    private static ToolResult edited(EditResult r) {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("path", r.path());
        f.put("applied", r.applied());
        f.put("edits", r.edits());
        f.put("diff", r.diff());
        return ToolResult.ok(f);
    }

    private ToolResult createDirectory(Args a) {
        String path = a.string("path");
        fs().mkdirs(path);
        return ToolResult.ok(Map.of("path", fs().stat(path).path()));
    }

    private ToolResult listDirectory(Args a) {
        String path = a.optString("path", ".");
        List<FileInfo> entries = fs().list(path);
        StringBuilder sb = new StringBuilder();
        for (FileInfo e : entries) {
            String tag = e.isDirectory() ? "[DIR] " : e.isFile() ? "[FILE] " : e.isSymlink() ? "[LINK] " : "[OTHER] ";
            sb.append(tag).append(e.name());
            if (e.linkTarget() != null) {
                sb.append(" -> ").append(e.linkTarget());
            }
            sb.append('\n');
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("path", path);
        f.put("content", sb.toString());
        f.put("entries", entries.size());
        return ToolResult.ok(f);
    }

    private ToolResult fileInfo(Args a) {
        FileInfo info = fs().stat(a.string("path"));
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("path", info.path());
        f.put("type", Shaping.fileType(info));
        f.put("size", info.size());
        if (info.mode() >= 0) {
            f.put("permissions", String.format("%04o", info.mode()));
        }
        f.put("modified", info.modified().toString());
        if (info.linkTarget() != null) {
            f.put("link_target", info.linkTarget());
        }
        return ToolResult.ok(f);
    }

    private ToolResult moveFile(Args a) {
        String source = a.string("source");
        String destination = a.string("destination");
        fs().move(source, destination);
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("source", source);
        f.put("destination", fs().stat(destination).path());
        return ToolResult.ok(f);
    }

    private static final int MAX_FOUND = 1000;
    /** Skipped files a grep result lists (its {@code skipped_count} counts them all). */
    private static final int MAX_SKIPPED_SHOWN = 50;

    private ToolResult searchFiles(Args a) {
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

    private ToolResult grep(Args a) {
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
