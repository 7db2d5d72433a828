package dev.sandbox4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ErrorModelTest {
    @Test
    void everyKind_hasAUniqueLowerCaseWireCode_thatRoundTrips() {
        assertThat(Arrays.stream(ErrorKind.values()).map(ErrorKind::code).collect(Collectors.toSet()))
                .hasSize(ErrorKind.values().length)
                .allMatch(code -> code.matches("[a-z_]+"));
        for (ErrorKind kind : ErrorKind.values()) {
            assertThat(ErrorKind.fromCode(kind.code())).isEqualTo(kind);
        }
        assertThat(ErrorKind.NOT_FOUND.code()).isEqualTo("not_found");
        assertThat(ErrorKind.BACKEND_UNAVAILABLE.code()).isEqualTo("backend_unavailable");
    }

    @Test
    void retryable_onlyForTransientKinds_overridablePerException() {
        assertThat(Arrays.stream(ErrorKind.values()).filter(ErrorKind::retryable))
                .containsExactlyInAnyOrder(ErrorKind.TIMEOUT, ErrorKind.BACKEND_UNAVAILABLE, ErrorKind.IO_ERROR,
                        ErrorKind.CONFLICT);
        assertThat(new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, "engine down").retryable()).isTrue();
        assertThat(SandboxException.permanent(ErrorKind.BACKEND_UNAVAILABLE, "no bwrap", null).retryable()).isFalse();
        assertThat(SandboxException.temporary(ErrorKind.INTERNAL, "flaky", null).retryable()).isTrue();
        assertThat(new SandboxException(ErrorKind.NOT_FOUND, "x").toString()).isEqualTo("SandboxException[not_found]: x");
    }

    @Test
    void sandboxes_withNoBackendOnTheClassPath_backendUnavailableSayingWhatToAdd() {
        assertThat(Sandboxes.providers()).isEmpty();
        assertThatThrownBy(Sandboxes::open).isInstanceOfSatisfying(SandboxException.class, e -> {
            assertThat(e.kind()).isEqualTo(ErrorKind.BACKEND_UNAVAILABLE);
            assertThat(e.getMessage()).contains("sandbox-local").contains("sandbox-docker");
        });
    }

    @Test
    void language_aliases_andUnknownNameListsKnownOnes() {
        assertThat(Language.of("Python3")).isEqualTo(Language.PYTHON);
        assertThat(Language.of("node")).isEqualTo(Language.JAVASCRIPT);
        assertThatThrownBy(() -> Language.of("cobol")).isInstanceOfSatisfying(SandboxException.class, e -> {
            assertThat(e.kind()).isEqualTo(ErrorKind.UNSUPPORTED_LANGUAGE);
            assertThat(e.getMessage()).contains("python", "javascript", "bash");
        });
    }

    @Test
    void codeResult_mapsExecOutcomesToAgentStatuses() {
        assertThat(CodeResult.of(Language.PYTHON, ExecResult.of(0, "", "")).status()).isEqualTo(CodeResult.Status.COMPLETED);
        assertThat(CodeResult.of(Language.PYTHON, ExecResult.of(1, "", "")).status())
                .isEqualTo(CodeResult.Status.ERROR_RUNTIME);
        ExecResult timedOut = ExecResult.of(ExecStatus.TIMEOUT, 137, "", "").withDuration(Duration.ofSeconds(1))
                .withDetail("timed out after 1 s");
        assertThat(CodeResult.of(Language.PYTHON, timedOut).status()).isEqualTo(CodeResult.Status.TIMEOUT);
        assertThat(CodeResult.Status.ERROR_SETUP.code()).isEqualTo("error_setup");
    }

    @Test
    void values_validateAndCopy() {
        assertThatThrownBy(() -> ExecRequest.shell("x").withTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be positive");
        assertThatThrownBy(() -> ExecRequest.shell("x").withEnv("BAD-NAME", "v"))
                .isInstanceOf(IllegalArgumentException.class);
        // No program can receive a NUL: refused when the request is built, the same on every backend.
        assertThatThrownBy(() -> ExecRequest.shell("echo a\0b")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NUL");
        assertThatThrownBy(() -> ExecRequest.argv("echo", "a\0b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ExecRequest.shell("x").withEnv("A", "a\0b"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SandboxSpec.builder().env("A", "a\0b"))
                .isInstanceOf(IllegalArgumentException.class);
        byte[] stdin = {1, 2, 3};
        ExecRequest r = ExecRequest.shell("cat").withStdin(stdin);
        stdin[0] = 9;
        assertThat(r.stdin()).containsExactly(1, 2, 3);
        assertThat(ExecRequest.argv("ls", "-la").argv()).containsExactly("ls", "-la");
        assertThat(ExecRequest.shell("echo hi").argv()).containsExactly("/bin/sh", "-c", "echo hi");
        SandboxSpec spec = SandboxSpec.builder().file("a.txt", "x").env("A", "1").build();
        assertThat(spec.toBuilder().build().files()).containsKey("a.txt");
        assertThat(spec.env()).containsEntry("A", "1");
        assertThat(SandboxSpec.defaults().outputLimit()).isEqualTo(15_000);
    }

    @Test
    void nullEnvNamesAndValues_areIllegalArguments_likeEveryOtherInvalidVariable() {
        java.util.Map<String, String> nullValue = new java.util.HashMap<>();
        nullValue.put("X", null);
        java.util.Map<String, String> nullName = new java.util.HashMap<>();
        nullName.put(null, "x");
        java.util.List<org.assertj.core.api.ThrowableAssert.ThrowingCallable> calls = java.util.List.of(
                () -> ExecRequest.shell("true").withEnv("X", null),
                () -> ExecRequest.shell("true").withEnv(null, "x"),
                () -> ExecRequest.shell("true").withEnv(nullValue),
                () -> ExecRequest.shell("true").withEnv(nullName),
                () -> ExecRequest.shell("true").withEnv((java.util.Map<String, String>) null),
                () -> SandboxSpec.builder().env("X", null),
                () -> SandboxSpec.builder().env(null, "x"),
                () -> SandboxSpec.builder().env(nullValue),
                () -> SandboxSpec.builder().env(nullName),
                () -> SandboxSpec.builder().env((java.util.Map<String, String>) null));
        for (int i = 0; i < calls.size(); i++) {
            assertThatThrownBy(calls.get(i)).as("call %d", i).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("null");
        }
    }
}
