package dev.sandbox4j.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.CodeResult;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Language;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.spi.SandboxProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The scripting side of the in-memory backend, as a user's unit test sees it. */
class MemorySandboxTest {
    private final MemorySandbox sandbox = MemorySandbox.open();

    @AfterEach
    void close() {
        sandbox.close();
    }

    @Test
    void onCommand_exactMatch_returnsScriptedResult() {
        sandbox.onCommand("pytest -q", ExecResult.of(0, "3 passed\n", ""));

        ExecResult result = sandbox.shell().run("pytest -q");

        assertThat(result.isSuccess()).isTrue();
        assertThat(result.stdout()).isEqualTo("3 passed\n");
    }

    @Test
    void onCommandMatching_firstMatchingHandlerWins() {
        sandbox.onCommandMatching("git .*", r -> ExecResult.of(0, "git ok\n", ""))
                .onCommandMatching("git status", r -> ExecResult.of(0, "never\n", ""));

        assertThat(sandbox.shell().run("git status").stdout()).isEqualTo("git ok\n");
    }

    @Test
    void handler_throwing_propagatesTypedError() {
        sandbox.onCommand("deploy", r -> {
            throw new SandboxException(ErrorKind.PERMISSION_DENIED, "not in tests");
        });

        assertThatThrownBy(() -> sandbox.shell().run("deploy"))
                .isInstanceOfSatisfying(SandboxException.class,
                        e -> assertThat(e.kind()).isEqualTo(ErrorKind.PERMISSION_DENIED));
    }

    @Test
    void unknownCommand_exits127_commandNotFound() {
        ExecResult result = sandbox.shell().run("rm -rf build");

        assertThat(result.exitCode()).isEqualTo(127);
        assertThat(result.stderr()).contains("rm: command not found");
    }

    @Test
    void shellSyntax_isNotInterpreted_exits127() {
        ExecResult result = sandbox.shell().run("echo hi > out.txt");

        assertThat(result.exitCode()).isEqualTo(127);
        assertThat(sandbox.files().exists("out.txt")).isFalse();
    }

    @Test
    void builtins_workOverTheWorkspace() {
        sandbox.files().write("src/a.txt", "alpha\n");
        sandbox.files().write("src/b.txt", "beta\n");

        assertThat(sandbox.shell().run("echo 'hello  world'").stdout()).isEqualTo("hello  world\n");
        assertThat(sandbox.shell().run("cat src/a.txt src/b.txt").stdout()).isEqualTo("alpha\nbeta\n");
        assertThat(sandbox.shell().run("ls src").stdout()).isEqualTo("a.txt\nb.txt\n");
        assertThat(sandbox.shell().run(ExecRequest.shell("pwd").withCwd("src")).stdout())
                .isEqualTo("/workspace/src\n");
        assertThat(sandbox.shell().run("cat missing").exitCode()).isEqualTo(1);
        assertThat(sandbox.shell().run(ExecRequest.shell("cat").withStdin("piped")).stdout()).isEqualTo("piped");
        assertThat(sandbox.shell().run("false").exitCode()).isEqualTo(1);
    }

    @Test
    void calls_areRecordedInOrder() {
        sandbox.onCommand("make", ExecResult.of(0, "", ""));

        sandbox.shell().run("make");
        sandbox.shell().run(ExecRequest.argv("ls", "-la"));

        assertThat(sandbox.commands()).extracting(ExecRequest::displayCommand).containsExactly("make", "ls -la");
    }

    @Test
    void scriptedOutput_isCappedLikeARealBackend() {
        sandbox.onCommand("flood", ExecResult.of(0, "x".repeat(100_000), ""));

        ExecResult result = sandbox.shell().run(ExecRequest.shell("flood").withOutputLimit(10));

        assertThat(result.stdoutTruncation().omittedChars()).isEqualTo(100_000 - 20);
        assertThat(result.stdout()).startsWith("x".repeat(10)).endsWith("x".repeat(10)).contains("truncated");
    }

    @Test
    void code_scriptedPerLanguage_statusDerivedFromExit() {
        sandbox.onCode(Language.PYTHON, r -> r.code().contains("raise")
                ? ExecResult.of(1, "", "Traceback...\n") : ExecResult.of(0, "42\n", ""));

        assertThat(sandbox.code().languages()).containsExactly(Language.PYTHON);
        assertThat(sandbox.code().run(Language.PYTHON, "print(6*7)").status()).isEqualTo(CodeResult.Status.COMPLETED);
        assertThat(sandbox.code().run("py", "raise X").status()).isEqualTo(CodeResult.Status.ERROR_RUNTIME);
        assertThat(sandbox.codeRuns()).hasSize(2);
        assertThatThrownBy(() -> sandbox.code().run(Language.JAVASCRIPT, "1"))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.UNSUPPORTED_LANGUAGE);
                    assertThat(e.getMessage()).contains("python");
                });
    }

    @Test
    void sandboxes_opensMemoryByName_butNeverPicksItAutomatically() {
        assertThat(Sandboxes.providers()).extracting(SandboxProvider::name).contains("memory");
        try (Sandbox byName = Sandboxes.open("memory", SandboxSpec.defaults())) {
            assertThat(byName.info().backend()).isEqualTo("memory");
        }
        SandboxProvider memory = Sandboxes.providers().stream().filter(p -> p.name().equals("memory"))
                .findFirst().orElseThrow();
        assertThat(memory.priority()).isNegative();
        assertThat(memory.unavailableReason()).isEmpty();
    }

    @Test
    void sandboxes_unknownProvider_backendUnavailable() {
        assertThatThrownBy(() -> Sandboxes.open("nope"))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.BACKEND_UNAVAILABLE);
                    assertThat(e.getMessage()).contains("memory");
                });
    }

    @org.junit.jupiter.api.Test
    void lease_isRefusedAndNothingHasACredential() {
        var provider = new MemorySandboxProvider();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> provider.open(dev.sandbox4j.SandboxSpec.builder()
                .lease(java.time.Duration.ofMinutes(1)).build()))
                .isInstanceOfSatisfying(dev.sandbox4j.SandboxException.class, e -> org.assertj.core.api.Assertions
                        .assertThat(e.kind()).isEqualTo(dev.sandbox4j.ErrorKind.UNSUPPORTED));
        try (var s = provider.open(dev.sandbox4j.SandboxSpec.defaults())) {
            org.assertj.core.api.Assertions.assertThatThrownBy(s::detach)
                    .isInstanceOfSatisfying(dev.sandbox4j.SandboxException.class, e -> org.assertj.core.api.Assertions
                            .assertThat(e.kind()).isEqualTo(dev.sandbox4j.ErrorKind.UNSUPPORTED));
        }
    }
}
