/**
 * Test helpers for agents built on Spring AI 2: {@link dev.sandbox4j.testing.springai.ScriptedChatModel}, a
 * {@code ChatModel} that replays tool calls and final answers under the {@code ChatClient}'s tool loop, so a test
 * drives the real loop without a network or an API key. For test scope only.
 */
package dev.sandbox4j.testing.springai;
