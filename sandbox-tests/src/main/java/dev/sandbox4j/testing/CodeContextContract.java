package dev.sandbox4j.testing;

import static dev.sandbox4j.testing.Checks.expectError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sandbox4j.CodeContext;
import dev.sandbox4j.CodeRequest;
import dev.sandbox4j.CodeResult;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.Feature;
import dev.sandbox4j.Language;
import dev.sandbox4j.Sandbox;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The conformance contract for code contexts ({@link dev.sandbox4j.CodeRunner#createContext}). With
 * {@link Feature#CODE_EXECUTION} and {@link Feature#CODE_CONTEXTS} each test runs for python and javascript, those
 * of them the sandbox runs; a backend with scripted contexts (no {@link Feature#CODE_EXECUTION}) has none on a fresh
 * sandbox.
 */
public interface CodeContextContract extends ConformanceSupport {

    /** Per language: set a variable, read it back as the last expression, and the other snippets the tests use. */
    Map<Language, ContextSnippets> CONTEXT_SNIPPETS = Map.of(
            Language.PYTHON, new ContextSnippets("x = 41", "x + 1", "import json", "json.dumps([1])", "'[1]'",
                    "import os\nos.makedirs('sub', exist_ok=True)\nos.chdir('sub')", "os.getcwd()",
                    "'/workspace/sub'", "print('hi')\n6 * 7", "1 / 0", "ZeroDivisionError", "while True: pass",
                    "import os\nos._exit(3)", "import os\nos.getpid()", "print('a' * 100000)", "x"),
            Language.JAVASCRIPT, new ContextSnippets("var x = 41", "x + 1", "const path = require('path')",
                    "path.basename('/a/b')", "'b'",
                    "require('fs').mkdirSync('sub', {recursive: true}); process.chdir('sub')", "process.cwd()",
                    "'/workspace/sub'", "console.log('hi'); 6 * 7", "null.x", "TypeError", "for (;;) {}",
                    "process.exit(3)", "process.pid", "console.log('a'.repeat(100000))", "x"));

    /** Code for one language; {@code readX} evaluates the variable {@code x}. */
    record ContextSnippets(String setX, String xPlusOne, String importModule, String useModule, String moduleValue,
                           String changeDir, String currentDir, String dirValue, String printThenValue,
                           String runtimeError, String errorName, String endless, String exitInterpreter,
                           String pid, String printLots, String readX) {
    }

    private static List<Language> contextLanguages(Sandbox sandbox) {
        List<Language> out = new ArrayList<>();
        for (Language l : List.of(Language.PYTHON, Language.JAVASCRIPT)) {
            if (sandbox.code().languages().contains(l)) {
                out.add(l);
            }
        }
        assumeFalse(out.isEmpty(), "neither python nor node in this sandbox");
        return out;
    }

    private static CodeResult completed(CodeContext c, String code) {
        CodeResult r = c.run(code);
        assertThat(r.status()).as("%s `%s`: %s %s", c.language(), code, r.stderr(), r.exec().detail())
                .isEqualTo(CodeResult.Status.COMPLETED);
        return r;
    }

    @Test
    @Requires({Feature.CODE_EXECUTION, Feature.CODE_CONTEXTS})
    default void context_variablesImportsAndCwd_areKeptAcrossRuns(Sandbox sandbox) {
        for (Language language : contextLanguages(sandbox)) {
            ContextSnippets s = CONTEXT_SNIPPETS.get(language);
            try (CodeContext c = sandbox.code().createContext(language)) {
                assertThat(c.language()).isEqualTo(language);
                assertThat(c.id()).isNotBlank();
                assertThat(c.isOpen()).isTrue();
                completed(c, s.setX());
                assertThat(completed(c, s.xPlusOne()).text()).as(language.id()).isEqualTo("42");
                completed(c, s.importModule());
                assertThat(completed(c, s.useModule()).text()).as(language.id()).isEqualTo(s.moduleValue());
                completed(c, s.changeDir());
                assertThat(completed(c, s.currentDir()).text()).as(language.id())
                        .isEqualTo(s.dirValue().replace("/workspace", fixture().workspaceRoot(sandbox)));
            }
        }
    }

    /** The lifecycle on every backend with contexts, scripted ones included ({@link SandboxFixture#openWithContexts}). */
    @Test
    @Requires(Feature.CODE_CONTEXTS)
    default void contextLifecycle_stateIndependenceLookupCloseAndSandboxClose() {
        Sandbox sandbox = fixture().openWithContexts(dev.sandbox4j.SandboxSpec.defaults());
        try {
            CodeContext a;
            try {
                a = sandbox.code().createContext(Language.PYTHON);
            } catch (dev.sandbox4j.SandboxException e) {
                assumeTrue(e.kind() != ErrorKind.UNSUPPORTED_LANGUAGE, "no python contexts here: " + e.getMessage());
                throw e;
            }
            CodeContext b = sandbox.code().createContext("py");
            assertThat(a.id()).isNotEqualTo(b.id());
            assertThat(a.language()).isEqualTo(Language.PYTHON);
            assertThat(sandbox.code().contexts()).containsExactly(a, b);
            assertThat(sandbox.code().context(b.id())).containsSame(b);
            assertThat(sandbox.code().context("no-such-context")).isEmpty();

            completed(a, "x = 41");
            assertThat(completed(a, "x + 1").text()).as("state kept").isEqualTo("42");
            CodeResult inB = b.run("x");
            assertThat(inB.status()).as("x is not set in another context").isEqualTo(CodeResult.Status.ERROR_RUNTIME);
            assertThat(inB.stderr()).contains("NameError");
            completed(b, "x = 7");
            assertThat(completed(a, "x").text()).isEqualTo("41");
            assertThat(completed(b, "x").text()).isEqualTo("7");

            a.close();
            a.close();
            assertThat(a.isOpen()).isFalse();
            expectError(ErrorKind.CLOSED, () -> a.run("x"));
            assertThat(sandbox.code().contexts()).containsExactly(b);
            assertThat(b.isOpen()).isTrue();

            sandbox.close();
            assertThat(b.isOpen()).isFalse();
            expectError(ErrorKind.CLOSED, () -> b.run("x"));
            b.close();
        } finally {
            sandbox.close();
        }
    }

    @Test
    @Requires({Feature.CODE_EXECUTION, Feature.CODE_CONTEXTS})
    default void context_lastExpression_isTextApartFromStdout(Sandbox sandbox) {
        for (Language language : contextLanguages(sandbox)) {
            try (CodeContext c = sandbox.code().createContext(language)) {
                CodeResult r = completed(c, CONTEXT_SNIPPETS.get(language).printThenValue());
                assertThat(r.stdout()).as(language.id()).isEqualTo("hi\n");
                assertThat(r.text()).as(language.id()).isEqualTo("42");
                assertThat(r.exitCode()).isZero();
                assertThat(r.language()).isEqualTo(language);
                assertThat(completed(c, CONTEXT_SNIPPETS.get(language).setX()).text()).as("a statement has no value")
                        .isEmpty();
            }
        }
    }

    @Test
    @Requires({Feature.CODE_EXECUTION, Feature.CODE_CONTEXTS})
    default void context_runtimeError_isResultAndKeepsState(Sandbox sandbox) {
        for (Language language : contextLanguages(sandbox)) {
            ContextSnippets s = CONTEXT_SNIPPETS.get(language);
            try (CodeContext c = sandbox.code().createContext(language)) {
                completed(c, s.setX());
                CodeResult r = c.run(s.runtimeError());
                assertThat(r.status()).as(language.id()).isEqualTo(CodeResult.Status.ERROR_RUNTIME);
                assertThat(r.stderr()).as(language.id()).contains(s.errorName());
                assertThat(r.exitCode()).isNotZero();
                assertThat(completed(c, s.readX()).text()).as(language.id()).isEqualTo("41");
            }
        }
    }

    @Test
    @Requires({Feature.CODE_EXECUTION, Feature.CODE_CONTEXTS})
    default void context_timeout_interruptsRunAndKeepsState(Sandbox sandbox) {
        for (Language language : contextLanguages(sandbox)) {
            ContextSnippets s = CONTEXT_SNIPPETS.get(language);
            try (CodeContext c = sandbox.code().createContext(language)) {
                completed(c, s.setX());
                long start = System.nanoTime();
                CodeResult r = c.run(s.endless(), Duration.ofSeconds(1));
                assertThat(Duration.ofNanos(System.nanoTime() - start)).as(language.id())
                        .isLessThan(Duration.ofSeconds(10));
                assertThat(r.status()).as(language.id()).isEqualTo(CodeResult.Status.TIMEOUT);
                assertThat(r.exec().status()).isEqualTo(ExecStatus.TIMEOUT);
                assertThat(r.exec().detail()).as(language.id()).contains("timed out after 1000 ms")
                        .contains("kept its state");
                assertThat(completed(c, s.readX()).text()).as(language.id()).isEqualTo("41");
            }
        }
    }

    @Test
    @Requires({Feature.CODE_EXECUTION, Feature.CODE_CONTEXTS})
    default void context_timeoutNotInterruptible_restartsAndSaysSo(Sandbox sandbox) {
        assumeTrue(sandbox.code().languages().contains(Language.PYTHON), "no python in this sandbox");
        try (CodeContext c = sandbox.code().createContext(Language.PYTHON)) {
            completed(c, "x = 41");
            CodeResult r = c.run("import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(60)",
                    Duration.ofSeconds(1));
            assertThat(r.status()).isEqualTo(CodeResult.Status.TIMEOUT);
            assertThat(r.exec().detail()).contains("timed out after 1000 ms").contains("restarted")
                    .contains("state is lost");
            CodeResult after = c.run("x");
            assertThat(after.status()).as("the restarted context is empty").isEqualTo(CodeResult.Status.ERROR_RUNTIME);
            assertThat(after.stderr()).contains("NameError");
            assertThat(completed(c, "1 + 1").text()).isEqualTo("2");
        }
    }

    @Test
    @Requires({Feature.CODE_EXECUTION, Feature.CODE_CONTEXTS})
    default void context_interpreterExits_isRestartedAndSaysSo(Sandbox sandbox) {
        for (Language language : contextLanguages(sandbox)) {
            ContextSnippets s = CONTEXT_SNIPPETS.get(language);
            try (CodeContext c = sandbox.code().createContext(language)) {
                completed(c, s.setX());
                CodeResult r = c.run(s.exitInterpreter());
                assertThat(r.status()).as(language.id()).isEqualTo(CodeResult.Status.ERROR_RUNTIME);
                assertThat(r.exec().detail()).as(language.id()).contains("exited").contains("restarted");
                CodeResult after = c.run(s.readX());
                assertThat(after.status()).as("%s: the restarted context is empty", language)
                        .isEqualTo(CodeResult.Status.ERROR_RUNTIME);
                assertThat(completed(c, s.setX()).status()).isEqualTo(CodeResult.Status.COMPLETED);
            }
        }
    }

    @Test
    @Requires({Feature.CODE_EXECUTION, Feature.CODE_CONTEXTS})
    default void context_twoContexts_areIndependent(Sandbox sandbox) {
        for (Language language : contextLanguages(sandbox)) {
            ContextSnippets s = CONTEXT_SNIPPETS.get(language);
            try (CodeContext a = sandbox.code().createContext(language);
                 CodeContext b = sandbox.code().createContext(language)) {
                assertThat(a.id()).isNotEqualTo(b.id());
                completed(a, s.setX());
                CodeResult inB = b.run(s.readX());
                assertThat(inB.status()).as("%s: x set in another context", language)
                        .isEqualTo(CodeResult.Status.ERROR_RUNTIME);
                completed(b, s.setX().replace("41", "7"));
                assertThat(completed(a, s.readX()).text()).isEqualTo("41");
                assertThat(completed(b, s.readX()).text()).isEqualTo("7");
            }
        }
    }

    @Test
    @Requires({Feature.CODE_EXECUTION, Feature.CODE_CONTEXTS})
    default void context_output_isCappedHeadAndTail(Sandbox sandbox) {
        for (Language language : contextLanguages(sandbox)) {
            try (CodeContext c = sandbox.code().createContext(language)) {
                CodeResult r = c.run(CodeRequest.of(language, CONTEXT_SNIPPETS.get(language).printLots())
                        .withOutputLimit(1000));
                assertThat(r.status()).as(language.id()).isEqualTo(CodeResult.Status.COMPLETED);
                assertThat(r.exec().stdoutTruncation().totalBytes()).as(language.id()).isEqualTo(100_001);
                assertThat(r.exec().stdoutTruncation().truncated()).isTrue();
                assertThat(r.stdout().length()).isLessThan(2200);
                assertThat(r.stdout()).startsWith("aaaa").endsWith("aaa\n").contains("characters truncated");
            }
        }
    }

    @Test
    @Requires({Feature.CODE_EXECUTION, Feature.CODE_CONTEXTS})
    default void context_outputLookingLikeFrames_isPlainOutput(Sandbox sandbox) {
        assumeTrue(sandbox.code().languages().contains(Language.PYTHON), "no python in this sandbox");
        try (CodeContext c = sandbox.code().createContext(Language.PYTHON)) {
            // what the driver's own frames look like, printed by the code, at both levels
            CodeResult r = completed(c, "import os, sys\nprint('R Y29tcGxldGVk')\n"
                    + "sys.stdout.write('READY 1\\nT QQ==\\n')\n"
                    + "os.write(1, b'R ZXJyb3I=\\n')\nos.write(2, b'P AAAA\\n')\nx = 5\nx");
            assertThat(r.stdout()).isEqualTo("R Y29tcGxldGVk\nREADY 1\nT QQ==\n");
            assertThat(r.stderr()).contains("R ZXJyb3I=").contains("P AAAA");
            assertThat(r.text()).isEqualTo("5");
            assertThat(r.png()).isNull();
            assertThat(completed(c, "x + 1").text()).isEqualTo("6");
        }
    }

    @Test
    @Requires({Feature.CODE_EXECUTION, Feature.CODE_CONTEXTS})
    default void context_rawWritesJustBeforeTheEnd_belongToTheirRun(Sandbox sandbox) {
        assumeTrue(sandbox.code().languages().contains(Language.PYTHON), "no python in this sandbox");
        try (CodeContext c = sandbox.code().createContext(Language.PYTHON)) {
            completed(c, "import os");
            // the raw descriptors and the driver's status travel on two pipes: the status must not overtake them
            for (int i = 0; i < 40; i++) {
                CodeResult r = completed(c, "os.write(2, b'err" + i + "\\n'); os.write(1, b'out" + i + "\\n')");
                assertThat(r.stderr()).as("run %d", i).isEqualTo("err" + i + "\nout" + i + "\n");
            }
        }
    }

    @Test
    @Requires({Feature.CODE_EXECUTION, Feature.CODE_CONTEXTS})
    default void context_garbageOnTheFrameChannel_restartsContextBounded(Sandbox sandbox) {
        assumeTrue(sandbox.code().languages().contains(Language.PYTHON), "no python in this sandbox");
        try (CodeContext c = sandbox.code().createContext(Language.PYTHON)) {
            // code that finds the driver's channel (fd 3) and floods it: one endless line, then a forged frame
            for (String code : List.of("import os\nx = 1\nos.write(3, b'O ' + b'A' * (8 << 20))\nimport time\n"
                    + "time.sleep(30)", "import os\nos.write(3, b'R \\xff\\xfe not base64\\n')\nimport time\n"
                    + "time.sleep(30)", "import os\nos.write(3, b'Z QQ==\\n')\nimport time\ntime.sleep(30)")) {
                long start = System.nanoTime();
                CodeResult r = c.run(code, Duration.ofSeconds(20));
                assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the host did not wait for the run")
                        .isLessThan(Duration.ofSeconds(15));
                assertThat(r.status()).as(code).isEqualTo(CodeResult.Status.ERROR_RUNTIME);
                assertThat(r.exec().detail()).as(code).contains("frame").contains("restarted");
                assertThat(r.stdout().length()).isLessThan(100);
                CodeResult after = c.run("x");
                assertThat(after.stderr()).as("the restarted context is empty").contains("NameError");
                completed(c, "x = 1");
            }
        }
    }

    @Test
    @Requires({Feature.CODE_EXECUTION, Feature.CODE_CONTEXTS})
    default void context_javascriptPromiseNeverSettling_timesOutAndKeepsState(Sandbox sandbox) {
        assumeTrue(sandbox.code().languages().contains(Language.JAVASCRIPT), "no node in this sandbox");
        try (CodeContext c = sandbox.code().createContext(Language.JAVASCRIPT)) {
            completed(c, "var x = 41");
            CodeResult r = c.run("new Promise(() => {})", Duration.ofSeconds(1));
            assertThat(r.status()).isEqualTo(CodeResult.Status.TIMEOUT);
            assertThat(r.exec().detail()).contains("kept its state");
            assertThat(completed(c, "Promise.resolve(x + 1)").text()).as("an awaited value").isEqualTo("42");
        }
    }

    @Test
    @Requires({Feature.CODE_EXECUTION, Feature.CODE_CONTEXTS})
    default void context_matplotlibFigure_isPngWhenImportable(Sandbox sandbox) {
        assumeTrue(sandbox.code().languages().contains(Language.PYTHON), "no python in this sandbox");
        try (CodeContext c = sandbox.code().createContext(Language.PYTHON)) {
            String has = completed(c, "import importlib.util\n"
                    + "importlib.util.find_spec('matplotlib') is not None").text();
            CodeResult r = completed(c, "try:\n    import matplotlib.pyplot as plt\n    plt.plot([1, 2, 3])\n"
                    + "except ImportError:\n    pass\n");
            if (has.equals("True")) {
                assertThat(r.png()).as("a figure was made").isNotNull();
                assertThat(r.png()).startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
                assertThat(completed(c, "1").png()).as("the figure was closed after it was returned").isNull();
            } else {
                assertThat(has).isEqualTo("False");
                assertThat(r.png()).as("no matplotlib, no figure").isNull();
            }
        }
    }

    @Test
    @Requires({Feature.CODE_EXECUTION, Feature.CODE_CONTEXTS, Feature.SHARED_PROCESS_SPACE})
    default void context_close_endsInterpreterAndLaterRunsFailClosed(Sandbox sandbox) throws Exception {
        for (Language language : contextLanguages(sandbox)) {
            CodeContext c = sandbox.code().createContext(language);
            String pid = completed(c, CONTEXT_SNIPPETS.get(language).pid()).text();
            assertThat(pid).as(language.id()).matches("[0-9]+");
            assertThat(sandbox.shell().run("kill -0 " + pid).exitCode()).as("the interpreter runs").isZero();
            assertThat(sandbox.code().context(c.id())).containsSame(c);
            assertThat(sandbox.code().contexts()).contains(c);
            c.close();
            assertThat(sandbox.code().context(c.id())).isEmpty();
            assertThat(sandbox.code().contexts()).doesNotContain(c);
            c.close();
            assertThat(c.isOpen()).isFalse();
            expectError(ErrorKind.CLOSED, () -> c.run("1"));
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            int alive = 0;
            while (System.nanoTime() < deadline
                    && (alive = sandbox.shell().run("kill -0 " + pid + " 2>/dev/null").exitCode()) == 0) {
                Thread.sleep(50);
            }
            assertThat(alive).as("%s: the interpreter %s is gone", language, pid).isNotZero();
        }
    }

    @Test
    @Requires({Feature.CODE_EXECUTION, Feature.CODE_CONTEXTS})
    default void context_sandboxClose_closesContexts(Sandbox sandbox) {
        List<CodeContext> made = new ArrayList<>();
        for (Language language : contextLanguages(sandbox)) {
            CodeContext c = sandbox.code().createContext(language);
            completed(c, CONTEXT_SNIPPETS.get(language).setX());
            made.add(c);
        }
        sandbox.close();
        for (CodeContext c : made) {
            assertThat(c.isOpen()).isFalse();
            expectError(ErrorKind.CLOSED, () -> c.run("1"));
            c.close();
        }
        // the kit's leak check after this test finds no interpreter left on the host
    }

    @Test
    @Requires({Feature.CODE_EXECUTION, Feature.CODE_CONTEXTS})
    default void createContext_bash_failsUnsupportedLanguage(Sandbox sandbox) {
        expectError(ErrorKind.UNSUPPORTED_LANGUAGE, () -> sandbox.code().createContext(Language.BASH));
    }

    @Test
    @Requires(value = Feature.CODE_CONTEXTS, absent = Feature.CODE_EXECUTION)
    default void createContext_scriptedBackendFresh_failsUnsupportedLanguage(Sandbox sandbox) {
        for (Language language : Language.values()) {
            expectError(ErrorKind.UNSUPPORTED_LANGUAGE, () -> sandbox.code().createContext(language));
        }
    }

    @Test
    @Requires(absent = Feature.CODE_CONTEXTS)
    default void createContext_withoutFeature_failsUnsupported(Sandbox sandbox) {
        expectError(ErrorKind.UNSUPPORTED, () -> sandbox.code().createContext(Language.PYTHON));
    }
}
