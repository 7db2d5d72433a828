// Drives the sandbox4j MCP server over Streamable HTTP with the official MCP TypeScript SDK client: two clients with
// the token, one without; prints what it observed as one JSON object. Usage: node http.mjs <url> <token>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token] = process.argv.slice(2);
const connect = async (withToken) => {
  const headers = withToken ? { Authorization: `Bearer ${token}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: "sandbox4j-http-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
};
const report = {};
const a = await connect(true);
const b = await connect(true);
report.tools = (await a.client.listTools()).tools.map((t) => t.name);
const call = async (c, name, args) => (await c.client.callTool({ name, arguments: args })).structuredContent;
report.write = await call(a, "write_file", { path: "mine.txt", content: "a's" });
report.readOwn = await call(a, "read_file", { path: "mine.txt" });
report.readOther = await call(b, "read_file", { path: "mine.txt" });
const created = await call(a, "create_sandbox", {});
report.otherUsesId = await call(b, "bash", { command: "echo x", sandbox_id: created.sandbox_id });
report.bash = await call(b, "bash", { command: "echo hi" });
try {
  await connect(false);
  report.noToken = "connected";
} catch (e) {
  report.noToken = String(e.message ?? e);
}
await a.transport.terminateSession();
await a.client.close();
await b.client.close();
process.stdout.write(JSON.stringify(report) + "\n");
