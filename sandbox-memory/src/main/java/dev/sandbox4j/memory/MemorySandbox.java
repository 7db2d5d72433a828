package dev.sandbox4j.memory;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import dev.sandbox4j.CodeContext;
import dev.sandbox4j.CodeRequest;
import dev.sandbox4j.CodeResult;
import dev.sandbox4j.CodeRunner;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Feature;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.Language;
import dev.sandbox4j.OutputListener;
import dev.sandbox4j.RawOutput;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxInfo;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Shell;
import dev.sandbox4j.Truncation;
import dev.sandbox4j.WorkspaceSource;
import dev.sandbox4j.core.ChangeSet;
import dev.sandbox4j.core.GuardedFileSystem;
import dev.sandbox4j.core.HostDirs;
import dev.sandbox4j.core.NioWorkspace;
import dev.sandbox4j.core.NoChangeSet;
import dev.sandbox4j.core.TreeCopy;
import dev.sandbox4j.core.OutputBuffer;
import dev.sandbox4j.core.WatchHub;
import dev.sandbox4j.core.WorkspacePaths;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * An in-memory sandbox for unit tests of code that uses sandbox4j: a real {@link FileSystem} on jimfs (the full
 * contract, the same implementation the local jail uses on the host), and a scripted {@link Shell} and
 * {@link CodeRunner} that record every call.
 *
 * <pre>{@code
 * MemorySandbox sandbox = MemorySandbox.open()
 *     .onCommand("pytest -q", ExecResult.of(0, "3 passed\n", ""))
 *     .onCommandMatching("git .*", request -> ExecResult.of(0, "", ""))
 *     .onCode(Language.PYTHON, request -> ExecResult.of(0, "42\n", ""));
 * // ... exercise the code under test ...
 * assertThat(sandbox.commands()).extracting(ExecRequest::displayCommand).containsExactly("pytest -q");
 * }</pre>
 *
 * <p>A command is answered by the first handler that matches, else by a builtin ({@code echo}, {@code cat},
 * {@code ls}, {@code pwd}, {@code true}, {@code false}, over the workspace), else with exit 127 and
 * {@code command not found} on stderr, like a shell. Output is capped head+tail as on a real backend. Nothing runs:
 * no process, no network, no timeout.
 *
 * <p>Why one file of over 500 lines: this public class is the whole scripting surface users read ({@code onCommand},
 * {@code onCode}, the recorded calls, the workspace sources); its file system is the shared {@code NioWorkspace}.
 */
public final class MemorySandbox implements Sandbox {
    static final Set<Feature> FEATURES = Set.of(Feature.POSIX_PERMISSIONS, Feature.WORKSPACE_QUOTA,
            Feature.CODE_CONTEXTS, Feature.FILE_WATCH, Feature.WORKSPACE_COPY, Feature.WORKSPACE_OVERLAY,
            Feature.SNAPSHOT);

    private static final Pattern SHELL_SYNTAX = Pattern.compile("[|&;<>()$`*?\\\\]");

    private final String id = "memory-" + UUID.randomUUID();
    private final SandboxSpec spec;
    private final java.nio.file.FileSystem jimfs;
    private final NioWorkspace files;
    /** {@link #files} holding the spec's {@link dev.sandbox4j.FileRules}: what {@link #files()} returns. */
    private final FileSystem guarded;
    private final WatchHub watches;
    private final dev.sandbox4j.Workspace workspace;
    private final String sourceDetail;
    private final long deadlineNanos;
    private volatile boolean closed;

    private final List<Rule> rules = new CopyOnWriteArrayList<>();
    private final Map<Language, CodeHandler> interpreters = new ConcurrentHashMap<>();
    private final Map<Language, ContextHandler> contextHandlers = new ConcurrentHashMap<>();
    private final Map<String, MemoryContext> contexts = java.util.Collections.synchronizedMap(
            new java.util.LinkedHashMap<>());
    private final List<ExecRequest> commands = new CopyOnWriteArrayList<>();
    private final List<CodeRequest> codeRuns = new CopyOnWriteArrayList<>();
    private final Shell shell = new MemoryShell();
    private final CodeRunner code = new MemoryCodeRunner();

    private record Rule(Predicate<ExecRequest> when, CommandHandler handler) {
    }

    private MemorySandbox(SandboxSpec spec) {
        this.spec = Objects.requireNonNull(spec, "spec");
        Configuration.Builder config = Configuration.unix().toBuilder()
                .setAttributeViews("basic", "owner", "posix", "unix");
        if (spec.limits().workspaceBytes() > 0) {
            // the whole jimfs is the workspace plus the file API's staging: its size bounds what the workspace holds
            config.setMaxSize(spec.limits().workspaceBytes());
        }
        this.jimfs = Jimfs.newFileSystem(config.build());
        Path workspace = jimfs.getPath(WorkspacePaths.WORKSPACE);
        Path staging = jimfs.getPath("/.staging");
        try {
            Files.createDirectories(workspace);
            Files.createDirectories(staging);
        } catch (IOException e) {
            throw MemoryErrors.error(ErrorKind.INTERNAL, "cannot set up jimfs", e);
        }
        MemoryWatches changes = new MemoryWatches();
        this.files = new NioWorkspace(workspace, staging, NioWorkspace.Options.defaults()
                .withMaxFileBytes(spec.limits().maxFileBytes())
                .withMaxEntries(spec.limits().workspaceInodes())
                .withGuard(this::checkOpen)
                .withChanges(changes));
        changes.attach(files);
        this.guarded = GuardedFileSystem.of(files, spec.fileRules());
        this.watches = files.enableWatches(changes);
        this.deadlineNanos = System.nanoTime() + spec.lifetime().toNanos();
        try {
            this.sourceDetail = seed(spec, workspace);
        } catch (RuntimeException e) {
            try {
                jimfs.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        this.workspace = spec.workspace().kind() == WorkspaceSource.Kind.EMPTY
                ? new NoChangeSet(spec.workspace(), this::checkOpen)
                : new ChangeSet(spec.workspace(), jimfs.getPath(LOWER), workspace, ChangeSet.Layout.FULL_TREE,
                        ChangeSet.sameAsSnapshot(), this::checkOpen);
        spec.files().forEach(files::write);
    }

    /** Where a copy or overlay source's snapshot is kept: outside the workspace, the host is never written. */
    private static final String LOWER = "/.lower";

    /**
     * Copies a copy or overlay source into jimfs twice: the snapshot (what changes are computed against, and what
     * the host must still hold at apply) and the workspace. Both sources behave alike here: nothing writes the host
     * and the snapshot is taken at open. Bind sources and mounts are refused: they would write or expose the host.
     */
    private String seed(SandboxSpec spec, Path ws) {
        WorkspaceSource source = spec.workspace();
        if (!spec.mounts().isEmpty()) {
            throw MemoryErrors.error(ErrorKind.UNSUPPORTED, "the memory backend has no mounts (asked: "
                    + spec.mounts() + "); it has no host paths of its own to show a sandbox");
        }
        if (source.kind() == WorkspaceSource.Kind.BIND) {
            throw MemoryErrors.error(ErrorKind.UNSUPPORTED, "the memory backend cannot bind " + source
                    + " (it never writes the host); use WorkspaceSource.overlayOf or copyOf");
        }
        if (source.kind() == WorkspaceSource.Kind.VOLUME) {
            throw MemoryErrors.error(ErrorKind.UNSUPPORTED, "the memory backend keeps no named volumes (asked: "
                    + source + "); each sandbox's files are its own");
        }
        if (source.kind() == WorkspaceSource.Kind.GIT) {
            throw MemoryErrors.error(ErrorKind.UNSUPPORTED, "the memory backend runs no git (asked: " + source
                    + "); clone on the host and use WorkspaceSource.copyOf");
        }
        if (source.kind() == WorkspaceSource.Kind.EMPTY) {
            return source.toString();
        }
        Path host = HostDirs.check(source.hostDir().orElseThrow(), "the workspace source", false);
        try {
            Path lower = Files.createDirectory(jimfs.getPath(LOWER));
            TreeCopy.Result r = TreeCopy.copy(host, lower, null);
            TreeCopy.copy(lower, ws, null);
            return source + " (a snapshot in memory: " + r.files() + " entries, " + r.bytes() + " bytes"
                    + (r.skipped() > 0 ? ", " + r.skipped() + " special files skipped" : "") + ")";
        } catch (IOException e) {
            throw MemoryErrors.error(ErrorKind.IO_ERROR, "cannot copy " + source + " into memory: " + e, e);
        }
    }

    /** The workspace's change set against the source's snapshot (copy and overlay sources). */
    @Override
    public dev.sandbox4j.Workspace workspace() {
        checkOpen();
        return workspace;
    }

    /** Opens an in-memory sandbox with default settings. */
    public static MemorySandbox open() {
        return open(SandboxSpec.defaults());
    }

    /**
     * Opens an in-memory sandbox; the spec's files are written, its lifetime and output cap apply. A snapshot source
     * is extracted and checked on the host first, then copied in as a copy source would be.
     */
    public static MemorySandbox open(SandboxSpec spec) {
        return dev.sandbox4j.snapshot.Snapshots.open(spec, MemorySandbox::new);
    }

    /** Captures the jimfs workspace through the file API (sandbox-core's one capture). */
    @Override
    public dev.sandbox4j.Snapshot snapshot(dev.sandbox4j.SnapshotStore store) {
        Objects.requireNonNull(store, "store");
        checkOpen();
        return dev.sandbox4j.snapshot.Snapshots.capture(files, store);
    }

    /** A new in-memory sandbox of the same spec from this one's workspace; scripted answers are not carried over. */
    @Override
    public Sandbox fork() {
        checkOpen();
        return dev.sandbox4j.snapshot.Snapshots.fork(this::snapshot, spec, MemorySandbox::open);
    }

    // ------------------------------------------------------------ scripting

    /** Answers the exact command line (or argv joined by spaces) with a fixed result. */
    public MemorySandbox onCommand(String command, ExecResult result) {
        Objects.requireNonNull(result, "result");
        return onCommand(command, request -> result);
    }

    /** Answers the exact command line (or argv joined by spaces) with a handler. */
    public MemorySandbox onCommand(String command, CommandHandler handler) {
        Objects.requireNonNull(command, "command");
        return onCommand(request -> request.displayCommand().equals(command), handler);
    }

    /** Answers commands whose whole command line matches the regex. */
    public MemorySandbox onCommandMatching(String regex, CommandHandler handler) {
        Pattern pattern = Pattern.compile(regex);
        return onCommand(request -> pattern.matcher(request.displayCommand()).matches(), handler);
    }

    /** Answers commands the predicate accepts. Handlers are tried in the order they were added. */
    public MemorySandbox onCommand(Predicate<ExecRequest> when, CommandHandler handler) {
        rules.add(new Rule(Objects.requireNonNull(when, "when"), Objects.requireNonNull(handler, "handler")));
        return this;
    }

    /** Makes {@code language} runnable, answered by the handler; {@link CodeRunner#languages()} then lists it. */
    public MemorySandbox onCode(Language language, CodeHandler handler) {
        interpreters.put(Objects.requireNonNull(language, "language"), Objects.requireNonNull(handler, "handler"));
        return this;
    }

    /**
     * Makes code contexts of {@code language} available ({@link CodeRunner#createContext}), each run answered by the
     * handler with that context's own state map.
     */
    public MemorySandbox onContextCode(Language language, ContextHandler handler) {
        contextHandlers.put(Objects.requireNonNull(language, "language"), Objects.requireNonNull(handler, "handler"));
        return this;
    }

    /** The ids of the code contexts open now. */
    public Set<String> openContexts() {
        synchronized (contexts) {
            return Set.copyOf(contexts.keySet());
        }
    }

    /** Every command run so far, in order (handled, builtin or unknown). */
    public List<ExecRequest> commands() {
        return List.copyOf(commands);
    }

    /** Every code snippet run so far, in order. */
    public List<CodeRequest> codeRuns() {
        return List.copyOf(codeRuns);
    }

    // ------------------------------------------------------------ Sandbox

    @Override
    public String id() {
        return id;
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
        return guarded;
    }

    @Override
    public SandboxInfo info() {
        checkOpen();
        ResourceLimits asked = spec.limits();
        if (!asked.hasWorkspaceQuota()) {
            return new SandboxInfo(id, MemorySandboxProvider.NAME,
                    Set.of(Feature.POSIX_PERMISSIONS, Feature.FILE_WATCH, Feature.WORKSPACE_COPY,
                            Feature.WORKSPACE_OVERLAY, Feature.SNAPSHOT),
                    ResourceLimits.NONE, Map.of("filesystem", "jimfs", "workspace source", sourceDetail,
                            "mounts", "none"));
        }
        return new SandboxInfo(id, MemorySandboxProvider.NAME, FEATURES,
                ResourceLimits.NONE.withWorkspaceQuota(asked.workspaceBytes(), asked.workspaceInodes()),
                Map.of("filesystem", "jimfs", "workspaceQuota", "jimfs max size (8 KiB blocks) and a count of the "
                        + "file API's entries (a source's snapshot counts too)", "workspace source", sourceDetail,
                        "mounts", "none"));
    }

    @Override
    public boolean isOpen() {
        if (!closed && System.nanoTime() - deadlineNanos > 0) {
            close();
        }
        return !closed;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        contexts.clear();
        watches.closeAll("the sandbox was closed");
        try {
            jimfs.close();
        } catch (IOException e) {
            throw MemoryErrors.error(ErrorKind.INTERNAL, "cannot close jimfs", e);
        }
    }

    private void checkOpen() {
        if (!isOpen()) {
            throw MemoryErrors.error(ErrorKind.CLOSED, "sandbox " + id + " is closed");
        }
    }

    private int outputLimit(int requested) {
        return requested > 0 ? requested : spec.outputLimit();
    }

    /**
     * The result as a real backend would return it: the bytes the command produced (a scripted result's are the
     * UTF-8 of its text), capped head+tail in characters as text and in bytes as raw output, with the time really
     * taken.
     */
    static ExecResult capped(ExecResult result, int limit, long startNanos) {
        OutputBuffer out = produced(result.rawStdout(), limit);
        OutputBuffer err = produced(result.rawStderr(), limit);
        Truncation outT = out.truncation();
        Truncation errT = err.truncation();
        return ExecResult.of(result.status(), result.exitCode(), out.text(), err.text())
                .withDuration(Duration.ofNanos(System.nanoTime() - startNanos)).withTruncation(outT, errT)
                .withRawOutput(out.raw(), err.raw()).withDetail(result.detail());
    }

    /** One stream as the command wrote it (a handler's already cut stream: its two ends, one after the other). */
    private static OutputBuffer produced(RawOutput raw, int limit) {
        OutputBuffer buffer = new OutputBuffer(limit);
        buffer.write(raw.head());
        buffer.write(raw.tail());
        return buffer;
    }

    /** A builtin's result whose standard output is these bytes, exactly. */
    private static ExecResult bytesOut(int exitCode, byte[] stdout, String stderr) {
        return ExecResult.of(exitCode, new String(stdout, StandardCharsets.UTF_8), stderr)
                .withRawOutput(RawOutput.of(stdout), RawOutput.of(stderr.getBytes(StandardCharsets.UTF_8)));
    }

    // ------------------------------------------------------------ shell

    private final class MemoryShell implements Shell {
        @Override
        public ExecResult run(ExecRequest request) {
            checkOpen();
            Objects.requireNonNull(request, "request");
            if (request.terminal() != null) {
                throw MemoryErrors.error(ErrorKind.UNSUPPORTED,
                        "the in-memory sandbox runs no processes, so it has no terminals");
            }
            long start = System.nanoTime();
            commands.add(request);
            String cwd = request.cwd() == null ? "" : WorkspacePaths.normalize(request.cwd());
            if (!cwd.isEmpty() && !files.stat(cwd).isDirectory()) {
                throw MemoryErrors.error(ErrorKind.NOT_A_DIRECTORY, "working directory " + cwd
                        + " is not a directory");
            }
            ExecResult result = null;
            for (Rule rule : rules) {
                if (rule.when().test(request)) {
                    result = rule.handler().handle(request);
                    break;
                }
            }
            if (result == null) {
                result = builtin(request, cwd);
            }
            return capped(result, outputLimit(request.outputLimit()), start);
        }

        @Override
        public ExecHandle start(ExecRequest request, OutputListener listener) {
            checkOpen();
            throw MemoryErrors.error(ErrorKind.UNSUPPORTED,
                    "the in-memory sandbox runs no processes, so it has no background commands");
        }
    }

    private ExecResult builtin(ExecRequest request, String cwd) {
        List<String> words;
        if (request.shellCommand() != null) {
            String line = request.shellCommand().trim();
            if (SHELL_SYNTAX.matcher(line).find()) {
                return ExecResult.of(127, "", "sh: 1: " + line
                        + ": not found (the in-memory shell runs only single builtins; script this command"
                        + " with onCommand)\n");
            }
            words = split(line);
        } else {
            words = request.argv();
        }
        if (words.isEmpty()) {
            return ExecResult.of(0, "", "");
        }
        String program = words.get(0);
        List<String> args = words.subList(1, words.size());
        switch (program) {
            case "true":
                return ExecResult.of(0, "", "");
            case "false":
                return ExecResult.of(1, "", "");
            case "pwd":
                return ExecResult.of(0, WorkspacePaths.absolute(cwd) + "\n", "");
            case "echo": {
                boolean newline = args.isEmpty() || !args.get(0).equals("-n");
                List<String> rest = newline ? args : args.subList(1, args.size());
                return ExecResult.of(0, String.join(" ", rest) + (newline ? "\n" : ""), "");
            }
            case "cat": {
                if (args.isEmpty()) {
                    byte[] stdin = request.stdin();
                    return bytesOut(0, stdin == null ? new byte[0] : stdin, "");
                }
                java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
                StringBuilder err = new StringBuilder();
                for (String arg : args) {
                    try {
                        out.writeBytes(files.readBytes(resolve(cwd, arg)));
                    } catch (SandboxException e) {
                        err.append("cat: ").append(arg).append(": ").append(describe(e)).append('\n');
                    }
                }
                return bytesOut(err.length() == 0 ? 0 : 1, out.toByteArray(), err.toString());
            }
            case "ls": {
                List<String> targets = args.isEmpty() ? List.of(".") : args;
                StringBuilder out = new StringBuilder();
                StringBuilder err = new StringBuilder();
                for (String arg : targets) {
                    try {
                        String path = resolve(cwd, arg);
                        FileInfo info = files.stat(path);
                        if (info.isDirectory()) {
                            for (FileInfo child : files.listVisible(path, 1)) {
                                out.append(child.name()).append('\n');
                            }
                        } else {
                            out.append(arg).append('\n');
                        }
                    } catch (SandboxException e) {
                        err.append("ls: cannot access '").append(arg).append("': ").append(describe(e)).append('\n');
                    }
                }
                return ExecResult.of(err.length() == 0 ? 0 : 2, out.toString(), err.toString());
            }
            default:
                if (request.shellCommand() == null) {
                    return cannotRun(program, cwd);
                }
                return ExecResult.of(127, "", "sh: 1: " + program + ": command not found\n");
        }
    }

    /**
     * An argv program that is no builtin, said as the agent-backed backends say it: {@code X: command not found}
     * (127) for a name, and for a path what is there: nothing (127), a directory or a file (126; a file that is
     * not executable is "permission denied", and this sandbox runs no program even when it is).
     */
    private ExecResult cannotRun(String program, String cwd) {
        if (!program.contains("/")) {
            return ExecResult.of(127, "", program + ": command not found\n");
        }
        FileInfo info;
        try {
            info = files.stat(resolve(cwd, program));
        } catch (SandboxException e) {
            return ExecResult.of(127, "", program + ": no such file or directory\n");
        }
        if (info.isDirectory()) {
            return ExecResult.of(126, "", program + ": is a directory\n");
        }
        if (info.mode() < 0 || (info.mode() & 0111) == 0) {
            return ExecResult.of(126, "", program + ": permission denied\n");
        }
        return ExecResult.of(126, "", program + ": cannot execute: the in-memory sandbox runs no programs (script"
                + " this command with onCommand)\n");
    }

    private static String describe(SandboxException e) {
        switch (e.kind()) {
            case NOT_FOUND:
                return "No such file or directory";
            case IS_A_DIRECTORY:
                return "Is a directory";
            case NOT_A_DIRECTORY:
                return "Not a directory";
            default:
                return e.getMessage();
        }
    }

    private static String resolve(String cwd, String arg) {
        if (arg.startsWith("/")) {
            return arg;
        }
        return cwd.isEmpty() ? arg : cwd + "/" + arg;
    }

    /** Splits a command line into words, honouring single and double quotes. */
    static List<String> split(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    word.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                inWord = true;
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }

    // ------------------------------------------------------------ code

    private final class MemoryCodeRunner implements CodeRunner {
        @Override
        public Set<Language> languages() {
            checkOpen();
            return Set.copyOf(interpreters.keySet());
        }

        @Override
        public CodeResult run(CodeRequest request) {
            checkOpen();
            Objects.requireNonNull(request, "request");
            long start = System.nanoTime();
            CodeHandler handler = interpreters.get(request.language());
            if (handler == null) {
                String known = new TreeSet<>(interpreters.keySet().stream().map(Language::id)
                        .collect(Collectors.toList())).toString();
                throw MemoryErrors.error(ErrorKind.UNSUPPORTED_LANGUAGE, request.language().id()
                        + " is not available in this sandbox; supported: " + known);
            }
            codeRuns.add(request);
            ExecResult result = handler.run(request);
            return CodeResult.of(request.language(), capped(result, outputLimit(request.outputLimit()), start));
        }

        @Override
        public CodeContext createContext(Language language) {
            checkOpen();
            ContextHandler handler = contextHandlers.get(Objects.requireNonNull(language, "language"));
            if (handler == null) {
                String known = new TreeSet<>(contextHandlers.keySet().stream().map(Language::id)
                        .collect(Collectors.toList())).toString();
                throw MemoryErrors.error(ErrorKind.UNSUPPORTED_LANGUAGE, "no " + language.id()
                        + " code context in this sandbox; scripted: " + known);
            }
            MemoryContext c = new MemoryContext(language, handler);
            contexts.put(c.id, c);
            return c;
        }

        @Override
        public List<CodeContext> contexts() {
            checkOpen();
            synchronized (contexts) {
                return List.copyOf(contexts.values());
            }
        }
    }

    private final class MemoryContext implements CodeContext {
        final String id = "ctx-" + UUID.randomUUID();
        final Language language;
        final ContextHandler handler;
        final Map<String, Object> state = new ConcurrentHashMap<>();

        MemoryContext(Language language, ContextHandler handler) {
            this.language = language;
            this.handler = handler;
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
        public synchronized CodeResult run(CodeRequest request) {
            if (request.language() != language) {
                throw new IllegalArgumentException("this context runs " + language.id() + ", not "
                        + request.language().id());
            }
            if (request.stdin() != null) {
                throw new IllegalArgumentException("a code context takes no stdin");
            }
            checkOpen();
            if (!contexts.containsKey(id)) {
                throw MemoryErrors.error(ErrorKind.CLOSED, "code context " + id + " is closed");
            }
            long start = System.nanoTime();
            codeRuns.add(request);
            CodeResult r = Objects.requireNonNull(handler.run(state, request), "the context handler's result");
            int limit = outputLimit(request.outputLimit());
            OutputBuffer text = new OutputBuffer(limit);
            text.write(r.text().getBytes(StandardCharsets.UTF_8));
            return new CodeResult(r.status(), language, capped(r.exec(), limit, start), text.text(), r.png());
        }

        @Override
        public boolean isOpen() {
            return !closed && contexts.containsKey(id);
        }

        @Override
        public void close() {
            contexts.remove(id);
        }

        @Override
        public String toString() {
            return "CodeContext[" + id + ", " + language.id() + "]";
        }
    }

    @Override
    public String toString() {
        return "MemorySandbox[" + id + (closed ? ", closed" : "") + "]";
    }
}
