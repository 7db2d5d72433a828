package dev.sandbox4j;

import java.util.Objects;

/**
 * One exact-text replacement: {@code oldText} must occur exactly once in the file.
 *
 * @param oldText the text to find, non-empty
 * @param newText the text to put in its place
 */
public record Edit(String oldText, String newText) {
    public Edit {
        Objects.requireNonNull(oldText, "oldText");
        Objects.requireNonNull(newText, "newText");
        if (oldText.isEmpty()) {
            throw new IllegalArgumentException("oldText must not be empty");
        }
    }
}
