/**
 * An MCP server (stdio) exposing the sandbox tools to any MCP client: strict input schemas, annotations, structured
 * output, progress with partial output, and cancellation that kills the command's process tree. One sandbox per
 * server process; requests run on the MCP SDK's threads.
 */
package dev.sandbox4j.mcp;
