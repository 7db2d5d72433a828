package dev.sandbox4j.tools;

/**
 * Receives a heartbeat while a long command runs, so an adapter can report progress (MCP progress notifications).
 * Called from the calling thread between waits; keep it quick. An exception it throws is ignored.
 */
@FunctionalInterface
public interface ToolProgress {
    /**
     * @param elapsedMillis how long the command has run so far
     * @param message       {@code "still running after 10 s"}, followed for {@code bash} and {@code exec} (on backends
     *                      with background processes) by the output that arrived since the previous report:
     *                      {@code "\nnew stdout:\n..."} and {@code "\nnew stderr:\n..."}, the last 2,000 characters of
     *                      each
     */
    void heartbeat(long elapsedMillis, String message);
}
