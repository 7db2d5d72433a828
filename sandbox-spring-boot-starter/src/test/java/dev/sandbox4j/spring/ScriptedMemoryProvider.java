package dev.sandbox4j.spring;

import dev.sandbox4j.CodeResult;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Feature;
import dev.sandbox4j.Language;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.memory.MemorySandbox;
import dev.sandbox4j.spi.SandboxProvider;
import java.util.Optional;
import java.util.Set;

/**
 * In-memory sandboxes with python code contexts scripted as a tiny interpreter: {@code name = value} assigns, a bare
 * {@code name} evaluates (the result's text). Opened only by name ({@code sandbox4j.backend=scripted-memory}).
 */
public final class ScriptedMemoryProvider implements SandboxProvider {
    @Override
    public String name() {
        return "scripted-memory";
    }

    @Override
    public int priority() {
        return -5;
    }

    @Override
    public Set<Feature> features() {
        return Set.of(Feature.CODE_CONTEXTS);
    }

    @Override
    public Optional<String> unavailableReason() {
        return Optional.empty();
    }

    @Override
    public Sandbox open(SandboxSpec spec) {
        return MemorySandbox.open(spec).onContextCode(Language.PYTHON, (state, request) -> {
            String code = request.code().trim();
            int eq = code.indexOf('=');
            if (eq > 0) {
                state.put(code.substring(0, eq).trim(), code.substring(eq + 1).trim());
                return CodeResult.of(Language.PYTHON, ExecResult.of(0, "", ""));
            }
            Object value = state.get(code);
            if (value == null) {
                return CodeResult.of(Language.PYTHON, ExecResult.of(1, "", "NameError: name '" + code
                        + "' is not defined\n"));
            }
            return new CodeResult(CodeResult.Status.COMPLETED, Language.PYTHON, ExecResult.of(0, "", ""),
                    value.toString(), null);
        });
    }
}
