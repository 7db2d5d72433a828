package dev.sandbox4j.testing;

import static dev.sandbox4j.testing.Checks.expectError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sandbox4j.CodeRequest;
import dev.sandbox4j.CodeResult;
import dev.sandbox4j.CodeRunner;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Feature;
import dev.sandbox4j.Language;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The conformance contract for {@link CodeRunner}. With {@link Feature#CODE_EXECUTION} each test runs once for every
 * language {@link CodeRunner#languages()} reports; without it, a fresh sandbox runs no language at all.
 */
public interface CodeRunnerContract extends ConformanceSupport {

    /** Snippets per language: hello, runtime error, endless loop, echo of stdin, a statement to pad 1 MB of code. */
    Map<Language, Snippets> SNIPPETS = Map.of(
            Language.PYTHON, new Snippets("print('hello')", "raise ValueError('boom')", "while True: pass",
                    "import sys\nprint(sys.stdin.read().upper(), end='')", "# %s\n", "def broken(:\n"),
            Language.JAVASCRIPT, new Snippets("console.log('hello')", "throw new Error('boom')", "for(;;){}",
                    "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.stdout.write(s.toUpperCase()))",
                    "// %s\n", "function (\n"),
            Language.BASH, new Snippets("echo hello", "echo boom >&2; exit 3", "while :; do :; done",
                    "tr a-z A-Z", "# %s\n", "if then fi\n"));

    /** Code for one language. {@code commentLine} is a format with one %s making a comment line. */
    record Snippets(String hello, String runtimeError, String endless, String upperStdin, String commentLine,
                    String syntaxError) {
    }

    private static Set<Language> languagesOf(Sandbox sandbox) {
        Set<Language> languages = sandbox.code().languages();
        assumeFalse(languages.isEmpty(), "no language runtime in this sandbox");
        return languages;
    }

    @Test
    @Requires(Feature.CODE_EXECUTION)
    default void languages_withCodeExecution_isNotEmpty(Sandbox sandbox) {
        assertThat(sandbox.code().languages()).as("a backend declaring CODE_EXECUTION runs at least one language")
                .isNotEmpty();
    }

    @Test
    @Requires(Feature.CODE_EXECUTION)
    default void codeRun_helloWorld_completes(Sandbox sandbox) {
        for (Language language : languagesOf(sandbox)) {
            CodeResult r = sandbox.code().run(language, SNIPPETS.get(language).hello());
            assertThat(r.status()).as("%s: %s", language, r.stderr()).isEqualTo(CodeResult.Status.COMPLETED);
            assertThat(r.isSuccess()).isTrue();
            assertThat(r.language()).isEqualTo(language);
            assertThat(r.exitCode()).isZero();
            assertThat(r.stdout()).as(language.id()).isEqualTo("hello\n");
        }
    }

    @Test
    @Requires(Feature.CODE_EXECUTION)
    default void codeRun_byAlias_picksLanguage(Sandbox sandbox) {
        for (Language language : languagesOf(sandbox)) {
            String alias = language.names().get(language.names().size() - 1).toUpperCase();
            CodeResult r = sandbox.code().run(alias, SNIPPETS.get(language).hello());
            assertThat(r.language()).isEqualTo(language);
            assertThat(r.stdout()).as(alias).isEqualTo("hello\n");
        }
    }

    @Test
    @Requires(Feature.CODE_EXECUTION)
    default void codeRun_runtimeError_isErrorRuntimeWithNonZeroExit(Sandbox sandbox) {
        for (Language language : languagesOf(sandbox)) {
            CodeResult r = sandbox.code().run(language, SNIPPETS.get(language).runtimeError());
            assertThat(r.status()).as(language.id()).isEqualTo(CodeResult.Status.ERROR_RUNTIME);
            assertThat(r.exitCode()).as(language.id()).isNotZero();
            assertThat(r.stderr()).as("%s: the error is on stderr", language).contains("boom");
            CodeResult syntax = sandbox.code().run(language, SNIPPETS.get(language).syntaxError());
            assertThat(syntax.status()).as("%s: a syntax error is a runtime error", language)
                    .isEqualTo(CodeResult.Status.ERROR_RUNTIME);
        }
    }

    @Test
    @Requires(Feature.CODE_EXECUTION)
    default void codeRun_endlessLoop_timesOut(Sandbox sandbox) {
        Duration timeout = Duration.ofSeconds(1);
        for (Language language : languagesOf(sandbox)) {
            long start = System.nanoTime();
            CodeResult r = sandbox.code().run(
                    CodeRequest.of(language, SNIPPETS.get(language).endless()).withTimeout(timeout));
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(r.status()).as(language.id()).isEqualTo(CodeResult.Status.TIMEOUT);
            assertThat(took).as("%s returned within timeout + 2 s", language)
                    .isLessThan(timeout.plus(ShellContract.TIMEOUT_SLACK));
        }
    }

    @Test
    @Requires(Feature.CODE_EXECUTION)
    default void codeRunWithTimeout_endlessLoop_timesOutByName(Sandbox sandbox) {
        Duration timeout = Duration.ofSeconds(1);
        for (Language language : languagesOf(sandbox)) {
            long start = System.nanoTime();
            CodeResult r = sandbox.code().run(language.id(), SNIPPETS.get(language).endless(), timeout);
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(r.status()).as(language.id()).isEqualTo(CodeResult.Status.TIMEOUT);
            assertThat(took).as("%s returned within timeout + 2 s", language)
                    .isLessThan(timeout.plus(ShellContract.TIMEOUT_SLACK));
        }
    }

    @Test
    @Requires(Feature.CODE_EXECUTION)
    default void codeRunWithTimeout_quickCode_completes(Sandbox sandbox) {
        for (Language language : languagesOf(sandbox)) {
            CodeResult r = sandbox.code().run(language.id(), SNIPPETS.get(language).hello(), Duration.ofSeconds(30));
            assertThat(r.status()).as(language.id()).isEqualTo(CodeResult.Status.COMPLETED);
        }
    }

    @Test
    default void codeRunWithTimeout_notPositive_isRefused(Sandbox sandbox) {
        assertThatThrownBy(() -> sandbox.code().run("python", "print(1)", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be positive");
    }

    @Test
    @Requires(Feature.CODE_EXECUTION)
    default void codeRun_withStdin_programReadsIt(Sandbox sandbox) {
        for (Language language : languagesOf(sandbox)) {
            CodeResult r = sandbox.code().run(
                    CodeRequest.of(language, SNIPPETS.get(language).upperStdin()).withStdin("abc\ndef\n"));
            assertThat(r.status()).as("%s: %s", language, r.stderr()).isEqualTo(CodeResult.Status.COMPLETED);
            assertThat(r.stdout()).as(language.id()).isEqualTo("ABC\nDEF\n");
        }
    }

    @Test
    @Requires(Feature.CODE_EXECUTION)
    default void codeRun_oneMegabyteOfCode_runs(Sandbox sandbox) {
        for (Language language : languagesOf(sandbox)) {
            Snippets s = SNIPPETS.get(language);
            StringBuilder code = new StringBuilder(1_100_000);
            String comment = String.format(s.commentLine(), "x".repeat(100));
            while (code.length() < 1_000_000) {
                code.append(comment);
            }
            code.append(s.hello()).append('\n');
            CodeResult r = sandbox.code().run(language, code.toString());
            assertThat(r.status()).as("%s: code never goes through argv: %s", language, r.stderr())
                    .isEqualTo(CodeResult.Status.COMPLETED);
            assertThat(r.stdout()).isEqualTo("hello\n");
        }
    }

    @Test
    @Requires(Feature.CODE_EXECUTION)
    default void codeRun_outputOverLimit_isTruncated(Sandbox sandbox) {
        Language language = languagesOf(sandbox).iterator().next();
        String code = Map.of(Language.PYTHON, "print('y' * 100000)",
                Language.JAVASCRIPT, "console.log('y'.repeat(100000))",
                Language.BASH, "head -c 100000 /dev/zero | tr '\\0' y; echo").get(language);
        CodeResult r = sandbox.code().run(CodeRequest.of(language, code).withOutputLimit(50));
        assertThat(r.exec().stdoutTruncation().truncated()).isTrue();
        assertThat(r.stdout().length()).isLessThan(200);
    }

    @Test
    default void codeRun_languageNotAvailable_failsUnsupportedLanguageListingAvailable(Sandbox sandbox) {
        CodeRunner code = sandbox.code();
        Set<Language> available = code.languages();
        EnumSet<Language> missing = EnumSet.allOf(Language.class);
        missing.removeAll(available);
        assumeTrue(!missing.isEmpty(), "every language is available");
        for (Language language : missing) {
            SandboxException e = expectError(ErrorKind.UNSUPPORTED_LANGUAGE, () -> code.run(language, "x"));
            assertThat(e.getMessage()).as("the message names the language").containsIgnoringCase(language.id());
            for (Language ok : available) {
                assertThat(e.getMessage()).as("the message lists what is available").contains(ok.id());
            }
        }
    }

    @Test
    default void codeRun_unknownLanguageName_failsUnsupportedLanguage(Sandbox sandbox) {
        SandboxException e = expectError(ErrorKind.UNSUPPORTED_LANGUAGE, () -> Language.of("cobol"));
        assertThat(e.getMessage()).contains("cobol").contains("python");
        expectError(ErrorKind.UNSUPPORTED_LANGUAGE, () -> sandbox.code().run("cobol", "DISPLAY 'HI'."));
        expectError(ErrorKind.UNSUPPORTED_LANGUAGE, () -> sandbox.code().run("", "x"));
    }

    /** Without real interpreters a fresh sandbox runs nothing: code results are scripted by the user. */
    @Test
    @Requires(absent = Feature.CODE_EXECUTION)
    default void codeRun_withoutCodeExecution_noLanguageRuns(Sandbox sandbox) {
        assertThat(sandbox.code().languages()).isEmpty();
        for (Language language : Language.values()) {
            expectError(ErrorKind.UNSUPPORTED_LANGUAGE, () -> sandbox.code().run(language, "print(1)"));
        }
        assertThat(sandbox.files().list("")).as("nothing was written").isEmpty();
    }

    @Test
    default void codeRun_closedSandbox_failsClosed(Sandbox sandbox) {
        CodeRunner code = sandbox.code();
        sandbox.close();
        for (Language language : List.of(Language.values())) {
            expectError(ErrorKind.CLOSED, () -> code.run(language, "x"));
        }
        expectError(ErrorKind.CLOSED, () -> sandbox.code().run(Language.PYTHON, "x"));
    }
}
