package com.example.agent;

import dev.sandbox4j.spring.SandboxToolCallbacks;
import java.util.Map;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** POST a task to /agent/{conversation}: the model works on it with the sandbox tools, in that conversation's sandbox. */
@RestController
class AgentController {
    private final ChatClient chat;
    private final SandboxToolCallbacks sandboxTools;     // auto-configured by the starter

    AgentController(ChatClient.Builder builder, SandboxToolCallbacks sandboxTools) {   // the builder: the model starter's
        this.chat = builder.build();
        this.sandboxTools = sandboxTools;
    }

    @PostMapping("/agent/{conversation}")
    String ask(@PathVariable String conversation, @RequestBody String task) {
        return chat.prompt(task)
                .tools(sandboxTools)                                                 // bash, view, str_replace, ...
                .toolContext(Map.of(ChatMemory.CONVERSATION_ID, conversation))      // one sandbox per conversation
                .call().content();
    }
}
