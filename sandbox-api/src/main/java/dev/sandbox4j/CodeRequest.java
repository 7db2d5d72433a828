package dev.sandbox4j;

import java.time.Duration;
import java.util.Objects;

/**
 * A code snippet to run. The code reaches the interpreter through a file or stdin, never argv, so its size is not
 * bounded by the kernel's argument limits. Immutable; the {@code with*} methods return copies.
 */
public final class CodeRequest {
    private final Language language;
    private final String code;
    private final String stdin;
    private final Duration timeout;
    private final int outputLimit;

    private CodeRequest(Language language, String code, String stdin, Duration timeout, int outputLimit) {
        this.language = Objects.requireNonNull(language, "language");
        this.code = Objects.requireNonNull(code, "code");
        this.stdin = stdin;
        this.timeout = timeout;
        this.outputLimit = outputLimit;
    }

    public static CodeRequest of(Language language, String code) {
        return new CodeRequest(language, code, null, null, 0);
    }

    public Language language() {
        return language;
    }

    public String code() {
        return code;
    }

    /** Text fed to the program's stdin, or null for empty stdin. */
    public String stdin() {
        return stdin;
    }

    /** Timeout, or null for the sandbox default. */
    public Duration timeout() {
        return timeout;
    }

    /** Characters kept at each end of each stream, or 0 for the sandbox default. */
    public int outputLimit() {
        return outputLimit;
    }

    public CodeRequest withStdin(String stdin) {
        return new CodeRequest(language, code, Objects.requireNonNull(stdin, "stdin"), timeout, outputLimit);
    }

    public CodeRequest withTimeout(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout (" + timeout + ") must be positive");
        }
        return new CodeRequest(language, code, stdin, timeout, outputLimit);
    }

    public CodeRequest withOutputLimit(int chars) {
        if (chars <= 0) {
            throw new IllegalArgumentException("output limit (" + chars + ") must be positive");
        }
        return new CodeRequest(language, code, stdin, timeout, chars);
    }

    @Override
    public String toString() {
        return "CodeRequest[" + language.id() + ", " + code.length() + " chars]";
    }
}
