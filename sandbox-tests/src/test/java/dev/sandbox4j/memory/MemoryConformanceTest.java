package dev.sandbox4j.memory;

import dev.sandbox4j.CodeResult;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Feature;
import dev.sandbox4j.Language;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.testing.SandboxConformance;
import dev.sandbox4j.testing.SandboxFixture;
import java.util.Set;

/** The whole conformance kit on the in-memory backend. */
class MemoryConformanceTest implements SandboxConformance {
    private static final SandboxFixture FIXTURE = new SandboxFixture() {
        @Override
        public Sandbox open(SandboxSpec spec) {
            return MemorySandbox.open(spec);
        }

        /** Python contexts scripted as the kit asks: NAME = INTEGER, NAME, NAME + INTEGER. */
        @Override
        public Sandbox openWithContexts(SandboxSpec spec) {
            return MemorySandbox.open(spec).onContextCode(Language.PYTHON, (state, request) -> {
                String code = request.code().trim();
                java.util.regex.Matcher set = java.util.regex.Pattern.compile("(\\w+) = (-?\\d+)").matcher(code);
                if (set.matches()) {
                    state.put(set.group(1), Long.parseLong(set.group(2)));
                    return new CodeResult(CodeResult.Status.COMPLETED, Language.PYTHON, ExecResult.of(0, "", ""));
                }
                java.util.regex.Matcher get = java.util.regex.Pattern.compile("(\\w+)(?: \\+ (-?\\d+))?")
                        .matcher(code);
                if (!get.matches()) {
                    return new CodeResult(CodeResult.Status.ERROR_RUNTIME, Language.PYTHON,
                            ExecResult.of(1, "", "SyntaxError: not scripted: " + code + "\n"));
                }
                Object value = state.get(get.group(1));
                if (value == null) {
                    return new CodeResult(CodeResult.Status.ERROR_RUNTIME, Language.PYTHON,
                            ExecResult.of(1, "", "NameError: name '" + get.group(1) + "' is not defined\n"));
                }
                long result = (Long) value + (get.group(2) == null ? 0 : Long.parseLong(get.group(2)));
                return new CodeResult(CodeResult.Status.COMPLETED, Language.PYTHON, ExecResult.of(0, "", ""),
                        Long.toString(result), null);
            });
        }

        @Override
        public Set<Feature> features() {
            return new MemorySandboxProvider().features();
        }
    };

    @Override
    public SandboxFixture fixture() {
        return FIXTURE;
    }
}
