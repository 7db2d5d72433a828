package dev.sandbox4j.tools;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One parameter of a tool, as plain data the adapters translate into their own schema types.
 *
 * @param name        the parameter name the model sends, such as {@code command}
 * @param type        its JSON type
 * @param description what it means, written for a model
 * @param required    whether the call fails without it
 */
public record ToolParam(String name, Type type, String description, boolean required) {
    /** The JSON types tool parameters use. */
    public enum Type {
        STRING, INTEGER, BOOLEAN,
        /** An array of strings. */
        STRING_ARRAY,
        /** An array of integers. */
        INTEGER_ARRAY,
        /** An object whose values are strings (environment variables). */
        STRING_MAP,
        /** An array of {@code {oldText, newText}} objects ({@code edit_file}). */
        EDIT_ARRAY
    }

    public ToolParam {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(description, "description");
    }

    /** This parameter as a JSON Schema (draft 2020-12) property. */
    public Map<String, Object> jsonSchema() {
        Map<String, Object> s = new LinkedHashMap<>();
        switch (type) {
            case STRING -> s.put("type", "string");
            case INTEGER -> s.put("type", "integer");
            case BOOLEAN -> s.put("type", "boolean");
            case STRING_ARRAY -> {
                s.put("type", "array");
                s.put("items", Map.of("type", "string"));
            }
            case INTEGER_ARRAY -> {
                s.put("type", "array");
                s.put("items", Map.of("type", "integer"));
            }
            case STRING_MAP -> {
                s.put("type", "object");
                s.put("additionalProperties", Map.of("type", "string"));
            }
            case EDIT_ARRAY -> {
                s.put("type", "array");
                Map<String, Object> item = new LinkedHashMap<>();
                item.put("type", "object");
                Map<String, Object> props = new LinkedHashMap<>();
                props.put("oldText", Map.of("type", "string",
                        "description", "Exact text to find; must occur exactly once at its turn"));
                props.put("newText", Map.of("type", "string", "description", "Text to put in its place"));
                item.put("properties", props);
                item.put("required", List.of("oldText", "newText"));
                s.put("items", item);
            }
            default -> throw new IllegalStateException(type.name());
        }
        s.put("description", description);
        return s;
    }
}
