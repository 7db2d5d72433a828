/**
 * The sandbox tools as LangChain4j tools ({@code @Tool} methods over sandbox-tools' dispatch), so an AI service can
 * be given them in one line; a tool call's thread interrupted cancels its command.
 */
package dev.sandbox4j.langchain4j;
