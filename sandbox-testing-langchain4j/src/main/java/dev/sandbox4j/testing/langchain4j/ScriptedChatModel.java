package dev.sandbox4j.testing.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * A LangChain4j {@link ChatModel} that answers from a script instead of a network, for tests of an agent loop: each
 * call of the model plays the next {@link Step}, which sees the conversation so far ({@link Turn}) and answers with
 * tool calls or a final text. The loop under test ({@code AiServices}, or a hand-written one) runs the tool calls and
 * calls the model again with their results, exactly as with a real model.
 *
 * <pre>{@code
 * ScriptedChatModel model = ScriptedChatModel.of(
 *         toolCall("write_file", "{\"path\":\"hello.txt\",\"content\":\"hi\\n\"}"),
 *         toolCall("bash", "{\"command\":\"cat hello.txt\"}").expectingToolResultContaining("\"success\":true"),
 *         answer(turn -> "cat printed: " + turn.lastToolResult()));
 * Agent agent = AiServices.builder(Agent.class).chatModel(model).toolProvider(tools).build();
 * String reply = agent.chat("Write hello.txt and show it");
 * model.assertScriptFinished();
 * assertEquals("bash", model.toolResults().get(1).toolName());
 * }</pre>
 *
 * <p>Every mismatch is a {@link AssertionError} naming the step: the model called once more than the script has
 * steps, a tool call of a tool the request does not offer (a real model cannot call it), an expectation of a step that
 * does not hold, steps left over ({@link #assertScriptFinished()}). An error passes through the loops' {@code catch
 * (Exception)} blocks, and the first one is kept and thrown again by {@link #assertScriptFinished()} in case the loop
 * under test swallowed it. Thread-safe; the calls are answered one at a time.
 */
public final class ScriptedChatModel implements ChatModel {
    /** One answer of the model: from the conversation so far to the assistant's message. */
    @FunctionalInterface
    public interface Step {
        /** The assistant's message for this turn: tool calls, or text. */
        AiMessage answer(Turn turn);

        /**
         * This step, played only if the last tool result the loop sent back contains {@code expected}; otherwise the
         * model call fails with an {@link AssertionError} that quotes the result.
         */
        default Step expectingToolResultContaining(String expected) {
            Objects.requireNonNull(expected, "expected");
            Step step = this;
            Step checked = turn -> {
                String result = turn.lastToolResult();
                if (!result.contains(expected)) {
                    throw new AssertionError("step " + turn.number() + " expected the last tool result to contain "
                            + quote(expected) + ", but it was " + quote(result));
                }
                return step.answer(turn);
            };
            return step instanceof Unchecked ? new Unchecked(checked) : checked;
        }
    }

    /**
     * What the model is asked on one turn.
     *
     * @param number   the turn, from 1: the step being played
     * @param messages the conversation sent to the model (system, user, assistant and tool result messages)
     * @param tools    the tools the request offers, none when it offers none
     */
    public record Turn(int number, List<ChatMessage> messages, List<ToolSpecification> tools) {
        public Turn {
            messages = List.copyOf(messages);
            tools = List.copyOf(tools);
        }

        /** The text of the last tool result in the conversation; an {@link AssertionError} when there is none. */
        public String lastToolResult() {
            for (int i = messages.size() - 1; i >= 0; i--) {
                if (messages.get(i) instanceof ToolExecutionResultMessage result) {
                    return result.text();
                }
            }
            throw new AssertionError("step " + number + " wants the last tool result, but the conversation has none: "
                    + messages);
        }

        /** The text of the last user message in the conversation; an {@link AssertionError} when there is none. */
        public String lastUserMessage() {
            for (int i = messages.size() - 1; i >= 0; i--) {
                if (messages.get(i) instanceof UserMessage user) {
                    return user.hasSingleText() ? user.singleText() : user.contents().toString();
                }
            }
            throw new AssertionError("step " + number + " wants the last user message, but the conversation has none");
        }

        /** The names of the tools offered, in the request's order. */
        public List<String> toolNames() {
            return tools.stream().map(ToolSpecification::name).toList();
        }
    }

    /** A step whose tool calls are not checked against the tools offered. */
    private record Unchecked(Step step) implements Step {
        @Override
        public AiMessage answer(Turn turn) {
            return step.answer(turn);
        }
    }

    private final List<Step> steps;
    private final List<ChatRequest> requests = new ArrayList<>();
    private final List<AiMessage> answers = new ArrayList<>();
    private final List<ToolExecutionResultMessage> toolResults = new ArrayList<>();
    private final Set<String> toolResultIds = new LinkedHashSet<>();
    private AssertionError failure;

    private ScriptedChatModel(List<Step> steps) {
        this.steps = List.copyOf(steps);
    }

    /** A model that plays these steps, one per call, in order. */
    public static ScriptedChatModel of(Step... steps) {
        return of(List.of(steps));
    }

    /** A model that plays these steps, one per call, in order. */
    public static ScriptedChatModel of(List<Step> steps) {
        return new ScriptedChatModel(steps);
    }

    /** A call of one tool with its arguments as JSON, e.g. {@code toolCall("bash", "{\"command\":\"ls\"}")}. */
    public static Step toolCall(String tool, String argumentsJson) {
        return toolCalls(ToolExecutionRequest.builder().name(tool).arguments(argumentsJson).build());
    }

    /**
     * Calls of several tools in one answer, as models that call tools in parallel send them. A request without an id
     * gets {@code call-<turn>-<n>}.
     */
    public static Step toolCalls(ToolExecutionRequest... calls) {
        List<ToolExecutionRequest> list = List.of(calls);
        if (list.isEmpty()) {
            throw new IllegalArgumentException("a tool-call step needs at least one call");
        }
        return turn -> {
            List<ToolExecutionRequest> withIds = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                ToolExecutionRequest c = list.get(i);
                withIds.add(c.id() != null ? c : ToolExecutionRequest.builder()
                        .id("call-" + turn.number() + "-" + (i + 1)).name(c.name()).arguments(c.arguments()).build());
            }
            return AiMessage.from(withIds);
        };
    }

    /**
     * A call of a tool whether the request offers it or not, as a model that invents a tool name sends it: for
     * testing how the loop answers an unknown tool.
     */
    public static Step unknownToolCall(String tool, String argumentsJson) {
        return new Unchecked(toolCall(tool, argumentsJson));
    }

    /** A final answer: this text, no tool calls. */
    public static Step answer(String text) {
        Objects.requireNonNull(text, "text");
        return turn -> AiMessage.from(text);
    }

    /** A final answer made from the conversation, e.g. {@code answer(turn -> "Done: " + turn.lastToolResult())}. */
    public static Step answer(Function<Turn, String> text) {
        Objects.requireNonNull(text, "text");
        return turn -> AiMessage.from(text.apply(turn));
    }

    @Override
    public synchronized ChatResponse doChat(ChatRequest request) {
        try {
            return play(request);
        } catch (AssertionError e) {
            if (failure == null) {
                failure = e;
            }
            throw e;
        }
    }

    private ChatResponse play(ChatRequest request) {
        requests.add(request);
        for (ChatMessage m : request.messages()) {
            if (m instanceof ToolExecutionResultMessage r && (r.id() == null || toolResultIds.add(r.id()))) {
                toolResults.add(r);
            }
        }
        int number = answers.size() + 1;
        if (number > steps.size()) {
            List<ChatMessage> messages = request.messages();
            throw new AssertionError("the script has " + steps.size() + " step" + (steps.size() == 1 ? "" : "s")
                    + ", and the model was called a " + ordinal(number) + " time; the last message was: "
                    + (messages.isEmpty() ? "(none)" : messages.get(messages.size() - 1)));
        }
        List<ToolSpecification> tools = request.toolSpecifications() == null ? List.of()
                : request.toolSpecifications();
        Turn turn = new Turn(number, request.messages(), tools);
        Step step = steps.get(number - 1);
        AiMessage answer = step.answer(turn);
        if (answer == null) {
            throw new AssertionError("step " + number + " answered null");
        }
        if (answer.hasToolExecutionRequests() && !(step instanceof Unchecked)) {
            for (ToolExecutionRequest call : answer.toolExecutionRequests()) {
                if (!turn.toolNames().contains(call.name())) {
                    throw new AssertionError("step " + number + " calls the tool " + quote(call.name())
                            + ", which the request does not offer; it offers " + turn.toolNames()
                            + " (unknownToolCall(...) calls it anyway)");
                }
            }
        }
        answers.add(answer);
        return ChatResponse.builder().aiMessage(answer)
                .finishReason(answer.hasToolExecutionRequests() ? FinishReason.TOOL_EXECUTION : FinishReason.STOP)
                .build();
    }

    /** The requests the model got, in order: messages, tools offered, parameters. */
    public synchronized List<ChatRequest> requests() {
        return List.copyOf(requests);
    }

    /** The answers the model gave, one per step played, in order. */
    public synchronized List<AiMessage> answers() {
        return List.copyOf(answers);
    }

    /**
     * The tool results the loop sent back, each once, in the order they came: what the tools answered to the
     * script's calls (their {@code toolName()}, {@code id()}, {@code text()}).
     */
    public synchronized List<ToolExecutionResultMessage> toolResults() {
        return List.copyOf(toolResults);
    }

    /** How many steps were played. */
    public synchronized int stepsPlayed() {
        return answers.size();
    }

    /**
     * Fails unless every step was played and none failed: an {@link AssertionError} with the first failure, or saying
     * how many steps are left and what the model answered last.
     */
    public synchronized void assertScriptFinished() {
        if (failure != null) {
            throw new AssertionError("the script failed: " + failure.getMessage(), failure);
        }
        if (answers.size() < steps.size()) {
            throw new AssertionError("the script has " + steps.size() + " steps, but the loop stopped after "
                    + answers.size() + (answers.isEmpty() ? " (the model was never called)"
                    : "; the last answer was " + answers.get(answers.size() - 1)));
        }
    }

    private static String ordinal(int n) {
        int mod100 = n % 100;
        String suffix = mod100 >= 11 && mod100 <= 13 ? "th"
                : switch (n % 10) {
                    case 1 -> "st";
                    case 2 -> "nd";
                    case 3 -> "rd";
                    default -> "th";
                };
        return n + suffix;
    }

    private static String quote(String s) {
        return "\"" + s + "\"";
    }
}
