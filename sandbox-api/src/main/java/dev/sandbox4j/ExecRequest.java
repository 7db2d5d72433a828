package dev.sandbox4j;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One command to run: a shell string ({@code sh -c}) or an argv, with optional working directory, extra
 * environment, stdin, timeout and output cap. Immutable; the {@code with*} methods return copies.
 *
 * <pre>{@code
 * ExecRequest.shell("make test").withCwd("app").withTimeout(Duration.ofMinutes(2))
 * ExecRequest.argv("python3", "-m", "pytest").withEnv("CI", "1")
 * }</pre>
 *
 * <p>Unset values fall back to the sandbox's {@link SandboxSpec}: timeout and output cap. Stdin is empty
 * ({@code /dev/null}) unless given.
 */
public final class ExecRequest {
    private final List<String> argv;
    private final String shellCommand;
    private final String cwd;
    private final Map<String, String> env;
    private final byte[] stdin;
    private final Duration timeout;
    private final int outputLimit;
    private final Terminal terminal;

    private ExecRequest(List<String> argv, String shellCommand, String cwd, Map<String, String> env,
                        byte[] stdin, Duration timeout, int outputLimit) {
        this(argv, shellCommand, cwd, env, stdin, timeout, outputLimit, null);
    }

    private ExecRequest(List<String> argv, String shellCommand, String cwd, Map<String, String> env,
                        byte[] stdin, Duration timeout, int outputLimit, Terminal terminal) {
        this.argv = argv;
        this.shellCommand = shellCommand;
        this.cwd = cwd;
        this.env = env;
        this.stdin = stdin;
        this.timeout = timeout;
        this.outputLimit = outputLimit;
        this.terminal = terminal;
    }

    /** A command line run by {@code /bin/sh -c}. */
    public static ExecRequest shell(String command) {
        checkNoNul(Objects.requireNonNull(command, "command"), "the command");
        return new ExecRequest(List.of("/bin/sh", "-c", command), command, null, Map.of(), null, null, 0);
    }

    /** A program and its arguments, run without a shell. */
    public static ExecRequest argv(String program, String... args) {
        Objects.requireNonNull(program, "program");
        String[] all = new String[args.length + 1];
        all[0] = program;
        System.arraycopy(args, 0, all, 1, args.length);
        return argv(Arrays.asList(all));
    }

    /** A program and its arguments, run without a shell. */
    public static ExecRequest argv(List<String> argv) {
        List<String> copy = List.copyOf(argv);
        if (copy.isEmpty() || copy.get(0).isEmpty()) {
            throw new IllegalArgumentException("argv must name a program");
        }
        copy.forEach(a -> checkNoNul(a, "an argument"));
        return new ExecRequest(copy, null, null, Map.of(), null, null, 0);
    }

    /** The full argv to execute; for a shell command, {@code [/bin/sh, -c, command]}. */
    public List<String> argv() {
        return argv;
    }

    /** The shell command line, or null for an argv request. */
    public String shellCommand() {
        return shellCommand;
    }

    /** What to show people: the shell command line, or the argv joined with spaces. */
    public String displayCommand() {
        return shellCommand != null ? shellCommand : String.join(" ", argv);
    }

    /** Working directory (workspace-relative, or absolute under the workspace), or null for the workspace root. */
    public String cwd() {
        return cwd;
    }

    /** Variables added to the sandbox environment for this command only. */
    public Map<String, String> env() {
        return env;
    }

    /** Bytes fed to stdin, or null for empty stdin. */
    public byte[] stdin() {
        return stdin == null ? null : stdin.clone();
    }

    public boolean hasStdin() {
        return stdin != null;
    }

    /** Timeout of this command, or null for the sandbox default. */
    public Duration timeout() {
        return timeout;
    }

    /** Characters kept at each end of each stream, or 0 for the sandbox default. */
    public int outputLimit() {
        return outputLimit;
    }

    public ExecRequest withCwd(String cwd) {
        return new ExecRequest(argv, shellCommand, Objects.requireNonNull(cwd, "cwd"), env, stdin, timeout,
                outputLimit, terminal);
    }

    /**
     * Adds one variable; the name must be a valid POSIX name and the value a string without NUL. A null name or
     * value is an {@link IllegalArgumentException} like every other invalid variable, so a caller checks for one
     * exception when the request is built, not for two.
     */
    public ExecRequest withEnv(String name, String value) {
        Map<String, String> copy = new LinkedHashMap<>(env);
        copy.put(checkName(name), checkValue(value));
        return new ExecRequest(argv, shellCommand, cwd, Map.copyOf(copy), stdin, timeout, outputLimit, terminal);
    }

    /** Adds variables; names must be valid POSIX names (same rules as {@link #withEnv(String, String)}). */
    public ExecRequest withEnv(Map<String, String> vars) {
        Map<String, String> copy = new LinkedHashMap<>(env);
        checkVars(vars).forEach((k, v) -> copy.put(checkName(k), checkValue(v)));
        return new ExecRequest(argv, shellCommand, cwd, Map.copyOf(copy), stdin, timeout, outputLimit, terminal);
    }

    public ExecRequest withStdin(String text) {
        return withStdin(text.getBytes(StandardCharsets.UTF_8));
    }

    public ExecRequest withStdin(byte[] bytes) {
        return new ExecRequest(argv, shellCommand, cwd, env, bytes.clone(), timeout, outputLimit, terminal);
    }

    public ExecRequest withTimeout(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout (" + timeout + ") must be positive");
        }
        return new ExecRequest(argv, shellCommand, cwd, env, stdin, timeout, outputLimit, terminal);
    }

    /** Characters to keep at each end of each stream (the default keeps 15,000 + 15,000). */
    public ExecRequest withOutputLimit(int chars) {
        if (chars <= 0) {
            throw new IllegalArgumentException("output limit (" + chars + ") must be positive");
        }
        return new ExecRequest(argv, shellCommand, cwd, env, stdin, timeout, chars, terminal);
    }

    /** The terminal the command runs under, or null for pipes. */
    public Terminal terminal() {
        return terminal;
    }

    /**
     * Runs the command under a pseudo-terminal ({@link Feature#TERMINAL}; else {@link ErrorKind#UNSUPPORTED}):
     * programs see a terminal ({@code isatty}, prompts, colours, line editing), and its output is one stream.
     */
    public ExecRequest withTerminal(Terminal terminal) {
        return new ExecRequest(argv, shellCommand, cwd, env, stdin, timeout, outputLimit,
                Objects.requireNonNull(terminal, "terminal"));
    }

    /** {@code withTerminal(Terminal.of(cols, rows))}. */
    public ExecRequest withTerminal(int cols, int rows) {
        return withTerminal(Terminal.of(cols, rows));
    }

    /** No operating system can pass a NUL inside an argument or environment value. */
    static String checkNoNul(String s, String what) {
        if (s.indexOf('\0') >= 0) {
            throw new IllegalArgumentException(what + " contains a NUL character, which no program can receive");
        }
        return s;
    }

    static String checkValue(String value) {
        if (value == null) {
            throw new IllegalArgumentException("an environment value is null; use \"\" for an empty value");
        }
        return checkNoNul(value, "an environment value");
    }

    static String checkName(String name) {
        if (name == null) {
            throw new IllegalArgumentException("an environment variable name is null");
        }
        if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new IllegalArgumentException("not a valid environment variable name: '" + name + "'");
        }
        return name;
    }

    static Map<String, String> checkVars(Map<String, String> vars) {
        if (vars == null) {
            throw new IllegalArgumentException("the map of environment variables is null");
        }
        return vars;
    }

    @Override
    public String toString() {
        return "ExecRequest[" + displayCommand() + (terminal == null ? "" : ", terminal " + terminal.cols() + "x"
                + terminal.rows()) + "]";
    }
}
