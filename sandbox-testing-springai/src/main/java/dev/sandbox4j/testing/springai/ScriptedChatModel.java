package dev.sandbox4j.testing.springai;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;

/**
 * A Spring AI {@link ChatModel} that answers from a script instead of a network, for tests of an agent: each call of
 * the model plays the next {@link Step}, which sees the conversation so far ({@link Turn}) and answers with tool calls
 * or a final text. As with a real model on Spring AI 2, the {@code ChatClient}'s tool loop runs the tool calls (with
 * their tool context) and calls the model again with their results.
 *
 * <pre>{@code
 * ScriptedChatModel model = ScriptedChatModel.of(
 *         toolCall("write_file", "{\"path\":\"notes/plan.md\",\"content\":\"1. test\\n\"}"),
 *         toolCall("bash", "{\"command\":\"cat notes/plan.md\"}").expectingToolResultContaining("\"success\":true"),
 *         answer(turn -> "The plan says: " + turn.lastToolResult()));
 * String reply = ChatClient.create(model).prompt("Plan it").tools(sandboxTools).call().content();
 * model.assertScriptFinished();
 * }</pre>
 *
 * <p>In a Spring Boot test, declare it as the application's {@code ChatModel} bean (and switch the model starter's
 * own off, e.g. {@code spring.ai.model.chat=none}): the auto-configured {@code ChatClient.Builder} then uses it.
 *
 * <p>Every mismatch is a {@link AssertionError} naming the step: the model called once more than the script has
 * steps, a tool call of a tool the request does not offer (a real model cannot call it), an expectation of a step that
 * does not hold, steps left over ({@link #assertScriptFinished()}). An error passes through the loops' {@code catch
 * (Exception)} blocks, and the first one is kept and thrown again by {@link #assertScriptFinished()} in case the code
 * under test swallowed it. Only {@code call}: {@code stream} is not scripted. Thread-safe; the calls are answered one
 * at a time.
 */
public final class ScriptedChatModel implements ChatModel {
    /** One answer of the model: from the conversation so far to the assistant's message. */
    @FunctionalInterface
    public interface Step {
        /** The assistant's message for this turn: tool calls, or text. */
        AssistantMessage answer(Turn turn);

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
     * @param messages the conversation sent to the model (system, user, assistant and tool response messages)
     * @param tools    the tools the request offers, none when it offers none
     */
    public record Turn(int number, List<Message> messages, List<ToolDefinition> tools) {
        public Turn {
            messages = List.copyOf(messages);
            tools = List.copyOf(tools);
        }

        /** The data of the last tool response in the conversation; an {@link AssertionError} when there is none. */
        public String lastToolResult() {
            for (int i = messages.size() - 1; i >= 0; i--) {
                if (messages.get(i) instanceof ToolResponseMessage t && !t.getResponses().isEmpty()) {
                    return t.getResponses().get(t.getResponses().size() - 1).responseData();
                }
            }
            throw new AssertionError("step " + number + " wants the last tool result, but the conversation has none: "
                    + messages);
        }

        /** The text of the last user message in the conversation; an {@link AssertionError} when there is none. */
        public String lastUserMessage() {
            for (int i = messages.size() - 1; i >= 0; i--) {
                if (messages.get(i) instanceof UserMessage user) {
                    return user.getText();
                }
            }
            throw new AssertionError("step " + number + " wants the last user message, but the conversation has none");
        }

        /** The names of the tools offered, in the request's order. */
        public List<String> toolNames() {
            return tools.stream().map(ToolDefinition::name).toList();
        }
    }

    /** A step whose tool calls are not checked against the tools offered. */
    private record Unchecked(Step step) implements Step {
        @Override
        public AssistantMessage answer(Turn turn) {
            return step.answer(turn);
        }
    }

    private final List<Step> steps;
    private final List<Prompt> requests = new ArrayList<>();
    private final List<AssistantMessage> answers = new ArrayList<>();
    private final List<ToolResponseMessage.ToolResponse> toolResults = new ArrayList<>();
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
        return toolCalls(new AssistantMessage.ToolCall(null, "function", tool, argumentsJson));
    }

    /**
     * Calls of several tools in one answer, as models that call tools in parallel send them. A call without an id
     * gets {@code call-<turn>-<n>}.
     */
    public static Step toolCalls(AssistantMessage.ToolCall... calls) {
        List<AssistantMessage.ToolCall> list = List.of(calls);
        if (list.isEmpty()) {
            throw new IllegalArgumentException("a tool-call step needs at least one call");
        }
        return turn -> {
            List<AssistantMessage.ToolCall> withIds = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                AssistantMessage.ToolCall c = list.get(i);
                withIds.add(c.id() != null ? c : new AssistantMessage.ToolCall(
                        "call-" + turn.number() + "-" + (i + 1), c.type(), c.name(), c.arguments()));
            }
            return AssistantMessage.builder().content("").toolCalls(withIds).build();
        };
    }

    /**
     * A call of a tool whether the request offers it or not, as a model that invents a tool name sends it: for
     * testing how the application answers an unknown tool.
     */
    public static Step unknownToolCall(String tool, String argumentsJson) {
        return new Unchecked(toolCall(tool, argumentsJson));
    }

    /** A final answer: this text, no tool calls. */
    public static Step answer(String text) {
        Objects.requireNonNull(text, "text");
        return turn -> new AssistantMessage(text);
    }

    /** A final answer made from the conversation, e.g. {@code answer(turn -> "Done: " + turn.lastToolResult())}. */
    public static Step answer(Function<Turn, String> text) {
        Objects.requireNonNull(text, "text");
        return turn -> new AssistantMessage(text.apply(turn));
    }

    @Override
    public synchronized ChatResponse call(Prompt prompt) {
        try {
            return play(prompt);
        } catch (AssertionError e) {
            if (failure == null) {
                failure = e;
            }
            throw e;
        }
    }

    private ChatResponse play(Prompt prompt) {
        requests.add(prompt);
        List<Message> messages = prompt.getInstructions();
        for (Message m : messages) {
            if (m instanceof ToolResponseMessage t) {
                for (ToolResponseMessage.ToolResponse r : t.getResponses()) {
                    if (r.id() == null || toolResultIds.add(r.id())) {
                        toolResults.add(r);
                    }
                }
            }
        }
        int number = answers.size() + 1;
        if (number > steps.size()) {
            throw new AssertionError("the script has " + steps.size() + " step" + (steps.size() == 1 ? "" : "s")
                    + ", and the model was called a " + ordinal(number) + " time; the last message was: "
                    + (messages.isEmpty() ? "(none)" : messages.get(messages.size() - 1)));
        }
        List<ToolDefinition> tools = new ArrayList<>();
        if (prompt.getOptions() instanceof ToolCallingChatOptions options && options.getToolCallbacks() != null) {
            for (ToolCallback callback : options.getToolCallbacks()) {
                tools.add(callback.getToolDefinition());
            }
        }
        Turn turn = new Turn(number, messages, tools);
        Step step = steps.get(number - 1);
        AssistantMessage answer = step.answer(turn);
        if (answer == null) {
            throw new AssertionError("step " + number + " answered null");
        }
        if (answer.hasToolCalls() && !(step instanceof Unchecked)) {
            for (AssistantMessage.ToolCall call : answer.getToolCalls()) {
                if (!turn.toolNames().contains(call.name())) {
                    throw new AssertionError("step " + number + " calls the tool " + quote(call.name())
                            + ", which the request does not offer; it offers " + turn.toolNames()
                            + " (unknownToolCall(...) calls it anyway)");
                }
            }
        }
        answers.add(answer);
        return new ChatResponse(List.of(new Generation(answer)));
    }

    /** Tool-calling options, so that the {@code ChatClient} passes the tools it is given on to this model. */
    @Override
    public ChatOptions getOptions() {
        return ToolCallingChatOptions.builder().build();
    }

    /** The prompts the model got, in order: messages, and options with the tools offered. */
    public synchronized List<Prompt> requests() {
        return List.copyOf(requests);
    }

    /** The answers the model gave, one per step played, in order. */
    public synchronized List<AssistantMessage> answers() {
        return List.copyOf(answers);
    }

    /**
     * The tool results the loop sent back, each once, in the order they came: what the tools answered to the
     * script's calls (their {@code name()}, {@code id()}, {@code responseData()}).
     */
    public synchronized List<ToolResponseMessage.ToolResponse> toolResults() {
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
