package dev.sandbox4j.tools;

/**
 * Receives a heartbeat while a long command runs, so an adapter can report progress (MCP progress notifications).
 * Called from the calling thread between waits; keep it quick. An exception it throws is ignored.
 */
@FunctionalInterface
public interface ToolProgress {
    /**
     * @param elapsedMillis how long the command has run so far
     * @param message       a short line for people, such as {@code "still running after 10 s"}
     */
    void heartbeat(long elapsedMillis, String message);
}
