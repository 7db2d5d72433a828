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
 * @param values      the values a string parameter may take (a JSON Schema {@code enum}); empty for any
 * @param defaultValue the value used when the call leaves it out (JSON Schema {@code default}), or null
 * @param minimum     the smallest value of an integer parameter (the fewest items of an array), or null
 * @param maximum     the largest value of an integer parameter (the most items of an array), or null
 */
public record ToolParam(String name, Type type, String description, boolean required, List<String> values,
                        Object defaultValue, Long minimum, Long maximum) {
    /** The JSON types tool parameters use. */
    public enum Type {
        STRING, INTEGER, BOOLEAN,
        /** Any JSON number (a published surface that declares {@code number}, such as a timeout in seconds). */
        NUMBER,
        /** An array of strings. */
        STRING_ARRAY,
        /** An array of integers. */
        INTEGER_ARRAY,
        /** An object whose values are strings (environment variables). */
        STRING_MAP,
        /** An array of {@code {oldText, newText}} objects ({@code edit_file}). */
        EDIT_ARRAY,
        /** An array of {@code {key, value}} string objects (environment variables, Spacebot's {@code exec}). */
        KEY_VALUE_ARRAY
    }

    /** A parameter with no enumerated values, default or bounds. */
    public ToolParam(String name, Type type, String description, boolean required) {
        this(name, type, description, required, List.of(), null, null, null);
    }

    /** This parameter with the values it may take. */
    public ToolParam withValues(String... allowed) {
        return new ToolParam(name, type, description, required, List.of(allowed), defaultValue, minimum, maximum);
    }

    /** This parameter with its default value. */
    public ToolParam withDefault(Object value) {
        return new ToolParam(name, type, description, required, values, value, minimum, maximum);
    }

    /** This array parameter with a least number of items (JSON Schema {@code minItems}, kept in {@code minimum}). */
    public ToolParam withMinItems(long min) {
        return new ToolParam(name, type, description, required, values, defaultValue, min, maximum);
    }

    /** This integer parameter with a lower bound only (inclusive). */
    public ToolParam withMinimum(long min) {
        return new ToolParam(name, type, description, required, values, defaultValue, min, null);
    }

    /** This integer parameter with bounds (inclusive). */
    public ToolParam withRange(long min, long max) {
        return new ToolParam(name, type, description, required, values, defaultValue, min, max);
    }

    public ToolParam {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(description, "description");
        values = List.copyOf(values);
    }

    /** This parameter as a JSON Schema (draft 2020-12) property. */
    public Map<String, Object> jsonSchema() {
        Map<String, Object> s = new LinkedHashMap<>();
        switch (type) {
            case STRING -> s.put("type", "string");
            case INTEGER -> s.put("type", "integer");
            case BOOLEAN -> s.put("type", "boolean");
            case NUMBER -> s.put("type", "number");
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
            case KEY_VALUE_ARRAY -> {
                s.put("type", "array");
                Map<String, Object> item = new LinkedHashMap<>();
                item.put("type", "object");
                Map<String, Object> props = new LinkedHashMap<>();
                props.put("key", Map.of("type", "string"));
                props.put("value", Map.of("type", "string"));
                item.put("properties", props);
                item.put("required", List.of("key", "value"));
                item.put("additionalProperties", false);
                s.put("items", item);
            }
            default -> throw new IllegalStateException(type.name());
        }
        if (!values.isEmpty()) {
            s.put("enum", values);
        }
        if (defaultValue != null) {
            s.put("default", defaultValue);
        }
        boolean array = s.get("type").equals("array");
        if (minimum != null) {
            s.put(array ? "minItems" : "minimum", minimum);
        }
        if (maximum != null) {
            s.put(array ? "maxItems" : "maximum", maximum);
        }
        s.put("description", description);
        return s;
    }
}
