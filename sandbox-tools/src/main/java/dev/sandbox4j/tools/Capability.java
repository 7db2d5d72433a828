package dev.sandbox4j.tools;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * What a tool lets a model do. Tools are switched off by capability: switching one off removes every tool that can
 * do it, directly or through another capability it has. A tool that runs commands can also run code
 * ({@code python3 -c}), write and read files; one that runs code can run commands ({@code os.system}); one that
 * writes files also shows their content (the diff of an edit). So turning off {@link #RUN_COMMANDS} leaves no tool
 * that executes anything, and turning off {@link #WRITE_FILES} leaves exactly the read-only set.
 */
public enum Capability {
    /** Run shell commands and programs: {@code bash}, {@code exec}. */
    RUN_COMMANDS,
    /** Run code snippets in an interpreter: {@code execute_code}. */
    RUN_CODE,
    /** Create, change, move files and directories: {@code write_file}, {@code str_replace}, ... */
    WRITE_FILES,
    /** Read files and directories: {@code view}, {@code read_file}, {@code grep}, ... */
    READ_FILES;

    /** The lower-case name used in configuration and on the command line, such as {@code run_commands}. */
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Everything a tool with this capability can do, itself included. */
    public Set<Capability> reach() {
        return switch (this) {
            case RUN_COMMANDS, RUN_CODE -> EnumSet.allOf(Capability.class);
            case WRITE_FILES -> EnumSet.of(WRITE_FILES, READ_FILES);
            case READ_FILES -> EnumSet.of(READ_FILES);
        };
    }

    /** The capability for a code such as {@code run_code}, or null. */
    public static Capability fromCode(String code) {
        for (Capability c : values()) {
            if (c.code().equals(code.trim().toLowerCase(Locale.ROOT))) {
                return c;
            }
        }
        return null;
    }
}
