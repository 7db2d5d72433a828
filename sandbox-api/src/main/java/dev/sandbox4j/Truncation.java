package dev.sandbox4j;

/**
 * What the output cap did to one stream of a command.
 *
 * @param totalBytes   bytes the command wrote to the stream, all of them, including what was cut
 * @param omittedChars characters cut out of the middle (0 when the stream was kept whole)
 */
public record Truncation(long totalBytes, long omittedChars) {
    public Truncation {
        if (totalBytes < 0 || omittedChars < 0) {
            throw new IllegalArgumentException("negative count: " + totalBytes + ", " + omittedChars);
        }
    }

    /** A stream kept whole. */
    public static Truncation none(long totalBytes) {
        return new Truncation(totalBytes, 0);
    }

    public boolean truncated() {
        return omittedChars > 0;
    }

    /**
     * The text a backend puts between the head and the tail it kept, such as
     * {@code "\n[... 1200 characters truncated ...]\n"}; empty when the stream was kept whole.
     */
    public String marker() {
        return truncated() ? "\n[... " + omittedChars + " characters truncated ...]\n" : "";
    }
}
