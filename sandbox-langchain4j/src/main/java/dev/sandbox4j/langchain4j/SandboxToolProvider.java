package dev.sandbox4j.langchain4j;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonArraySchema;
import dev.langchain4j.model.chat.request.json.JsonBooleanSchema;
import dev.langchain4j.model.chat.request.json.JsonEnumSchema;
import dev.langchain4j.model.chat.request.json.JsonIntegerSchema;
import dev.langchain4j.model.chat.request.json.JsonNumberSchema;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonSchemaElement;
import dev.langchain4j.model.chat.request.json.JsonStringSchema;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProvider;
import dev.langchain4j.service.tool.ToolProviderRequest;
import dev.langchain4j.service.tool.ToolProviderResult;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.tools.SandboxTools;
import dev.sandbox4j.tools.ToolConfig;
import dev.sandbox4j.tools.ToolParam;
import dev.sandbox4j.tools.ToolResult;
import dev.sandbox4j.tools.ToolSpec;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The sandbox tools as a LangChain4j {@link ToolProvider}: only the tools the {@link ToolConfig} offers
 * (read-only mode and switched-off tools are not shown to the model), with the full descriptions and schemas of
 * {@code sandbox-tools}.
 *
 * <pre>{@code
 * Agent agent = AiServices.builder(Agent.class).chatModel(model)
 *     .toolProvider(new SandboxToolProvider(sandbox, ToolConfig.builder().readOnly(true).build())).build();
 * }</pre>
 */
public class SandboxToolProvider implements ToolProvider {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final SandboxTools tools;

    public SandboxToolProvider(Sandbox sandbox) {
        this(new SandboxTools(sandbox));
    }

    public SandboxToolProvider(Sandbox sandbox, ToolConfig config) {
        this(new SandboxTools(sandbox, config));
    }

    public SandboxToolProvider(SandboxTools tools) {
        this.tools = tools;
    }

    @Override
    public ToolProviderResult provideTools(ToolProviderRequest request) {
        return ToolProviderResult.builder().addAll(tools()).build();
    }

    /** The tools as specifications and executors, also usable with {@code AiServices.tools(Map)}. */
    public Map<ToolSpecification, ToolExecutor> tools() {
        Map<ToolSpecification, ToolExecutor> out = new LinkedHashMap<>();
        for (ToolSpec spec : tools.specs()) {
            out.put(specification(spec), executor(spec.name()));
        }
        return out;
    }

    /** A tool as a LangChain4j specification. */
    public static ToolSpecification specification(ToolSpec spec) {
        JsonObjectSchema.Builder params = JsonObjectSchema.builder();
        for (ToolParam p : spec.params()) {
            params.addProperty(p.name(), element(p));
        }
        params.required(spec.params().stream().filter(ToolParam::required).map(ToolParam::name).toList());
        params.additionalProperties(false);
        return ToolSpecification.builder().name(spec.name()).description(spec.description())
                .parameters(params.build()).build();
    }

    private static JsonSchemaElement element(ToolParam p) {
        String d = p.description();
        if (p.type() == ToolParam.Type.STRING && !p.values().isEmpty()) {
            return JsonEnumSchema.builder().description(d).enumValues(p.values()).build();
        }
        return switch (p.type()) {
            case STRING -> JsonStringSchema.builder().description(d).build();
            case INTEGER -> JsonIntegerSchema.builder().description(d).build();
            case NUMBER -> JsonNumberSchema.builder().description(d).build();
            case BOOLEAN -> JsonBooleanSchema.builder().description(d).build();
            case STRING_ARRAY -> JsonArraySchema.builder().description(d).items(new JsonStringSchema()).build();
            case INTEGER_ARRAY -> JsonArraySchema.builder().description(d).items(new JsonIntegerSchema()).build();
            case STRING_MAP -> JsonObjectSchema.builder().description(d + " (string values)")
                    .additionalProperties(true).build();
            case EDIT_ARRAY -> JsonArraySchema.builder().description(d).items(JsonObjectSchema.builder()
                    .addStringProperty("oldText", "Exact text to find; must occur exactly once at its turn")
                    .addStringProperty("newText", "Text to put in its place")
                    .required("oldText", "newText").build()).build();
            case KEY_VALUE_ARRAY -> JsonArraySchema.builder().description(d).items(JsonObjectSchema.builder()
                    .addStringProperty("key", "Variable name").addStringProperty("value", "Its value")
                    .required("key", "value").build()).build();
        };
    }

    private ToolExecutor executor(String name) {
        return (request, memoryId) -> {
            Map<String, Object> args;
            try {
                String json = request.arguments();
                args = json == null || json.isBlank() ? Map.of()
                        : JSON.readValue(json, new TypeReference<Map<String, Object>>() { });
            } catch (Exception e) {
                return ToolResult.error(ErrorKind.INVALID_ARGUMENT, "the arguments of " + name
                        + " are not a JSON object").toJson();
            }
            return tools.call(name, args).text();
        };
    }
}
