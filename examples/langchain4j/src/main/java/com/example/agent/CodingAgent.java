package com.example.agent;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.SystemMessage;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.langchain4j.SandboxToolProvider;

/** A coding agent: a LangChain4j AI service whose tools run in a sandbox (a bubblewrap jail here). */
public final class CodingAgent {
    /** What the application asks; AiServices implements it and runs the tool loop. */
    public interface Assistant {
        @SystemMessage("You work in a sandbox through its tools. Do the task, check it worked, then say what you did.")
        String chat(String task);
    }

    private CodingAgent() {
    }

    /** The agent over one sandbox: the model sees bash, view, write_file, str_replace, ... */
    public static Assistant create(ChatModel model, Sandbox sandbox) {
        return AiServices.builder(Assistant.class)
                .chatModel(model)
                .toolProvider(new SandboxToolProvider(sandbox))
                .build();
    }

    public static void main(String[] args) {
        ChatModel model = OpenAiChatModel.builder()
                .apiKey(System.getenv("OPENAI_API_KEY"))
                .modelName("gpt-5-mini")
                .build();
        String task = args.length > 0 ? String.join(" ", args) : "Write fizzbuzz.py, run it, and fix it until it works";
        try (Sandbox sandbox = Sandboxes.open()) {   // the best backend here: local, else docker
            System.out.println(create(model, sandbox).chat(task));
        }
    }
}
