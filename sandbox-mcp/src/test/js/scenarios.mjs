// Drives the sandbox4j MCP server with the official MCP TypeScript SDK client and prints what it observed as one JSON
// object on stdout; McpOfficialClientTest asserts on it. Usage: node scenarios.mjs <java> <classpath> <backend>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";

const [java, classpath, backend] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: java,
  args: ["-cp", classpath, "dev.sandbox4j.mcp.SandboxMcpServer", "--backend", backend, "--heartbeat-seconds", "1"],
  stderr: "pipe",
});
// the server's log (stderr), passed through and kept for the report: no warning may appear in it
let serverLog = "";
const keepLog = (stream) => stream?.on("data", (chunk) => { serverLog += chunk; process.stderr.write(chunk); });
keepLog(transport.stderr);
const client = new Client({ name: "sandbox4j-test", version: "1.0.0" });
await client.connect(transport);
const report = { backend };

const tools = (await client.listTools()).tools;
report.tools = Object.fromEntries(tools.map((t) => [t.name, {
  additionalProperties: t.inputSchema.additionalProperties,
  annotations: t.annotations ?? null,
  outputSchemaType: t.outputSchema?.type ?? null,
  title: t.title ?? null,
}]));

// the argument rule: no coercion between JSON types
report.strict = {};
for (const [key, name, args] of [
  ["stringTimeout", "bash", { command: "echo hi", timeout: "5" }],
  ["fractionTimeout", "bash", { command: "echo hi", timeout: 1.5 }],
  ["barePaths", "read_multiple_files", { paths: "a.txt" }],
  ["stringBoolean", "grep", { pattern: "x", case_insensitive: "true" }],
]) {
  const r = await client.callTool({ name, arguments: args });
  report.strict[key] = { isError: r.isError ?? false, structured: r.structuredContent };
}

// a tool the server does not have: a protocol error naming it and the tools there are
try {
  await client.callTool({ name: "no_such_tool", arguments: {} });
  report.unknownTool = { rejected: null };
} catch (e) {
  report.unknownTool = { rejected: String(e), code: e.code ?? null };
}

// a cancellation for a request that is not running (the client sends these after late aborts): no warning, no harm
await client.notification({ method: "notifications/cancelled", params: { requestId: 987654, reason: "test" } });

// the official client validates structuredContent against outputSchema: a mismatch throws here
const echo = await client.callTool({ name: "bash", arguments: { command: "echo hi" } });
report.echo = { structured: echo.structuredContent, text: JSON.parse(echo.content[0].text), isError: echo.isError };

const unknown = await client.callTool({ name: "bash", arguments: { command: "echo hi", colour: "red" } });
report.unknownArgument = { isError: unknown.isError, structured: unknown.structuredContent };
const unknownKill = await client.callTool({ name: "kill_sandbox", arguments: { sandbox_id: "x", force: true } });
report.unknownKillArgument = { isError: unknownKill.isError, structured: unknownKill.structuredContent };

if (backend !== "memory") {
  // progress: partial output while a command runs
  const progress = [];
  const ticking = await client.callTool(
    { name: "bash", arguments: { command: "for i in 1 2 3 4; do echo tick$i; sleep 1; done" } },
    CallToolResultSchema,
    { onprogress: (p) => progress.push(p), timeout: 60000 });
  report.progress = { messages: progress.map((p) => p.message ?? ""), result: ticking.structuredContent };

  // cancellation: abort a call whose command started a process tree, then look for the processes
  const controller = new AbortController();
  const started = Date.now();
  const long = client.callTool(
    { name: "bash", arguments: { command: "sleep 297 & echo $! > tree.pid; sh -c 'sleep 296' & echo $! >> tree.pid;"
      + " echo $$ >> tree.pid; sleep 298" } },
    CallToolResultSchema, { signal: controller.signal, timeout: 120000 });
  await new Promise((r) => setTimeout(r, 2000));
  controller.abort("test cancels");
  const cancelledAt = Date.now();
  let rejected = null;
  try { await long; } catch (e) { rejected = String(e); }
  const check = await client.callTool({ name: "bash", arguments: { command:
    "for p in $(cat tree.pid); do if kill -0 $p 2>/dev/null; then echo alive $p; else echo gone $p; fi; done;"
    + " ps -eo args 2>/dev/null | grep -c '^sleep 29[678]' || true" } });
  report.cancel = {
    rejected,
    checkAfterMs: Date.now() - cancelledAt,
    abortedAfterMs: cancelledAt - started,
    check: check.structuredContent,
  };
}

const after = await client.callTool({ name: "bash", arguments: { command: "echo still here" } });
report.afterCancels = after.structuredContent;
await new Promise((r) => setTimeout(r, 500));
report.serverLog = serverLog;
await client.close();
process.stdout.write(JSON.stringify(report) + "\n");
