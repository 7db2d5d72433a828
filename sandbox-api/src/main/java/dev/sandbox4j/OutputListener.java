package dev.sandbox4j;

/**
 * Receives a background command's output as it arrives, decoded as UTF-8, in order per stream.
 *
 * <p>Called from a backend thread; keep it quick. The listener sees every byte even when the result keeps only
 * the head and tail. An exception it throws is ignored and does not stop the command.
 */
@FunctionalInterface
public interface OutputListener {
    /** Ignores everything. */
    OutputListener NONE = (stream, text) -> { };

    void onOutput(StreamType stream, String text);
}
