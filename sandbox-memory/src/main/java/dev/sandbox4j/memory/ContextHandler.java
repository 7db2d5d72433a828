package dev.sandbox4j.memory;

import dev.sandbox4j.CodeRequest;
import dev.sandbox4j.CodeResult;
import java.util.Map;

/**
 * A scripted interpreter for the code contexts of one language in a {@link MemorySandbox}: answers each run of a
 * context given that context's own state, a mutable map that starts empty and is kept across its runs (the
 * handler's stand-in for an interpreter's variables). The result's output is capped head+tail as on a real backend.
 */
@FunctionalInterface
public interface ContextHandler {
    CodeResult run(Map<String, Object> state, CodeRequest request);
}
