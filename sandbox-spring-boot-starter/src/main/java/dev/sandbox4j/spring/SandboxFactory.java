package dev.sandbox4j.spring;

import dev.sandbox4j.CodeContext;
import dev.sandbox4j.CodeRequest;
import dev.sandbox4j.CodeResult;
import dev.sandbox4j.CodeRunner;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Feature;
import dev.sandbox4j.ForwardingCodeContext;
import dev.sandbox4j.ForwardingCodeRunner;
import dev.sandbox4j.ForwardingExecHandle;
import dev.sandbox4j.ForwardingSandbox;
import dev.sandbox4j.ForwardingShell;
import dev.sandbox4j.Language;
import dev.sandbox4j.OutputListener;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.Shell;
import dev.sandbox4j.pool.PoolOptions;
import dev.sandbox4j.pool.SandboxPool;
import dev.sandbox4j.spi.SandboxProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Opens sandboxes on the configured backend with the configured spec ({@code sandbox4j.*}). The bean to inject
 * where an application wants a sandbox of its own; the agent tools get theirs from {@link SandboxSessions}.
 *
 * <pre>{@code
 * try (Sandbox sandbox = factory.open()) {
 *     sandbox.shell().run("make test");
 * }
 * }</pre>
 *
 * <p>Every sandbox it opens counts in {@link #openSandboxes()} until it is closed (or closes itself at the end of
 * its lifetime), and its commands are timed in the Micrometer metrics when a registry is present. The providers it
 * opens with are wrapped by every {@link SandboxProviderDecorator} bean (OpenTelemetry's, when sandbox-opentelemetry
 * and an {@code OpenTelemetry} bean are present).
 */
public final class SandboxFactory {
    /** The backend setting that picks the available backend with the highest priority. */
    public static final String AUTO = "auto";

    private final String backend;
    private final SandboxSpec spec;
    private final CommandObserver observer;
    private final Map<String, SandboxProvider> configured;
    private final List<SandboxProviderDecorator> decorators;
    private final Set<Sandbox> opened = ConcurrentHashMap.newKeySet();
    /** The warm pool {@link #open()} takes from ({@code sandbox4j.pool.enabled}), or null. */
    private volatile SandboxPool pool;

    SandboxFactory(String backend, SandboxSpec spec, CommandObserver observer) {
        this(backend, spec, observer, List.of());
    }

    /**
     * @param configured providers built with options from properties ({@code sandbox4j.local.*},
     *                   {@code sandbox4j.docker.*}); each replaces the class path's provider of the same name
     */
    SandboxFactory(String backend, SandboxSpec spec, CommandObserver observer, List<SandboxProvider> configured) {
        this(backend, spec, observer, configured, List.of());
    }

    /**
     * @param configured providers built with options from properties ({@code sandbox4j.local.*},
     *                   {@code sandbox4j.docker.*}); each replaces the class path's provider of the same name
     * @param decorators applied in order to every provider sandboxes are opened with (OpenTelemetry's, when present)
     */
    SandboxFactory(String backend, SandboxSpec spec, CommandObserver observer, List<SandboxProvider> configured,
                   List<SandboxProviderDecorator> decorators) {
        this.decorators = List.copyOf(decorators);
        this.backend = backend == null || backend.isBlank() ? AUTO : backend.trim().toLowerCase(Locale.ROOT);
        this.spec = Objects.requireNonNull(spec, "spec");
        this.observer = Objects.requireNonNull(observer, "observer");
        this.configured = configured.stream().collect(Collectors.toUnmodifiableMap(SandboxProvider::name, p -> p));
        if (!this.backend.equals(AUTO)) {
            provider(this.backend);   // not on the class path: fail the start, saying which are
        }
    }

    /** The backend setting: a provider name, or {@link #AUTO}. */
    public String backendSetting() {
        return backend;
    }

    /** The spec {@link #open()} uses. */
    public SandboxSpec spec() {
        return spec;
    }

    /**
     * The backend sandboxes open on now, with whether it can run here: the named one, or for {@link #AUTO} the
     * available one with the highest priority (or, when none is, the highest-priority one with why it cannot).
     */
    public Status status() {
        List<Status> all = providers().stream().map(Status::of).collect(Collectors.toList());
        if (!backend.equals(AUTO)) {
            return all.stream().filter(p -> p.name().equals(backend)).findFirst()
                    .orElseThrow(() -> new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, "backend '" + backend
                            + "' is no longer on the class path"));
        }
        List<Status> real = all.stream().filter(p -> p.priority() >= 0).collect(Collectors.toList());
        Optional<Status> usable = real.stream().filter(Status::available).findFirst();
        if (usable.isPresent()) {
            return usable.get();
        }
        String reasons = real.isEmpty() ? "no sandbox backend on the class path; add sandbox-local or sandbox-docker"
                : real.stream().map(p -> p.name() + ": " + p.reason()).collect(Collectors.joining("; "));
        return new Status(AUTO, 0, false, reasons, Set.of());
    }

    /**
     * A backend's state when {@link #status()} was called (the health indicator shows it).
     *
     * @param reason why it cannot run here, with what to do about it; {@code available} when it can
     */
    public record Status(String name, int priority, boolean available, String reason, Set<Feature> features) {
        public Status {
            features = Set.copyOf(features);
        }

        static Status of(SandboxProvider p) {
            Optional<String> reason = p.unavailableReason();
            return new Status(p.name(), p.priority(), reason.isEmpty(), reason.orElse("available"), p.features());
        }
    }

    /**
     * Opens a sandbox with the configured spec; with a pool ({@code sandbox4j.pool.enabled}), takes one opened ahead
     * and never used (closing it closes it; the pool opens another).
     */
    public Sandbox open() {
        SandboxPool p = pool;
        return observed(p != null ? p.acquire() : openRaw(spec));
    }

    /** Opens a sandbox with this spec on the configured backend (never from the pool: it is of one spec). */
    public Sandbox open(SandboxSpec spec) {
        return observed(openRaw(spec));
    }

    /** Starts the warm pool {@link #open()} takes from; called once, by the auto-configuration. */
    synchronized void startPool(PoolOptions options) {
        if (pool == null) {
            pool = SandboxPool.of(() -> openRaw(spec), options);
        }
    }

    /** The warm pool's counts, when there is one. */
    public Optional<SandboxPool.Stats> poolStats() {
        SandboxPool p = pool;
        return p == null ? Optional.empty() : Optional.of(p.stats());
    }

    /** Closes the warm pool and every sandbox it opened (the context's shutdown); sandboxes opened directly stay. */
    public void close() {
        SandboxPool p = pool;
        if (p != null) {
            p.close();
        }
    }

    private Sandbox openRaw(SandboxSpec spec) {
        return backend.equals(AUTO) ? openAuto(spec) : open(provider(backend), spec);
    }

    private Sandbox observed(Sandbox sandbox) {
        String name;
        try {
            name = sandbox.info().backend();
        } catch (RuntimeException e) {
            sandbox.close();   // not handed out, so nobody else would close it
            throw e;
        }
        Observed observed = new Observed(sandbox, name);
        opened.add(observed);
        observer.opened(observed.backend);
        return observed;
    }

    private Sandbox openAuto(SandboxSpec spec) {
        // Sandboxes.open(spec) would honour -Dsandbox4j.provider, which the property already decides here.
        List<String> reasons = new ArrayList<>();
        for (SandboxProvider p : providers()) {
            if (p.priority() >= 0) {
                Optional<String> reason = p.unavailableReason();
                if (reason.isEmpty()) {
                    return p.open(spec);
                }
                reasons.add(p.name() + ": " + reason.get());
            }
        }
        throw new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, reasons.isEmpty()
                ? "no sandbox backend on the class path; add sandbox-local or sandbox-docker"
                : "no sandbox backend available here; " + String.join("; ", reasons));
    }

    private static Sandbox open(SandboxProvider p, SandboxSpec spec) {
        Optional<String> reason = p.unavailableReason();
        if (reason.isPresent()) {
            throw new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, "backend '" + p.name() + "' is not available: "
                    + reason.get());
        }
        return p.open(spec);
    }

    /** The provider of this name: the one configured from properties, else the class path's. */
    private SandboxProvider provider(String name) {
        SandboxProvider p = configured.get(name);
        return decorate(p != null ? p : Sandboxes.provider(name));
    }

    private SandboxProvider decorate(SandboxProvider provider) {
        SandboxProvider p = provider;
        for (SandboxProviderDecorator d : decorators) {
            p = Objects.requireNonNull(d.decorate(p), "a SandboxProviderDecorator returned null");
        }
        return p;
    }

    /** The class path's providers, those configured from properties in place of theirs, highest priority first. */
    List<SandboxProvider> providers() {
        return Sandboxes.providers().stream().map(p -> decorate(configured.getOrDefault(p.name(), p)))
                .sorted(Comparator.comparingInt(SandboxProvider::priority).reversed()).toList();
    }

    /** Sandboxes this factory opened that are still open. */
    public int openSandboxes() {
        opened.removeIf(s -> !s.isOpen());
        return opened.size();
    }

    /** Times a call and reports it with the status of its result; a call that throws is reported as {@code failed}. */
    private <R> R timed(String backend, String kind, Supplier<R> call, Function<R, Enum<?>> status) {
        long t0 = System.nanoTime();
        R r;
        try {
            r = call.get();
        } catch (RuntimeException e) {
            observer.commandFinished(backend, kind, "failed", Duration.ofNanos(System.nanoTime() - t0));
            throw e;
        }
        observer.commandFinished(backend, kind, status.apply(r).name().toLowerCase(Locale.ROOT),
                Duration.ofNanos(System.nanoTime() - t0));
        return r;
    }

    private CodeResult timedCode(String backend, Supplier<CodeResult> call) {
        return timed(backend, "code", call, CodeResult::status);
    }

    /**
     * A sandbox whose commands, code runs and code-context runs are reported to the observer. Built on the
     * {@code Forwarding*} bases so that everything it does not time (files, info, contexts' lookups) reaches the
     * backend as is: a hand-written decorator lost {@code createContext} here once (issue 26).
     */
    private final class Observed extends ForwardingSandbox {
        private final Sandbox sandbox;
        private final String backend;
        private final AtomicBoolean closed = new AtomicBoolean();
        private final Shell shell = new ObservedShell();
        private final CodeRunner code = new ObservedCode();

        Observed(Sandbox sandbox, String backend) {
            this.sandbox = sandbox;
            this.backend = backend;
        }

        @Override
        protected Sandbox delegate() {
            return sandbox;
        }

        @Override
        public Shell shell() {
            return shell;
        }

        @Override
        public CodeRunner code() {
            return code;
        }

        @Override
        public boolean isOpen() {
            return !closed.get() && sandbox.isOpen();
        }

        @Override
        public void close() {
            closed.set(true);
            try {
                sandbox.close();
            } finally {
                opened.remove(this);
            }
        }

        /** A detached sandbox is no longer this factory's (it lives on for its lease). */
        @Override
        public dev.sandbox4j.AttachCredential detach() {
            dev.sandbox4j.AttachCredential credential = sandbox.detach();
            closed.set(true);
            opened.remove(this);
            return credential;
        }

        /** Every way to run a command is timed: the forwarding base would send the overloads past us. */
        private final class ObservedShell extends ForwardingShell {
            @Override
            protected Shell delegate() {
                return sandbox.shell();
            }

            @Override
            public ExecResult run(String command) {
                return timed(backend, "shell", () -> delegate().run(command), ExecResult::status);
            }

            @Override
            public ExecResult run(ExecRequest request) {
                return timed(backend, "shell", () -> delegate().run(request), ExecResult::status);
            }

            @Override
            public ExecHandle start(ExecRequest request, OutputListener listener) {
                return new ObservedHandle(delegate().start(request, listener), backend, System.nanoTime());
            }

            @Override
            public ExecHandle start(ExecRequest request) {
                return new ObservedHandle(delegate().start(request), backend, System.nanoTime());
            }
        }

        /** Code runs are timed; contexts are the backend's, wrapped so that their runs are timed too. */
        private final class ObservedCode extends ForwardingCodeRunner {
            @Override
            protected CodeRunner delegate() {
                return sandbox.code();
            }

            @Override
            public CodeResult run(Language language, String source) {
                return timedCode(backend, () -> delegate().run(language, source));
            }

            @Override
            public CodeResult run(String language, String source) {
                return timedCode(backend, () -> delegate().run(language, source));
            }

            @Override
            public CodeResult run(CodeRequest request) {
                return timedCode(backend, () -> delegate().run(request));
            }

            @Override
            public CodeContext createContext(Language language) {
                return new ObservedContext(delegate().createContext(language));
            }

            @Override
            public CodeContext createContext(String language) {
                return new ObservedContext(delegate().createContext(language));
            }

            @Override
            public List<CodeContext> contexts() {
                return delegate().contexts().stream().map(c -> (CodeContext) new ObservedContext(c)).toList();
            }

            @Override
            public Optional<CodeContext> context(String id) {
                return delegate().context(id).map(ObservedContext::new);
            }
        }

        /** A code context whose runs are timed as {@code code}. */
        private final class ObservedContext extends ForwardingCodeContext {
            private final CodeContext context;

            ObservedContext(CodeContext context) {
                this.context = context;
            }

            @Override
            protected CodeContext delegate() {
                return context;
            }

            @Override
            public CodeResult run(String source) {
                return timedCode(backend, () -> context.run(source));
            }

            @Override
            public CodeResult run(String source, Duration timeout) {
                return timedCode(backend, () -> context.run(source, timeout));
            }

            @Override
            public CodeResult run(CodeRequest request) {
                return timedCode(backend, () -> context.run(request));
            }
        }
    }

    /** A started command, reported once: when a wait returns its result or it is killed. */
    private final class ObservedHandle extends ForwardingExecHandle {
        private final ExecHandle handle;
        private final String backend;
        private final long started;
        private final AtomicBoolean reported = new AtomicBoolean();

        ObservedHandle(ExecHandle handle, String backend, long started) {
            this.handle = handle;
            this.backend = backend;
            this.started = started;
        }

        @Override
        protected ExecHandle delegate() {
            return handle;
        }

        private ExecResult report(ExecResult r) {
            if (reported.compareAndSet(false, true)) {
                observer.commandFinished(backend, "shell", r.status().name().toLowerCase(Locale.ROOT),
                        Duration.ofNanos(System.nanoTime() - started));
            }
            return r;
        }

        @Override
        public Optional<ExecResult> await(Duration timeout) {
            return handle.await(timeout).map(this::report);
        }

        @Override
        public ExecResult kill() {
            return report(handle.kill());
        }
    }
}
