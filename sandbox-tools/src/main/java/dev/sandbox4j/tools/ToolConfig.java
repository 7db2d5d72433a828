package dev.sandbox4j.tools;

import dev.sandbox4j.FileRules;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * How a tool set behaves: timeouts, caps, the refused environment variables, read-only mode and switched-off tools.
 * Immutable; start from {@link #defaults()} or {@link #builder()}.
 */
public final class ToolConfig {
    /**
     * Environment variables {@code exec} refuses because they hijack the loader or an interpreter. An entry ending
     * in {@code *} is a prefix.
     */
    public static final List<String> DEFAULT_BLOCKED_ENV = List.of("LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT",
            "DYLD_*", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "NODE_OPTIONS", "RUBYOPT", "PERL5OPT",
            "PERL5LIB", "BASH_ENV", "ENV");

    private static final ToolConfig DEFAULTS = builder().build();

    private final Duration defaultTimeout;
    private final Duration maxTimeout;
    private final Duration defaultCodeTimeout;
    private final int outputLimit;
    private final int maxWriteChars;
    private final int maxReadBytes;
    private final int maxViewChars;
    private final Duration heartbeatInterval;
    private final Duration heartbeatAsked;
    private final List<String> blockedEnv;
    private final boolean readOnly;
    private final Set<String> disabled;
    private final Set<Capability> disabledCapabilities;
    private final ToolProfile profile;
    private final boolean dotlessNames;
    private final Duration maxTimeoutAsked;
    private final FileRules fileRulesAsked;
    private final String skillsDirectory;
    private final StatusBoard statusBoard;
    private final Browser.Options browser;

    private ToolConfig(Builder b) {
        this.browser = b.browser;
        this.profile = b.profile;
        this.dotlessNames = b.dotlessNames;
        this.defaultTimeout = b.defaultTimeout;
        this.maxTimeoutAsked = b.maxTimeout;
        // AgentBay's run_code publishes a maximum of 3600 s: its profile allows that much unless told otherwise
        this.maxTimeout = b.maxTimeout != null ? b.maxTimeout
                : b.profile == ToolProfile.AGENTBAY ? Duration.ofSeconds(3600) : Duration.ofSeconds(600);
        this.defaultCodeTimeout = b.defaultCodeTimeout;
        this.outputLimit = b.outputLimit;
        this.maxWriteChars = b.maxWriteChars;
        this.maxReadBytes = b.maxReadBytes;
        this.maxViewChars = b.maxViewChars;
        this.heartbeatAsked = b.heartbeatInterval;
        this.heartbeatInterval = b.heartbeatInterval != null ? b.heartbeatInterval
                : b.profile == ToolProfile.CODING ? Duration.ofSeconds(15) : Duration.ofSeconds(5);
        this.blockedEnv = List.copyOf(b.blockedEnv);
        this.readOnly = b.readOnly;
        this.disabled = Set.copyOf(b.disabled);
        EnumSet<Capability> off = EnumSet.noneOf(Capability.class);
        for (String name : disabled) {
            Capability c = Capability.fromCode(name);
            off.add(c != null ? c : Profiles.capabilityOf(name));
        }
        if (readOnly) {
            off.add(Capability.WRITE_FILES);
        }
        this.disabledCapabilities = Collections.unmodifiableSet(off);
        this.fileRulesAsked = b.fileRules;
        this.skillsDirectory = b.skillsDirectory;
        this.statusBoard = b.statusBoard != null ? b.statusBoard : new StatusBoard();
    }

    /** The default profile, bash 120 s (at most 600 s), execute_code 5 s, 15,000 + 15,000 chars per stream, every tool on. */
    public static ToolConfig defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.defaultTimeout = defaultTimeout;
        b.maxTimeout = maxTimeoutAsked;
        b.dotlessNames = dotlessNames;
        b.defaultCodeTimeout = defaultCodeTimeout;
        b.outputLimit = outputLimit;
        b.maxWriteChars = maxWriteChars;
        b.maxReadBytes = maxReadBytes;
        b.maxViewChars = maxViewChars;
        b.heartbeatInterval = heartbeatAsked;
        b.profile = profile;
        b.blockedEnv = List.copyOf(blockedEnv);
        b.readOnly = readOnly;
        b.disabled.addAll(disabled);
        b.fileRules = fileRulesAsked;
        b.skillsDirectory = skillsDirectory;
        b.statusBoard = statusBoard;
        b.browser = browser;
        return b;
    }

    /**
     * Whether tool names avoid dots: execute-code's published {@code code_execution_sandbox.execute_code} is then
     * offered as {@code execute_code}, for clients and model APIs whose tool names may not contain a dot.
     */
    public boolean dotlessNames() {
        return dotlessNames;
    }

    /** Timeout of {@code bash} and {@code exec} when the call gives none. */
    public Duration defaultTimeout() {
        return defaultTimeout;
    }

    /** The longest timeout a call may ask for (600 s; 3600 s in the {@code agentbay} profile unless set); longer
     * requests are lowered to it. */
    public Duration maxTimeout() {
        return maxTimeout;
    }

    /** Timeout of {@code execute_code} when the call gives none. */
    public Duration defaultCodeTimeout() {
        return defaultCodeTimeout;
    }

    /** Characters kept at each end of each output stream. */
    public int outputLimit() {
        return outputLimit;
    }

    /** The most characters {@code write_file}/{@code create_file} accept in one call. */
    public int maxWriteChars() {
        return maxWriteChars;
    }

    /** The most bytes one {@code read_file} call returns, and the largest binary {@code view} encodes. */
    public int maxReadBytes() {
        return maxReadBytes;
    }

    /** The most characters one {@code view} of a text file returns. */
    public int maxViewChars() {
        return maxViewChars;
    }

    /** The published tool surface offered ({@link ToolProfile#DEFAULT} unless chosen). */
    public ToolProfile profile() {
        return profile;
    }

    /** How often a running command reports a heartbeat (5 s; 15 s in the {@code coding} profile unless set). */
    public Duration heartbeatInterval() {
        return heartbeatInterval;
    }

    /** Environment variables {@code exec} refuses (a trailing {@code *} is a prefix). */
    public List<String> blockedEnv() {
        return blockedEnv;
    }

    /** Whether only reading tools are offered. */
    public boolean readOnly() {
        return readOnly;
    }

    /** The tool and capability names given to {@link Builder#disable}, as given. */
    public Set<String> disabled() {
        return disabled;
    }

    /**
     * The capabilities switched off: those named, those of the tools named, and {@link Capability#WRITE_FILES} in
     * read-only mode.
     */
    public Set<Capability> disabledCapabilities() {
        return disabledCapabilities;
    }

    /** Whether the tool is offered: nothing it can do ({@link Capability#reach()}) is switched off. */
    public boolean enabled(ToolSpec spec) {
        return Collections.disjoint(spec.capability().reach(), disabledCapabilities);
    }

    /**
     * The file rules the tools hold on top of the sandbox's own ({@link dev.sandbox4j.SandboxSpec#fileRules()}):
     * those set, else the profile's ({@link FileRules#SPACEBOT} for {@code spacebot}, none for the others).
     */
    public FileRules fileRules() {
        if (fileRulesAsked != null) {
            return fileRulesAsked;
        }
        return profile == ToolProfile.SPACEBOT ? FileRules.SPACEBOT : FileRules.NONE;
    }

    /**
     * Where {@code read_skill} finds installed skills: a directory of the sandbox's workspace, {@code
     * /workspace/skills} unless set (Spacebot's {@code {workspace}/skills}); mount the host's skills there read-only
     * ({@link dev.sandbox4j.Mount#readOnly}).
     */
    public String skillsDirectory() {
        return skillsDirectory;
    }

    /** Where {@code set_status} puts status lines: the one given, else one of this configuration's own. */
    public StatusBoard statusBoard() {
        return statusBoard;
    }

    /** Builds a {@link ToolConfig}. */
    /**
     * How the {@code browser} tool launches Chromium in the sandbox ({@link Browser.Options#defaults()}: evaluate off,
     * 1280x720, screenshots under {@code screenshots/}).
     */
    public Browser.Options browser() {
        return browser;
    }

    public static final class Builder {
        private Duration defaultTimeout = Duration.ofSeconds(120);
        private Duration maxTimeout;
        private boolean dotlessNames;
        private Duration defaultCodeTimeout = Duration.ofMillis(5_000);
        private int outputLimit = 15_000;
        private int maxWriteChars = 10_000_000;
        private int maxReadBytes = 1 << 20;
        private int maxViewChars = 60_000;
        private Duration heartbeatInterval;
        private ToolProfile profile = ToolProfile.DEFAULT;
        private List<String> blockedEnv = DEFAULT_BLOCKED_ENV;
        private boolean readOnly;
        private final Set<String> disabled = new LinkedHashSet<>();
        private FileRules fileRules;
        private String skillsDirectory = "/workspace/skills";
        private StatusBoard statusBoard;
        private Browser.Options browser = Browser.Options.defaults();

        private Builder() {
        }

        /** The browser tool's launch options (Spacebot's {@code evaluate_enabled}, {@code executable_path}, ...). */
        public Builder browser(Browser.Options options) {
            this.browser = java.util.Objects.requireNonNull(options, "options");
            return this;
        }

        public Builder defaultTimeout(Duration timeout) {
            this.defaultTimeout = positive(timeout, "defaultTimeout");
            return this;
        }

        public Builder maxTimeout(Duration timeout) {
            this.maxTimeout = positive(timeout, "maxTimeout");
            return this;
        }

        public Builder defaultCodeTimeout(Duration timeout) {
            this.defaultCodeTimeout = positive(timeout, "defaultCodeTimeout");
            return this;
        }

        public Builder outputLimit(int chars) {
            this.outputLimit = positive(chars, "outputLimit");
            return this;
        }

        public Builder maxWriteChars(int chars) {
            this.maxWriteChars = positive(chars, "maxWriteChars");
            return this;
        }

        public Builder maxReadBytes(int bytes) {
            this.maxReadBytes = positive(bytes, "maxReadBytes");
            return this;
        }

        public Builder maxViewChars(int chars) {
            this.maxViewChars = positive(chars, "maxViewChars");
            return this;
        }

        /** Offers tool names without dots ({@link ToolConfig#dotlessNames()}). */
        public Builder dotlessNames(boolean dotless) {
            this.dotlessNames = dotless;
            return this;
        }

        public Builder heartbeatInterval(Duration interval) {
            this.heartbeatInterval = positive(interval, "heartbeatInterval");
            return this;
        }

        /**
         * Chooses the published tool surface to expose, by name: {@code default}, {@code agentbay}, {@code coding},
         * {@code execute-code}, {@code spacebot} or {@code aio} (an unknown name is an
         * {@link IllegalArgumentException}).
         */
        public Builder profile(String name) {
            return profile(ToolProfile.fromCode(Objects.requireNonNull(name, "name")));
        }

        /** Chooses the published tool surface to expose. */
        public Builder profile(ToolProfile profile) {
            this.profile = Objects.requireNonNull(profile, "profile");
            return this;
        }

        /** Replaces the refused environment variables (a trailing {@code *} is a prefix). */
        public Builder blockedEnv(List<String> names) {
            this.blockedEnv = List.copyOf(names);
            return this;
        }

        /** Offers only reading tools ({@code view}, {@code read_file}, {@code list_directory}, {@code grep}, ...). */
        public Builder readOnly(boolean readOnly) {
            this.readOnly = readOnly;
            return this;
        }

        /**
         * Switches capabilities off, named by code ({@code run_commands}, {@code run_code}, {@code write_files},
         * {@code read_files}) or through a tool's name, which stands for that tool's {@link Capability}: every tool
         * that can do the same goes too ({@code disable("bash")} also removes {@code exec} and {@code execute_code},
         * which can run the same commands).
         */
        public Builder disable(String... names) {
            for (String t : names) {
                String name = Objects.requireNonNull(t, "name").trim();
                if (Capability.fromCode(name) == null && Profiles.capabilityOf(name) == null) {
                    throw new IllegalArgumentException("cannot disable '" + name + "': it is neither a tool nor a"
                            + " capability (run_commands, run_code, write_files, read_files)");
                }
                disabled.add(name);
            }
            return this;
        }

        /** Switches capabilities off: every tool that can do one of them is left out. */
        public Builder disable(Capability... capabilities) {
            for (Capability c : capabilities) {
                disabled.add(c.code());
            }
            return this;
        }

        /** The file rules the tools hold on top of the sandbox's; replaces the profile's ({@link #fileRules()}). */
        public Builder fileRules(FileRules rules) {
            this.fileRules = Objects.requireNonNull(rules, "rules");
            return this;
        }

        /** Where {@code read_skill} finds installed skills, a workspace directory ({@code skills} or absolute). */
        public Builder skillsDirectory(String path) {
            Objects.requireNonNull(path, "path");
            if (path.isBlank() || path.indexOf('\0') >= 0 || (path.startsWith("/") && !path.equals("/workspace")
                    && !path.startsWith("/workspace/"))) {
                throw new IllegalArgumentException("skills directory '" + path + "' must be a workspace path");
            }
            this.skillsDirectory = path;
            return this;
        }

        /** Shares a status board (with an MCP server, a health endpoint, other tool sets). */
        public Builder statusBoard(StatusBoard board) {
            this.statusBoard = Objects.requireNonNull(board, "board");
            return this;
        }

        public ToolConfig build() {
            Duration max = maxTimeout != null ? maxTimeout
                    : Duration.ofSeconds(profile == ToolProfile.AGENTBAY ? 3600 : 600);
            if (defaultTimeout.compareTo(max) > 0) {
                throw new IllegalArgumentException("defaultTimeout " + defaultTimeout + " exceeds maxTimeout "
                        + max);
            }
            return new ToolConfig(this);
        }

        private static Duration positive(Duration d, String what) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " (" + d + ") must be positive");
            }
            return d;
        }

        private static int positive(int n, String what) {
            if (n <= 0) {
                throw new IllegalArgumentException(what + " (" + n + ") must be positive");
            }
            return n;
        }
    }
}
