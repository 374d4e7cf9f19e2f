// sse.mjs: the official TypeScript SDK client (@modelcontextprotocol/sdk
// 1.x) over the legacy HTTP+SSE transport (2024-11-05): connects with a
// bearer token, lists the tools and calls one.
//
// usage: node sse.mjs SSE_URL TOKEN TOOL
// env: NODE_MODULES, the node_modules directory holding the SDK.
// Prints one JSON object: {"errors": [...], "figures": {...}}.
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(join(process.env.NODE_MODULES, "noop.js"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { SSEClientTransport } = require("@modelcontextprotocol/sdk/client/sse.js");

const [url, token, tool] = process.argv.slice(2);
const errors = [];
const figures = {};
const client = new Client({ name: "old-ts-client", version: "1.0.0" });
try {
  await client.connect(new SSEClientTransport(new URL(url), { requestInit: { headers: { Authorization: "Bearer " + token } } }));
  figures.protocolVersion = client.transport?.protocolVersion ?? "";
  const { tools } = await client.listTools();
  figures.tools = tools.map((t) => t.name);
  if (!figures.tools.includes(tool)) errors.push(`no ${tool} in ${figures.tools}`);
  const res = await client.callTool({ name: tool, arguments: {} });
  figures.isError = !!res.isError;
  figures.text = (res.content ?? []).map((c) => c.text ?? "").join("");
} catch (e) {
  errors.push(String(e?.stack ?? e));
} finally {
  await client.close().catch(() => {});
}
console.log(JSON.stringify({ errors, figures }));
