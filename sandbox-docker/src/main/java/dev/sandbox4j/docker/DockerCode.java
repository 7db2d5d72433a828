package dev.sandbox4j.docker;

import dev.sandbox4j.CodeRequest;
import dev.sandbox4j.CodeResult;
import dev.sandbox4j.CodeRunner;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.Language;
import dev.sandbox4j.SandboxException;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/** Code snippets: the code is uploaded as a file to the private run directory and run by the interpreter. */
final class DockerCode implements CodeRunner {
    private final DockerSandbox sandbox;

    DockerCode(DockerSandbox sandbox) {
        this.sandbox = sandbox;
    }

    @Override
    public Set<Language> languages() {
        sandbox.ensureOpen();
        return sandbox.languages();
    }

    @Override
    public CodeResult run(CodeRequest request) {
        sandbox.ensureOpen();
        Language language = request.language();
        if (!sandbox.languages().contains(language)) {
            throw new SandboxException(ErrorKind.UNSUPPORTED_LANGUAGE, "language '" + language.id()
                    + "' is not available in this sandbox; supported: " + sandbox.languages().stream()
                    .map(Language::id).sorted().collect(Collectors.joining(", ")));
        }
        // The interpreter the probe found under the fixed PATH, by its absolute path: the spec's PATH (which may
        // lead into the workspace) does not choose it.
        String interpreter = sandbox.interpreter(language);
        String ext = switch (language) {
            case PYTHON -> ".py";
            case JAVASCRIPT -> ".js";
            default -> ".sh";
        };
        byte[] code = request.code().getBytes(StandardCharsets.UTF_8);
        String name = "code-" + UUID.randomUUID() + ext;
        sandbox.uploadToRunDir(name, code);
        String path = WorkspaceScripts.RUN_DIR + "/" + name;
        ExecRequest exec = ExecRequest.argv(interpreter, path);
        if (request.stdin() != null) {
            exec = exec.withStdin(request.stdin());
        }
        if (request.timeout() != null) {
            exec = exec.withTimeout(request.timeout());
        }
        if (request.outputLimit() > 0) {
            exec = exec.withOutputLimit(request.outputLimit());
        }
        try {
            return CodeResult.of(language, sandbox.shell().run(exec));
        } finally {
            if (!sandbox.closed()) {
                try {
                    sandbox.internal(List.of("/bin/rm", "-f", "--", path), null);
                } catch (RuntimeException ignored) {
                    // removed with the sandbox
                }
            }
        }
    }
}
