package dev.sandbox4j;

/** Which output stream of a command a chunk came from. */
public enum StreamType {
    STDOUT,
    STDERR
}
