/**
 * Test helpers for agent loops built on LangChain4j: {@link dev.sandbox4j.testing.langchain4j.ScriptedChatModel}, a
 * {@code ChatModel} that replays tool calls and final answers, so a test drives the real tool loop ({@code AiServices}
 * or a hand-written one) without a network or an API key. For test scope only.
 */
package dev.sandbox4j.testing.langchain4j;
