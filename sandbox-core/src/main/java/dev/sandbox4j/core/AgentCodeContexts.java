package dev.sandbox4j.core;

import dev.sandbox4j.CodeContext;
import dev.sandbox4j.CodeRequest;
import dev.sandbox4j.CodeResult;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.Language;
import dev.sandbox4j.OutputListener;
import dev.sandbox4j.SandboxException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Code contexts for {@link AgentShell}: each context is one long-lived interpreter started as a background command
 * (so it runs in the sandbox's jail or container and cgroups, counts against its command slots and dies with it),
 * running a small driver program that the host passes in argv, never through a file the sandbox could swap.
 *
 * <p>The driver reads code frames ({@code "<length> <timeout_ms>\n"} then the code) on its stdin, which it moves
 * away from the user's code, and answers on fd 3, which the wrapper points at the command's stdout while fds 1
 * and 2 go to its stderr: one ASCII line per frame, {@code "<KIND> <base64>\n"} (READY, O stdout, E stderr,
 * T value, P png, R status). Output the user's code writes past the driver (a child process's) arrives on stderr
 * and counts as the current run's stderr. Everything from the sandbox is hostile: lines are bounded, output is
 * capped head+tail with {@link OutputBuffer}, anything malformed ends the interpreter and the context restarts.
 */
final class AgentCodeContexts {
    /** The longest frame line accepted (a 4 MiB PNG in base64 fits). */
    static final int MAX_LINE = 6 << 20;
    /** How long past its timeout a run has to report (interrupted) before its interpreter is killed and restarted. */
    static final long INTERRUPT_GRACE_MS = 2000;
    static final long READY_TIMEOUT_MS = 30_000;

    private static final Map<Language, String> DRIVERS = new ConcurrentHashMap<>();

    private final AgentShell shell;
    private final Map<String, Context> open = java.util.Collections.synchronizedMap(new java.util.LinkedHashMap<>());

    AgentCodeContexts(AgentShell shell) {
        this.shell = shell;
    }

    CodeContext create(Language language) {
        Context c = new Context(language);
        c.start(); // fails with the reason when the interpreter does not come up
        open.put(c.id, c);
        return c;
    }

    List<CodeContext> list() {
        synchronized (open) {
            return List.copyOf(open.values());
        }
    }

    private static String driver(Language language) {
        return DRIVERS.computeIfAbsent(language, l -> {
            String name = l == Language.PYTHON ? "driver.py" : "driver.js";
            try (InputStream in = AgentCodeContexts.class.getResourceAsStream("contexts/" + name)) {
                if (in == null) {
                    throw new IllegalStateException("sandbox-core lacks its resource contexts/" + name);
                }
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** One run in flight: its capped output, value and figure, and the status frame that ends it. */
    static final class Run {
        final OutputBuffer out;
        final OutputBuffer err;
        final OutputBuffer text;
        volatile byte[] png;
        final CompletableFuture<String> status = new CompletableFuture<>();

        Run(int limit) {
            out = new OutputBuffer(limit);
            err = new OutputBuffer(limit);
            text = new OutputBuffer(limit);
        }
    }

    /** Parses one interpreter's frames (the channel's reader thread). */
    static final class Frames implements OutputListener {
        final CompletableFuture<String> ready = new CompletableFuture<>();
        final CompletableFuture<String> broken = new CompletableFuture<>();
        private final StringBuilder line = new StringBuilder();
        volatile Run run;

        @Override
        public synchronized void onStderr(String text) {
            Run r = run;
            if (r != null) {
                r.err.write(text.getBytes(StandardCharsets.UTF_8));
            }
        }

        @Override
        public synchronized void onStdout(String text) {
            if (broken.isDone()) {
                return;
            }
            int start = 0;
            for (int i = 0; i < text.length(); i++) {
                if (text.charAt(i) == '\n') {
                    line.append(text, start, i);
                    start = i + 1;
                    String l = line.toString();
                    line.setLength(0);
                    if (!frame(l)) {
                        return;
                    }
                }
            }
            line.append(text, start, text.length());
            if (line.length() > MAX_LINE) {
                line.setLength(0);
                broken.complete("the interpreter sent a frame over " + MAX_LINE + " characters");
            }
        }

        private boolean frame(String l) {
            int space = l.indexOf(' ');
            String kind = space < 0 ? l : l.substring(0, space);
            byte[] data;
            try {
                data = space < 0 ? new byte[0] : Base64.getDecoder().decode(l.substring(space + 1));
            } catch (IllegalArgumentException e) {
                broken.complete("the interpreter sent a malformed frame");
                return false;
            }
            Run r = run;
            switch (kind) {
                case "READY" -> ready.complete(new String(data, StandardCharsets.US_ASCII));
                case "O" -> {
                    if (r != null) {
                        r.out.write(data);
                    }
                }
                case "E" -> {
                    if (r != null) {
                        r.err.write(data);
                    }
                }
                case "T" -> {
                    if (r != null) {
                        r.text.write(data);
                    }
                }
                case "P" -> {
                    if (r != null) {
                        r.png = data;
                    }
                }
                case "R" -> {
                    if (r != null) {
                        r.status.complete(new String(data, StandardCharsets.US_ASCII));
                    }
                }
                default -> {
                    broken.complete("the interpreter sent an unknown frame");
                    return false;
                }
            }
            return true;
        }
    }

    final class Context implements CodeContext {
        final String id = "ctx-" + UUID.randomUUID();
        final Language language;
        private volatile AgentCommand process;
        private volatile Frames frames;
        private volatile boolean closed;

        Context(Language language) {
            this.language = language;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public Language language() {
            return language;
        }

        @Override
        public boolean isOpen() {
            return !closed && !shell.hooks.closed();
        }

        /** Starts the interpreter and waits for its READY; throws why it did not come up. */
        private synchronized void start() {
            String interpreter = language == Language.PYTHON ? "python3" : "node";
            String flags = language == Language.PYTHON ? "-u -c" : "-e";
            // the wrapper runs with the fixed PATH only (no impostor interpreter from the spec's PATH); fd 3 is the
            // frame channel on stdout, the user code's fds 1 and 2 both go to stderr
            String script = "d=$1; shift; p=$(command -v " + interpreter + ") || { echo '" + interpreter
                    + ": command not found' >&2; exit 127; }; exec env \"$@\" \"$p\" " + flags + " \"$d\" 3>&1 1>&2";
            List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c", script, "sandbox4j", driver(language)));
            argv.addAll(shell.contextEnv());
            Frames f = new Frames();
            AgentCommand c = shell.startContext(ExecRequest.argv(argv), f);
            try {
                CompletableFuture.anyOf(f.ready, f.broken, c.exit).get(READY_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                c.kill();
                Thread.currentThread().interrupt();
                throw new SandboxException(ErrorKind.INTERRUPTED, "interrupted while starting a " + language.id()
                        + " context", e);
            } catch (ExecutionException | TimeoutException e) {
                // handled below
            }
            if (!f.ready.isDone()) {
                ExecResult r = c.kill();
                shell.hooks.checkOpen();
                String why = f.broken.getNow(null);
                throw new SandboxException(ErrorKind.IO_ERROR, "the " + language.id() + " context did not start"
                        + (why != null ? ": " + why : "") + " (exit " + r.exitCode() + ")"
                        + (r.stderr().isBlank() ? "" : ": " + r.stderr().strip()));
            }
            process = c;
            frames = f;
        }

        @Override
        public CodeResult run(CodeRequest request) {
            if (request.language() != language) {
                throw new IllegalArgumentException("this context runs " + language.id() + ", not "
                        + request.language().id());
            }
            if (request.stdin() != null) {
                throw new IllegalArgumentException("a code context takes no stdin");
            }
            synchronized (this) {
                checkOpen();
                return runLocked(request);
            }
        }

        private void checkOpen() {
            shell.hooks.checkOpen();
            if (closed) {
                throw new SandboxException(ErrorKind.CLOSED, "code context " + id + " is closed");
            }
        }

        private CodeResult runLocked(CodeRequest request) {
            long started = System.nanoTime();
            Duration timeout = request.timeout() != null ? request.timeout() : shell.spec.commandTimeout();
            int limit = request.outputLimit() > 0 ? request.outputLimit() : shell.spec.outputLimit();
            String note = "";
            if (process == null || !process.isAlive()) {
                // the last restart failed, or the interpreter ended between runs: try again now
                try {
                    start();
                    note = "the context's interpreter had ended; it was restarted and its state is lost";
                } catch (SandboxException e) {
                    if (e.kind() == ErrorKind.CLOSED || e.kind() == ErrorKind.INTERRUPTED) {
                        throw e;
                    }
                    ExecResult r = ExecResult.of(ExecStatus.COMPLETED, -1, "", "").withDuration(elapsed(started))
                            .withDetail(e.getMessage());
                    return CodeResult.setupError(language, r);
                }
            }
            AgentCommand c = process;
            Frames f = frames;
            Run run = new Run(limit);
            f.run = run;
            byte[] code = request.code().getBytes(StandardCharsets.UTF_8);
            byte[] header = (code.length + " " + timeout.toMillis() + "\n").getBytes(StandardCharsets.US_ASCII);
            byte[] frame = new byte[header.length + code.length];
            System.arraycopy(header, 0, frame, 0, header.length);
            System.arraycopy(code, 0, frame, header.length, code.length);
            try {
                try {
                    c.writeStdin(frame);
                } catch (SandboxException e) {
                    if (e.kind() != ErrorKind.CLOSED) {
                        throw e;
                    }
                    // the interpreter ended as we wrote: reported below as its death
                }
                CompletableFuture<Object> end = CompletableFuture.anyOf(run.status, f.broken, c.exit);
                ExecStatus status = ExecStatus.COMPLETED;
                String detail;
                // the driver interrupts the run itself at the timeout (Python: SIGINT to its main thread, raising
                // KeyboardInterrupt; node: the vm's timeout) and reports it; the host waits a grace longer
                if (!await(end, timeout.toMillis() + INTERRUPT_GRACE_MS) || !run.status.isDone()) {
                    status = f.broken.isDone() || c.exit.isDone() ? ExecStatus.COMPLETED : ExecStatus.TIMEOUT;
                }
                detail = status == ExecStatus.TIMEOUT ? "timed out after " + timeout.toMillis() + " ms" : "";
                String reported = run.status.getNow(null);
                if (reported == null) {
                    shell.hooks.checkOpen();
                    String why = f.broken.getNow(null);
                    boolean died = c.exit.isDone();
                    ExecResult ended = c.kill();
                    if (status == ExecStatus.TIMEOUT) {
                        detail += "; the interpreter did not stop when interrupted, so it was killed";
                    } else if (why != null) {
                        status = ExecStatus.KILLED;
                        detail = why + "; the interpreter was killed";
                    } else {
                        status = ExecStatus.KILLED;
                        detail = died ? "the interpreter exited (code " + ended.exitCode() + ") during the run"
                                : "the interpreter stopped answering";
                    }
                    detail += restart();
                } else if (status == ExecStatus.TIMEOUT) {
                    detail += "; the run was interrupted and the context kept its state";
                }
                if (!note.isEmpty()) {
                    detail = detail.isEmpty() ? note : note + "; " + detail;
                }
                CodeResult.Status codeStatus = status == ExecStatus.TIMEOUT ? CodeResult.Status.TIMEOUT
                        : "completed".equals(reported) ? CodeResult.Status.COMPLETED
                        : "interrupted".equals(reported) ? CodeResult.Status.TIMEOUT : CodeResult.Status.ERROR_RUNTIME;
                if (codeStatus == CodeResult.Status.TIMEOUT && status != ExecStatus.TIMEOUT) {
                    // the driver stopped the run at the timeout it was given before the host's deadline came
                    status = ExecStatus.TIMEOUT;
                    detail = "timed out after " + timeout.toMillis() + " ms; the run was interrupted and the context"
                            + " kept its state" + (detail.isEmpty() ? "" : "; " + detail);
                }
                int exitCode = switch (codeStatus) {
                    case COMPLETED -> 0;
                    case ERROR_RUNTIME -> 1;
                    default -> -1;
                };
                run.out.finish();
                run.err.finish();
                ExecResult exec = ExecResult.of(status, exitCode, run.out.text(), run.err.text())
                        .withDuration(elapsed(started)).withTruncation(run.out.truncation(), run.err.truncation())
                        .withRawOutput(run.out.raw(), run.err.raw()).withDetail(detail);
                return new CodeResult(codeStatus, language, exec, run.text.text(), run.png);
            } finally {
                f.run = null;
            }
        }

        /** Restarts the interpreter after a kill; the words to add to the run's detail. */
        private String restart() {
            process = null;
            frames = null;
            if (closed || shell.hooks.closed()) {
                return "";
            }
            try {
                start();
                return "; the context was restarted and its state is lost";
            } catch (SandboxException e) {
                if (e.kind() == ErrorKind.INTERRUPTED) {
                    throw e;
                }
                return "; restarting the context failed (" + e.getMessage() + "); the next run tries again";
            }
        }

        private boolean await(CompletableFuture<?> f, long millis) {
            try {
                f.get(Math.max(1, millis), TimeUnit.MILLISECONDS);
                return true;
            } catch (TimeoutException e) {
                return false;
            } catch (ExecutionException e) {
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.kill();
                process = null;
                throw new SandboxException(ErrorKind.INTERRUPTED, "interrupted while running code in " + id, e);
            }
        }

        private Duration elapsed(long started) {
            return Duration.ofNanos(System.nanoTime() - started);
        }

        @Override
        public void close() {
            closed = true;
            open.remove(id);
            AgentCommand c = process; // not under the lock: a run in flight ends when its interpreter does
            if (c != null && !shell.hooks.closed()) {
                c.kill();
            }
        }

        @Override
        public String toString() {
            return "CodeContext[" + id + ", " + language.id() + (closed ? ", closed" : "") + "]";
        }
    }
}
