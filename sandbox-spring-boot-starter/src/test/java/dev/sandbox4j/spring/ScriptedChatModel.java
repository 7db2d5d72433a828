package dev.sandbox4j.spring;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.DefaultToolExecutionEligibilityPredicate;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.tool.definition.ToolDefinition;

/**
 * A chat model that answers from a script instead of a network: each step sees the conversation so far (the tool
 * responses included) and returns either tool calls or the final answer. Tool calls are executed the way Spring AI's
 * real models execute them (a {@link ToolCallingManager}, then the model is called again with the history), so the
 * tool callbacks, their tool context and their results travel exactly as with a real model.
 */
final class ScriptedChatModel implements ChatModel {
    /** One model turn: from the messages so far to the assistant's message. */
    interface Step extends Function<List<Message>, AssistantMessage> {
    }

    private final List<Step> steps;
    private final ToolCallingManager tools = ToolCallingManager.builder().build();
    private final DefaultToolExecutionEligibilityPredicate eligible = new DefaultToolExecutionEligibilityPredicate();
    private int next;
    final List<List<ToolDefinition>> toolsSeen = new CopyOnWriteArrayList<>();
    final List<List<Message>> prompts = new CopyOnWriteArrayList<>();

    ScriptedChatModel(List<Step> steps) {
        this.steps = new ArrayList<>(steps);
    }

    static Step toolCall(String name, String argumentsJson) {
        return messages -> AssistantMessage.builder().content("")
                .toolCalls(List.of(new AssistantMessage.ToolCall("call-" + name + "-" + messages.size(), "function",
                        name, argumentsJson))).build();
    }

    static Step answer(Function<List<Message>, String> text) {
        return messages -> new AssistantMessage(text.apply(messages));
    }

    /** The data of the last tool response in the conversation. */
    static String lastToolResponse(List<Message> messages) {
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i) instanceof ToolResponseMessage t) {
                return t.getResponses().get(t.getResponses().size() - 1).responseData();
            }
        }
        throw new AssertionError("no tool response in " + messages);
    }

    @Override
    public synchronized ChatResponse call(Prompt prompt) {
        if (!(prompt.getOptions() instanceof ToolCallingChatOptions options)) {
            throw new AssertionError("a ChatClient with tools passes ToolCallingChatOptions, not " + prompt.getOptions());
        }
        toolsSeen.add(tools.resolveToolDefinitions(options));
        prompts.add(List.copyOf(prompt.getInstructions()));
        if (next >= steps.size()) {
            throw new AssertionError("the script has no step " + (next + 1));
        }
        AssistantMessage out = steps.get(next++).apply(prompt.getInstructions());
        ChatResponse response = new ChatResponse(List.of(new Generation(out)));
        if (eligible.test(prompt.getOptions(), response)) {
            ToolExecutionResult result = tools.executeToolCalls(prompt, response);
            return call(new Prompt(result.conversationHistory(), prompt.getOptions()));
        }
        return response;
    }

    @Override
    public ChatOptions getDefaultOptions() {
        return ToolCallingChatOptions.builder().build();
    }
}
