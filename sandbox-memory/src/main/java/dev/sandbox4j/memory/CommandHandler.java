package dev.sandbox4j.memory;

import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;

/**
 * A scripted answer to a command in a {@link MemorySandbox}: return a result, or throw a
 * {@link dev.sandbox4j.SandboxException} to script a failure.
 */
@FunctionalInterface
public interface CommandHandler {
    ExecResult handle(ExecRequest request);
}
