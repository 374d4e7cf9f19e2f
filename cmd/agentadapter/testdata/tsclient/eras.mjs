// eras.mjs: an official TypeScript MCP client against an agentadapter
// serve endpoint whose upstreams are server-everything and the notes test
// server, at the client's era: tools, resources, prompts, completions, an
// approval answered by the client's user (elicitation before 2026-07-28,
// input-required results from it on), a task-only upstream tool,
// tools/list_changed, and (2.x) a task the client creates and polls.
//
// usage: node eras.mjs sdk|client URL
//   sdk:    @modelcontextprotocol/sdk 1.x, 2025-11-25 (sessions)
//   client: @modelcontextprotocol/client 2.x pinned to 2026-07-28 (stateless)
// env: NODE_MODULES, the node_modules directory holding the SDKs.
// Prints one JSON object: {"errors": [...], "figures": {...}}; each error
// names its step.
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(join(process.env.NODE_MODULES, "noop.js"));
const [kind, url] = process.argv.slice(2);
const errors = [];
const figures = {};
const fail = (step, msg) => errors.push(`${step}: ${msg}`);
const text = (res) => (res.content || []).filter((c) => c.type === "text").map((c) => c.text).join("");

let listChanged = 0;
let elicited = [];
// The user approves the call whose arguments say so, declines the others.
const onElicit = async (req) => {
  const msg = req.params.message || "";
  elicited.push(msg);
  return { action: "accept", content: { approve: msg.includes("approve me") } };
};

let client, transport;
if (kind === "sdk") {
  const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const { ElicitRequestSchema, ToolListChangedNotificationSchema } = require("@modelcontextprotocol/sdk/types.js");
  client = new Client({ name: "ts-sdk", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, onElicit);
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => { listChanged++; });
  transport = new StreamableHTTPClientTransport(new URL(url));
} else {
  const { Client, StreamableHTTPClientTransport } = require("@modelcontextprotocol/client");
  client = new Client({ name: "ts-client", version: "2.0.0" }, {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    listChanged: { tools: { autoRefresh: false, onChanged: () => { listChanged++; } } },
  });
  client.setRequestHandler("elicitation/create", onElicit);
  transport = new StreamableHTTPClientTransport(new URL(url));
}

async function step(name, fn) {
  try {
    await fn();
  } catch (e) {
    fail(name, `exception: ${(e && e.message) || e}`);
  }
}

await step("connect", async () => {
  await client.connect(transport);
  figures.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion ?? null;
});

if (errors.length === 0) {
  await step("tools", async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const want of ["echo", "add_note", "simulate-research-query", "grow"]) {
      if (!names.includes(want)) fail("tools", `tools/list lacks ${want}: ${names}`);
    }
    const res = await client.callTool({ name: "echo", arguments: { message: "hi" } });
    if (res.isError || text(res) !== "Echo: hi") fail("tools", `echo: ${JSON.stringify(res)}`);
    const nf = await client.callTool({ name: "no-such-tool", arguments: {} });
    if (!nf.isError || !text(nf).includes('"kind":"not_found"')) fail("tools", `a made-up tool: ${JSON.stringify(nf)}`);
  });

  await step("resources", async () => {
    const uris = (await client.listResources()).resources.map((r) => r.uri);
    const doc = "demo://resource/static/document/architecture.md";
    if (!uris.includes(doc)) fail("resources", `resources/list lacks ${doc}: ${uris}`);
    const r = await client.readResource({ uri: doc });
    if (!r.contents?.[0]?.text) fail("resources", `read ${doc}: ${JSON.stringify(r).slice(0, 200)}`);
    const tmpl = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    if (!tmpl.includes("demo://resource/dynamic/text/{resourceId}")) fail("resources", `templates: ${tmpl}`);
    const d = await client.readResource({ uri: "demo://resource/dynamic/text/7" });
    if (!d.contents?.[0]?.text) fail("resources", `read of a templated URI: ${JSON.stringify(d).slice(0, 200)}`);
  });

  await step("prompts", async () => {
    const names = (await client.listPrompts()).prompts.map((p) => p.name);
    if (!names.includes("args-prompt")) fail("prompts", `prompts/list lacks args-prompt: ${names}`);
    const p = await client.getPrompt({ name: "args-prompt", arguments: { city: "Oslo" } });
    if (!JSON.stringify(p.messages).includes("Oslo")) fail("prompts", `args-prompt: ${JSON.stringify(p).slice(0, 200)}`);
  });

  await step("completions", async () => {
    const c = await client.complete({ ref: { type: "ref/prompt", name: "completable-prompt" }, argument: { name: "department", value: "E" } });
    if (!c.completion.values.includes("Engineering")) fail("completions", JSON.stringify(c));
  });

  await step("approval", async () => {
    const ok = await client.callTool({ name: "add_note", arguments: { text: "approve me" } });
    if (ok.isError) fail("approval", `approved add_note: ${JSON.stringify(ok)}`);
    const no = await client.callTool({ name: "add_note", arguments: { text: "refuse" } });
    if (!no.isError || !text(no).includes('"kind":"approval_denied"')) fail("approval", `declined add_note: ${JSON.stringify(no)}`);
    figures.elicitations = elicited.length;
    if (elicited.length !== 2) fail("approval", `the user was asked ${elicited.length} times, want 2: ${JSON.stringify(elicited)}`);
  });

  await step("task", async () => {
    const t0 = performance.now();
    const params = { name: "simulate-research-query", arguments: { topic: "gateways", ambiguous: false } };
    if (kind === "client") {
      // 2026-07-28 without the tasks extension: the task-only tool is
      // refused with -32021, as the upstream refuses it (endpoint.go).
      let code;
      try { await client.callTool(params, { timeout: 60000 }); } catch (e) { code = e?.code; }
      figures.taskMs = Math.round(performance.now() - t0);
      if (code !== -32021) fail("task", `without the tasks extension: code ${code}, want -32021`);
      return;
    }
    // sdk 1.x takes a result schema before the options.
    const res = await client.callTool(params, undefined, { timeout: 60000 });
    figures.taskMs = Math.round(performance.now() - t0);
    if (res.isError || !text(res).toLowerCase().includes("gateways")) fail("task", JSON.stringify(res).slice(0, 300));
  });

  await step("list_changed", async () => {
    const before = listChanged;
    const res = await client.callTool({ name: "grow", arguments: {} });
    if (res.isError) fail("list_changed", `grow: ${JSON.stringify(res)}`);
    const deadline = Date.now() + 20000;
    while (listChanged === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (listChanged === before) fail("list_changed", "no notifications/tools/list_changed within 20s of the upstream adding a tool");
  });

  // A task the client creates (the tasks extension, SEP-2663): 2.x has no
  // task runtime of its own; @modelcontextprotocol/ext-tasks drives it
  // over the raw dispatch the package asks of a 2026-07-28 host (plain
  // HTTP POSTs, one request each, as the stateless endpoint takes them).
  if (kind === "client") {
    await step("client task", async () => {
      const { pathToFileURL } = await import("node:url");
      const { createTaskSessionFromClient, resultFromTaskOutcome } = await import(
        pathToFileURL(join(process.env.NODE_MODULES, "@modelcontextprotocol/ext-tasks/dist/client/index.js")).href);
      const methods = [];
      const rawDispatch = async (request, options) => {
        methods.push(request.method);
        const headers = {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": request.method,
        };
        if (typeof request.params?.name === "string") headers["mcp-name"] = request.params.name;
        const r = await fetch(url, { method: "POST", headers, signal: options?.signal,
          body: JSON.stringify({ jsonrpc: "2.0", id: methods.length, ...request }) });
        let body = await r.text();
        if ((r.headers.get("content-type") || "").startsWith("text/event-stream")) {
          body = body.split("\n").filter((l) => l.startsWith("data:") && l.includes('"id"')).map((l) => l.slice(5)).pop() || "";
        }
        const msg = JSON.parse(body);
        return msg.error ? { kind: "error", error: msg.error } : { kind: "result", result: msg.result };
      };
      const session = createTaskSessionFromClient(client, {
        endpointId: "serve-both",
        rawDispatch,
        v2RequestFraming: { protocolVersion: "2026-07-28", clientInfo: { name: "ts-client", version: "2.0.0" }, clientCapabilities: { elicitation: { form: {} } } },
      });
      try {
        const execution = await session.callTool("simulate-research-query", { topic: "gateways", ambiguous: false });
        figures.clientTaskKind = execution.kind;
        if (execution.kind !== "task") fail("client task", `the call answered ${execution.kind}, want a task`);
        const statuses = [];
        const { outcome } = await execution.settle({ onEvent: (e) => { if (e.type === "task") statuses.push(e.task.status); } });
        figures.clientTaskStatuses = statuses;
        if (outcome.status !== "completed") fail("client task", `outcome ${JSON.stringify(outcome).slice(0, 300)}`);
        else {
          const res = resultFromTaskOutcome(outcome);
          if (res.isError || !text(res).toLowerCase().includes("gateways")) fail("client task", `result ${JSON.stringify(res).slice(0, 300)}`);
        }
        figures.clientTaskMethods = [...new Set(methods)];
        if (!methods.includes("tasks/get")) fail("client task", `never polled: ${methods}`);
      } finally {
        await session.close();
      }
    });
  }
}

await client.close().catch(() => {});
console.log(JSON.stringify({ errors, figures }));
process.exit(0);
