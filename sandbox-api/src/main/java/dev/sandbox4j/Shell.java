package dev.sandbox4j;

import java.time.Duration;

/**
 * Runs commands in the sandbox, with the workspace as the working directory.
 *
 * <p>Every command has a timeout (the request's, else the sandbox default). When it expires, the command's whole
 * process tree is killed, children started with {@code setsid}, {@code nohup} or a double fork included, and the
 * result comes back with status {@link ExecStatus#TIMEOUT} and the output so far. A caller whose thread is
 * interrupted while it waits gets {@link ErrorKind#INTERRUPTED} and the command is killed.
 */
public interface Shell {
    /** Runs {@code /bin/sh -c command} and waits for it. */
    default ExecResult run(String command) {
        return run(ExecRequest.shell(command));
    }

    /**
     * Runs {@code /bin/sh -c command} and waits for it, up to {@code timeout} instead of the sandbox default: then
     * its process tree is killed and the result has status {@link ExecStatus#TIMEOUT} with the output so far. The
     * same as {@code run(ExecRequest.shell(command).withTimeout(timeout))}; other settings (working directory,
     * environment, stdin) go through {@link ExecRequest}.
     *
     * @throws IllegalArgumentException if {@code timeout} is zero or negative
     */
    default ExecResult run(String command, Duration timeout) {
        return run(ExecRequest.shell(command).withTimeout(timeout));
    }

    /** Runs the command and waits for it, up to its timeout. */
    ExecResult run(ExecRequest request);

    /**
     * Starts the command in the background. It runs until it ends, is killed, or its timeout expires if the request
     * sets one (the sandbox default timeout does not apply to background commands). Needs
     * {@link Feature#BACKGROUND_PROCESSES}.
     */
    ExecHandle start(ExecRequest request, OutputListener listener);

    default ExecHandle start(ExecRequest request) {
        return start(request, OutputListener.NONE);
    }

    /**
     * Background commands found again by id: start one, list them, read one's output from a cursor, write its stdin,
     * kill it. Needs {@link Feature#PROCESS_REGISTRY}; without it {@link ErrorKind#UNSUPPORTED}.
     */
    default Processes processes() {
        throw new SandboxException(ErrorKind.UNSUPPORTED, "this sandbox does not keep background commands by id");
    }
}
