// wait.mjs: the official TypeScript client (@modelcontextprotocol/client
// 2.x, pinned to 2026-07-28: stateless, anonymous) waits for an operator's
// decision of its held call: its user, asked to wait, has the operator
// decide (APPROVALS, the agentadapter approvals command as a JSON array)
// and answers; the approved call runs, the denied one is approval_denied.
//
// usage: node wait.mjs URL
// env: NODE_MODULES, APPROVALS.
// Prints one JSON object: {"errors": [...], "figures": {...}}.
import { createRequire } from "node:module";
import { join } from "node:path";
import { execFileSync } from "node:child_process";

const require = createRequire(join(process.env.NODE_MODULES, "noop.js"));
const [url] = process.argv.slice(2);
const approvals = JSON.parse(process.env.APPROVALS);
const errors = [];
const figures = { waits: 0 };
const fail = (step, msg) => errors.push(`${step}: ${msg}`);
const text = (res) => (res.content || []).filter((c) => c.type === "text").map((c) => c.text).join("");

const { Client, StreamableHTTPClientTransport } = require("@modelcontextprotocol/client");
const client = new Client({ name: "ts-client", version: "2.0.0" }, {
  capabilities: { elicitation: { form: {} } },
  versionNegotiation: { mode: { pin: "2026-07-28" } },
});
let decision = [];
client.setRequestHandler("elicitation/create", async (req) => {
  const msg = req.params.message || "";
  const ticket = (msg.match(/tkt_[A-Za-z0-9_-]+/) || [])[0];
  if (!msg.includes("waiting for an operator") || !ticket) {
    fail("elicit", `not a wait question: ${msg}`);
    return { action: "decline" };
  }
  figures.waits++;
  execFileSync(approvals[0], [...approvals.slice(1), decision[0], ticket, ...decision.slice(1)], { stdio: "ignore" });
  return { action: "accept", content: {} };
});

try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  figures.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? null;
  decision = ["approve"];
  let res = await client.callTool({ name: "add_note", arguments: { text: "ts approved" } });
  if (res.isError || !text(res).includes("ts approved")) fail("approve", JSON.stringify(res));
  decision = ["deny", "--reason", "not from ts"];
  res = await client.callTool({ name: "add_note", arguments: { text: "ts denied" } });
  if (!res.isError || !text(res).includes("approval_denied") || !text(res).includes("not from ts")) fail("deny", JSON.stringify(res));
  await client.close();
} catch (e) {
  fail("run", `exception: ${(e && e.message) || e}`);
}
console.log(JSON.stringify({ errors, figures }));
