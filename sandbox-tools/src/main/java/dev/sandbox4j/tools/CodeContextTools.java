package dev.sandbox4j.tools;

import dev.sandbox4j.CodeContext;
import dev.sandbox4j.CodeRequest;
import dev.sandbox4j.CodeResult;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Language;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The code-context tools: {@code create_code_context}, {@code run_code} and {@code destroy_code_context}. Contexts
 * are found by id in the sandbox ({@link dev.sandbox4j.CodeRunner#context}), so every tools instance over one sandbox
 * (the MCP server makes one per call) sees the same ones; at most {@link #MAX_CONTEXTS} at once (each is an
 * interpreter process).
 */
final class CodeContextTools {
    /** Each context holds one of the sandbox's command slots (at least 8) for its life. */
    static final int MAX_CONTEXTS = 4;

    private final Sandbox sandbox;
    private final ToolConfig config;

    CodeContextTools(Sandbox sandbox, ToolConfig config) {
        this.sandbox = sandbox;
        this.config = config;
    }

    ToolResult create(Args a) {
        Language language = Language.of(a.text("language"));
        if (sandbox.code().contexts().size() >= MAX_CONTEXTS) {
            return ToolResult.error(ErrorKind.INVALID_ARGUMENT, "already " + MAX_CONTEXTS + " code contexts open;"
                    + " destroy one with destroy_code_context first");
        }
        CodeContext c = sandbox.code().createContext(language);
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("context_id", c.id());
        f.put("language", language.id());
        return ToolResult.ok(f);
    }

    /**
     * Runs code in a context when {@code context_id} is given, else once in a fresh interpreter; {@code oneOff}
     * does the latter (the catalog's execute_code path, with its heartbeats).
     */
    ToolResult run(Args a, Duration timeout, String timeoutNote, Function<CodeRequest, CodeResult> await,
                   Function<CodeRequest, ToolResult> oneOff) {
        String code = a.string("code");
        String id = a.optString("context_id", null);
        String languageName = a.optString("language", null);
        if (id == null) {
            if (languageName == null) {
                throw new Args.ArgException("give 'language' (python, javascript, bash) or a 'context_id' from"
                        + " create_code_context");
            }
            return oneOff.apply(CodeRequest.of(Language.of(languageName), code).withTimeout(timeout)
                    .withOutputLimit(config.outputLimit()));
        }
        CodeContext c = context(id);
        if (languageName != null && Language.of(languageName) != c.language()) {
            throw new Args.ArgException("context " + id + " runs " + c.language().id() + ", not " + languageName);
        }
        CodeResult r = await.apply(CodeRequest.of(c.language(), code).withTimeout(timeout)
                .withOutputLimit(config.outputLimit()));
        Map<String, Object> f = fields(r, timeoutNote);
        f.put("context_id", id);
        if (r.png() != null) {
            f.put("png", true);
            return ToolResult.ok(f, List.of(new ToolResult.Image(Base64.getEncoder().encodeToString(r.png()),
                    "image/png")));
        }
        return ToolResult.ok(f);
    }

    /** The fields of a code result, as execute_code gives them, plus the value of the last expression. */
    Map<String, Object> fields(CodeResult result, String timeoutNote) {
        return codeFields(result, config, timeoutNote, true);
    }

    /**
     * The fields of a code result, for execute_code and run_code alike; {@code contextExtras} adds what run_code
     * reports beyond execute_code (the last expression's value, the detail).
     */
    static Map<String, Object> codeFields(CodeResult result, ToolConfig config, String timeoutNote,
                                          boolean contextExtras) {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("status", result.status().code());
        f.put("exit_code", result.exitCode());
        Shaping.Capped stdout = Shaping.shape(result.stdout(), result.exec().stdoutTruncation(),
                config.outputLimit(), null);
        Shaping.Capped stderr = Shaping.shape(result.stderr(), result.exec().stderrTruncation(),
                config.outputLimit(), null);
        f.put("stdout", stdout.text());
        f.put("stderr", stderr.text());
        if (contextExtras && !result.text().isEmpty()) {
            f.put("text", result.text());
        }
        f.put("duration_ms", result.duration().toMillis());
        f.put("language", result.language().id());
        Shaping.putTruncation(f, "stdout", stdout);
        Shaping.putTruncation(f, "stderr", stderr);
        if (contextExtras && !result.exec().detail().isEmpty()) {
            f.put("detail", result.exec().detail());
        }
        if (timeoutNote != null) {
            f.put("note", timeoutNote);
        }
        return f;
    }

    ToolResult destroy(Args a) {
        String id = a.text("context_id");
        context(id).close();
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("context_id", id);
        f.put("destroyed", true);
        return ToolResult.ok(f);
    }

    CodeContext context(String id) {
        return sandbox.code().context(id).orElseThrow(() -> new SandboxException(ErrorKind.NOT_FOUND,
                "no code context '" + id + "'; create one with create_code_context (open: " + open() + ")"));
    }

    private String open() {
        List<String> ids = sandbox.code().contexts().stream().map(CodeContext::id).toList();
        return ids.isEmpty() ? "none" : String.join(", ", ids);
    }
}
