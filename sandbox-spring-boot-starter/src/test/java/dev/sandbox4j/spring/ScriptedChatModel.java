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
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;

/**
 * A chat model that answers from a script instead of a network: each step sees the conversation so far (the tool
 * responses included) and returns either tool calls or the final answer. As with a real model on Spring AI 2, the
 * {@code ChatClient}'s tool-calling advisor runs the tool calls and calls the model again with the history, so the
 * tool callbacks, their tool context and their results travel exactly as with a real model.
 */
final class ScriptedChatModel implements ChatModel {
    /** One model turn: from the messages so far to the assistant's message. */
    interface Step extends Function<List<Message>, AssistantMessage> {
    }

    private final List<Step> steps;
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
        toolsSeen.add(options.getToolCallbacks().stream().map(ToolCallback::getToolDefinition).toList());
        prompts.add(List.copyOf(prompt.getInstructions()));
        if (next >= steps.size()) {
            throw new AssertionError("the script has no step " + (next + 1));
        }
        return new ChatResponse(List.of(new Generation(steps.get(next++).apply(prompt.getInstructions()))));
    }

    @Override
    public ChatOptions getOptions() {
        return ToolCallingChatOptions.builder().build();
    }
}
