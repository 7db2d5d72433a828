package dev.sandbox4j;

import java.time.Duration;

/**
 * A long-lived interpreter made by {@link CodeRunner#createContext}: each {@link #run} sees what the earlier ones
 * left (variables, imports, functions, the working directory), like cells of a notebook.
 *
 * <p>Each run has its own timeout, status and head+tail capped output. A run that times out is interrupted
 * (Python: {@code KeyboardInterrupt}) and the context is kept; when the interpreter does not stop, or dies, it is
 * restarted empty and the result's {@link ExecResult#detail() detail} says so. For Python, the value of a trailing
 * expression comes back as {@link CodeResult#text()}, and a matplotlib figure the code left open as
 * {@link CodeResult#png()} (when matplotlib is importable in the sandbox).
 *
 * <p>Runs of one context are serialized; contexts are independent of each other. Closing the sandbox closes its
 * contexts and ends their interpreters.
 */
public interface CodeContext extends AutoCloseable {
    /** A unique id, stable for the context's life. */
    String id();

    Language language();

    /** Runs code in this context with the sandbox's default command timeout. */
    default CodeResult run(String code) {
        return run(CodeRequest.of(language(), code));
    }

    /** Runs code in this context with its own timeout. */
    default CodeResult run(String code, Duration timeout) {
        return run(CodeRequest.of(language(), code).withTimeout(timeout));
    }

    /**
     * Runs a request in this context: its code, timeout and output cap (its language must be the context's, and it
     * takes no stdin).
     *
     * @throws SandboxException {@link ErrorKind#CLOSED} once the context or its sandbox is closed
     */
    CodeResult run(CodeRequest request);

    /** Whether the context can still run code (not closed, its sandbox open). */
    boolean isOpen();

    /** Ends the interpreter and forgets the state. Idempotent; later runs fail with {@link ErrorKind#CLOSED}. */
    @Override
    void close();
}
