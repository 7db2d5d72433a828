package dev.sandbox4j.opentelemetry;

import static dev.sandbox4j.opentelemetry.SandboxTelemetry.BACKEND;
import static dev.sandbox4j.opentelemetry.SandboxTelemetry.COMMAND_FORM;
import static dev.sandbox4j.opentelemetry.SandboxTelemetry.COMMAND_NAME;
import static dev.sandbox4j.opentelemetry.SandboxTelemetry.CONTEXT_ID;
import static dev.sandbox4j.opentelemetry.SandboxTelemetry.LANGUAGE;

import dev.sandbox4j.CodeContext;
import dev.sandbox4j.CodeRequest;
import dev.sandbox4j.CodeResult;
import dev.sandbox4j.CodeRunner;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.ForwardingCodeContext;
import dev.sandbox4j.ForwardingCodeRunner;
import dev.sandbox4j.ForwardingExecHandle;
import dev.sandbox4j.ForwardingSandbox;
import dev.sandbox4j.ForwardingShell;
import dev.sandbox4j.Language;
import dev.sandbox4j.OutputListener;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.Shell;
import dev.sandbox4j.opentelemetry.SandboxTelemetry.Target;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The traced sandbox: spans for close, commands, code runs and (through {@link TracedFileSystem}) file operations.
 * Each overload is traced as itself and forwarded as itself, so a backend's own overloads are kept and a call is one
 * span, never two.
 */
final class TracedSandbox extends ForwardingSandbox {
    private final SandboxTelemetry telemetry;
    private final Sandbox sandbox;
    private final Target target;
    private final AtomicBoolean counted = new AtomicBoolean(true);

    TracedSandbox(SandboxTelemetry telemetry, Sandbox sandbox, Target target) {
        this.telemetry = telemetry;
        this.sandbox = sandbox;
        this.target = target;
        telemetry.openSandboxes.add(1, Attributes.of(BACKEND, target.backend()));
    }

    @Override
    protected Sandbox delegate() {
        return sandbox;
    }

    @Override
    public Shell shell() {
        return new TracedShell(telemetry, target, sandbox.shell());
    }

    @Override
    public CodeRunner code() {
        return new TracedCodeRunner(telemetry, target, sandbox.code());
    }

    @Override
    public FileSystem files() {
        return new TracedFileSystem(telemetry, target, sandbox.files());
    }

    /** Also notices a sandbox that closed itself (its lifetime ran out): it stops counting as open. */
    @Override
    public boolean isOpen() {
        boolean open = sandbox.isOpen();
        if (!open) {
            uncount();
        }
        return open;
    }

    @Override
    public void close() {
        try {
            telemetry.tracedVoid(target, "close", Attributes.empty(), sandbox::close);
        } finally {
            uncount();
        }
    }

    /** A fork is a sandbox of its own, traced as this one is (a {@code fork} span, then every call on it). */
    @Override
    public Sandbox fork() {
        Sandbox forked = telemetry.traced(target, "fork", Attributes.empty(), sandbox::fork, (span, s) -> { });
        return telemetry.wrap(forked);
    }

    /** Detached: no longer open here (it lives on for its lease), so it leaves the open-sandboxes count. */
    @Override
    public dev.sandbox4j.AttachCredential detach() {
        dev.sandbox4j.AttachCredential credential = sandbox.detach();
        uncount();
        return credential;
    }

    private void uncount() {
        if (counted.compareAndSet(true, false)) {
            telemetry.openSandboxes.add(-1, Attributes.of(BACKEND, target.backend()));
        }
    }

    /** A language as recorded: its id when the name is one sandbox4j knows, else nothing. */
    static String languageId(String name) {
        try {
            return Language.of(name).id();
        } catch (RuntimeException unknown) {
            return null;
        }
    }

    static Attributes commandAttributes(String name, String form) {
        AttributesBuilder a = Attributes.builder().put(COMMAND_FORM, form);
        if (name != null) {
            a.put(COMMAND_NAME, name);
        }
        return a.build();
    }

    static Attributes commandAttributes(ExecRequest request) {
        if (request == null) {
            return Attributes.empty();   // the backend answers the null
        }
        return request.shellCommand() != null
                ? commandAttributes(SandboxTelemetry.commandName(request.shellCommand()), "shell")
                : commandAttributes(SandboxTelemetry.programName(request.argv().get(0)), "argv");
    }

    static Attributes languageAttributes(String language, String contextId) {
        AttributesBuilder a = Attributes.builder();
        if (language != null) {
            a.put(LANGUAGE, language);
        }
        if (contextId != null) {
            a.put(CONTEXT_ID, contextId);
        }
        return a.build();
    }

    /** Commands: {@code sandbox4j.command}, from the call until its result. */
    static final class TracedShell extends ForwardingShell {
        private final SandboxTelemetry telemetry;
        private final Target target;
        private final Shell shell;

        TracedShell(SandboxTelemetry telemetry, Target target, Shell shell) {
            this.telemetry = telemetry;
            this.target = target;
            this.shell = shell;
        }

        @Override
        protected Shell delegate() {
            return shell;
        }

        private ExecResult run(Attributes attributes, Supplier<ExecResult> call) {
            long t0 = System.nanoTime();
            try {
                return telemetry.traced(target, "command", attributes, call,
                        (span, r) -> telemetry.commandEnded(span, target, r, t0));
            } catch (RuntimeException | Error e) {
                telemetry.commandFailed(target, e, t0);
                throw e;
            }
        }

        @Override
        public ExecResult run(String command) {
            return run(commandAttributes(SandboxTelemetry.commandName(command), "shell"), () -> shell.run(command));
        }

        @Override
        public ExecResult run(String command, Duration timeout) {
            return run(commandAttributes(SandboxTelemetry.commandName(command), "shell"),
                    () -> shell.run(command, timeout));
        }

        @Override
        public ExecResult run(ExecRequest request) {
            return run(commandAttributes(request), () -> shell.run(request));
        }

        @Override
        public ExecHandle start(ExecRequest request, OutputListener listener) {
            return start(request, () -> shell.start(request, listener));
        }

        @Override
        public ExecHandle start(ExecRequest request) {
            return start(request, () -> shell.start(request));
        }

        /** The span starts here and ends with the command's result (await, kill) or the handle's close. */
        private ExecHandle start(ExecRequest request, Supplier<ExecHandle> call) {
            long t0 = System.nanoTime();
            Span span = telemetry.start(target, "command", commandAttributes(request));
            try (Scope ignored = span.makeCurrent()) {
                return new TracedHandle(telemetry, target, call.get(), span, t0);
            } catch (RuntimeException | Error e) {
                telemetry.fail(span, target.backend(), "command", e);
                telemetry.commandFailed(target, e, t0);
                span.end();
                throw e;
            }
        }
    }

    /** A started command; its span ends once, at the first result or at close. */
    static final class TracedHandle extends ForwardingExecHandle {
        private final SandboxTelemetry telemetry;
        private final Target target;
        private final ExecHandle handle;
        private final Span span;
        private final long startNanos;
        private final AtomicBoolean ended = new AtomicBoolean();

        TracedHandle(SandboxTelemetry telemetry, Target target, ExecHandle handle, Span span, long startNanos) {
            this.telemetry = telemetry;
            this.target = target;
            this.handle = handle;
            this.span = span;
            this.startNanos = startNanos;
        }

        @Override
        protected ExecHandle delegate() {
            return handle;
        }

        private ExecResult ended(ExecResult r) {
            if (r != null && ended.compareAndSet(false, true)) {
                try {
                    telemetry.commandEnded(span, target, r, startNanos);
                } catch (RuntimeException telemetryBug) {
                    // the result is the caller's whatever the telemetry makes of it
                } finally {
                    span.end();
                }
            }
            return r;
        }

        @Override
        public Optional<ExecResult> await(Duration timeout) {
            Optional<ExecResult> r = handle.await(timeout);
            r.ifPresent(this::ended);
            return r;
        }

        @Override
        public ExecResult kill() {
            return ended(handle.kill());
        }

        @Override
        public void close() {
            try {
                handle.close();
            } finally {
                if (ended.compareAndSet(false, true)) {
                    span.end();   // closed before a result was asked for: the span has no status attribute
                }
            }
        }
    }

    /** Code runs: {@code sandbox4j.code.run}; contexts are handed out traced. */
    static final class TracedCodeRunner extends ForwardingCodeRunner {
        private final SandboxTelemetry telemetry;
        private final Target target;
        private final CodeRunner code;

        TracedCodeRunner(SandboxTelemetry telemetry, Target target, CodeRunner code) {
            this.telemetry = telemetry;
            this.target = target;
            this.code = code;
        }

        @Override
        protected CodeRunner delegate() {
            return code;
        }

        private CodeResult run(String language, Supplier<CodeResult> call) {
            return runCode(telemetry, target, "code.run", language, null, call);
        }

        @Override
        public CodeResult run(Language language, String source) {
            return run(language == null ? null : language.id(), () -> code.run(language, source));
        }

        @Override
        public CodeResult run(String language, String source) {
            return run(languageId(language), () -> code.run(language, source));
        }

        @Override
        public CodeResult run(String language, String source, Duration timeout) {
            return run(languageId(language), () -> code.run(language, source, timeout));
        }

        @Override
        public CodeResult run(CodeRequest request) {
            return run(request == null ? null : request.language().id(), () -> code.run(request));
        }

        @Override
        public CodeContext createContext(Language language) {
            return create(language == null ? null : language.id(), () -> code.createContext(language));
        }

        @Override
        public CodeContext createContext(String language) {
            return create(languageId(language), () -> code.createContext(language));
        }

        private CodeContext create(String language, Supplier<CodeContext> call) {
            CodeContext context = telemetry.traced(target, "code_context.create", languageAttributes(language, null),
                    call, (span, c) -> span.setAttribute(CONTEXT_ID, c.id()));
            return new TracedContext(telemetry, target, context);
        }

        @Override
        public List<CodeContext> contexts() {
            return code.contexts().stream().map(c -> (CodeContext) new TracedContext(telemetry, target, c)).toList();
        }

        @Override
        public Optional<CodeContext> context(String id) {
            return code.context(id).map(c -> new TracedContext(telemetry, target, c));
        }
    }

    static CodeResult runCode(SandboxTelemetry telemetry, Target target, String operation, String language,
                              String contextId, Supplier<CodeResult> call) {
        long t0 = System.nanoTime();
        try {
            return telemetry.traced(target, operation, languageAttributes(language, contextId), call,
                    (span, r) -> telemetry.codeEnded(span, target, operation, language, r, t0));
        } catch (RuntimeException | Error e) {
            telemetry.codeFailed(target, operation, language, e, t0);
            throw e;
        }
    }

    /** A code context: {@code sandbox4j.code_context.run} per run, with the context's id and language. */
    static final class TracedContext extends ForwardingCodeContext {
        private final SandboxTelemetry telemetry;
        private final Target target;
        private final CodeContext context;

        TracedContext(SandboxTelemetry telemetry, Target target, CodeContext context) {
            this.telemetry = telemetry;
            this.target = target;
            this.context = context;
        }

        @Override
        protected CodeContext delegate() {
            return context;
        }

        private CodeResult run(Supplier<CodeResult> call) {
            String language;
            String id;
            try {
                Language l = context.language();
                language = l == null ? null : l.id();
                id = context.id();
            } catch (RuntimeException e) {
                language = null;   // a label the context cannot give: the run itself answers (closed, ...)
                id = null;
            }
            return runCode(telemetry, target, "code_context.run", language, id, call);
        }

        @Override
        public CodeResult run(String source) {
            return run(() -> context.run(source));
        }

        @Override
        public CodeResult run(String source, Duration timeout) {
            return run(() -> context.run(source, timeout));
        }

        @Override
        public CodeResult run(CodeRequest request) {
            return run(() -> context.run(request));
        }
    }
}
