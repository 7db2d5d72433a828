package dev.sandbox4j.spring;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.tools.SandboxTools;
import dev.sandbox4j.tools.ToolConfig;
import dev.sandbox4j.tools.ToolResult;
import dev.sandbox4j.tools.ToolSpec;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.util.ClassUtils;

/**
 * The sandbox4j agent tools ({@code bash}, {@code exec}, {@code execute_code}, {@code view}, {@code str_replace},
 * ...) as Spring AI {@link ToolCallback}s: the names, descriptions, strict JSON schemas and results of
 * {@code sandbox-tools} ({@link SandboxTools} runs every call), over a sandbox per conversation or request.
 *
 * <pre>{@code
 * chatClient.prompt(question)
 *     .tools(sandboxTools)                                                // this bean
 *     .toolContext(Map.of(ChatMemory.CONVERSATION_ID, conversationId))   // one sandbox per conversation
 *     .call().content();
 * }</pre>
 *
 * <p>Which sandbox a call uses: the one of the conversation id under {@link #CONVERSATION_ID} in the tool context;
 * else, on a thread serving a web request (Spring MVC), one for that request, closed when the request completes;
 * else what {@code sandbox4j.session.fallback} says: refuse (the default) or one shared sandbox. A call never
 * throws: bad arguments, a refused scope and sandbox errors come back as {@code {"success":false,...}} results the
 * model can read.
 */
public final class SandboxToolCallbacks implements ToolCallbackProvider {
    /** The tool-context key of the conversation id: Spring AI's {@link ChatMemory#CONVERSATION_ID}. */
    public static final String CONVERSATION_ID = ChatMemory.CONVERSATION_ID;
    /** The sessions key of the shared sandbox ({@code sandbox4j.session.fallback=shared}). */
    public static final String SHARED_KEY = "shared";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final boolean WEB = ClassUtils.isPresent(
            "org.springframework.web.context.request.RequestContextHolder", SandboxToolCallbacks.class.getClassLoader());

    private final SandboxSessions sessions;
    private final ToolConfig config;
    private final SandboxProperties.Fallback fallback;
    private final List<ToolCallback> callbacks;

    SandboxToolCallbacks(SandboxSessions sessions, ToolConfig config, SandboxProperties.Fallback fallback) {
        this.sessions = Objects.requireNonNull(sessions, "sessions");
        this.config = Objects.requireNonNull(config, "config");
        this.fallback = Objects.requireNonNull(fallback, "fallback");
        this.callbacks = SandboxTools.specs(config).stream().map(Callback::new).map(ToolCallback.class::cast)
                .toList();
    }

    @Override
    public ToolCallback[] getToolCallbacks() {
        return callbacks.toArray(ToolCallback[]::new);
    }

    /** The tool configuration (which tools, timeouts, caps). */
    public ToolConfig config() {
        return config;
    }

    /**
     * The sessions key a call with this tool context uses: {@code conversation:<id>}, {@code request:<uuid>},
     * {@link #SHARED_KEY}, or null when the call is refused.
     */
    String key(ToolContext context) {
        Object id = context == null ? null : context.getContext().get(CONVERSATION_ID);
        if (id != null && !id.toString().isBlank()) {
            return "conversation:" + id;
        }
        if (WEB) {
            String key = RequestScope.key(sessions);
            if (key != null) {
                return key;
            }
        }
        return fallback == SandboxProperties.Fallback.SHARED ? SHARED_KEY : null;
    }

    private final class Callback implements ToolCallback {
        private final ToolSpec spec;
        private final ToolDefinition definition;

        Callback(ToolSpec spec) {
            this.spec = spec;
            try {
                this.definition = ToolDefinition.builder().name(spec.name()).description(spec.description())
                        .inputSchema(JSON.writeValueAsString(spec.inputSchema())).build();
            } catch (Exception e) {
                throw new IllegalStateException("schema of " + spec.name(), e);
            }
        }

        @Override
        public ToolDefinition getToolDefinition() {
            return definition;
        }

        @Override
        public String call(String toolInput) {
            return call(toolInput, null);
        }

        @Override
        public String call(String toolInput, ToolContext toolContext) {
            Map<String, Object> args;
            try {
                args = toolInput == null || toolInput.isBlank() ? Map.of()
                        : JSON.readValue(toolInput, new TypeReference<Map<String, Object>>() { });
            } catch (Exception e) {
                return ToolResult.error(ErrorKind.INVALID_ARGUMENT, "the arguments of " + spec.name()
                        + " are not a JSON object").toJson();
            }
            String key = key(toolContext);
            if (key == null) {
                return ToolResult.error(ErrorKind.UNSUPPORTED, "no sandbox for this call: the tool context has no "
                        + CONVERSATION_ID + " and no web request is in progress; pass .toolContext(Map.of("
                        + "ChatMemory.CONVERSATION_ID, id)) or set sandbox4j.session.fallback=shared").toJson();
            }
            try {
                return sessions.with(key, sandbox -> new SandboxTools(sandbox, config).call(spec.name(), args))
                        .text();
            } catch (SandboxException e) {
                return ToolResult.error(e).toJson();
            } catch (RuntimeException e) {
                return ToolResult.error(ErrorKind.INTERNAL, spec.name() + " failed unexpectedly ("
                        + e.getClass().getSimpleName() + ")").toJson();
            }
        }

        @Override
        public String toString() {
            return "sandbox4j tool " + spec.name();
        }
    }
}
