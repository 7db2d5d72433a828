package dev.sandbox4j.testing.springai;

import static dev.sandbox4j.testing.springai.ScriptedChatModel.answer;
import static dev.sandbox4j.testing.springai.ScriptedChatModel.toolCall;
import static dev.sandbox4j.testing.springai.ScriptedChatModel.toolCalls;
import static dev.sandbox4j.testing.springai.ScriptedChatModel.unknownToolCall;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;

/** The scripted model under the ChatClient's real tool loop, with tool callbacks that record their calls. */
class ScriptedChatModelTest {
    /** A tool that records its arguments and tool context, and answers {@code answer(arguments)}. */
    static final class RecordingTool implements ToolCallback {
        final ToolDefinition definition;
        final Function<String, String> answer;
        final List<String> calls = new CopyOnWriteArrayList<>();

        RecordingTool(String name, Function<String, String> answer) {
            this.definition = ToolDefinition.builder().name(name).description("the " + name + " tool")
                    .inputSchema("{\"type\":\"object\"}").build();
            this.answer = answer;
        }

        @Override
        public ToolDefinition getToolDefinition() {
            return definition;
        }

        @Override
        public String call(String arguments) {
            return call(arguments, null);
        }

        @Override
        public String call(String arguments, ToolContext context) {
            calls.add(arguments + (context == null ? "" : " " + context.getContext()));
            return answer.apply(arguments);
        }
    }

    private final RecordingTool add = new RecordingTool("add", args -> args.contains("\"a\":40") ? "42" : "3");
    private final RecordingTool greet = new RecordingTool("greet", args -> "hello, "
            + args.replaceAll(".*\"name\":\"([^\"]*)\".*", "$1"));

    private String run(ScriptedChatModel model, String task) {
        return ChatClient.create(model).prompt(task).toolCallbacks(add, greet)
                .toolContext(Map.of("conversation", "c1")).call().content();
    }

    @Test
    void toolCallWithArguments_runsTheToolAndTheAnswerSeesItsResult() {
        ScriptedChatModel model = ScriptedChatModel.of(
                toolCall("add", "{\"a\":40,\"b\":2}"),
                answer(turn -> "the sum is " + turn.lastToolResult()));

        assertThat(run(model, "What is 40 + 2?")).isEqualTo("the sum is 42");

        assertThat(add.calls).containsExactly("{\"a\":40,\"b\":2} {conversation=c1}");
        model.assertScriptFinished();
    }

    @Test
    void answersAndToolResults_areRecordedForAssertions() {
        ScriptedChatModel model = ScriptedChatModel.of(
                toolCall("greet", "{\"name\":\"Ada\"}"),
                toolCalls(new AssistantMessage.ToolCall(null, "function", "add", "{\"a\":1,\"b\":2}"),
                        new AssistantMessage.ToolCall("mine", "function", "greet", "{\"name\":\"Bo\"}")),
                answer("done"));

        assertThat(run(model, "go")).isEqualTo("done");

        model.assertScriptFinished();
        assertThat(model.stepsPlayed()).isEqualTo(3);
        assertThat(model.answers()).hasSize(3);
        assertThat(model.answers().get(0).getToolCalls()).singleElement()
                .satisfies(c -> assertThat(c.id()).isEqualTo("call-1-1"));
        assertThat(model.answers().get(2).getText()).isEqualTo("done");
        assertThat(model.toolResults()).extracting(ToolResponseMessage.ToolResponse::name)
                .containsExactly("greet", "add", "greet");
        assertThat(model.toolResults()).extracting(ToolResponseMessage.ToolResponse::id)
                .containsExactly("call-1-1", "call-2-1", "mine");
        assertThat(model.toolResults()).extracting(ToolResponseMessage.ToolResponse::responseData)
                .containsExactly("hello, Ada", "3", "hello, Bo");
        assertThat(model.requests()).hasSize(3);
        assertThat(model.requests().get(0).getInstructions()).singleElement().isInstanceOf(UserMessage.class);
        assertThat(((ToolCallingChatOptions) model.requests().get(0).getOptions()).getToolCallbacks())
                .extracting(c -> c.getToolDefinition().name()).containsExactly("add", "greet");
    }

    @Test
    void scriptRunsOut_failsNamingTheExtraCall() {
        ScriptedChatModel model = ScriptedChatModel.of(toolCall("add", "{\"a\":1,\"b\":1}"));

        assertThatThrownBy(() -> run(model, "go"))
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("the script has 1 step, and the model was called a 2nd time; the last message"
                        + " was: ToolResponseMessage");
        assertThatThrownBy(model::assertScriptFinished).isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("the script failed: the script has 1 step");
    }

    @Test
    void loopStopsEarly_assertScriptFinishedSaysWhatIsLeft() {
        ScriptedChatModel model = ScriptedChatModel.of(answer("early"), answer("never"));

        assertThat(run(model, "go")).isEqualTo("early");

        assertThatThrownBy(model::assertScriptFinished).isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("the script has 2 steps, but the loop stopped after 1; the last answer was");
    }

    @Test
    void toolNotOffered_failsNamingTheToolsThatAre() {
        ScriptedChatModel model = ScriptedChatModel.of(toolCall("multiply", "{\"a\":2,\"b\":3}"));

        assertThatThrownBy(() -> run(model, "go"))
                .isInstanceOf(AssertionError.class)
                .hasMessage("step 1 calls the tool \"multiply\", which the request does not offer; it offers"
                        + " [add, greet] (unknownToolCall(...) calls it anyway)");
    }

    @Test
    void unknownToolCall_reachesTheLoop() {
        ScriptedChatModel model = ScriptedChatModel.of(
                unknownToolCall("multiply", "{\"a\":2,\"b\":3}"),
                answer("unreachable"));

        // Spring AI 2's tool loop refuses a tool it does not know: the application sees its exception
        assertThatThrownBy(() -> run(model, "go")).hasMessageContaining("multiply");
        assertThat(model.stepsPlayed()).isEqualTo(1);
    }

    @Test
    void expectationOnTheToolResult_mismatchQuotesTheResult() {
        ScriptedChatModel model = ScriptedChatModel.of(
                toolCall("greet", "{\"name\":\"Ada\"}"),
                answer("fine").expectingToolResultContaining("goodbye"));

        assertThatThrownBy(() -> run(model, "go"))
                .isInstanceOf(AssertionError.class)
                .hasMessage("step 2 expected the last tool result to contain \"goodbye\", but it was \"hello, Ada\"");
    }

    @Test
    void expectationOnTheToolResult_thatHolds_playsTheStep() {
        ScriptedChatModel model = ScriptedChatModel.of(
                toolCall("greet", "{\"name\":\"Ada\"}"),
                answer(turn -> turn.lastUserMessage() + " -> ok").expectingToolResultContaining("hello"));

        assertThat(run(model, "greet Ada")).isEqualTo("greet Ada -> ok");
        model.assertScriptFinished();
    }

    @Test
    void noToolResultYet_lastToolResultFailsClearly() {
        ScriptedChatModel model = ScriptedChatModel.of(answer(turn -> turn.lastToolResult()));

        assertThatThrownBy(() -> run(model, "go"))
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("step 1 wants the last tool result, but the conversation has none");
    }
}
