package dev.sandbox4j.core;

import dev.sandbox4j.Language;
import java.util.EnumMap;
import java.util.Map;

/** Which interpreters a sandbox has: one script, the same on every backend, and the parser of what it prints. */
public final class LanguageProbe {
    private LanguageProbe() {
    }

    /**
     * The interpreters the probe looks for, in the sandbox's own PATH order (the jail's starts /usr/local/bin); a host
     * that runs it itself (to add its own checks in the same round trip) parses its output with {@link #interpreters}.
     */
    public static final String PROBE = "for l in python3 node bash; do p=$(command -v \"$l\") && case $p in /*) "
            + "echo \"$l:$p\" ;; esac; done";

    /** The languages and interpreter paths in the output of {@link #PROBE} (other lines are ignored). */
    public static Map<Language, String> interpreters(String probeOutput) {
        Map<Language, String> langs = new EnumMap<>(Language.class);
        for (String line : probeOutput.split("\n")) {
            int colon = line.indexOf(':');
            if (colon < 0) {
                continue;
            }
            Language l = switch (line.substring(0, colon)) {
                case "python3" -> Language.PYTHON;
                case "node" -> Language.JAVASCRIPT;
                case "bash" -> Language.BASH;
                default -> null;
            };
            if (l != null) {
                langs.put(l, line.substring(colon + 1).strip());
            }
        }
        return Map.copyOf(langs);
    }
}
