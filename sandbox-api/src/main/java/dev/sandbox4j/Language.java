package dev.sandbox4j;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** A language {@link CodeRunner} can run, if the sandbox has its runtime ({@link CodeRunner#languages()}). */
public enum Language {
    PYTHON("python", "python3", "py"),
    JAVASCRIPT("javascript", "js", "node", "nodejs"),
    BASH("bash", "sh", "shell");

    private final List<String> names;

    Language(String... names) {
        this.names = List.of(names);
    }

    /** The canonical lower-case name, such as {@code python}. */
    public String id() {
        return names.get(0);
    }

    /** Names this language is known by, canonical name first. */
    public List<String> names() {
        return names;
    }

    /**
     * The language for a name or alias, case-insensitive ({@code "Python"}, {@code "py"}, {@code "node"}).
     *
     * @throws SandboxException {@link ErrorKind#UNSUPPORTED_LANGUAGE} for an unknown name, listing the known ones
     */
    public static Language of(String name) {
        String key = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        for (Language language : values()) {
            if (language.names.contains(key)) {
                return language;
            }
        }
        throw new SandboxException(ErrorKind.UNSUPPORTED_LANGUAGE, "unknown language '" + name + "'; known: "
                + Arrays.stream(values()).map(Language::id).collect(Collectors.joining(", ")));
    }
}
