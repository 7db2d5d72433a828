package dev.sandbox4j.opentelemetry;

import dev.sandbox4j.CodeResult;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.spi.SandboxProvider;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.LongUpDownCounter;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * OpenTelemetry traces and metrics for sandboxes of any backend, through the OpenTelemetry API only.
 *
 * <pre>{@code
 * SandboxTelemetry telemetry = SandboxTelemetry.create(openTelemetry);     // once, then reuse
 * try (Sandbox sandbox = telemetry.wrap(provider).open(spec)) {           // a sandbox4j.open span
 *     sandbox.shell().run("make test");                                   // a sandbox4j.command span
 * }                                                                       // a sandbox4j.close span
 * }</pre>
 *
 * <p>The sandbox it hands out is built on the {@code Forwarding*} bases of sandbox-api: every method reaches the
 * backend as the same method with the same arguments, and every {@code Shell}, {@code CodeRunner},
 * {@code FileSystem}, {@code CodeContext} and {@code ExecHandle} it hands out is traced too. Each operation is one
 * span named {@code sandbox4j.<operation>}, a child of the caller's current span, linked to the sandbox's
 * {@code sandbox4j.open} span when the sandbox was opened through this class.
 *
 * <p><b>No content, ever.</b> Spans and metrics carry the sandbox id, the backend, the operation, paths, exit
 * codes, statuses, byte counts and truncation flags. They never carry file contents, code, stdin, output, edit or
 * replace text, grep patterns or globs, environment variables, or exception messages (a message may quote a file);
 * of a command they carry only its program name ({@link #commandName}), and nothing when the command starts with
 * anything but a plain program word. A failure is span status {@code ERROR} with the error's kind code
 * ({@code not_found}) as description and {@code error.type}; no exception event is recorded. The full list is in
 * docs/observability.md.
 */
public final class SandboxTelemetry {
    /** The instrumentation scope name of the tracer and the meter. */
    public static final String INSTRUMENTATION_NAME = "dev.sandbox4j";

    static final AttributeKey<String> SANDBOX_ID = AttributeKey.stringKey("sandbox4j.sandbox.id");
    static final AttributeKey<String> BACKEND = AttributeKey.stringKey("sandbox4j.backend");
    static final AttributeKey<String> OPERATION = AttributeKey.stringKey("sandbox4j.operation");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    static final AttributeKey<String> COMMAND_NAME = AttributeKey.stringKey("sandbox4j.command.name");
    static final AttributeKey<String> COMMAND_FORM = AttributeKey.stringKey("sandbox4j.command.form");
    static final AttributeKey<String> EXEC_STATUS = AttributeKey.stringKey("sandbox4j.exec.status");
    static final AttributeKey<Long> EXIT_CODE = AttributeKey.longKey("sandbox4j.exec.exit_code");
    static final AttributeKey<Long> STDOUT_BYTES = AttributeKey.longKey("sandbox4j.exec.stdout.bytes");
    static final AttributeKey<Long> STDERR_BYTES = AttributeKey.longKey("sandbox4j.exec.stderr.bytes");
    static final AttributeKey<Boolean> STDOUT_TRUNCATED = AttributeKey.booleanKey("sandbox4j.exec.stdout.truncated");
    static final AttributeKey<Boolean> STDERR_TRUNCATED = AttributeKey.booleanKey("sandbox4j.exec.stderr.truncated");
    static final AttributeKey<String> STREAM = AttributeKey.stringKey("sandbox4j.stream");
    static final AttributeKey<String> LANGUAGE = AttributeKey.stringKey("sandbox4j.code.language");
    static final AttributeKey<String> CODE_STATUS = AttributeKey.stringKey("sandbox4j.code.status");
    static final AttributeKey<String> CONTEXT_ID = AttributeKey.stringKey("sandbox4j.code_context.id");
    static final AttributeKey<String> PATH = AttributeKey.stringKey("sandbox4j.file.path");
    static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("sandbox4j.file.destination");
    static final AttributeKey<Long> BYTES = AttributeKey.longKey("sandbox4j.file.bytes");
    static final AttributeKey<Long> ENTRIES = AttributeKey.longKey("sandbox4j.file.entries");
    static final AttributeKey<Boolean> EXISTS = AttributeKey.booleanKey("sandbox4j.file.exists");
    static final AttributeKey<Long> EDITS = AttributeKey.longKey("sandbox4j.edit.count");
    static final AttributeKey<Boolean> APPLIED = AttributeKey.booleanKey("sandbox4j.edit.applied");
    static final AttributeKey<Long> GREP_MATCHES = AttributeKey.longKey("sandbox4j.grep.matches");
    static final AttributeKey<Long> GREP_SKIPPED = AttributeKey.longKey("sandbox4j.grep.skipped");
    static final AttributeKey<Boolean> GREP_TRUNCATED = AttributeKey.booleanKey("sandbox4j.grep.truncated");
    static final AttributeKey<Boolean> GREP_TIMED_OUT = AttributeKey.booleanKey("sandbox4j.grep.timed_out");

    /** Longest path recorded; a longer one is cut to this many characters (a path is not content, but it is input). */
    static final int MAX_PATH = 1024;
    /** Longest program name recorded. */
    static final int MAX_NAME = 64;

    private final Tracer tracer;
    final LongUpDownCounter openSandboxes;
    final DoubleHistogram commandDuration;
    final DoubleHistogram codeDuration;
    final LongCounter truncations;
    final LongCounter refusals;

    private SandboxTelemetry(OpenTelemetry openTelemetry) {
        this.tracer = openTelemetry.getTracer(INSTRUMENTATION_NAME);
        Meter meter = openTelemetry.getMeter(INSTRUMENTATION_NAME);
        List<Double> buckets = List.of(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
                120.0, 300.0, 600.0);
        this.openSandboxes = meter.upDownCounterBuilder("sandbox4j.sandbox.active").setUnit("{sandbox}")
                .setDescription("Sandboxes opened or wrapped and not closed yet").build();
        this.commandDuration = meter.histogramBuilder("sandbox4j.command.duration").setUnit("s")
                .setDescription("Duration of shell commands, run or started, until their result")
                .setExplicitBucketBoundariesAdvice(buckets).build();
        this.codeDuration = meter.histogramBuilder("sandbox4j.code.duration").setUnit("s")
                .setDescription("Duration of code runs, plain and in code contexts")
                .setExplicitBucketBoundariesAdvice(buckets).build();
        this.truncations = meter.counterBuilder("sandbox4j.output.truncations").setUnit("{stream}")
                .setDescription("Output streams cut head+tail by the output limit").build();
        this.refusals = meter.counterBuilder("sandbox4j.refusals").setUnit("{call}")
                .setDescription("Calls that failed with a SandboxException, by its kind").build();
    }

    /** Telemetry through this OpenTelemetry (an SDK, an agent's, {@code OpenTelemetry.noop()}). Make one, reuse it. */
    public static SandboxTelemetry create(OpenTelemetry openTelemetry) {
        return new SandboxTelemetry(Objects.requireNonNull(openTelemetry, "openTelemetry"));
    }

    /** Shorthand for {@code create(openTelemetry).wrap(sandbox)}. */
    public static Sandbox wrap(Sandbox sandbox, OpenTelemetry openTelemetry) {
        return create(openTelemetry).wrap(sandbox);
    }

    /**
     * A traced view of a sandbox that is already open: every later call is traced and the sandbox counts in
     * {@code sandbox4j.sandbox.active} until it is closed (through this view) or seen closed. There is no
     * {@code sandbox4j.open} span: it was opened before; use {@link #wrap(SandboxProvider)} or {@link #open} for one.
     * Reads the sandbox's {@code id()} and {@code info().backend()} once, here.
     */
    public Sandbox wrap(Sandbox sandbox) {
        Objects.requireNonNull(sandbox, "sandbox");
        return new TracedSandbox(this, sandbox, new Target(sandbox.id(), sandbox.info().backend(),
                SpanContext.getInvalid()));
    }

    /**
     * A provider whose {@code open} and {@code attach} are {@code sandbox4j.open} spans and return traced sandboxes. Everything else
     * ({@code name}, {@code priority}, {@code features}, {@code unavailableReason}) is the provider's.
     */
    public SandboxProvider wrap(SandboxProvider provider) {
        Objects.requireNonNull(provider, "provider");
        return new SandboxProvider() {
            @Override
            public String name() {
                return provider.name();
            }

            @Override
            public int priority() {
                return provider.priority();
            }

            @Override
            public java.util.Set<dev.sandbox4j.Feature> features() {
                return provider.features();
            }

            @Override
            public java.util.Optional<String> unavailableReason() {
                return provider.unavailableReason();
            }

            @Override
            public Sandbox open(SandboxSpec spec) {
                return SandboxTelemetry.this.open(provider.name(), () -> provider.open(spec));
            }

            @Override
            public void removeVolume(String name) {
                provider.removeVolume(name);
            }

            /** An attach is traced as an open (a {@code sandbox4j.open} span) and returns a traced sandbox. */
            @Override
            public Sandbox attach(String id, dev.sandbox4j.AttachCredential credential, SandboxSpec settings) {
                return SandboxTelemetry.this.open(provider.name(), () -> provider.attach(id, credential, settings));
            }

            @Override
            public String toString() {
                return provider.toString();
            }
        };
    }

    /**
     * Opens a sandbox with {@code opener} inside a {@code sandbox4j.open} span and returns it traced: for factories
     * that choose the backend themselves ({@code Sandboxes.open(spec)}, a Spring {@code SandboxFactory}).
     *
     * @param backend the backend's name as far as the caller knows it (a provider name, or {@code "auto"}); the
     *                span records the opened sandbox's own {@code info().backend()} once it is open
     */
    public Sandbox open(String backend, Supplier<? extends Sandbox> opener) {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(opener, "opener");
        Span span = tracer.spanBuilder("sandbox4j.open").setSpanKind(SpanKind.INTERNAL)
                .setAttribute(BACKEND, backend).setAttribute(OPERATION, "open").startSpan();
        try (Scope ignored = span.makeCurrent()) {
            Sandbox sandbox = Objects.requireNonNull(opener.get(), "the opener returned null");
            String id;
            String name;
            try {
                id = sandbox.id();
                name = sandbox.info().backend();
            } catch (RuntimeException e) {
                sandbox.close();   // not handed out, so nobody else would close it
                throw e;
            }
            span.setAttribute(SANDBOX_ID, id).setAttribute(BACKEND, name);
            return new TracedSandbox(this, sandbox, new Target(id, name, span.getSpanContext()));
        } catch (RuntimeException | Error e) {
            fail(span, backend, "open", e);
            throw e;
        } finally {
            span.end();
        }
    }

    // ------------------------------------------------------------ shared by the wrappers

    /**
     * Who a span is about: the sandbox's id and backend (on every span), and the open span every span links to.
     */
    record Target(String id, String backend, SpanContext openSpan) {
        Attributes attributes() {
            return Attributes.of(SANDBOX_ID, id, BACKEND, backend);
        }
    }

    /** A started span for an operation of a sandbox: a child of the current context, linked to the open span. */
    Span start(Target target, String operation, Attributes extra) {
        SpanBuilder b = tracer.spanBuilder("sandbox4j." + operation).setSpanKind(SpanKind.INTERNAL)
                .setAllAttributes(target.attributes()).setAttribute(OPERATION, operation).setAllAttributes(extra);
        if (target.openSpan().isValid()) {
            b.addLink(target.openSpan());
        }
        return b.startSpan();
    }

    /**
     * Runs one operation in its span (current while it runs): {@code onResult} adds what the result tells, a
     * failure sets status {@code ERROR} with its kind code and counts a refusal.
     */
    <T> T traced(Target target, String operation, Attributes extra, Supplier<T> body, BiConsumer<Span, T> onResult) {
        Span span = start(target, operation, extra);
        T result;
        try (Scope ignored = span.makeCurrent()) {
            result = body.get();
        } catch (RuntimeException | Error e) {
            fail(span, target.backend(), operation, e);
            span.end();
            throw e;
        }
        try {
            if (onResult != null && result != null) {
                onResult.accept(span, result);
            }
        } catch (RuntimeException telemetryBug) {
            // the call succeeded: what its result tells is lost, the result is not
        } finally {
            span.end();
        }
        return result;
    }

    /** {@link #traced} for an operation without a result. */
    void tracedVoid(Target target, String operation, Attributes extra, Runnable body) {
        traced(target, operation, extra, () -> {
            body.run();
            return null;
        }, null);
    }

    /**
     * Marks a span failed: status {@code ERROR}, described by the error's kind code only (never its message, which
     * may quote a file or a command), {@code error.type} the same; a {@link SandboxException} counts as a refusal.
     */
    void fail(Span span, String backend, String operation, Throwable e) {
        String type = errorType(e);
        span.setStatus(StatusCode.ERROR, type);
        span.setAttribute(ERROR_TYPE, type);
        if (e instanceof SandboxException) {
            refusals.add(1, Attributes.of(BACKEND, backend, OPERATION, operation, ERROR_TYPE, type));
        }
    }

    /** The kind code of a {@link SandboxException} ({@code not_found}); for anything else, the class name. */
    static String errorType(Throwable e) {
        return e instanceof SandboxException s ? s.code() : e.getClass().getName();
    }

    /** A command's result on its span, its duration in the histogram, its truncated streams counted. */
    void commandEnded(Span span, Target target, ExecResult r, long startNanos) {
        execAttributes(span, r);
        String status = r.status().code();
        span.setAttribute(EXEC_STATUS, status);
        commandDuration.record(seconds(startNanos), Attributes.of(BACKEND, target.backend(), EXEC_STATUS, status));
        countTruncations(target, "command", r);
    }

    /** A command that failed with an exception, in the histogram under its {@code error.type}. */
    void commandFailed(Target target, Throwable e, long startNanos) {
        commandDuration.record(seconds(startNanos), Attributes.of(BACKEND, target.backend(), ERROR_TYPE,
                errorType(e)));
    }

    /** A code run's result on its span and in the histogram. */
    void codeEnded(Span span, Target target, String operation, String language, CodeResult r, long startNanos) {
        String status = r.status().code();
        span.setAttribute(CODE_STATUS, status);
        execAttributes(span, r.exec());
        AttributesBuilder a = Attributes.builder().put(BACKEND, target.backend()).put(OPERATION, operation)
                .put(CODE_STATUS, status);
        if (language != null) {
            a.put(LANGUAGE, language);
        }
        codeDuration.record(seconds(startNanos), a.build());
        countTruncations(target, operation, r.exec());
    }

    void codeFailed(Target target, String operation, String language, Throwable e, long startNanos) {
        AttributesBuilder a = Attributes.builder().put(BACKEND, target.backend()).put(OPERATION, operation)
                .put(ERROR_TYPE, errorType(e));
        if (language != null) {
            a.put(LANGUAGE, language);
        }
        codeDuration.record(seconds(startNanos), a.build());
    }

    private static void execAttributes(Span span, ExecResult r) {
        if (r == null) {
            return;
        }
        span.setAttribute(EXIT_CODE, (long) r.exitCode());
        span.setAttribute(STDOUT_BYTES, r.stdoutTruncation().totalBytes());
        span.setAttribute(STDERR_BYTES, r.stderrTruncation().totalBytes());
        span.setAttribute(STDOUT_TRUNCATED, r.stdoutTruncation().truncated());
        span.setAttribute(STDERR_TRUNCATED, r.stderrTruncation().truncated());
    }

    private void countTruncations(Target target, String operation, ExecResult r) {
        if (r == null) {
            return;
        }
        if (r.stdoutTruncation().truncated()) {
            truncations.add(1, Attributes.of(BACKEND, target.backend(), OPERATION, operation, STREAM, "stdout"));
        }
        if (r.stderrTruncation().truncated()) {
            truncations.add(1, Attributes.of(BACKEND, target.backend(), OPERATION, operation, STREAM, "stderr"));
        }
    }

    private static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    /**
     * What a span records of a shell command line: its program's base name ({@code pytest} of
     * {@code "/usr/bin/pytest -q secret.txt"}), only when the line starts with a plain word of letters, digits and
     * {@code . _ + - /}; else null (nothing recorded): {@code "TOKEN=abc make"}, {@code "$(cat key)"},
     * {@code "'quoted' x"}, {@code "ls;cat x"} record nothing. Arguments are never recorded.
     */
    static String commandName(String commandLine) {
        if (commandLine == null) {
            return null;
        }
        String s = commandLine.strip();
        int end = 0;
        while (end < s.length() && !Character.isWhitespace(s.charAt(end))) {
            end++;
        }
        return programName(s.substring(0, end));
    }

    /** The base name of a program word, or null when it is not a plain word (see {@link #commandName}). */
    static String programName(String word) {
        if (word == null || word.isEmpty()) {
            return null;
        }
        for (int i = 0; i < word.length(); i++) {
            char c = word.charAt(i);
            boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '+' || c == '-' || c == '/';
            if (!plain) {
                return null;
            }
        }
        String base = word.substring(word.lastIndexOf('/') + 1);
        return base.isEmpty() || base.length() > MAX_NAME ? null : base;
    }

    /** A path as recorded: as given, cut to {@link #MAX_PATH} characters. */
    static String path(String path) {
        if (path == null) {
            return "";
        }
        return path.length() <= MAX_PATH ? path : path.substring(0, MAX_PATH);
    }
}
