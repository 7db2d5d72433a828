package dev.sandbox4j.tools;

import static dev.sandbox4j.tools.Profiles.fields;
import static dev.sandbox4j.tools.Profiles.same;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.tools.Profiles.Tool;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The execute-code surface ({@link ToolProfile#EXECUTE_CODE}): its spec, output schema and error shape. */
final class ExecuteCodeProfile {
    private ExecuteCodeProfile() {
    }

    /** execute-code's one tool, under its published name. */
    static void add(ToolConfig c, Map<String, ToolSpec> base, List<Tool> out) {
        ToolSpec ec = base.get("execute_code");
        List<ToolParam> params = List.of(ec.param("language"), ec.param("code"), ec.param("stdin_data"),
                ec.param("timeout_ms").withDefault(c.defaultCodeTimeout().toMillis()));
        Map<String, String> result = fields("stdout", "string", "stderr", "string", "exit_code", "integer",
                "status", "string", "duration_ms", "integer");
        Map<String, String> errorFields = new LinkedHashMap<>(result);
        errorFields.put("supported_languages", "array");
        String name = c.dotlessNames() ? "execute_code" : Profiles.EXECUTE_CODE_NAME;
        out.add(new Tool(ec.reshaped(name, ec.description() + " A run that does not complete"
                + " fails with error_type EXECUTION_TIMEOUT, RUNTIME_ERROR or SANDBOX_SETUP_FAILED and"
                + " still carries its output; an unknown language fails with UNSUPPORTED_LANGUAGE.",
                params, result, Profiles.EXECUTE_CODE_ERRORS, errorFields)
                .withPublishedOutputSchema(executeCodeOutput()), same(ec).handler()));
    }

    /** execute-code's published output schema (section 4 of its document). */
    private static Map<String, Object> executeCodeOutput() {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("stdout", Map.of("type", "string"));
        props.put("stderr", Map.of("type", "string"));
        props.put("exit_code", Map.of("type", "integer"));
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("type", "string");
        status.put("enum", List.of("completed", "timeout", "error_runtime", "error_setup"));
        props.put("status", status);
        props.put("duration_ms", Map.of("type", "integer"));
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("type", "object");
        s.put("properties", props);
        s.put("required", List.of("stdout", "stderr", "exit_code", "status", "duration_ms"));
        return s;
    }

    /** execute-code's result: a run that did not complete, and every failure, with its four codes. */
    static ToolResult executeCodeResult(ToolResult r) {
        Map<String, Object> f = new LinkedHashMap<>();
        for (String k : List.of("stdout", "stderr", "exit_code", "status", "duration_ms")) {
            if (r.fields().containsKey(k)) {
                f.put(k, r.get(k));
            }
        }
        if (r.success()) {
            String status = String.valueOf(r.get("status"));
            String code = switch (status) {
                case "timeout" -> "EXECUTION_TIMEOUT";
                case "error_runtime" -> "RUNTIME_ERROR";
                case "error_setup" -> "SANDBOX_SETUP_FAILED";
                default -> null;
            };
            if (code == null) {
                Map<String, Object> ok = new LinkedHashMap<>();
                ok.put("success", true);
                ok.putAll(f);
                return r.withFields(ok);
            }
            String message = switch (code) {
                case "EXECUTION_TIMEOUT" -> "the code ran out of its time (timeout_ms) and was killed; output so far"
                        + " is in stdout and stderr";
                case "RUNTIME_ERROR" -> "the code failed with exit code " + r.get("exit_code") + "; see stderr";
                default -> "the interpreter could not start; see stderr";
            };
            return ToolResult.failure(code, message, false, f);
        }
        String kind = r.errorType();
        if (kind.equals(ErrorKind.INVALID_ARGUMENT.code())) {
            return r; // a malformed call, before anything ran
        }
        String code = kind.equals(ErrorKind.UNSUPPORTED_LANGUAGE.code()) ? "UNSUPPORTED_LANGUAGE"
                : "SANDBOX_SETUP_FAILED";
        Map<String, Object> extra = new LinkedHashMap<>(f);
        if (r.fields().containsKey("supported_languages")) {
            extra.put("supported_languages", r.get("supported_languages"));
        }
        if (code.equals("SANDBOX_SETUP_FAILED")) {
            extra.put("cause", kind);
        }
        return ToolResult.failure(code, String.valueOf(r.get("message")), Boolean.TRUE.equals(r.get("retryable")),
                extra);
    }
}
