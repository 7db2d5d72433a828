package dev.sandbox4j.tools;

import static dev.sandbox4j.tools.SandboxTools.heartbeat;

import dev.sandbox4j.CodeRequest;
import dev.sandbox4j.CodeResult;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Feature;
import dev.sandbox4j.Language;
import dev.sandbox4j.OutputListener;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.tools.SandboxTools.Timeout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** The command tools of {@link SandboxTools}: bash, exec, execute_code and run_code, and how a command runs. */
final class CommandTools {
    private final SandboxTools tools;
    private final Sandbox sandbox;
    private final ToolConfig config;
    private final CodeContextTools contextTools;

    CommandTools(SandboxTools tools, CodeContextTools contextTools) {
        this.tools = tools;
        this.sandbox = tools.sandbox();
        this.config = tools.config();
        this.contextTools = contextTools;
    }

    ToolResult bash(Args a, ToolProgress progress) {
        String command = a.text("command");
        String cwd = a.optString("cwd", null);
        Timeout timeout = tools.timeout(a, "timeout", config.defaultTimeout(), TimeUnit.SECONDS);
        ExecRequest request = ExecRequest.shell(command).withTimeout(timeout.duration())
                .withOutputLimit(config.outputLimit());
        if (cwd != null && !cwd.isBlank()) {
            request = request.withCwd(cwd);
        }
        return runCommand(request, Shaping.lastProgram(command), timeout, progress);
    }

    ToolResult exec(Args a, ToolProgress progress) {
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
        Timeout timeout = tools.timeout(a, "timeout", config.defaultTimeout(), TimeUnit.SECONDS);
        ExecRequest request = ExecRequest.argv(argv).withEnv(env).withTimeout(timeout.duration())
                .withOutputLimit(config.outputLimit());
        if (cwd != null && !cwd.isBlank()) {
            request = request.withCwd(cwd);
        }
        return runCommand(request, Shaping.firstProgram(List.of(program)), timeout, progress);
    }

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

    /**
     * Runs a command. Where the sandbox has background processes, the command is started with a listener that counts
     * every character and line of both streams (so the marker can say how many lines were cut) and keeps the newest
     * output for progress reports; the wait is interruptible, and an interrupt kills the command's process tree.
     */
    ToolResult runCommand(ExecRequest request, String program, Timeout timeout, ToolProgress progress) {
        if (!sandbox.info().features().contains(Feature.BACKGROUND_PROCESSES)) {
            ExecResult result = tools.await(() -> sandbox.shell().run(request), progress);
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

    ToolResult executeCode(Args a, ToolProgress progress) {
        String languageName = a.text("language");
        String code = a.string("code");
        String stdin = a.optString("stdin_data", null);
        Timeout timeout = tools.timeout(a, "timeout_ms", config.defaultCodeTimeout(), TimeUnit.MILLISECONDS);
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
        CodeResult result = tools.await(() -> sandbox.code().run(r), progress);
        return ToolResult.ok(CodeContextTools.codeFields(result, config, timeout.note(), false));
    }


    /** run_code: in a code context when context_id is given, else once in a fresh interpreter. */
    ToolResult runCode(Args a, ToolProgress progress) {
        Timeout timeout = tools.timeout(a, "timeout_s", config.defaultCodeTimeout(), TimeUnit.SECONDS);
        return contextTools.run(a, timeout.duration(), timeout.note(),
                r -> tools.await(() -> contextTools.context(a.text("context_id")).run(r), progress),
                r -> ToolResult.ok(contextTools.fields(tools.await(() -> sandbox.code().run(r), progress),
                        timeout.note())));
    }
}
