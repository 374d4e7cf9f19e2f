// apps.mjs: the official TypeScript SDK client (@modelcontextprotocol/sdk,
// 2025-11-25) reads an MCP Apps server's ui:// resource and lists its tools
// through the gateway and directly from the server, compares them, and
// calls the app-only tool through the gateway under the name the app knows.
//
// usage: node apps.mjs GATEWAY_URL PREFIX TOOL UPSTREAM_COMMAND [ARG...]
// PREFIX is what the gateway puts before the server's tool names ("" for
// none): the app still calls TOOL by the upstream's name.
// env: NODE_MODULES, the node_modules directory holding the SDKs;
// GATEWAY_CLIENT=client talks to the gateway with @modelcontextprotocol/client
// 2.x pinned to 2026-07-28 instead of @modelcontextprotocol/sdk 1.x.
// Prints one JSON object: {"errors": [...], "figures": {...}}.
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(join(process.env.NODE_MODULES, "noop.js"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const [url, prefix, appTool, command, ...args] = process.argv.slice(2);
const errors = [];
const figures = {};
const check = (ok, msg) => { if (!ok) errors.push(msg); };
// The MCP Apps extension, as a host declares it.
const caps = { capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } } };

let gw, gwTransport;
if (process.env.GATEWAY_CLIENT === "client") {
  const v2 = require("@modelcontextprotocol/client");
  gw = new v2.Client({ name: "apps-host", version: "2.0.0" }, { ...caps, versionNegotiation: { mode: { pin: "2026-07-28" } } });
  gwTransport = new v2.StreamableHTTPClientTransport(new URL(url));
} else {
  gw = new Client({ name: "apps-host", version: "1.0.0" }, caps);
  gwTransport = new StreamableHTTPClientTransport(new URL(url));
}
const direct = new Client({ name: "apps-host", version: "1.0.0" }, caps);
try {
  await gw.connect(gwTransport);
  await direct.connect(new StdioClientTransport({ command, args, env: process.env }));
  figures.protocolVersion = gw.getNegotiatedProtocolVersion?.() ?? gwTransport.protocolVersion ?? null;

  const byName = (l) => Object.fromEntries(l.tools.map((t) => [t.name, t]));
  const gwTools = byName(await gw.listTools());
  const upTools = byName(await direct.listTools());
  for (const [name, t] of Object.entries(upTools)) {
    const g = gwTools[prefix + name];
    check(g !== undefined, `tool ${prefix + name} is not listed through the gateway (${Object.keys(gwTools)})`);
    if (g) check(JSON.stringify(g._meta) === JSON.stringify(t._meta), `tool ${name} _meta: gateway ${JSON.stringify(g._meta)}, direct ${JSON.stringify(t._meta)}`);
  }

  const upRes = (await direct.listResources()).resources.filter((r) => r.uri.startsWith("ui://"));
  const gwRes = (await gw.listResources()).resources;
  check(upRes.length > 0, "the server lists no ui:// resource");
  for (const r of upRes) {
    const g = gwRes.find((x) => x.uri === r.uri);
    check(g !== undefined, `resource ${r.uri} is not listed through the gateway`);
    if (g) check(JSON.stringify(g) === JSON.stringify(r), `resource entry ${r.uri}: gateway ${JSON.stringify(g)}, direct ${JSON.stringify(r)}`);
    const t0 = performance.now();
    const viaGw = await gw.readResource({ uri: r.uri });
    figures.readMsGateway = Math.round(performance.now() - t0);
    const t1 = performance.now();
    const viaUp = await direct.readResource({ uri: r.uri });
    figures.readMsDirect = Math.round(performance.now() - t1);
    const a = JSON.stringify(viaGw.contents), b = JSON.stringify(viaUp.contents);
    figures.contentsBytes = b.length;
    check(viaUp.contents.length > 0 && a === b, `read ${r.uri}: gateway ${a.length} bytes, direct ${b.length} bytes, equal ${a === b}`);
    check(viaGw.contents.every((c) => c.mimeType === "text/html;profile=mcp-app"), `read ${r.uri}: MIME types ${viaGw.contents.map((c) => c.mimeType)}`);
  }

  // The app's HTML calls the tool by the upstream's name.
  const res = await gw.callTool({ name: appTool, arguments: {} });
  check(!res.isError && res.structuredContent && Array.isArray(res.structuredContent.cpu?.cores),
    `${appTool} through the gateway: ${JSON.stringify(res).slice(0, 300)}`);
} catch (e) {
  errors.push(`exception: ${e && e.stack || e}`);
} finally {
  await gw.close().catch(() => {});
  await direct.close().catch(() => {});
}
console.log(JSON.stringify({ errors, figures }));
process.exit(0);
