package dev.sandbox4j.tools;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A tool as a model sees it: name, description and parameters.
 *
 * @param name        the tool name, such as {@code str_replace}
 * @param description what it does and how to use it, written for a model
 * @param params      its parameters, in order
 * @param readOnly    whether it only reads (it stays in a read-only tool set)
 */
public record ToolSpec(String name, String description, List<ToolParam> params, boolean readOnly) {
    public ToolSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        params = List.copyOf(params);
    }

    /** The parameter with this name, or null. */
    public ToolParam param(String name) {
        return params.stream().filter(p -> p.name().equals(name)).findFirst().orElse(null);
    }

    /** The parameters as a JSON Schema object ({@code type}, {@code properties}, {@code required}). */
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
        return schema;
    }
}
