package dev.sandbox4j.memory;

import dev.sandbox4j.CodeRequest;
import dev.sandbox4j.ExecResult;

/**
 * A scripted interpreter for one language in a {@link MemorySandbox}: the result of running the code (the status
 * is derived from it as for a real interpreter: exit 0 completed, else runtime error).
 */
@FunctionalInterface
public interface CodeHandler {
    ExecResult run(CodeRequest request);
}
