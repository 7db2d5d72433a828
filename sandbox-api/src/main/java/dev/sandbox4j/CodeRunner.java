package dev.sandbox4j;

import java.util.Set;

/**
 * Runs code snippets in the sandbox's interpreters, with the workspace as the working directory.
 *
 * <p>Errors in the code are results ({@link CodeStatus#ERROR_RUNTIME}), not exceptions. A language the sandbox
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

    CodeResult run(CodeRequest request);
}
