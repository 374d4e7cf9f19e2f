// Package einoadapter runs agentadapter tools inside Eino
// (github.com/cloudwego/eino): registry specs become native eino tools whose
// calls go through an [adapter.Executor]. What every integration shares
// (which errors the model reads, run scopes, the test kit) is package
// [kit]'s; this package adds eino's calling convention.
//
// ExampleTools wires a react agent: the tools of [Tools], [Middleware]
// for tools built elsewhere, [UnknownToolsHandler] and a [RunScope].
//
// # Tools
//
// [Tool] makes a tool.InvokableTool (the model reads adapter.Render's
// text), a tool.EnhancedInvokableTool for multimodal specs
// ([TagMultimodal], [Options.Multimodal]; content reaches the model as
// parts), or, for a streaming spec, also a tool.StreamableTool. The call id
// is eino's tool call id. [Info] builds the schema.ToolInfo once; [Schema]
// converts the input schema without losing a keyword.
//
// # Errors and approval
//
// Eino aborts the graph on a tool's error, so model-facing failures come
// back as their payload with a nil error ([kit.Triage]); faults stay Go
// errors. [Middleware] applies the same policy to eino tools built
// elsewhere. A call held for approval interrupts the graph with
// tool.StatefulInterrupt, its info a [*Pending] ([PendingFromError],
// [PendingFrom]): approve the ticket and resume from the checkpoint
// (compose.WithCheckPointStore; adk.Runner.ResumeWithParams); the resumed
// call presents the ticket, so the approved arguments run once. The react
// agent takes no checkpoint store: run agent.ExportGraph() as a node of a
// graph compiled with one (see examples/eino), or set
// [Options.PendingAsPayload].
//
// # Run scopes and per-call options
//
// A tool does not see where a run starts: pass the callback handler
// [RunScope] to the run, or open a scope with adapter.WithRun. Per-call
// knobs ([WithTimeout], [WithApproval], [WithExecutor]) travel through
// compose.WithToolOption or react.WithToolOptions.
package einoadapter
