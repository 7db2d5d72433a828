package dev.sandbox4j.tools;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A tool as a model sees it: name, description, parameters, what it can do and how it behaves.
 *
 * @param name        the tool name, such as {@code str_replace}
 * @param description what it does and how to use it, written for a model
 * @param params      its parameters, in order
 * @param capability  what it lets a model do; switched off by {@link ToolConfig.Builder#disable}
 * @param hints       how it behaves, for clients that show or gate tools (MCP tool annotations)
 * @param output      the fields of a successful result beyond {@code success}, name to JSON type ({@code
 *                    "integer|null"} for a field that may be null)
 * @param errorCodes  the {@code error_type} values a failure may carry (a {@link ToolProfile profile}'s published
 *                    codes); empty for any {@link dev.sandbox4j.ErrorKind} code
 * @param errorFields fields a failure carries beyond {@code error_type}, {@code message} and {@code retryable},
 *                    name to JSON type (AIO's {@code errno})
 * @param publishedOutputSchema the result schema a published surface declares (the reference filesystem server's
 *                    {@code {content}}, execute-code's five fields), served as {@link #outputSchema()} in place of
 *                    the one built from {@code output}; null for none
 */
public record ToolSpec(String name, String description, List<ToolParam> params, Capability capability, Hints hints,
                       Map<String, String> output, List<String> errorCodes, Map<String, String> errorFields,
                       Map<String, Object> publishedOutputSchema) {
    /**
     * How a tool behaves, as MCP's tool annotations describe it.
     *
     * @param destructive may delete or overwrite what was there (meaningless for a read-only tool)
     * @param idempotent  calling it again with the same arguments changes nothing more
     * @param openWorld   reaches beyond the sandbox (commands do only where the sandbox's network policy allows)
     */
    public record Hints(boolean destructive, boolean idempotent, boolean openWorld) {
    }

    public ToolSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(capability, "capability");
        Objects.requireNonNull(hints, "hints");
        params = List.copyOf(params);
        output = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(output));
        errorCodes = List.copyOf(errorCodes);
        errorFields = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(errorFields));
        publishedOutputSchema = publishedOutputSchema == null ? null
                : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(publishedOutputSchema));
    }

    /** A tool whose result schema is built from {@code output}, {@code errorCodes} and {@code errorFields}. */
    public ToolSpec(String name, String description, List<ToolParam> params, Capability capability, Hints hints,
                    Map<String, String> output, List<String> errorCodes, Map<String, String> errorFields) {
        this(name, description, params, capability, hints, output, errorCodes, errorFields, null);
    }

    /** A tool whose failures carry any {@link dev.sandbox4j.ErrorKind} code and no extra fields. */
    public ToolSpec(String name, String description, List<ToolParam> params, Capability capability, Hints hints,
                    Map<String, String> output) {
        this(name, description, params, capability, hints, output, List.of(), Map.of());
    }

    /** This tool under another name, with other parameters, result fields and errors (a profile's shape). */
    ToolSpec reshaped(String newName, String newDescription, List<ToolParam> newParams, Map<String, String> newOutput,
                      List<String> newErrorCodes, Map<String, String> newErrorFields) {
        return new ToolSpec(newName, newDescription, newParams, capability, hints, newOutput, newErrorCodes,
                newErrorFields, null);
    }

    /** This tool with the result schema its published surface declares. */
    ToolSpec withPublishedOutputSchema(Map<String, Object> schema) {
        return new ToolSpec(name, description, params, capability, hints, output, errorCodes, errorFields, schema);
    }

    private static Object jsonType(String type) {
        return type.contains("|") ? List.of(type.split("\\|")) : type;
    }

    /**
     * A short human-readable title for user interfaces (MCP's tool {@code title}), such as {@code "Run shell
     * command"} for {@code bash} or {@code shell}: one for every tool of every {@link ToolProfile}; for another name,
     * the name with spaces for underscores.
     */
    public String title() {
        return Titles.of(name);
    }

    /** Whether it only reads (it stays in a read-only tool set). */
    public boolean readOnly() {
        return capability == Capability.READ_FILES;
    }

    /** The parameter with this name, or null. */
    public ToolParam param(String name) {
        return params.stream().filter(p -> p.name().equals(name)).findFirst().orElse(null);
    }

    /**
     * The parameters as a strict JSON Schema object ({@code type}, {@code properties}, {@code required},
     * {@code additionalProperties: false}: a call with an argument not listed is refused).
     */
    public Map<String, Object> inputSchema() {
        Map<String, Object> props = new LinkedHashMap<>();
        List<String> required = new ArrayList<>();
        for (ToolParam p : params) {
            props.put(p.name(), p.jsonSchema());
            if (p.required()) {
                required.add(p.name());
            }
        }
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", props);
        schema.put("required", required);
        schema.put("additionalProperties", false);
        return schema;
    }

    /** {@link #inputSchema()} as JSON text, for a model API or a loop that takes schemas as text. */
    public String inputSchemaJson() {
        return Json.write(inputSchema());
    }

    /** {@link #outputSchema()} as JSON text. */
    public String outputSchemaJson() {
        return Json.write(outputSchema());
    }

    /**
     * The result as a JSON Schema object: the published one where the surface declares it; otherwise {@code success} always; on success the fields of {@link #output()}; on
     * failure {@code error_type}, {@code message}, {@code retryable}. Other fields may appear (a failure's details).
     */
    public Map<String, Object> outputSchema() {
        if (publishedOutputSchema != null) {
            return publishedOutputSchema;
        }
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("success", Map.of("type", "boolean"));
        output.forEach((field, type) -> props.put(field, Map.of("type", jsonType(type))));
        Map<String, Object> errorType = new LinkedHashMap<>();
        errorType.put("type", "string");
        if (errorCodes.isEmpty()) {
            errorType.put("description", "an ErrorKind code, on failure");
        } else {
            errorType.put("description", "on failure: " + String.join(", ", errorCodes));
        }
        props.put("error_type", errorType);
        props.put("message", Map.of("type", "string", "description", "what went wrong, on failure"));
        props.put("retryable", Map.of("type", "boolean", "description",
                "whether the same call may succeed later unchanged, on failure"));
        errorFields.forEach((field, type) -> props.putIfAbsent(field, Map.of("type", jsonType(type))));
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", props);
        schema.put("required", List.of("success"));
        return schema;
    }
}
