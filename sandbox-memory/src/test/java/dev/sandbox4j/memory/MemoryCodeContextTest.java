package dev.sandbox4j.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.CodeContext;
import dev.sandbox4j.CodeRequest;
import dev.sandbox4j.CodeResult;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Language;
import dev.sandbox4j.SandboxException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Scripted code contexts: a per-context state map kept across runs, capped output, closing. */
class MemoryCodeContextTest {
    /** A toy interpreter: "NAME = VALUE" stores, "NAME" reads (NameError when unset), "print TEXT" prints. */
    private static CodeResult toy(Map<String, Object> state, CodeRequest request) {
        String code = request.code().trim();
        if (code.startsWith("print ")) {
            return new CodeResult(CodeResult.Status.COMPLETED, request.language(), ExecResult.of(0, code.substring(6) + "\n",
                    ""));
        }
        int eq = code.indexOf('=');
        if (eq > 0) {
            state.put(code.substring(0, eq).trim(), code.substring(eq + 1).trim());
            return new CodeResult(CodeResult.Status.COMPLETED, request.language(), ExecResult.of(0, "", ""));
        }
        Object value = state.get(code);
        if (value == null) {
            return new CodeResult(CodeResult.Status.ERROR_RUNTIME, request.language(),
                    ExecResult.of(1, "", "NameError: name '" + code + "' is not defined\n"));
        }
        return new CodeResult(CodeResult.Status.COMPLETED, request.language(), ExecResult.of(0, "", ""), value.toString(),
                null);
    }

    private static MemorySandbox sandbox() {
        return MemorySandbox.open().onContextCode(Language.PYTHON, MemoryCodeContextTest::toy);
    }

    @Test
    void run_stateKeptPerContext_andContextsIndependent() {
        try (MemorySandbox sandbox = sandbox()) {
            CodeContext a = sandbox.code().createContext("py");
            CodeContext b = sandbox.code().createContext(Language.PYTHON);
            assertThat(a.id()).isNotEqualTo(b.id());
            assertThat(sandbox.openContexts()).containsExactlyInAnyOrder(a.id(), b.id());
            assertThat(sandbox.code().contexts()).containsExactly(a, b);
            assertThat(sandbox.code().context(b.id())).containsSame(b);
            assertThat(sandbox.code().context("ctx-none")).isEmpty();
            a.run("x = 41");
            assertThat(a.run("x").text()).isEqualTo("41");
            CodeResult inB = b.run("x");
            assertThat(inB.status()).isEqualTo(CodeResult.Status.ERROR_RUNTIME);
            assertThat(inB.stderr()).contains("NameError");
            assertThat(sandbox.codeRuns()).extracting(CodeRequest::code).containsExactly("x = 41", "x", "x");
        }
    }

    @Test
    void run_outputAndText_cappedHeadTail() {
        try (MemorySandbox sandbox = sandbox()) {
            CodeContext c = sandbox.code().createContext(Language.PYTHON);
            c.run("big = " + "v".repeat(5000));
            CodeResult r = c.run(CodeRequest.of(Language.PYTHON, "big").withOutputLimit(100));
            assertThat(r.text()).startsWith("v".repeat(100)).contains("characters truncated").hasSizeLessThan(300);
            CodeResult printed = c.run(CodeRequest.of(Language.PYTHON, "print " + "p".repeat(5000))
                    .withOutputLimit(100));
            assertThat(printed.exec().stdoutTruncation().truncated()).isTrue();
            assertThat(printed.exec().stdoutTruncation().totalBytes()).isEqualTo(5001);
        }
    }

    @Test
    void close_thenRun_failsClosed_andSandboxCloseClosesAll() {
        MemorySandbox sandbox = sandbox();
        CodeContext a = sandbox.code().createContext(Language.PYTHON);
        CodeContext b = sandbox.code().createContext(Language.PYTHON);
        a.close();
        a.close();
        assertThat(a.isOpen()).isFalse();
        assertThatThrownBy(() -> a.run("x")).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.kind()).isEqualTo(ErrorKind.CLOSED));
        assertThat(b.isOpen()).isTrue();
        sandbox.close();
        assertThat(b.isOpen()).isFalse();
        assertThatThrownBy(() -> b.run("x")).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.kind()).isEqualTo(ErrorKind.CLOSED));
    }

    @Test
    void createContext_unscriptedLanguage_failsUnsupportedLanguage() {
        try (MemorySandbox sandbox = sandbox()) {
            assertThatThrownBy(() -> sandbox.code().createContext(Language.JAVASCRIPT))
                    .isInstanceOfSatisfying(SandboxException.class,
                            e -> assertThat(e.kind()).isEqualTo(ErrorKind.UNSUPPORTED_LANGUAGE));
            assertThatThrownBy(() -> sandbox.code().createContext(Language.PYTHON).run(
                    CodeRequest.of(Language.JAVASCRIPT, "1"))).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
