package com.example.agent;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.tools.SandboxTools;
import dev.sandbox4j.tools.ToolConfig;
import dev.sandbox4j.tools.ToolResult;
import dev.sandbox4j.tools.ToolSpec;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An agent loop without a framework: the model proposes tool calls, the loop runs each in the sandbox and hands the
 * result back. {@link SandboxTools} does the work: the tool names and JSON schemas to offer the model
 * ({@link ToolSpec#inputSchema()}), and {@link SandboxTools#call}, which never throws: bad arguments and sandbox
 * errors come back as results ({@code "success":false}, {@code "error_type"}) the model can read and act on.
 */
public final class AgentLoop {
    /** One tool call as a model emits it: the tool's name and its arguments (parsed from the model's JSON). */
    public record ToolCall(String tool, Map<String, Object> arguments) {
    }

    /** The model's side of the loop: the next tool call given the results so far, or empty when it is done. */
    public interface Model {
        Optional<ToolCall> next(List<ToolResult> resultsSoFar);
    }

    private final SandboxTools tools;

    public AgentLoop(Sandbox sandbox, ToolConfig config) {
        this.tools = new SandboxTools(sandbox, config);
    }

    /** What to offer the model: each tool's name, description and JSON schema. */
    public List<ToolSpec> toolsForTheModel() {
        return tools.specs();
    }

    /** Runs the model's tool calls until it is done, at most {@code maxSteps} of them; returns every result. */
    public List<ToolResult> run(Model model, int maxSteps) {
        List<ToolResult> results = new ArrayList<>();
        for (int step = 0; step < maxSteps; step++) {
            Optional<ToolCall> call = model.next(results);
            if (call.isEmpty()) {
                break;
            }
            results.add(tools.call(call.get().tool(), call.get().arguments()));
        }
        return results;
    }

    /** A model that replays a fixed list of tool calls (a real one would call an LLM with the results so far). */
    public static Model scripted(List<ToolCall> calls) {
        Iterator<ToolCall> next = calls.iterator();
        return results -> next.hasNext() ? Optional.of(next.next()) : Optional.empty();
    }

    public static void main(String[] args) {
        List<ToolCall> script = List.of(
                new ToolCall("write_file", Map.of("path", "greet.py", "content", "print('hello, ' + 'wrold')\n")),
                new ToolCall("bash", Map.of("command", "python3 greet.py")),
                new ToolCall("str_replace", Map.of("path", "greet.py", "old_str", "wrold", "new_str", "world")),
                new ToolCall("bash", Map.of("command", "python3 greet.py")));
        try (Sandbox sandbox = Sandboxes.open()) {   // the best backend here: local (bubblewrap), else docker
            AgentLoop loop = new AgentLoop(sandbox, ToolConfig.defaults());
            System.out.println(loop.toolsForTheModel().size() + " tools offered to the model, in a "
                    + sandbox.info().backend() + " sandbox");
            for (ToolResult result : loop.run(scripted(script), 10)) {
                System.out.println(result.toJson());
            }
        }
    }
}
