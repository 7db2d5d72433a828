// Drives the sandbox4j MCP server started with --tools PROFILE with the official MCP TypeScript SDK client: lists the
// tools, makes the calls listed in a JSON file, and prints what it observed as one JSON object on stdout;
// McpProfilesTest asserts on it. Usage: node profiles.mjs <java> <classpath> <backend> <profile> <calls.json>
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [java, classpath, backend, profile, callsFile] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: java,
  args: ["-cp", classpath, "dev.sandbox4j.mcp.SandboxMcpServer", "--backend", backend, "--tools", profile],
  stderr: "inherit",
});
const client = new Client({ name: "sandbox4j-profile-test", version: "1.0.0" });
await client.connect(transport);
const report = { backend, profile };

const tools = (await client.listTools()).tools;
report.tools = Object.fromEntries(tools.map((t) => [t.name, {
  properties: Object.keys(t.inputSchema.properties ?? {}),
  required: t.inputSchema.required ?? [],
  additionalProperties: t.inputSchema.additionalProperties,
  outputProperties: Object.keys(t.outputSchema?.properties ?? {}),
  title: t.title ?? null,
}]));

// the official client validates structuredContent against the tool's outputSchema: a mismatch throws here
report.calls = [];
for (const call of JSON.parse(readFileSync(callsFile, "utf8"))) {
  const r = await client.callTool({ name: call.name, arguments: call.arguments }, undefined, { timeout: 120000 });
  report.calls.push({
    name: call.name,
    isError: r.isError ?? false,
    structured: r.structuredContent,
    textMatches: JSON.stringify(JSON.parse(r.content[0].text)) === JSON.stringify(r.structuredContent),
  });
}

await client.close();
process.stdout.write(JSON.stringify(report) + "\n");
