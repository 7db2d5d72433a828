/**
 * The agent tools, framework-free: a catalog of tools (names, JSON schemas, annotations), argument checking, and
 * dispatch to a {@link dev.sandbox4j.Sandbox} with results shaped for a model (one truncation marker, structured
 * errors with {@code retryable}). The LangChain4j and MCP modules adapt it; calls run on the caller's thread.
 */
package dev.sandbox4j.tools;
