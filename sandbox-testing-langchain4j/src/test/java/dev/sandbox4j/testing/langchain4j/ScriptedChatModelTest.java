package dev.sandbox4j.testing.langchain4j;

import static dev.sandbox4j.testing.langchain4j.ScriptedChatModel.answer;
import static dev.sandbox4j.testing.langchain4j.ScriptedChatModel.toolCall;
import static dev.sandbox4j.testing.langchain4j.ScriptedChatModel.toolCalls;
import static dev.sandbox4j.testing.langchain4j.ScriptedChatModel.unknownToolCall;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.service.AiServices;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The scripted model under AiServices' real tool loop, with @Tool methods that record their arguments. */
class ScriptedChatModelTest {
    interface Agent {
        String chat(String task);
    }

    static final class Calculator {
        final List<String> calls = new CopyOnWriteArrayList<>();

        @Tool("Adds two numbers")
        int add(@P("the first") int a, @P("the second") int b) {
            calls.add("add(" + a + ", " + b + ")");
            return a + b;
        }

        @Tool("Greets someone")
        String greet(@P("who") String name) {
            calls.add("greet(" + name + ")");
            return "hello, " + name;
        }
    }

    private static Agent agent(ScriptedChatModel model, Calculator tools) {
        return AiServices.builder(Agent.class).chatModel(model).tools(tools).build();
    }

    @Test
    void toolCallWithArguments_runsTheToolAndTheAnswerSeesItsResult() {
        Calculator tools = new Calculator();
        ScriptedChatModel model = ScriptedChatModel.of(
                toolCall("add", "{\"a\":40,\"b\":2}"),
                answer(turn -> "the sum is " + turn.lastToolResult()));

        String reply = agent(model, tools).chat("What is 40 + 2?");

        assertThat(reply).isEqualTo("the sum is 42");
        assertThat(tools.calls).containsExactly("add(40, 2)");
        model.assertScriptFinished();
    }

    @Test
    void answersAndToolResults_areRecordedForAssertions() {
        Calculator tools = new Calculator();
        ScriptedChatModel model = ScriptedChatModel.of(
                toolCall("greet", "{\"name\":\"Ada\"}"),
                toolCalls(ToolExecutionRequest.builder().name("add").arguments("{\"a\":1,\"b\":2}").build(),
                        ToolExecutionRequest.builder().id("mine").name("greet").arguments("{\"name\":\"Bo\"}")
                                .build()),
                answer("done"));

        assertThat(agent(model, tools).chat("go")).isEqualTo("done");

        model.assertScriptFinished();
        assertThat(model.stepsPlayed()).isEqualTo(3);
        assertThat(model.answers()).hasSize(3);
        assertThat(model.answers().get(0).toolExecutionRequests()).singleElement()
                .satisfies(c -> assertThat(c.id()).isEqualTo("call-1-1"));
        assertThat(model.answers().get(2).text()).isEqualTo("done");
        assertThat(model.toolResults()).extracting(ToolExecutionResultMessage::toolName)
                .containsExactly("greet", "add", "greet");
        assertThat(model.toolResults()).extracting(ToolExecutionResultMessage::id)
                .containsExactly("call-1-1", "call-2-1", "mine");
        assertThat(model.toolResults()).extracting(ToolExecutionResultMessage::text)
                .containsExactly("hello, Ada", "3", "hello, Bo");
        assertThat(model.requests()).hasSize(3);
        assertThat(model.requests().get(0).messages()).singleElement().isInstanceOf(UserMessage.class);
        assertThat(model.requests().get(0).toolSpecifications()).extracting(s -> s.name())
                .containsExactlyInAnyOrder("add", "greet");
    }

    @Test
    void scriptRunsOut_failsNamingTheExtraCall() {
        ScriptedChatModel model = ScriptedChatModel.of(toolCall("add", "{\"a\":1,\"b\":1}"));

        assertThatThrownBy(() -> agent(model, new Calculator()).chat("go"))
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("the script has 1 step, and the model was called a 2nd time; the last message"
                        + " was: ToolExecutionResultMessage");
        assertThatThrownBy(model::assertScriptFinished).isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("the script failed: the script has 1 step");
    }

    @Test
    void loopStopsEarly_assertScriptFinishedSaysWhatIsLeft() {
        ScriptedChatModel model = ScriptedChatModel.of(answer("early"), answer("never"));

        assertThat(agent(model, new Calculator()).chat("go")).isEqualTo("early");

        assertThatThrownBy(model::assertScriptFinished).isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("the script has 2 steps, but the loop stopped after 1; the last answer was");
    }

    @Test
    void toolNotOffered_failsNamingTheToolsThatAre() {
        ScriptedChatModel model = ScriptedChatModel.of(toolCall("multiply", "{\"a\":2,\"b\":3}"));

        assertThatThrownBy(() -> agent(model, new Calculator()).chat("go"))
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("step 1 calls the tool \"multiply\", which the request does not offer;"
                        + " it offers [")
                .hasMessageContaining("add").hasMessageContaining("greet");
    }

    @Test
    void unknownToolCall_reachesTheLoop_whichAnswersWithAnError() {
        ScriptedChatModel model = ScriptedChatModel.of(
                unknownToolCall("multiply", "{\"a\":2,\"b\":3}"),
                answer(turn -> "the loop said: " + turn.lastToolResult()));

        // the loop's own answer to an invented tool name: here, an error result the model reads
        Agent agent = AiServices.builder(Agent.class).chatModel(model).tools(new Calculator())
                .hallucinatedToolNameStrategy(call -> ToolExecutionResultMessage.from(call,
                        "Error: there is no tool called " + call.name()))
                .build();
        String reply = agent.chat("go");

        assertThat(reply).isEqualTo("the loop said: Error: there is no tool called multiply");
        model.assertScriptFinished();
    }

    @Test
    void expectationOnTheToolResult_mismatchQuotesTheResult() {
        ScriptedChatModel model = ScriptedChatModel.of(
                toolCall("greet", "{\"name\":\"Ada\"}"),
                answer("fine").expectingToolResultContaining("goodbye"));

        assertThatThrownBy(() -> agent(model, new Calculator()).chat("go"))
                .isInstanceOf(AssertionError.class)
                .hasMessage("step 2 expected the last tool result to contain \"goodbye\", but it was \"hello, Ada\"");
    }

    @Test
    void expectationOnTheToolResult_thatHolds_playsTheStep() {
        ScriptedChatModel model = ScriptedChatModel.of(
                toolCall("greet", "{\"name\":\"Ada\"}"),
                answer(turn -> turn.lastUserMessage() + " -> ok").expectingToolResultContaining("hello"));

        assertThat(agent(model, new Calculator()).chat("greet Ada")).isEqualTo("greet Ada -> ok");
        model.assertScriptFinished();
    }

    @Test
    void noToolResultYet_lastToolResultFailsClearly() {
        ScriptedChatModel model = ScriptedChatModel.of(answer(turn -> turn.lastToolResult()));

        assertThatThrownBy(() -> agent(model, new Calculator()).chat("go"))
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("step 1 wants the last tool result, but the conversation has none");
    }

    @Test
    void plainChat_withoutAiServices() {
        ScriptedChatModel model = ScriptedChatModel.of(answer("hi"));
        assertThat(model.chat("hello")).isEqualTo("hi");
        model.assertScriptFinished();
    }
}
