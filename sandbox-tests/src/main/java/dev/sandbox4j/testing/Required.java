package dev.sandbox4j.testing;

import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * The one reading of {@code SANDBOX4J_REQUIRE}: a comma-separated list of names (backends such as {@code local} and
 * {@code docker}, or tools such as {@code node}) whose absence must fail a test run instead of skipping it. CI sets
 * it so that a machine missing a backend cannot pass by skipping; on a developer's machine an absent backend skips.
 */
public final class Required {
    private Required() {
    }

    /** The names {@code SANDBOX4J_REQUIRE} lists, trimmed. */
    public static Set<String> names() {
        return Arrays.stream(System.getenv().getOrDefault("SANDBOX4J_REQUIRE", "").split(","))
                .map(String::trim).filter(s -> !s.isEmpty()).collect(Collectors.toUnmodifiableSet());
    }

    public static boolean isRequired(String name) {
        return names().contains(name);
    }

    /**
     * Returns when {@code unavailable} is empty; otherwise fails the calling test when {@code name} is required,
     * else skips it, either way saying why.
     */
    public static void orSkip(String name, Optional<String> unavailable) {
        if (unavailable.isEmpty()) {
            return;
        }
        if (isRequired(name)) {
            Assertions.fail("SANDBOX4J_REQUIRE names " + name + " but it is unavailable: " + unavailable.get());
        }
        Assumptions.abort(name + " unavailable: " + unavailable.get());
    }
}
