package com.example.agent;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
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

/**
 * A model that replays a script: each turn sees the conversation so far and answers with tool calls or text. The
 * ChatClient's tool-calling advisor runs the tool calls and calls it again, as it does with a real model.
 */
final class ScriptedChatModel implements ChatModel {
    private final Deque<Function<List<Message>, AssistantMessage>> turns;

    @SafeVarargs
    ScriptedChatModel(Function<List<Message>, AssistantMessage>... turns) {
        this.turns = new ArrayDeque<>(List.of(turns));
    }

    static Function<List<Message>, AssistantMessage> toolCall(String tool, String argumentsJson) {
        return messages -> AssistantMessage.builder().content("").toolCalls(List.of(
                new AssistantMessage.ToolCall("call-" + messages.size(), "function", tool, argumentsJson))).build();
    }

    static Function<List<Message>, AssistantMessage> answer(Function<String, String> fromLastToolResult) {
        return messages -> new AssistantMessage(fromLastToolResult.apply(lastToolResult(messages)));
    }

    static String lastToolResult(List<Message> messages) {
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i) instanceof ToolResponseMessage m) {
                return m.getResponses().get(m.getResponses().size() - 1).responseData();
            }
        }
        return "";
    }

    @Override
    public synchronized ChatResponse call(Prompt prompt) {
        if (turns.isEmpty()) {
            throw new IllegalStateException("the script has no more turns");
        }
        return new ChatResponse(List.of(new Generation(turns.poll().apply(prompt.getInstructions()))));
    }

    @Override
    public ChatOptions getOptions() {
        return ToolCallingChatOptions.builder().build();   // lets the ChatClient attach the tools
    }
}
