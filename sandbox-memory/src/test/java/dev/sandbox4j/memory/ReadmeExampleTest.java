package dev.sandbox4j.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import org.junit.jupiter.api.Test;

/** The README's tool example, minus the LangChain4j annotations: it must keep working as written. */
class ReadmeExampleTest {
    static class WorkspaceTools {
        private final Sandbox sandbox;

        WorkspaceTools(Sandbox sandbox) {
            this.sandbox = sandbox;
        }

        String runTests() {
            ExecResult r = sandbox.shell().run("pytest -q");
            return r.isSuccess() ? "tests pass: " + r.stdout()
                    : "tests fail (exit " + r.exitCode() + "):\n" + r.stdout();
        }

        String strReplace(String path, String oldStr, String newStr) {
            try {
                return sandbox.files().replace(path, oldStr, newStr).diff();
            } catch (SandboxException e) {
                return "error " + e.code() + ": " + e.getMessage();
            }
        }
    }

    MemorySandbox sandbox = MemorySandbox.open()
            .onCommand("pytest -q", ExecResult.of(1, "1 failed, 2 passed\n", ""));
    WorkspaceTools tools = new WorkspaceTools(sandbox);

    @Test
    void runTests_reportsFailures() {
        assertThat(tools.runTests()).startsWith("tests fail (exit 1)");
        assertThat(sandbox.commands()).extracting(ExecRequest::displayCommand).containsExactly("pytest -q");
    }

    @Test
    void strReplace_ambiguous_tellsTheModelHowMany() {
        sandbox.files().write("app.py", "x = 1\nx = 1\n");
        assertThat(tools.strReplace("app.py", "x = 1", "x = 2")).startsWith("error ambiguous_match: 2 matches");
        assertThat(sandbox.files().readText("app.py")).isEqualTo("x = 1\nx = 1\n");
    }

    @Test
    void strReplace_unique_returnsDiff() {
        sandbox.files().write("app.py", "x = 1\n");
        assertThat(tools.strReplace("app.py", "x = 1", "x = 2")).contains("-x = 1\n+x = 2\n");
    }
}
