package com.example.agent;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.Function;

/**
 * A model that replays a script: each turn sees the conversation so far and answers with a tool call or text.
 * AiServices runs the tool calls and calls it again, as it does with a real model.
 */
final class ScriptedChatModel implements ChatModel {
    private final Deque<Function<List<ChatMessage>, AiMessage>> turns;

    @SafeVarargs
    ScriptedChatModel(Function<List<ChatMessage>, AiMessage>... turns) {
        this.turns = new ArrayDeque<>(List.of(turns));
    }

    static Function<List<ChatMessage>, AiMessage> toolCall(String tool, String argumentsJson) {
        return messages -> AiMessage.from(ToolExecutionRequest.builder().id("call-" + messages.size()).name(tool)
                .arguments(argumentsJson).build());
    }

    static Function<List<ChatMessage>, AiMessage> answer(Function<String, String> fromLastToolResult) {
        return messages -> AiMessage.from(fromLastToolResult.apply(lastToolResult(messages)));
    }

    static String lastToolResult(List<ChatMessage> messages) {
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i) instanceof ToolExecutionResultMessage m) {
                return m.text();
            }
        }
        return "";
    }

    @Override
    public synchronized ChatResponse doChat(ChatRequest request) {
        if (turns.isEmpty()) {
            throw new IllegalStateException("the script has no more turns");
        }
        return ChatResponse.builder().aiMessage(turns.poll().apply(request.messages())).build();
    }
}
