package dev.sandbox4j;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Runs code snippets in the sandbox's interpreters, with the workspace as the working directory.
 *
 * <p>Errors in the code are results ({@link CodeResult.Status#ERROR_RUNTIME}), not exceptions. A language the sandbox
 * cannot run fails with {@link ErrorKind#UNSUPPORTED_LANGUAGE}, whose message lists the languages it can.
 */
public interface CodeRunner {
    /** The languages whose runtime is really present in this sandbox. */
    Set<Language> languages();

    default CodeResult run(Language language, String code) {
        return run(CodeRequest.of(language, code));
    }

    /** Runs code given a language name or alias ({@code "python"}, {@code "js"}). */
    default CodeResult run(String language, String code) {
        return run(CodeRequest.of(Language.of(language), code));
    }

    /**
     * Runs code given a language name or alias, for up to {@code timeout} instead of the default: then the
     * interpreter is killed and the result has status {@link CodeResult.Status#TIMEOUT} with the output so far. The
     * same as {@code run(CodeRequest.of(Language.of(language), code).withTimeout(timeout))}; stdin and the output cap
     * go through {@link CodeRequest}.
     *
     * @throws IllegalArgumentException if {@code timeout} is zero or negative
     */
    default CodeResult run(String language, String code, Duration timeout) {
        return run(CodeRequest.of(Language.of(language), code).withTimeout(timeout));
    }

    CodeResult run(CodeRequest request);

    /**
     * Starts a code context: one long-lived interpreter whose state (variables, imports, working directory) lasts
     * from one {@link CodeContext#run} to the next, until {@link CodeContext#close} or the sandbox closes.
     *
     * @throws SandboxException {@link ErrorKind#UNSUPPORTED} without {@link Feature#CODE_CONTEXTS};
     *                          {@link ErrorKind#UNSUPPORTED_LANGUAGE} for a language the sandbox has no context for
     *                          (python and javascript have them where their runtime is present)
     */
    default CodeContext createContext(Language language) {
        throw new SandboxException(ErrorKind.UNSUPPORTED, "this sandbox has no code contexts");
    }

    /** Starts a code context given a language name or alias ({@code "python"}, {@code "js"}). */
    default CodeContext createContext(String language) {
        return createContext(Language.of(language));
    }

    /** The code contexts of this sandbox not closed yet, oldest first. */
    default List<CodeContext> contexts() {
        return List.of();
    }

    /** The open code context with this id (as {@link CodeContext#id()}), if any. */
    default Optional<CodeContext> context(String id) {
        return contexts().stream().filter(c -> c.id().equals(id)).findFirst();
    }
}
