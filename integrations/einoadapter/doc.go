// Package einoadapter runs agentadapter tools inside Eino
// (github.com/cloudwego/eino): registry specs become native eino tools whose
// calls go through an [adapter.Executor], with errors the model can read and
// approval as an eino interrupt.
//
//	tools, err := einoadapter.Tools(reg, exec, nil)
//	if err != nil {
//		log.Fatal(err)
//	}
//	a, err := react.NewAgent(ctx, &react.AgentConfig{
//		ToolCallingModel: chatModel,
//		ToolsConfig: compose.ToolsNodeConfig{
//			Tools:               tools,
//			ToolCallMiddlewares: []compose.ToolMiddleware{einoadapter.Middleware()},
//		},
//	})
//	if err != nil {
//		log.Fatal(err)
//	}
//	msg, err := a.Generate(ctx, msgs,
//		agent.WithComposeOptions(compose.WithCallbacks(einoadapter.RunScope(nil))))
//
// # Tools
//
// [Tool] turns one spec into a tool.InvokableTool (the model reads the
// result's text) or, for specs whose results carry images, audio or files,
// a tool.EnhancedInvokableTool (the content reaches the model as parts). A
// spec declares that with the tag [TagMultimodal], or the caller decides
// with [Options.Multimodal]. [Tools] exports every spec of a registry that
// targets eino. Each call goes to the executor with eino's tool call id as
// the call id; the executor is required (nil is an error at construction).
// A made-up tool name would end eino's run: set
// ToolsNodeConfig.UnknownToolsHandler to [UnknownToolsHandler](exec) and
// the model reads the not_found payload instead (and the call has a record). Results read to the model as
// adapter.Render writes them (multimodal tools: adapter.RenderParts).
//
// [Info] builds the schema.ToolInfo once per tool. [Schema] converts the
// input schema without losing keywords: draft-07 "definitions" become
// "$defs" with their "$ref"s rewritten, and keywords eino's schema type has
// no field for are kept in its Extras, so the JSON sent to a model is the
// JSON of the spec. Extra carries the title, annotations, source, tags,
// meta and output schema (see ExtraTitle and friends).
//
// # Errors
//
// Eino aborts the whole graph when a tool returns an error, so the tools
// return model-facing failures as a result: args_invalid, tool_error,
// approval_denied, guardrail_blocked, run_limit_exceeded, timeout and
// not_found come back as the payload {"error":{"kind":...,"message":...}}
// (see adapter.ModelPayload) with a nil error, and the agent keeps going.
// Faults of kinds connection and internal stay Go errors and end the run.
// [Middleware] applies the same policy to eino tools built elsewhere.
//
// # Approval
//
// A call held for approval (approval_pending, from an adapter.Deferred
// port) interrupts the graph with tool.StatefulInterrupt; its info is a
// [*Pending] carrying the ticket ([PendingFromError] lists them with their
// interrupt ids; [PendingFrom] reads an ADK event's interrupt contexts).
// Approve the ticket, then resume the graph from its checkpoint
// (compose.WithCheckPointStore at compile time, compose.WithCheckPointID and
// compose.Resume at run time; with ADK, adk.Runner.ResumeWithParams). The
// react agent takes no checkpoint store: run agent.ExportGraph() as a node
// of a graph compiled with one (see the example in examples/eino). The resumed
// call presents the ticket, so exactly the approved arguments run, once:
// tickets are one-use, and resuming the same checkpoint again gets a new
// ticket and a new interrupt instead of a second run. A denied ticket comes
// back to the model as an approval_denied payload. In graphs without a
// checkpoint store, set [Options.PendingAsPayload] to hand the model a
// pending payload instead.
//
// # Run scopes and per-call options
//
// A tool does not see where an agent run starts, so run scopes (run limits,
// the ledger's run id) come from the caller: pass the callback handler
// [RunScope] to the run, or open one with adapter.WithRun on its ctx.
// Per-call knobs travel as tool options ([WithTimeout], [WithApproval],
// [WithExecutor]) through compose.WithToolOption or react.WithToolOptions.
//
// Specs have no streaming form, so no tool here is a tool.StreamableTool;
// eino streams an invokable tool's result as one chunk.
package einoadapter
