package dev.sandbox4j.spring;

import dev.sandbox4j.CodeRequest;
import dev.sandbox4j.CodeResult;
import dev.sandbox4j.CodeRunner;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Feature;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.Language;
import dev.sandbox4j.OutputListener;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxInfo;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.Shell;
import dev.sandbox4j.spi.SandboxProvider;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * its lifetime), and its commands are timed in the Micrometer metrics when a registry is present.
 */
public final class SandboxFactory {
    /** The backend setting that picks the available backend with the highest priority. */
    public static final String AUTO = "auto";

    private final String backend;
    private final SandboxSpec spec;
    private final CommandObserver observer;
    private final Set<Sandbox> opened = ConcurrentHashMap.newKeySet();

    SandboxFactory(String backend, SandboxSpec spec, CommandObserver observer) {
        this.backend = backend == null || backend.isBlank() ? AUTO : backend.trim().toLowerCase(Locale.ROOT);
        this.spec = Objects.requireNonNull(spec, "spec");
        this.observer = Objects.requireNonNull(observer, "observer");
        if (!this.backend.equals(AUTO)) {
            Sandboxes.provider(this.backend);   // not on the class path: fail the start, saying which are
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
        List<Status> all = Sandboxes.providers().stream().map(Status::of).collect(Collectors.toList());
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

    /** Opens a sandbox with the configured spec. */
    public Sandbox open() {
        return open(spec);
    }

    /** Opens a sandbox with this spec on the configured backend. */
    public Sandbox open(SandboxSpec spec) {
        Sandbox sandbox = backend.equals(AUTO) ? openAuto(spec) : Sandboxes.open(backend, spec);
        Observed observed = new Observed(sandbox, sandbox.info().backend());
        opened.add(observed);
        observer.opened(observed.backend);
        return observed;
    }

    private static Sandbox openAuto(SandboxSpec spec) {
        // Sandboxes.open(spec) would honour -Dsandbox4j.provider, which the property already decides here.
        for (SandboxProvider p : Sandboxes.providers()) {
            if (p.priority() >= 0 && p.unavailableReason().isEmpty()) {
                return Sandboxes.open(p.name(), spec);
            }
        }
        return Sandboxes.open(spec);   // throws backend_unavailable with every provider's reason
    }

    /** Sandboxes this factory opened that are still open. */
    public int openSandboxes() {
        opened.removeIf(s -> !s.isOpen());
        return opened.size();
    }

    /** A started command, reported once: when a wait returns its result or it is killed. */
    private final class ObservedHandle implements ExecHandle {
        private final ExecHandle delegate;
        private final String backend;
        private final long started;
        private final AtomicBoolean reported = new AtomicBoolean();

        ObservedHandle(ExecHandle delegate, String backend, long started) {
            this.delegate = delegate;
            this.backend = backend;
            this.started = started;
        }

        private ExecResult report(ExecResult r) {
            if (reported.compareAndSet(false, true)) {
                observer.commandFinished(backend, "shell", r.status().name().toLowerCase(Locale.ROOT),
                        Duration.ofNanos(System.nanoTime() - started));
            }
            return r;
        }

        @Override
        public String command() {
            return delegate.command();
        }

        @Override
        public void writeStdin(byte[] bytes) {
            delegate.writeStdin(bytes);
        }

        @Override
        public void closeStdin() {
            delegate.closeStdin();
        }

        @Override
        public Optional<ExecResult> await(Duration timeout) {
            return delegate.await(timeout).map(this::report);
        }

        @Override
        public boolean isAlive() {
            return delegate.isAlive();
        }

        @Override
        public ExecResult kill() {
            return report(delegate.kill());
        }

        @Override
        public void close() {
            delegate.close();
        }
    }

    /** A sandbox whose commands are reported to the observer. */
    private final class Observed implements Sandbox {
        private final Sandbox delegate;
        private final String backend;
        private final AtomicBoolean closed = new AtomicBoolean();
        private final Shell shell;
        private final CodeRunner code;

        Observed(Sandbox delegate, String backend) {
            this.delegate = delegate;
            this.backend = backend;
            this.shell = new Shell() {
                @Override
                public ExecResult run(ExecRequest request) {
                    long t0 = System.nanoTime();
                    try {
                        ExecResult r = delegate.shell().run(request);
                        observer.commandFinished(backend, "shell", r.status().name().toLowerCase(Locale.ROOT),
                                Duration.ofNanos(System.nanoTime() - t0));
                        return r;
                    } catch (RuntimeException e) {
                        observer.commandFinished(backend, "shell", "failed", Duration.ofNanos(System.nanoTime() - t0));
                        throw e;
                    }
                }

                @Override
                public ExecHandle start(ExecRequest request, OutputListener listener) {
                    return new ObservedHandle(delegate.shell().start(request, listener), backend, System.nanoTime());
                }
            };
            this.code = new CodeRunner() {
                @Override
                public Set<Language> languages() {
                    return delegate.code().languages();
                }

                @Override
                public CodeResult run(CodeRequest request) {
                    long t0 = System.nanoTime();
                    try {
                        CodeResult r = delegate.code().run(request);
                        observer.commandFinished(backend, "code", r.status().name().toLowerCase(Locale.ROOT),
                                Duration.ofNanos(System.nanoTime() - t0));
                        return r;
                    } catch (RuntimeException e) {
                        observer.commandFinished(backend, "code", "failed", Duration.ofNanos(System.nanoTime() - t0));
                        throw e;
                    }
                }
            };
        }

        @Override
        public String id() {
            return delegate.id();
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
        public FileSystem files() {
            return delegate.files();
        }

        @Override
        public SandboxInfo info() {
            return delegate.info();
        }

        @Override
        public boolean isOpen() {
            return !closed.get() && delegate.isOpen();
        }

        @Override
        public void close() {
            closed.set(true);
            try {
                delegate.close();
            } finally {
                opened.remove(this);
            }
        }

        @Override
        public String toString() {
            return delegate.toString();
        }
    }
}
