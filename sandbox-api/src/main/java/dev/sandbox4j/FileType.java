package dev.sandbox4j;

/** What kind of file a path names. */
public enum FileType {
    FILE,
    DIRECTORY,
    SYMLINK,
    /** A FIFO, socket or device node: listed and stat'ed, never opened. */
    OTHER
}
