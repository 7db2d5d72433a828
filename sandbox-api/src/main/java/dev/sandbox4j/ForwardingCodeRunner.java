package dev.sandbox4j;

import java.time.Duration;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A {@link CodeRunner} that forwards every call, the code-context defaults included, to another one. See
 * {@link ForwardingSandbox} for why defaults are forwarded too, and what that means for a decorator.
 */
public abstract class ForwardingCodeRunner implements CodeRunner {
    protected ForwardingCodeRunner() {
    }

    /** The code runner calls are forwarded to. */
    protected abstract CodeRunner delegate();

    @Override
    public Set<Language> languages() {
        return delegate().languages();
    }

    @Override
    public CodeResult run(Language language, String code) {
        return delegate().run(language, code);
    }

    @Override
    public CodeResult run(String language, String code) {
        return delegate().run(language, code);
    }

    @Override
    public CodeResult run(String language, String code, Duration timeout) {
        return delegate().run(language, code, timeout);
    }

    @Override
    public CodeResult run(CodeRequest request) {
        return delegate().run(request);
    }

    @Override
    public CodeContext createContext(Language language) {
        return delegate().createContext(language);
    }

    @Override
    public CodeContext createContext(String language) {
        return delegate().createContext(language);
    }

    @Override
    public List<CodeContext> contexts() {
        return delegate().contexts();
    }

    @Override
    public Optional<CodeContext> context(String id) {
        return delegate().context(id);
    }

    @Override
    public String toString() {
        return delegate().toString();
    }
}
