// Drives the sandbox4j MCP server started with --tools PROFILE with the official MCP TypeScript SDK client: lists the
// tools, makes the calls listed in a JSON file, and prints what it observed as one JSON object on stdout;
// McpProfilesTest asserts on it. Usage: node profiles.mjs <java> <classpath> <backend> <profile> <calls.json>
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

// With "http" first, the second argument is a running server's MCP endpoint, reached over Streamable HTTP.
const [java, classpath, backend, profile, callsFile] = process.argv.slice(2);
const transport = java === "http"
  ? new StreamableHTTPClientTransport(new URL(classpath))
  : new StdioClientTransport({
    command: java,
    args: ["-cp", classpath, "dev.sandbox4j.mcp.SandboxMcpServer", "--backend", backend, "--tools", profile],
    stderr: "inherit",
  });
const client = new Client({ name: "sandbox4j-profile-test", version: "1.0.0" });
// the server's logging notifications (set_status sends one per status), in the order they came
const logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs.push(n.params); });
await client.connect(transport);
const report = { backend, profile, logs };

const tools = (await client.listTools()).tools;
report.tools = Object.fromEntries(tools.map((t) => [t.name, {
  properties: Object.keys(t.inputSchema.properties ?? {}),
  required: t.inputSchema.required ?? [],
  additionalProperties: t.inputSchema.additionalProperties,
  outputProperties: Object.keys(t.outputSchema?.properties ?? {}),
  title: t.title ?? null,
}]));

// the official client validates structuredContent against the tool's outputSchema: a mismatch throws here.
// An argument "$sandbox_id" stands for the sandbox_id the last create_sandbox returned, "$session_id" for the
// session_id the last exec_command or write_stdin returned (codex).
const parse = (text) => { try { return JSON.parse(text); } catch { return null; } };
report.calls = [];
let sandboxId = null;
let sessionId = null;
for (const call of JSON.parse(readFileSync(callsFile, "utf8"))) {
  const args = Object.fromEntries(Object.entries(call.arguments).map(([k, v]) => [k, v === "$sandbox_id" ? sandboxId : v === "$session_id" ? sessionId : v]));
  const r = await client.callTool({ name: call.name, arguments: args }, undefined, { timeout: 120000 });
  if (r.structuredContent?.sandbox_id && call.name === "create_sandbox") sandboxId = r.structuredContent.sandbox_id;
  if (r.structuredContent?.session_id !== undefined) sessionId = r.structuredContent.session_id;
  const text = r.content[0]?.type === "text" ? r.content[0].text : null;
  const parsed = text === null ? null : parse(text);
  report.calls.push({
    name: call.name,
    isError: r.isError ?? false,
    // a surface with its own result schema answers failures without structured content: the text is the result
    structured: r.structuredContent ?? parsed,
    hasStructured: r.structuredContent !== undefined,
    text,
    images: r.content.filter((c) => c.type === "image").map((c) => c.mimeType),
    textMatches: r.structuredContent === undefined
      || (parsed !== null && JSON.stringify(parsed) === JSON.stringify(r.structuredContent))
      || (typeof r.structuredContent.content === "string" && r.structuredContent.content === text)
      || Array.isArray(r.structuredContent.content)
      // codex's exec tools answer in Codex's text, which ends with the output
      || (typeof r.structuredContent.output === "string" && text !== null
        && text.startsWith("Chunk ID: ") && text.endsWith("\nOutput:\n" + r.structuredContent.output)),
  });
}

await client.close();
process.stdout.write(JSON.stringify(report) + "\n");
